; Skips naked and available_externally functions, closes the region before a
; musttail call, and is idempotent: a second run adds nothing.
; RUN: %opt -load-pass-plugin %plugin -passes=scopeprof,verify -sp-inline-check=false -S %s | sed -e 's/ *;.*$//' > %t1.ll
; RUN: FileCheck %s < %t1.ll
; RUN: %opt -load-pass-plugin %plugin -passes=scopeprof,verify -sp-inline-check=false -S %t1.ll | sed -e 's/ *;.*$//' > %t2.ll
; RUN: diff %t1.ll %t2.ll
; With the sp_active_ test (the default) too:
; RUN: %opt -load-pass-plugin %plugin -passes=scopeprof,verify -S %s | sed -e 's/ *;.*$//' > %t3.ll
; RUN: %opt -load-pass-plugin %plugin -passes=scopeprof,verify -S %t3.ll | sed -e 's/ *;.*$//' > %t4.ll
; RUN: diff %t3.ll %t4.ll
; RUN: %opt -load-pass-plugin %plugin -passes=scopeprof,scopeprof,verify -sp-inline-check=false -S %s | FileCheck %s
; RUN: %opt -load-pass-plugin %plugin -passes=scopeprof -sp-verbose -disable-output %s 2>&1 | FileCheck %s --check-prefix=WHY

source_filename = "skip.c"

; CHECK-LABEL: define i32 @tail(
; CHECK-NEXT: call void @sp__enter(ptr @sp.site.tail)
; CHECK-NEXT: call void @sp__exit(ptr @sp.site.tail)
; CHECK-NEXT: %r = musttail call i32 @target(i32 %x)
; CHECK-NEXT: ret i32 %r
define i32 @tail(i32 %x) "instrument-function-entry"="__cyg_profile_func_enter" "instrument-function-exit"="__cyg_profile_func_exit" {
  %r = musttail call i32 @target(i32 %x)
  ret i32 %r
}

; CHECK-LABEL: define i32 @naked(
; CHECK-NOT: sp__
; CHECK: ret
define i32 @naked(i32 %x) naked "instrument-function-entry"="__cyg_profile_func_enter" "instrument-function-exit"="__cyg_profile_func_exit" {
  call void asm sideeffect "ret", ""()
  unreachable
}

; CHECK-LABEL: define available_externally i32 @ext(
; CHECK-NOT: sp__
; CHECK: ret
define available_externally i32 @ext(i32 %x) "instrument-function-entry"="__cyg_profile_func_enter" "instrument-function-exit"="__cyg_profile_func_exit" {
  ret i32 %x
}

; -pg's mcount attribute is not ours: left alone.
; CHECK-LABEL: define i32 @pg(
; CHECK-NOT: sp__
; CHECK: ret
define i32 @pg(i32 %x) "instrument-function-entry-inlined"="mcount" {
  ret i32 %x
}

declare i32 @target(i32)

; The consumed attributes are gone; only the idempotence mark remains.
; CHECK-NOT: "instrument-function-entry"=
; CHECK-NOT: "instrument-function-exit"=
; CHECK-DAG: "instrument-function-entry-inlined"="mcount"
; CHECK-DAG: "scopeprof-instrumented"

; WHY-DAG: instrumented 'tail' [skip.c:-1] (-finstrument-functions; 1 exit(s), 0 call(s) given an EH cleanup)
; WHY-DAG: skipped 'naked': naked: {{.*}}
; WHY-DAG: skipped 'ext': available_externally: {{.*}}
