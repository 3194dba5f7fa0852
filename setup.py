"""`pip install .` for the pyverify Python module (offline, Debian toolchain).

    python3.11 -m pip install --no-build-isolation --no-index .

builds the _pyverify and _pyverify_prove extensions with CMake (the same CMakeLists.txt as the
rest of the project, tests and benchmarks off) for the interpreter running
pip, and installs the `pyverify` package from python/pyverify. The build
needs the packages scripts/install-deps.sh installs; nothing is downloaded.
See docs/python.md.
"""
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = PIP_BUILD_DIR
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        # PYVERIFY_PIP_CMAKE_ARGS: more -D options for the configure (the
        # pip-install ctest compiles at -O0: it tests installing, not speed).
        extra = shlex.split(os.environ.get("PYVERIFY_PIP_CMAKE_ARGS", ""))
        subprocess.check_call(
            ["cmake", "-S", ROOT, "-B", build_dir, *generator,
             "-DCMAKE_BUILD_TYPE=Release",
             "-DPython3_EXECUTABLE=" + sys.executable,
             "-DPYVERIFY_BUILD_TESTS=OFF", "-DPYVERIFY_BUILD_BENCHMARKS=OFF",
             "-DPYVERIFY_BUILD_PYTHON=ON", *extra])
        target_name = ext.name.rsplit(".", 1)[1]
        subprocess.check_call(
            ["cmake", "--build", build_dir, "--target", target_name,
             "-j", str(os.cpu_count() or 2)])
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built = os.path.join(build_dir, "python", "pyverify",
                             target_name + suffix)
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built, target)


# setuptools' own build tree (build/lib.*, build/bdist.*) goes next to the
# CMake one, never into ./build: that is the project's CMake build directory,
# which ctest uses while the pip-install test runs.
PIP_BUILD_DIR = os.environ.get("PYVERIFY_PIP_BUILD_DIR",
                               os.path.join(ROOT, ".pip-build"))

setup(
    name="pyverify",
    version="0.1.0",
    description="Static verifier for CPython 3.11 bytecode",
    python_requires="~=3.11.0",
    packages=["pyverify"],
    package_dir={"": "python"},
    ext_modules=[CMakeExtension("pyverify._pyverify"),
                 CMakeExtension("pyverify._pyverify_prove")],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": os.path.join(PIP_BUILD_DIR,
                                                  "setuptools")}},
    zip_safe=False,
)
