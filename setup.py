# setup.py - pyproject.toml's build, plus the step a pure-Python package
# cannot declare: the runtime's sources (scripts/amalgamate.py) and the
# Fortran module copied into the package's c/ and fortran/ as it is built.
import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def version():
    ns = {}
    with open(os.path.join(HERE, "python", "scopeprof", "__init__.py")) as f:
        for line in f:
            if line.startswith("__version__"):
                exec(line, ns)
    return ns["__version__"]


class BuildWithSources(build_py):
    def run(self):
        super().run()
        pkg = os.path.join(self.build_lib, "scopeprof")
        subprocess.check_call([sys.executable,
                               os.path.join(HERE, "scripts", "amalgamate.py"),
                               HERE, os.path.join(pkg, "c"), version()])
        os.makedirs(os.path.join(pkg, "fortran"), exist_ok=True)
        shutil.copyfile(os.path.join(HERE, "fortran", "scope_profiler.f90"),
                        os.path.join(pkg, "fortran", "scope_profiler.f90"))


# setuptools' own build directory inside build/, which is the CMake build's
# too: one place to delete, nothing else in the source tree.
setup(cmdclass={"build_py": BuildWithSources},
      options={"build": {"build_base": os.path.join("build", "setuptools")}})
