"""ctest python-pip-install: `pip install .` from the source tree, offline and
without setuptools, into a fresh venv per interpreter (3.11, 3.12, 3.13: each
--python given), and the installed package works there.

Per interpreter:
  * a venv without pip and without system site packages (so no setuptools
    and no wheel: asserted), filled by that interpreter's own pip through
    `pip --python <venv>`:
        <python> -m pip --python <venv>/bin/python install --no-index
            --no-deps [--no-build-isolation] SRC
    alternately with and without build isolation (the in-tree backend
    requires nothing, so isolation downloads nothing);
  * the last interpreter's install builds from scratch (at -O0, in a
    temporary CMake build directory: the library, the CLI and that
    interpreter's modules); with --prebuilt DIR the others pack what the
    project's build DIR compiled for them (PYVERIFY_PIP_PREBUILT: no CMake
    run), without it they share the same build directory (their two modules
    compiled each). With --source-build=plan (how make test runs it: a
    build of the library is 250 CPU-s, a tenth of make test on 2 cores) the
    last packs the prebuilt files too, and its from-scratch build is only
    configured in a new directory and dry-run by Ninja (the targets exist,
    the build graph is complete);
  * in the venv: `import pyverify` from site-packages, verify() and check()
    on a clean and a broken code object, prove_bundle() (the second module),
    the dist-info (version, the pytest11 entry point, the .pth file when the
    source has one);
  * <venv>/bin/pyverify: --version, and `check` on a clean and a broken .pyc
    the venv's interpreter wrote (its bytecode version); no RUNPATH/RPATH
    into the build or source tree;
  * for the last interpreter, `pip wheel .` and the wheel: its tag is
    the one packaging.tags computes for the interpreter (the plain
    platform, no manylinux claim), RECORD's hashes and sizes match;
  * pytest in the venv with the plugin loaded from its entry point (no -p;
    for the last interpreter with `-p pyverify.pytest_plugin` too): the
    fixture, and
    --pyverify-modules failing the session on a broken module. pytest is the
    host's (Debian's pure-Python pytest and its dependencies, linked into a
    directory the venv's .pth adds: pyenv's 3.12/3.13 have no pytest and
    nothing is downloaded).
Prints the seconds each install took.
"""
import argparse
import importlib.util
import os
import shlex
import subprocess
import sys
import tempfile
import time

CHECK = r'''
import importlib.metadata as md, os, sys
import pyverify
assert os.path.realpath(pyverify.__file__).startswith(os.path.realpath(sys.prefix)), pyverify.__file__
assert md.version("pyverify") == pyverify.__version__, (md.version("pyverify"), pyverify.__version__)
eps = [e for e in md.entry_points(group="pytest11") if e.value == "pyverify.pytest_plugin"]
assert len(eps) == 1, md.entry_points(group="pytest11")
requires = md.metadata("pyverify")["Requires-Python"]
assert requires == ">=3.11,<3.14", requires
files = {str(f) for f in md.files("pyverify")}
pth = os.environ["EXPECT_PTH"]
assert (not pth) == ("pyverify_dynamo.pth" not in files), (pth, sorted(files))

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
# .pyc files for the CLI, in this interpreter's bytecode.
import importlib.util, marshal
def write_pyc(path, code):
    with open(path, "wb") as out:
        out.write(importlib.util.MAGIC_NUMBER + bytes(12) + marshal.dumps(code))
src = compile("def f(cm, g):\n    with cm as x:\n        return g(x) + 1\n", "m.py", "exec")
write_pyc("good.pyc", src)
consts = tuple(c.replace(co_stacksize=1) if hasattr(c, "co_code") else c
               for c in src.co_consts)
write_pyc("bad.pyc", src.replace(co_consts=consts))
print("installed pyverify OK:", pyverify.__file__)
'''

PLUGIN_TESTS = '''
def good(a):
    return a + 1

def test_good(assert_verified):
    assert assert_verified(good).ok
'''
BROKEN_MODULE = '''
def victim(a):
    return a + 1

victim.__code__ = victim.__code__.replace(co_stacksize=0)
'''
# Debian's pytest 7.2 and what it imports (its METADATA's Requires-Dist for
# 3.11+), pure Python: linked for the venvs.
PYTEST_NAMES = ("pytest", "_pytest", "py.py", "pluggy", "iniconfig",
                "packaging", "attr", "attrs", "pytest-7.2.1.dist-info")


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def expect(cond, what, r=None):
    if not cond:
        detail = "" if r is None else "\n" + r.stdout + r.stderr
        raise SystemExit(f"FAIL: {what}{detail}")


def pytest_deps(tmp):
    """A directory of links to the host's pytest and its dependencies."""
    spec = importlib.util.find_spec("pytest")
    expect(spec is not None, f"{sys.executable} has no pytest to link")
    site = os.path.dirname(os.path.dirname(spec.origin))
    out = os.path.join(tmp, "pytest-deps")
    os.makedirs(out)
    for name in PYTEST_NAMES:
        if os.path.exists(os.path.join(site, name)):
            os.symlink(os.path.join(site, name), os.path.join(out, name))
    return out


def install(python, index, src, tmp, env):
    """A venv for `python` with pyverify installed from `src` (`env`: the
    build's); its python."""
    venv = os.path.join(tmp, f"venv-{index}")
    subprocess.check_call([python, "-m", "venv", "--without-pip", venv])
    py = os.path.join(venv, "bin", "python")
    r = run([py, "-c", "import setuptools"], env=env)
    expect(r.returncode != 0, f"{venv} has setuptools", r)
    isolation = ["--no-build-isolation"] if index % 2 == 0 else []
    start = time.monotonic()
    r = run([python, "-m", "pip", "--python", py, "install", "--no-index",
             "--no-deps", *isolation, src], env=env)
    expect(r.returncode == 0, f"pip install under {python} "
           f"({' '.join(isolation) or 'build isolation'})", r)
    how = "prebuilt" if env.get("PYVERIFY_PIP_PREBUILT") else "built"
    print(f"{python}: pip install {' '.join(isolation) or '(isolated)'} "
          f"({how}): {time.monotonic() - start:.0f} s", flush=True)
    return venv, py


def plan_source_build(python, src, build, env):
    """The from-scratch build pip would run under `python` (the backend's
    configure in a new directory, its targets dry-run by Ninja), without
    compiling: make test cannot afford the library's build (a fifth of it
    on 2 cores); `--source-build=full` compiles it."""
    start = time.monotonic()
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import pyverify_build; "
            "pyverify_build.plan_build(sys.argv[2], sys.argv[3:])")
    r = run([python, "-c", code, os.path.join(src, "build_backend"), build,
             *shlex.split(env["PYVERIFY_PIP_CMAKE_ARGS"])], env=env)
    # The backend's commands and Ninja's plan go to stderr ([k/N] lines).
    steps = sum(1 for line in r.stderr.splitlines() if line.startswith("["))
    expect(r.returncode == 0 and steps > 0,
           f"the from-scratch build's plan under {python}", r)
    print(f"{python}: from-scratch build configured, {steps} build steps "
          f"planned (not compiled): {time.monotonic() - start:.0f} s", flush=True)


def check_cli(venv, work, env, roots):
    cli = os.path.join(venv, "bin", "pyverify")
    r = run([cli, "--version"], env=env, cwd=work)
    expect(r.returncode == 0 and "pyverify" in r.stdout, "pyverify --version", r)
    r = run([cli, "check", "good.pyc"], env=env, cwd=work)
    expect(r.returncode == 0 and "0 error(s)" in r.stdout, "check good.pyc", r)
    r = run([cli, "check", "bad.pyc"], env=env, cwd=work)
    expect(r.returncode == 1 and "[stacksize-too-small]" in r.stdout,
           "check bad.pyc", r)
    r = run(["readelf", "-d", cli], env=env)
    for line in r.stdout.splitlines():
        if "PATH" in line:
            expect(not any(root in line for root in roots),
                   f"the installed CLI's {line.strip()} names the build")


def check_pytest(py, work, env, with_p):
    with open(os.path.join(work, "test_plugin.py"), "w") as f:
        f.write(PLUGIN_TESTS)
    with open(os.path.join(work, "broken_mod.py"), "w") as f:
        f.write(BROKEN_MODULE)
    base = [py, "-m", "pytest", "-p", "no:cacheprovider", "test_plugin.py"]
    # The fixture passes its test; --pyverify-modules fails the session.
    for extra in ([], ["-p", "pyverify.pytest_plugin"])[:1 + with_p]:
        r = run(base + extra + ["--pyverify-modules=broken_mod"], env=env,
                cwd=work)
        summary = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
        expect(r.returncode == 1 and "1 passed" in summary
               and "1 failed pyverify" in summary
               and "[stacksize-too-small]" in r.stdout
               and "broken_mod.victim" in r.stdout,
               f"pytest {' '.join(extra)} --pyverify-modules=broken_mod", r)


WHEEL_CHECK = r'''
import base64, csv, hashlib, io, os, sys, sysconfig, zipfile
import packaging.tags
path, pth = sys.argv[1], sys.argv[2] == "1"
z = zipfile.ZipFile(path)
names = z.namelist()
dist = "pyverify-" + os.path.basename(path).split("-")[1]
wheel = z.read(dist + ".dist-info/WHEEL").decode()
# A wheel built here claims no manylinux policy: the interpreter and ABI of
# packaging's most specific tag, the plain platform (its last).
best = next(iter(packaging.tags.sys_tags()))
tag = "%s-%s-%s" % (best.interpreter, best.abi,
                    list(packaging.tags.platform_tags())[-1])
assert packaging.tags.Tag(*tag.split("-")) in set(packaging.tags.sys_tags()), tag
assert path.endswith(tag + ".whl") and "Tag: " + tag in wheel, (path, tag, wheel)
assert "Root-Is-Purelib: false" in wheel, wheel
suffix = sysconfig.get_config_var("EXT_SUFFIX")
want = {"pyverify/__init__.py", "pyverify/pytest_plugin.py",
        "pyverify/_pyverify" + suffix, "pyverify/_pyverify_prove" + suffix,
        dist + ".data/scripts/pyverify", dist + ".dist-info/METADATA",
        dist + ".dist-info/entry_points.txt", dist + ".dist-info/RECORD"}
want |= {"pyverify_dynamo.pth"} if pth else set()
assert want <= set(names), sorted(want - set(names))
assert ("pyverify_dynamo.pth" in names) == pth, names
assert z.getinfo(dist + ".data/scripts/pyverify").external_attr >> 16 & 0o111
rows = list(csv.reader(io.StringIO(z.read(dist + ".dist-info/RECORD").decode())))
assert sorted(r[0] for r in rows) == sorted(names), (rows, names)
for name, digest, size in rows:
    if name.endswith("RECORD"):
        assert digest == size == "", (name, digest, size)
        continue
    data = z.read(name)
    want_digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    assert digest == "sha256=" + want_digest.decode() and int(size) == len(data), name
print("wheel OK:", path.rsplit("/", 1)[-1], len(rows), "files")
'''


def check_wheel(python, py, src, tmp, env, pth):
    """`pip wheel .` (the build directory is warm, or `env` says prebuilt:
    nothing compiled) and the wheel itself: its tag is packaging.tags' for the interpreter, its
    files are there, RECORD's hashes and sizes match."""
    out = os.path.join(tmp, "wheels")
    r = run([python, "-m", "pip", "--python", py, "wheel", "--no-index",
             "--no-deps", "-w", out, src], env=env)
    expect(r.returncode == 0, f"pip wheel under {python}", r)
    wheels = [os.path.join(out, n) for n in os.listdir(out)]
    expect(len(wheels) == 1, f"one wheel: {wheels}")
    r = run([py, "-c", WHEEL_CHECK, wheels[0], "1" if pth else "0"], env=env)
    sys.stdout.write(r.stdout)
    expect(r.returncode == 0, "the wheel", r)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", action="append", required=True,
                    help="an interpreter to install under (repeatable)")
    ap.add_argument("--build-dir", help="the CMake build directory (default: "
                    "a temporary one; given, it is kept for the next run)")
    ap.add_argument("--prebuilt", help="the project's CMake build directory: "
                    "every interpreter but the last installs its modules and "
                    "CLI from there")
    ap.add_argument("--source-build", choices=("full", "plan"), default="full",
                    help="full: the last interpreter's install compiles from "
                    "scratch; plan (with --prebuilt: how make test runs it): "
                    "every install packs the prebuilt files, and the last "
                    "interpreter's from-scratch build is configured in a new "
                    "directory and dry-run (ninja -n), not compiled")
    ap.add_argument("source")
    args = ap.parse_args()
    if args.source_build == "plan" and not args.prebuilt:
        ap.error("--source-build=plan needs --prebuilt")
    src = os.path.abspath(args.source)
    pth = os.path.exists(os.path.join(src, "python", "pyverify_dynamo.pth"))
    with tempfile.TemporaryDirectory(prefix="pyverify-pip-") as tmp:
        build = os.path.abspath(args.build_dir or os.path.join(tmp, "cmake"))
        # -O0 and no LTO (pybind11's default in Release): this test is
        # about installing; an optimised build of the whole library would
        # be a fifth of make test's time on 2 cores.
        env = dict(os.environ, PYVERIFY_PIP_BUILD_DIR=build,
                   PYVERIFY_PIP_CMAKE_ARGS="'-DCMAKE_CXX_FLAGS_RELEASE=-O0 -DNDEBUG' "
                   "-DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF",
                   PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
                   PYTHONDONTWRITEBYTECODE="1", EXPECT_PTH="1" if pth else "")
        for var in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PIP_USER"):
            env.pop(var, None)
        deps = pytest_deps(tmp)
        for index, python in enumerate(args.python):
            last = index == len(args.python) - 1
            pip_env = env
            if args.prebuilt and (not last or args.source_build == "plan"):
                pip_env = dict(env, PYVERIFY_PIP_PREBUILT=os.path.abspath(args.prebuilt))
            if last and args.source_build == "plan":
                plan_source_build(python, src, build, env)
            venv, py = install(python, index, src, tmp, pip_env)
            work = os.path.join(tmp, f"work-{index}")
            os.makedirs(work)
            r = run([py, "-c", CHECK], cwd=work, env=env)
            sys.stdout.write(r.stdout)
            expect(r.returncode == 0, f"the installed module under {python}", r)
            check_cli(venv, work, env, (build, src))
            site = run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                       env=env).stdout.strip()
            with open(os.path.join(site, "host_pytest.pth"), "w") as f:
                f.write(deps + "\n")
            check_pytest(py, work, env, with_p=last)
            if last:
                check_wheel(python, py, src, tmp, pip_env, pth)
            print(f"{python}: CLI, verify, prove_bundle, pytest plugin OK",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
