; Lowered __cyg_profile_func_enter/exit calls (Clang -O0, Flang): the
; function's own hooks become its region; hooks inlined from another function
; become that function's region 1:1; nothing of the hooks is left.
; RUN: %opt -load-pass-plugin %plugin -passes=scopeprof,verify -sp-inline-check=false -S %s | FileCheck %s
; A function the filter excludes loses its inlined copies too.
; RUN: printf 'exclude function callee\n' > %t.filter
; RUN: %opt -load-pass-plugin %plugin -passes=scopeprof,verify -sp-inline-check=false -sp-filter=%t.filter -S %s | FileCheck %s --check-prefix=FILT

; CHECK-NOT: __cyg_profile_func
; CHECK-DAG: [[CNAME:@.sp.str[.0-9]*]] = private unnamed_addr constant [7 x i8] c"callee\00"
; CHECK-DAG: [[SRC:@.sp.str[.0-9]*]] = private unnamed_addr constant [8 x i8] c"hooks.c\00"
; CHECK-DAG: @sp.site.callee = private global { i32, i32, ptr, ptr } { i32 -1, i32 -1, ptr [[CNAME]], ptr [[SRC]] }
; CHECK-DAG: @sp.site.caller = private global { i32, i32, ptr, ptr } { i32 -1, i32 -1, ptr {{@.sp.str[.0-9]*}}, ptr [[SRC]] }

source_filename = "hooks.c"

; CHECK-LABEL: define i32 @callee(
; CHECK-NEXT: call void @sp__enter(ptr @sp.site.callee)
; CHECK-NEXT: %r = add i32 %x, 1
; CHECK-NEXT: call void @sp__exit(ptr @sp.site.callee)
; CHECK-NEXT: ret i32 %r
define i32 @callee(i32 %x) {
  %ra = call ptr @llvm.returnaddress(i32 0)
  call void @__cyg_profile_func_enter(ptr @callee, ptr %ra)
  %r = add i32 %x, 1
  %ra2 = call ptr @llvm.returnaddress(i32 0)
  call void @__cyg_profile_func_exit(ptr @callee, ptr %ra2)
  ret i32 %r
}

; An inlined copy of callee's hooks stays callee's region, once.
; CHECK-LABEL: define i32 @caller(
; CHECK-NEXT: call void @sp__enter(ptr @sp.site.caller)
; CHECK-NEXT: call void @sp__enter(ptr @sp.site.callee)
; CHECK-NEXT: %r = add i32 %x, 1
; CHECK-NEXT: call void @sp__exit(ptr @sp.site.callee)
; CHECK-NEXT: call void @sp__exit(ptr @sp.site.caller)
; CHECK-NEXT: ret i32 %r
define i32 @caller(i32 %x) {
  %ra = call ptr @llvm.returnaddress(i32 0)
  call void @__cyg_profile_func_enter(ptr @caller, ptr %ra)
  call void @__cyg_profile_func_enter(ptr @callee, ptr %ra)
  %r = add i32 %x, 1
  call void @__cyg_profile_func_exit(ptr @callee, ptr %ra)
  call void @__cyg_profile_func_exit(ptr @caller, ptr %ra)
  ret i32 %r
}

; FILT-NOT: @sp.site.callee
; FILT-LABEL: define i32 @callee(
; FILT-NEXT: %r = add i32 %x, 1
; FILT-NEXT: ret i32 %r
; FILT-LABEL: define i32 @caller(
; FILT-NEXT: call void @sp__enter(ptr @sp.site.caller)
; FILT-NEXT: %r = add i32 %x, 1
; FILT-NEXT: call void @sp__exit(ptr @sp.site.caller)
; FILT-NEXT: ret i32 %r
; FILT-NOT: __cyg_profile_func

; CHECK-NOT: __cyg_profile_func
declare void @__cyg_profile_func_enter(ptr, ptr)
declare void @__cyg_profile_func_exit(ptr, ptr)
declare ptr @llvm.returnaddress(i32)
