"""ctest python-pip-install: `pip install .` from the source tree works
offline against the Debian toolchain, and the installed module works.

Creates a venv (system site packages, so Debian's pip/setuptools/wheel and
pytest are used; nothing is downloaded), runs

    <venv>/bin/python -m pip install --no-build-isolation --no-index --no-deps SRC

with the CMake build in a temporary directory, then imports pyverify from
another directory, verifies a clean and a broken code object, and proves a
bundle with only an original (the prover is the second extension module,
_pyverify_prove, which must be installed too).
"""
import argparse
import os
import subprocess
import sys
import tempfile

CHECK = r'''
import os, sys
import pyverify
assert os.path.realpath(pyverify.__file__).startswith(os.path.realpath(sys.prefix)), pyverify.__file__

def f(cm, g):
    with cm as x:
        return g(x) + 1

assert pyverify.verify(f).ok
broken = f.__code__.replace(co_stacksize=1)
try:
    pyverify.check(broken)
except pyverify.VerificationError as e:
    assert "[stacksize-too-small]" in str(e), str(e)
else:
    raise SystemExit("broken code passed")
# exactly-once of a balanced original: proved, through _pyverify_prove.
r = pyverify.prove_bundle(original=f, break_offset=0, resumes=[])
assert len(r["results"]) >= 1 and r["summary"]["proved"] == len(r["results"]), r
assert "_pyverify_prove" in sys.modules["pyverify._pyverify_prove"].__name__
print("installed pyverify OK:", pyverify.__file__)
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", default="/usr/bin/python3.11")
    ap.add_argument("source")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="pyverify-pip-") as tmp:
        venv = os.path.join(tmp, "venv")
        subprocess.check_call([args.python, "-m", "venv", "--without-pip",
                               "--system-site-packages", venv])
        py = os.path.join(venv, "bin", "python")
        # -O0: this test is about installing; an optimised build of the
        # whole library would be a fifth of make test's time on 2 cores.
        env = dict(os.environ, PYVERIFY_PIP_BUILD_DIR=os.path.join(tmp, "cmake"),
                   PYVERIFY_PIP_CMAKE_ARGS="'-DCMAKE_CXX_FLAGS_RELEASE=-O0 -DNDEBUG'",
                   PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
        env.pop("PYTHONPATH", None)
        subprocess.check_call([py, "-m", "pip", "install", "-q",
                               "--no-build-isolation", "--no-index",
                               "--no-deps", args.source], env=env)
        out = subprocess.run([py, "-c", CHECK], cwd=tmp, env=env,
                             capture_output=True, text=True)
        sys.stdout.write(out.stdout)
        sys.stderr.write(out.stderr)
        return out.returncode


if __name__ == "__main__":
    sys.exit(main())
