# lit.cfg.py - ScopeProf plugin tests: substitutions and features.
import os
import shutil

import lit.formats

config.name = "ScopeProf"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".ll", ".c", ".cpp", ".f90", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.sp_obj_root

tools = config.llvm_tools_dir
config.environment["PATH"] = os.pathsep.join(
    [tools, config.environment.get("PATH", "")])
# Keep the user's settings out of the tests.
for var in ("SP_FILTER", "SP_OUTPUT", "SP_FORMAT", "SP_ENABLE", "SP_RANK"):
    config.environment.pop(var, None)

config.available_features.add("llvm-%d" % config.llvm_version_major)

def tool(name):
    return os.path.join(tools, name)

config.substitutions.append(("%clangxx", tool("clang++")))
config.substitutions.append(("%clang", tool("clang")))
config.substitutions.append(("%flang", tool("flang")))
config.substitutions.append(("%opt", tool("opt")))
# Clang 19 parses -mllvm before it loads -fpass-plugin plugins; loading the
# plugin also as a Clang plugin registers -sp-filter/-sp-verbose in time.
config.substitutions.append(
    ("%load_plugin", "-Xclang -load -Xclang {0} -fpass-plugin={0}".format(
        config.sp_plugin)))
config.substitutions.append(("%plugin", config.sp_plugin))
config.substitutions.append(("%runtime_include", config.sp_runtime_include))
config.substitutions.append(("%runtime_lib", config.sp_runtime_lib_dir))
config.substitutions.append(("%sp_dump", config.sp_dump))
# Linking the runtime: the shared library, found again at run time.
config.substitutions.append(
    ("%sp_link", "-L%s -lscopeprof -Wl,-rpath,%s"
     % (config.sp_runtime_lib_dir, config.sp_runtime_lib_dir)))

# Flang got -finstrument-functions in LLVM 22 (flang-19 lacks it).
if config.llvm_version_major >= 22 and os.path.exists(tool("flang")):
    config.available_features.add("flang-instrument")
# The clang of another LLVM than the plugin's (wrong-llvm.test).
if config.sp_other_clang:
    config.available_features.add("other-clang")
    config.substitutions.append(("%other_clang", config.sp_other_clang))
if config.sp_have_runtime:
    config.available_features.add("runtime")
