"""ctest cpp-install-example: install pyverify, build a program against it.

  1. `cmake --install <build> --prefix <work>/prefix`, then check the layout:
     every header and .def table of include/pyverify, one static library per
     layer, pyverifyConfig.cmake + version + targets files, pyverify::pyverify
     linking every layer, and no path of the source or build tree anywhere in
     the installed CMake files.
  2. Configure tests/install/example (find_package(pyverify 0.1) through
     CMAKE_PREFIX_PATH only, Ninja, the same compilers, a Debug build against
     the installed configuration) and build it; it must find the package in
     the prefix and compile against the installed headers only.
  3. Run check_code on real input python3.11 writes into <work>: a clean .pyc
     (`python3.11 -m py_compile`) must give exit 0 and no finding; the same
     module marshalled with co_stacksize=0 must give exit 1 and exactly the
     `stacksize-too-small` error `pyverify check` prints for it; a check spec
     can turn that off; a bad spec, an unreadable file and bad usage give 2.
  4. Run check_code_test (the GoogleTest matchers, from the installed
     headers) when the example built it.
  5. docs/cpp-api.md shows the example's files verbatim.

Usage: run_install_example.py --build-dir B --example-dir E --work-dir W
       --cmake CMAKE --cxx CXX --cc CC --make-program NINJA --pyverify CLI
Runs with python3.11, which also writes the inputs.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

# Written to <work>/inputs/clean.py: a with, a handler, a closure, a
# comprehension, a generator and a class, so the clean run covers more than
# one kind of code object.
CLEAN_SOURCE = '''\
import contextlib


def add(a, b):
    return a + b


def read(path):
    try:
        with open(path) as f:
            return [line.strip() for line in f if line]
    except OSError as e:
        return str(e)


def counter(n):
    total = 0

    def bump(k):
        nonlocal total
        total += k
        return total

    for i in range(n):
        yield bump(i)


class Box:
    def __init__(self, value):
        self.value = value

    @contextlib.contextmanager
    def opened(self):
        yield self.value


x = add(1, 2)
'''

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL: " + message, flush=True)
    return condition


def run(cmd, **kw):
    print("$ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def must(cmd, **kw):
    r = run(cmd, **kw)
    if r.returncode != 0:
        sys.stdout.write(r.stdout)
        sys.stderr.write(r.stderr)
        sys.exit("command failed (exit %d): %s" % (r.returncode, " ".join(cmd)))
    return r


def check_layout(prefix, source_dir, build_dir):
    include = os.path.join(prefix, "include", "pyverify")
    src_include = os.path.join(source_dir, "include", "pyverify")
    for root, _, files in os.walk(src_include):
        for name in files:
            if name.endswith((".h", ".def")):
                rel = os.path.relpath(os.path.join(root, name), src_include)
                check(os.path.isfile(os.path.join(include, rel)),
                      "header not installed: include/pyverify/" + rel)
    for rel in ("Bytecode/Opcodes311.def", "Bytecode/VersionTraits.def", "Support/Checks.def",
                "Testing/Matchers.h", "Check/Verifier.h"):
        check(os.path.isfile(os.path.join(include, rel)),
              "missing include/pyverify/" + rel)

    cmake_dir = os.path.join(prefix, "lib", "cmake", "pyverify")
    for name in ("pyverifyConfig.cmake", "pyverifyConfigVersion.cmake",
                 "pyverifyTargets.cmake"):
        check(os.path.isfile(os.path.join(cmake_dir, name)),
              "missing lib/cmake/pyverify/" + name)
    if not os.path.isdir(cmake_dir):
        return

    # No absolute path of the trees the package was built from.
    leaks = [os.path.realpath(source_dir), os.path.realpath(build_dir),
             source_dir, build_dir]
    for name in sorted(os.listdir(cmake_dir)):
        with open(os.path.join(cmake_dir, name)) as f:
            text = f.read()
        for leak in leaks:
            check(leak not in text,
                  "%s names the build machine's tree %s" % (name, leak))

    # pyverify::pyverify links every layer, and every layer's library is
    # installed.
    with open(os.path.join(cmake_dir, "pyverifyTargets.cmake")) as f:
        targets = f.read()
    layers = re.findall(
        r"add_library\(pyverify::(pyverify\w+) STATIC IMPORTED\)", targets)
    check(len(layers) >= 5, "expected 5 or more layer targets, got %r" % layers)
    umbrella = re.search(
        r"set_target_properties\(pyverify::pyverify PROPERTIES\s+"
        r'INTERFACE_LINK_LIBRARIES "([^"]*)"', targets)
    linked = set(umbrella.group(1).split(";")) if umbrella else set()
    for layer in layers:
        check("pyverify::" + layer in linked,
              "pyverify::pyverify does not link pyverify::" + layer)
        check(os.path.isfile(os.path.join(prefix, "lib", "lib%s.a" % layer)),
              "missing lib/lib%s.a" % layer)


def make_inputs(work, python):
    inputs = os.path.join(work, "inputs")
    os.makedirs(inputs)
    clean_py = os.path.join(inputs, "clean.py")
    with open(clean_py, "w") as f:
        f.write(CLEAN_SOURCE)
    must([python, "-m", "py_compile", clean_py])
    clean_pyc = os.path.join(inputs, "__pycache__", "clean.cpython-311.pyc")
    broken = os.path.join(inputs, "broken.marshal")
    must([python, "-c",
          "import marshal, sys\n"
          "code = compile(open(sys.argv[1]).read(), sys.argv[1], 'exec')\n"
          "open(sys.argv[2], 'wb').write("
          "marshal.dumps(code.replace(co_stacksize=0)))\n",
          clean_py, broken])
    garbage = os.path.join(inputs, "garbage.pyc")
    with open(garbage, "wb") as f:
        f.write(b"this is not a pyc file\n")
    return clean_pyc, broken, garbage


def check_program(exe, cli, clean_pyc, broken, garbage):
    r = run([exe, clean_pyc])
    check(r.returncode == 0, "clean .pyc: exit %d, expected 0" % r.returncode)
    m = re.fullmatch(re.escape(clean_pyc) +
                     r": (\d+) code object\(s\), 0 error\(s\), "
                     r"0 other finding\(s\)\n", r.stdout)
    check(m is not None, "clean .pyc: unexpected output %r" % r.stdout)
    check(m is None or int(m.group(1)) >= 8,
          "clean .pyc: expected every nested code object, got %r" % r.stdout)
    check(r.stderr == "", "clean .pyc: stderr %r" % r.stderr)

    r = run([exe, broken])
    check(r.returncode == 1, "broken: exit %d, expected 1" % r.returncode)
    lines = r.stdout.splitlines()
    # The location is the source the line numbers are of (co_filename,
    # clean.py, exists); the marshal file is the artifact.
    expected = [
        re.escape(os.path.join(os.path.dirname(broken), "clean.py")) +
        r":\d+:\d+: error: the stack reaches depth \d+ "
        r"at .* but co_stacksize is 0; .* \(co_stacksize must be at least "
        r"\d+\) \[stacksize-too-small\]",
        r"  in <module> \(line 1\) at offset \d+: .*, read from "
        + re.escape(broken),
        re.escape(broken) + r": \d+ code object\(s\), 1 error\(s\), "
        r"0 other finding\(s\)"]
    check(len(lines) == len(expected) and
          all(re.fullmatch(e, l) for e, l in zip(expected, lines)),
          "broken: unexpected output %r" % r.stdout)
    # The same diagnostics, byte for byte, as the CLI prints.
    c = run([cli, "check", broken])
    check(c.returncode == 1, "pyverify check broken: exit %d" % c.returncode)
    check(c.stdout.splitlines()[:-1] == lines[:-1],
          "check_code and `pyverify check` disagree:\n%s---\n%s"
          % (r.stdout, c.stdout))

    r = run([exe, broken, "-stacksize-too-small"])
    check(r.returncode == 0 and
          re.fullmatch(re.escape(broken) + r": \d+ code object\(s\), "
                       r"0 error\(s\), 0 other finding\(s\)\n", r.stdout),
          "broken with -stacksize-too-small: exit %d, %r"
          % (r.returncode, r.stdout))

    r = run([exe, broken, "no-such-check"])
    check(r.returncode == 2 and "'no-such-check' names no check" in r.stderr,
          "bad spec: exit %d, stderr %r" % (r.returncode, r.stderr))
    r = run([exe, garbage])
    check(r.returncode == 2 and r.stderr.startswith("check_code: ") and
          garbage in r.stderr and r.stdout == "",
          "garbage: exit %d, stdout %r, stderr %r"
          % (r.returncode, r.stdout, r.stderr))
    missing = os.path.join(os.path.dirname(garbage), "missing.pyc")
    r = run([exe, missing])
    check(r.returncode == 2 and missing in r.stderr,
          "missing file: exit %d, stderr %r" % (r.returncode, r.stderr))
    r = run([exe])
    check(r.returncode == 2 and "usage: check_code" in r.stderr,
          "no arguments: exit %d, stderr %r" % (r.returncode, r.stderr))


def check_docs(source_dir, example_dir):
    with open(os.path.join(source_dir, "docs", "cpp-api.md")) as f:
        doc = f.read()
    for name, lang in (("check_code.cpp", "cpp"), ("CMakeLists.txt", "cmake"),
                       ("check_code_test.cpp", "cpp")):
        with open(os.path.join(example_dir, name)) as f:
            text = f.read()
        check("```%s\n%s```\n" % (lang, text) in doc,
              "docs/cpp-api.md does not show tests/install/example/%s "
              "verbatim" % name)


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--build-dir", "--source-dir", "--example-dir", "--work-dir",
                "--cmake", "--cxx", "--cc", "--make-program", "--pyverify"):
        ap.add_argument(opt, required=True)
    args = ap.parse_args()
    if sys.version_info[:2] != (3, 11):
        sys.exit("run_install_example.py needs python3.11")

    work = os.path.abspath(args.work_dir)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    prefix = os.path.join(work, "prefix")

    must([args.cmake, "--install", args.build_dir, "--prefix", prefix])
    check_layout(prefix, args.source_dir, args.build_dir)

    build = os.path.join(work, "build")
    env = dict(os.environ)
    for var in ("CMAKE_PREFIX_PATH", "pyverify_DIR", "pyverify_ROOT",
                "MAKEFLAGS", "MAKELEVEL"):
        env.pop(var, None)
    r = must([args.cmake, "-S", args.example_dir, "-B", build, "-G", "Ninja",
              "-DCMAKE_MAKE_PROGRAM=" + args.make_program,
              "-DCMAKE_CXX_COMPILER=" + args.cxx,
              "-DCMAKE_C_COMPILER=" + args.cc,
              "-DCMAKE_BUILD_TYPE=Debug",
              "-DCMAKE_PREFIX_PATH=" + prefix,
              "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF",
              "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"], env=env)
    found = os.path.join(prefix, "lib", "cmake", "pyverify")
    check("-- pyverify 0.1.0 at %s\n" % found in r.stdout,
          "the example did not find pyverify in the prefix:\n" + r.stdout)
    must([args.cmake, "--build", build], env=env)

    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = json.load(f)
    source_include = os.path.join(args.source_dir, "include")
    for entry in commands:
        cmd = entry.get("command", " ".join(entry.get("arguments", [])))
        check(os.path.join(prefix, "include") in cmd,
              "not compiled against the installed headers: " + cmd)
        check(source_include not in cmd,
              "compiled against the source tree's headers: " + cmd)

    clean_pyc, broken, garbage = make_inputs(work, sys.executable)
    check_program(os.path.join(build, "check_code"), args.pyverify, clean_pyc,
                  broken, garbage)

    test = os.path.join(build, "check_code_test")
    if os.path.exists(test):
        r = run([test])
        check(r.returncode == 0, "check_code_test failed:\n" + r.stdout)
    else:
        print("note: GTest::gmock not found; check_code_test not built")

    check_docs(args.source_dir, args.example_dir)

    if failures:
        sys.exit("%d check(s) failed" % len(failures))
    print("cpp-install-example: OK")


if __name__ == "__main__":
    main()
