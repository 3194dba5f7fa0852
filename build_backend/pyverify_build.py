"""The in-tree PEP 517 build backend of `pip install .` (standard library only).

pyproject.toml names it (build-backend = "pyverify_build", backend-path =
["build_backend"]), so installing needs neither setuptools nor wheel nor
any download: pip, CMake, a C++ compiler and the packages
scripts/install-deps.sh installs.

build_wheel runs CMake (the project's CMakeLists.txt, tests and benchmarks
off) for the interpreter running the build, builds that interpreter's
extension modules and the `pyverify` CLI, and writes one wheel:

    pyverify/*.py                         python/pyverify's sources
    pyverify/_pyverify<EXT_SUFFIX>        verify(), the checks
    pyverify/_pyverify_prove<EXT_SUFFIX>  prove_bundle() (links libz3)
    pyverify_dynamo.pth                   python/pyverify_dynamo.pth, if present
    pyverify-<v>.data/scripts/pyverify    the CLI, installed into <venv>/bin
    pyverify-<v>.dist-info/               METADATA, WHEEL, entry_points.txt
                                          (the pytest plugin), RECORD

The project's metadata (name, version, summary, requires-python, entry
points) is pyproject.toml's [project] table. The CMake build directory is
PYVERIFY_PIP_BUILD_DIR (default <source>/.pip-build) or the config setting
build-dir; one directory serves every interpreter (the library and the CLI
are compiled once, each interpreter adds its own two modules). More CMake
-D options: PYVERIFY_PIP_CMAKE_ARGS or the config setting cmake-args.
PYVERIFY_PIP_PREBUILT=DIR (or the config setting prebuilt) packs what an
existing CMake build directory holds for the running interpreter (its
modules and the CLI, as built; its cache must name this interpreter) and
runs no CMake at all.
See docs/python.md, "Installing".
"""

import base64
import csv
import hashlib
import io
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import time
import tomllib
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE_DIR = os.path.join(ROOT, "python", "pyverify")
PTH_FILE = os.path.join(ROOT, "python", "pyverify_dynamo.pth")
# The extension modules python/CMakeLists.txt builds, by target: the running
# interpreter's build (the main Python3) names them as the modules; another
# version's (PYVERIFY_PYTHON3<minor>) adds _3<minor>.
MODULES = ("_pyverify", "_pyverify_prove")
CLI_TARGET = "pyverify"
CLI_PATH = os.path.join("tools", "pyverify", "pyverify")
# The version whose module is the build's main Python3 (the top-level
# CMakeLists.txt's find_package(Python3 ... EXACT)); the others are built as
# python/CMakeLists.txt's per-interpreter modules.
MAIN_VERSION = (3, 11)
# Zip entries get this time (reproducible wheels) unless SOURCE_DATE_EPOCH.
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


def _project():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _dist_info_name(project):
    return f"{project['name']}-{project['version']}.dist-info"


def _check_interpreter(project):
    """Refuses an interpreter the module cannot be built for, saying why."""
    if sys.implementation.name != "cpython":
        raise RuntimeError(
            f"pyverify verifies CPython bytecode and builds only under CPython "
            f"(this is {sys.implementation.name})")
    spec = project["requires-python"]
    version = "%d.%d" % sys.version_info[:2]
    if not _version_in(sys.version_info[:2], spec):
        raise RuntimeError(
            f"pyverify supports Python {spec}; this interpreter is {version} "
            f"({sys.executable})")


def _version_in(version, spec):
    """Whether (major, minor) satisfies a specifier of >=, <, <=, >, ==
    clauses on major.minor (all requires-python uses)."""
    for clause in spec.split(","):
        clause = clause.strip()
        op = clause.rstrip("0123456789.")
        bound = tuple(int(p) for p in clause[len(op):].split("."))[:2]
        ok = {">=": version >= bound, "<": version < bound,
              "<=": version <= bound, ">": version > bound,
              "==": version == bound}.get(op.strip())
        if ok is None:
            raise RuntimeError(f"requires-python: cannot read {clause!r}")
        if not ok:
            return False
    return True


def wheel_tag():
    """The running interpreter's most specific tag, by the wheel spec's and
    packaging.tags' rules: cp<XY>, its ABI (d: debug, t: free-threaded),
    the normalised sysconfig platform (32-bit interpreters on 64-bit Linux
    get the 32-bit platform)."""
    xy = "%d%d" % sys.version_info[:2]
    abi = "cp" + xy
    if sysconfig.get_config_var("Py_DEBUG"):
        abi += "d"
    if sysconfig.get_config_var("Py_GIL_DISABLED"):
        abi += "t"
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    if sys.maxsize <= 2**32:
        plat = {"linux_x86_64": "linux_i686",
                "linux_aarch64": "linux_armv7l"}.get(plat, plat)
    return f"cp{xy}-{abi}-{plat}"


def _metadata_files(project):
    """dist-info name -> bytes: METADATA, WHEEL, entry_points.txt,
    top_level.txt."""
    meta = ["Metadata-Version: 2.1", f"Name: {project['name']}",
            f"Version: {project['version']}"]
    if "description" in project:
        meta.append(f"Summary: {project['description']}")
    meta.append(f"Requires-Python: {project['requires-python']}")
    for url_name, url in project.get("urls", {}).items():
        meta.append(f"Project-URL: {url_name}, {url}")
    wheel = ["Wheel-Version: 1.0", "Generator: pyverify_build",
             "Root-Is-Purelib: false", f"Tag: {wheel_tag()}"]
    entry_points = []
    for group, entries in project.get("entry-points", {}).items():
        entry_points.append(f"[{group}]")
        entry_points += [f"{k} = {v}" for k, v in entries.items()]
        entry_points.append("")
    files = {"METADATA": meta, "WHEEL": wheel, "top_level.txt": ["pyverify"]}
    if entry_points:
        files["entry_points.txt"] = entry_points
    return {k: ("\n".join(v).rstrip("\n") + "\n").encode()
            for k, v in files.items()}


def _settings(config_settings):
    config_settings = config_settings or {}
    build_dir = (config_settings.get("build-dir")
                 or os.environ.get("PYVERIFY_PIP_BUILD_DIR")
                 or os.path.join(ROOT, ".pip-build"))
    args = config_settings.get("cmake-args")
    if args is None:
        args = os.environ.get("PYVERIFY_PIP_CMAKE_ARGS", "")
    if isinstance(args, str):
        args = shlex.split(args)
    return os.path.abspath(build_dir), list(args)


def _interpreter_build():
    """(the CMake cache variable naming the running interpreter, its value,
    the build's targets and module directory for it, relative)."""
    # The interpreter CMake queries (headers, EXT_SUFFIX): a venv's base,
    # resolved, so one build directory serves venvs that come and go.
    exe = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    minor = sys.version_info[1]
    if sys.version_info[:2] == MAIN_VERSION:
        return ("Python3_EXECUTABLE", exe, list(MODULES),
                os.path.join("python", "pyverify"))
    return (f"PYVERIFY_PYTHON3{minor}", exe, [f"{m}_3{minor}" for m in MODULES],
            os.path.join(f"python-3.{minor}", "pyverify"))


def _cmake_build(build_dir, extra_args, dry_run=False):
    """Configures and builds the running interpreter's modules and the CLI;
    returns {name in the wheel: built file}. dry_run: configures, then asks
    Ninja what the build would run (`-n`: the targets exist and their build
    graph is complete) without compiling; returns None."""
    var, exe, targets, _ = _interpreter_build()
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    if os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
        generator = []  # the directory's generator stays
    elif dry_run and not generator:
        raise RuntimeError("a dry run needs Ninja (ninja -n)")
    _run(["cmake", "-S", ROOT, "-B", build_dir, *generator,
          "-DCMAKE_BUILD_TYPE=Release", "-DPYVERIFY_BUILD_TESTS=OFF",
          "-DPYVERIFY_BUILD_BENCHMARKS=OFF", "-DPYVERIFY_BUILD_PYTHON=ON",
          f"-D{var}={exe}", *extra_args])
    _run(["cmake", "--build", build_dir, "--target", CLI_TARGET, *targets,
          "-j", str(os.cpu_count() or 2), *(["--", "-n"] if dry_run else [])])
    return None if dry_run else _built_files(build_dir)


def plan_build(build_dir, extra_args=()):
    """What build_wheel would compile for the running interpreter, without
    compiling it: the CMake configure in build_dir and Ninja's dry run of the
    CLI's and the modules' targets (ctest python-pip-install: make test
    cannot afford a build of the library per install)."""
    _cmake_build(os.path.abspath(build_dir), list(extra_args), dry_run=True)


def _built_files(build_dir):
    """{name in the wheel: file}: the running interpreter's modules and the
    CLI in a CMake build directory."""
    _, exe, _, module_dir = _interpreter_build()
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    built = {}
    for m in MODULES:
        path = os.path.join(build_dir, module_dir, m + suffix)
        if not os.path.isfile(path):
            raise RuntimeError(f"{build_dir} has no {path} (is {exe} the "
                               f"interpreter CMake found?)")
        built[f"pyverify/{m}{suffix}"] = path
    built["scripts/pyverify"] = os.path.join(build_dir, CLI_PATH)
    return built


def _prebuilt(build_dir):
    """The files of an existing CMake build (`make build`'s), compiled for
    the running interpreter (its CMakeCache.txt says so); nothing is run."""
    var, exe, _, _ = _interpreter_build()
    cache = {}
    with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
        for line in f:
            name, _, value = line.strip().partition("=")
            cache[name.split(":")[0]] = value
    found = cache.get(var)
    if not found or os.path.realpath(found) != exe:
        raise RuntimeError(f"prebuilt={build_dir}: its {var} is {found!r}, "
                           f"not this interpreter ({exe})")
    return _built_files(build_dir)


def _run(cmd):
    print("pyverify_build:", shlex.join(cmd), file=sys.stderr, flush=True)
    subprocess.check_call(cmd, stdout=sys.stderr)


def _package_sources():
    """{name in the wheel: file}: python/pyverify's .py files and the .pth."""
    out = {}
    for name in sorted(os.listdir(PACKAGE_DIR)):
        if name.endswith(".py"):
            out[f"pyverify/{name}"] = os.path.join(PACKAGE_DIR, name)
    if os.path.isfile(PTH_FILE):
        out[os.path.basename(PTH_FILE)] = PTH_FILE
    return out


class _WheelWriter:
    """A zip with RECORD: every entry's sha256 and size, RECORD last."""

    def __init__(self, path):
        # Level 1: the wheel of a build with debug information is 170 MB
        # of mostly DWARF; level 6 takes three times as long for 10% less.
        self.zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
        self.level = 1
        self.records = []
        epoch = os.environ.get("SOURCE_DATE_EPOCH")
        self.date = ZIP_EPOCH
        if epoch:
            self.date = max(ZIP_EPOCH, tuple(time.gmtime(int(epoch))[:6]))

    def add(self, name, data, mode=0o644):
        info = zipfile.ZipInfo(name, date_time=self.date)
        info.external_attr = (0o100000 | mode) << 16
        self.zip.writestr(info, data, zipfile.ZIP_DEFLATED, self.level)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest())
        self.records.append(
            (name, "sha256=" + digest.rstrip(b"=").decode(), str(len(data))))

    def close(self, record_name):
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerows(self.records + [(record_name, "", "")])
        info = zipfile.ZipInfo(record_name, date_time=self.date)
        info.external_attr = 0o100644 << 16
        self.zip.writestr(info, out.getvalue().encode(),
                          zipfile.ZIP_DEFLATED, self.level)
        self.zip.close()


# --- PEP 517 hooks ----------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    project = _project()
    _check_interpreter(project)
    name = _dist_info_name(project)
    os.makedirs(os.path.join(metadata_directory, name), exist_ok=True)
    for file, data in _metadata_files(project).items():
        with open(os.path.join(metadata_directory, name, file), "wb") as f:
            f.write(data)
    return name


def build_wheel(wheel_directory, config_settings=None,
                metadata_directory=None):
    project = _project()
    _check_interpreter(project)
    prebuilt = ((config_settings or {}).get("prebuilt")
                or os.environ.get("PYVERIFY_PIP_PREBUILT"))
    if prebuilt:
        built = _prebuilt(os.path.abspath(prebuilt))
    else:
        built = _cmake_build(*_settings(config_settings))
    dist, version = project["name"], project["version"]
    wheel_name = f"{dist}-{version}-{wheel_tag()}.whl"
    os.makedirs(wheel_directory, exist_ok=True)
    writer = _WheelWriter(os.path.join(wheel_directory, wheel_name))
    for name, path in {**_package_sources(), **built}.items():
        with open(path, "rb") as f:
            data = f.read()
        if name.startswith("scripts/"):
            writer.add(f"{dist}-{version}.data/{name}", data, 0o755)
        else:
            writer.add(name, data, 0o755 if name.endswith(".so") else 0o644)
    dist_info = _dist_info_name(project)
    for file, data in _metadata_files(project).items():
        writer.add(f"{dist_info}/{file}", data)
    writer.close(f"{dist_info}/RECORD")
    return wheel_name


# The source tree a wheel is built from (tests and benchmarks are off there).
SDIST_PATHS = ("CMakeLists.txt", "pyproject.toml", "README.md", "cmake",
               "include", "lib", "tools", "python", "build_backend", "docs")
SDIST_SKIP = ("__pycache__", ".egg-info", ".pyc")


def build_sdist(sdist_directory, config_settings=None):
    project = _project()
    base = f"{project['name']}-{project['version']}"
    os.makedirs(sdist_directory, exist_ok=True)
    path = os.path.join(sdist_directory, base + ".tar.gz")

    def clean(info):
        if info.name.endswith(SDIST_SKIP):
            return None
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        info.mtime = int(os.environ.get("SOURCE_DATE_EPOCH", 315532800))
        return info

    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for rel in SDIST_PATHS:
            tar.add(os.path.join(ROOT, rel), f"{base}/{rel}", filter=clean)
        pkg_info = _metadata_files(project)["METADATA"]
        info = clean(tarfile.TarInfo(f"{base}/PKG-INFO"))
        info.size = len(pkg_info)
        tar.addfile(info, io.BytesIO(pkg_info))
    return os.path.basename(path)
