; The sp_active_ and excluded-site test around each call: the entry test goes after the
; entry block's allocas (they must stay static), the exit test before a
; musttail call, and the EH cleanup's exit behind its own test.
; RUN: %opt -load-pass-plugin %plugin -passes=scopeprof,verify -S %s | FileCheck %s
; RUN: %opt -load-pass-plugin %plugin -passes=scopeprof,verify -S %s -sp-inline-check=false | FileCheck %s --check-prefix=OFF

source_filename = "guard.cpp"

; CHECK: @sp_active_ = weak global i32 0
; CHECK-LABEL: define i32 @allocas(
; CHECK-NEXT: %a = alloca i32
; CHECK-NEXT: %b = alloca i64
; CHECK-NEXT: %[[A:sp.active[0-9]*]] = load i32, ptr @sp_active_
; CHECK-NEXT: %[[CN:[0-9]+]] = icmp ne i32 %[[A]], 0
; CHECK-NEXT: %[[CI:sp.id[0-9]*]] = load atomic i32, ptr @sp.site.allocas monotonic, align 4
; CHECK-NEXT: %[[CX:[0-9]+]] = icmp ne i32 %[[CI]], -2
; CHECK-NEXT: %[[C:[0-9]+]] = and i1 %[[CN]], %[[CX]]
; CHECK-NEXT: br i1 %[[C]], label %[[ON:sp.on[0-9]*]], label %[[REST:[0-9]+]]
; CHECK: [[ON]]:
; CHECK-NEXT: call void @sp__enter(ptr @sp.site.allocas)
; CHECK-NEXT: br label %[[REST]]
; CHECK: [[REST]]:
; CHECK-NEXT: store i32 %x, ptr %a
; OFF-LABEL: define i32 @allocas(
; OFF-NEXT: %a = alloca i32
; OFF-NEXT: %b = alloca i64
; OFF-NEXT: call void @sp__enter(ptr @sp.site.allocas)
; OFF-NEXT: store i32 %x, ptr %a
; OFF-NOT: sp_active_
define i32 @allocas(i32 %x) "instrument-function-entry"="__cyg_profile_func_enter" "instrument-function-exit"="__cyg_profile_func_exit" {
  %a = alloca i32
  %b = alloca i64
  store i32 %x, ptr %a
  %v = load i32, ptr %a
  ret i32 %v
}

; CHECK-LABEL: define i32 @tail(
; CHECK: call void @sp__exit(ptr @sp.site.tail)
; CHECK-NEXT: br label %[[T:[0-9]+]]
; CHECK: [[T]]:
; CHECK-NEXT: %r = musttail call i32 @target(i32 %x)
; CHECK-NEXT: ret i32 %r
define i32 @tail(i32 %x) "instrument-function-entry"="__cyg_profile_func_enter" "instrument-function-exit"="__cyg_profile_func_exit" {
  %r = musttail call i32 @target(i32 %x)
  ret i32 %r
}

; CHECK-LABEL: define i32 @eh(
; CHECK: invoke i32 @target(i32 %x)
; CHECK-NEXT: to label %{{.*}} unwind label %sp.cleanup
; CHECK: sp.cleanup:
; CHECK-NEXT: %[[LP:[0-9]+]] = landingpad { ptr, i32 }
; CHECK-NEXT: cleanup
; CHECK-NEXT: %[[EA:sp.active[0-9]*]] = load i32, ptr @sp_active_
; CHECK-NEXT: %[[ECN:[0-9]+]] = icmp ne i32 %[[EA]], 0
; CHECK-NEXT: %[[ECI:sp.id[0-9]*]] = load atomic i32, ptr @sp.site.eh monotonic, align 4
; CHECK-NEXT: %[[ECX:[0-9]+]] = icmp ne i32 %[[ECI]], -2
; CHECK-NEXT: %[[EC:[0-9]+]] = and i1 %[[ECN]], %[[ECX]]
; CHECK-NEXT: br i1 %[[EC]], label %[[EON:sp.on[0-9]*]], label %[[ER:[0-9]+]]
; CHECK: [[EON]]:
; CHECK-NEXT: call void @sp__exit(ptr @sp.site.eh)
; CHECK: [[ER]]:
; CHECK-NEXT: resume { ptr, i32 } %[[LP]]
define i32 @eh(i32 %x) #0 personality ptr @__gxx_personality_v0 {
  %r = call i32 @target(i32 %x)
  ret i32 %r
}

declare i32 @target(i32)
declare i32 @__gxx_personality_v0(...)
attributes #0 = { "instrument-function-entry"="__cyg_profile_func_enter" "instrument-function-exit"="__cyg_profile_func_exit" }
