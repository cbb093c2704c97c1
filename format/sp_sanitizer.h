/* sp_sanitizer.h - SP_SANITIZED: 1 when this file is compiled with a
 * sanitizer (ASan, TSan, MSan, HWASan; UBSan where the compiler says so). */
#ifndef SP_SANITIZER_H
#define SP_SANITIZER_H

/* Code that runs before the sanitizer's runtime is initialised, such as the
 * ifunc resolver of target_clones (run while the dynamic loader relocates,
 * before any constructor), crashes when instrumented: test SP_SANITIZED to
 * leave such constructs out. GCC (before 14) says so only through the
 * __SANITIZE_*__ macros, and has none for UBSan; Clang through
 * __has_feature, which must be tested in a nested #if. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) ||           \
    defined(__SANITIZE_HWADDRESS__)
#define SP_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||     \
    __has_feature(memory_sanitizer) || __has_feature(hwaddress_sanitizer) ||   \
    __has_feature(dataflow_sanitizer) ||                                       \
    __has_feature(undefined_behavior_sanitizer)
#define SP_SANITIZED 1
#endif
#endif
#ifndef SP_SANITIZED
#define SP_SANITIZED 0
#endif

#endif
