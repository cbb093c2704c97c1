; A hook inlined from another function and replaced by that function's
; region call sits behind the sp_active_ test, as the function's own calls
; do; the test keeps the hook's debug location.
; RUN: %opt -load-pass-plugin %plugin -passes=scopeprof,verify -S %s | FileCheck %s

source_filename = "hooks.c"

; CHECK-NOT: __cyg_profile_func
; CHECK: @sp_active_ = weak global i32 0

; CHECK-LABEL: define i32 @caller(
; The caller's own entry, guarded.
; CHECK: call void @sp__enter(ptr @sp.site.caller)
; The inlined enter hook of callee: load, test, guarded call, all at the
; hook's location.
; CHECK: %[[A:sp.active[0-9]*]] = load i32, ptr @sp_active_, align 4, !dbg ![[LOC:[0-9]+]]
; CHECK-NEXT: %[[CN:[0-9]+]] = icmp ne i32 %[[A]], 0, !dbg ![[LOC]]
; CHECK-NEXT: %[[CI:sp.id[0-9]*]] = load atomic i32, ptr @sp.site.callee monotonic, align 4, !dbg ![[LOC]]
; CHECK-NEXT: %[[CX:[0-9]+]] = icmp ne i32 %[[CI]], -2, !dbg ![[LOC]]
; CHECK-NEXT: %[[C:[0-9]+]] = and i1 %[[CN]], %[[CX]], !dbg ![[LOC]]
; CHECK-NEXT: br i1 %[[C]], label %[[ON:sp.on[0-9]*]], label %[[REST:[0-9]+]], !dbg ![[LOC]]
; CHECK: [[ON]]:
; CHECK-NEXT: call void @sp__enter(ptr @sp.site.callee), !dbg ![[LOC]]
; CHECK-NEXT: br label %[[REST]]
; CHECK: [[REST]]:
; CHECK-NEXT: %r = add i32 %x, 1
; The inlined exit hook, guarded the same way.
; CHECK-NEXT: %[[XA:sp.active[0-9]*]] = load i32, ptr @sp_active_, align 4, !dbg ![[XLOC:[0-9]+]]
; CHECK-NEXT: %[[XCN:[0-9]+]] = icmp ne i32 %[[XA]], 0, !dbg ![[XLOC]]
; CHECK-NEXT: %[[XCI:sp.id[0-9]*]] = load atomic i32, ptr @sp.site.callee monotonic, align 4, !dbg ![[XLOC]]
; CHECK-NEXT: %[[XCX:[0-9]+]] = icmp ne i32 %[[XCI]], -2, !dbg ![[XLOC]]
; CHECK-NEXT: %[[XC:[0-9]+]] = and i1 %[[XCN]], %[[XCX]], !dbg ![[XLOC]]
; CHECK-NEXT: br i1 %[[XC]], label %[[XON:sp.on[0-9]*]], label %[[XREST:[0-9]+]], !dbg ![[XLOC]]
; CHECK: [[XON]]:
; CHECK-NEXT: call void @sp__exit(ptr @sp.site.callee), !dbg ![[XLOC]]
; CHECK-NEXT: br label %[[XREST]]
; CHECK: [[XREST]]:
; CHECK: call void @sp__exit(ptr @sp.site.caller)
; CHECK: ret i32 %r
; CHECK-NOT: __cyg_profile_func
; CHECK-DAG: ![[LOC]] = !DILocation(line: 7,
; CHECK-DAG: ![[XLOC]] = !DILocation(line: 8,
define i32 @caller(i32 %x) !dbg !5 {
  %ra = call ptr @llvm.returnaddress(i32 0)
  call void @__cyg_profile_func_enter(ptr @caller, ptr %ra), !dbg !8
  call void @__cyg_profile_func_enter(ptr @callee, ptr %ra), !dbg !9
  %r = add i32 %x, 1, !dbg !9
  call void @__cyg_profile_func_exit(ptr @callee, ptr %ra), !dbg !10
  call void @__cyg_profile_func_exit(ptr @caller, ptr %ra), !dbg !11
  ret i32 %r, !dbg !11
}

declare i32 @callee(i32)
declare void @__cyg_profile_func_enter(ptr, ptr)
declare void @__cyg_profile_func_exit(ptr, ptr)
declare ptr @llvm.returnaddress(i32)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "clang", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "hooks.c", directory: "/tmp")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = distinct !DISubprogram(name: "caller", scope: !1, file: !1, line: 5, type: !6, scopeLine: 6, spFlags: DISPFlagDefinition, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{null}
!8 = !DILocation(line: 6, column: 1, scope: !5)
!9 = !DILocation(line: 7, column: 3, scope: !5)
!10 = !DILocation(line: 8, column: 3, scope: !5)
!11 = !DILocation(line: 9, column: 1, scope: !5)
