# Cross build for aarch64 Linux with Debian's cross GCC
# (gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu; C library in
# /usr/aarch64-linux-gnu) and arm64 libraries from Debian multiarch
# (libcmocka-dev:arm64 in /usr/lib/aarch64-linux-gnu):
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# With SP_CROSS_CLANG=clang-22 (and clang++-22) instead of GCC, the same
# target through --target=aarch64-linux-gnu. Tests run under qemu-aarch64
# when it is installed (Debian: qemu-user). scripts/test_aarch64.sh uses it.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(SP_CROSS_TRIPLE aarch64-linux-gnu)
set(SP_CROSS_SYSROOT /usr/aarch64-linux-gnu)

# try_compile re-reads this file in a fresh project: pass the choice on.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES SP_CROSS_CLANG)
if(SP_CROSS_CLANG)
  set(CMAKE_C_COMPILER ${SP_CROSS_CLANG})
  string(REGEX REPLACE "clang(-[0-9]+)?$" "clang++\\1" _sp_cxx "${SP_CROSS_CLANG}")
  set(CMAKE_CXX_COMPILER ${_sp_cxx})
  set(CMAKE_C_COMPILER_TARGET ${SP_CROSS_TRIPLE})
  set(CMAKE_CXX_COMPILER_TARGET ${SP_CROSS_TRIPLE})
  # Clang finds the cross GCC's files (/usr/lib/gcc-cross/aarch64-linux-gnu,
  # the sysroot) and linker (aarch64-linux-gnu-ld) by itself.
else()
  set(CMAKE_C_COMPILER ${SP_CROSS_TRIPLE}-gcc)
  set(CMAKE_CXX_COMPILER ${SP_CROSS_TRIPLE}-g++)
endif()

# Libraries and headers for the target, never the host's; programs (the
# build's tools) from the host.
set(CMAKE_FIND_ROOT_PATH ${SP_CROSS_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)

# qemu-aarch64 runs a program with one C library: Debian's arm64 one when
# multiarch has installed it (libcmocka0:arm64 depends on it), else the
# cross sysroot's. Not both: -L /usr/aarch64-linux-gnu with the multiarch
# one installed loads the sysroot's ld.so (2.36-8cross1) and the multiarch
# libc.so.6 (2.36-9+deb12u14), and pthread_create hangs.
find_program(SP_QEMU_AARCH64 qemu-aarch64)
if(SP_QEMU_AARCH64)
  if(EXISTS /lib/ld-linux-aarch64.so.1)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${SP_QEMU_AARCH64} -L /)
  else()
    set(CMAKE_CROSSCOMPILING_EMULATOR ${SP_QEMU_AARCH64} -L ${SP_CROSS_SYSROOT})
  endif()
endif()
