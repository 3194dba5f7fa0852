#!/usr/bin/env python3
"""ctest traits-row-missing: a PythonVersion without its row in VersionTraits.def does not
compile.

Copies include/pyverify into a scratch directory and compiles a translation unit that
includes PythonVersion.h three times: with the rows as they are (it must compile), without
one version's row, and with two rows swapped (each must fail, naming the static_assert).

    python3 tests/layering/check_traits_row_missing.py --cxx c++ --llvm-include DIR SRC
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

TU = '#include "pyverify/Bytecode/PythonVersion.h"\nint main() { return 0; }\n'
MESSAGE = "VersionTraits.def must have one row per PythonVersion"


def compile_with(args, tmp, edit):
    inc = os.path.join(tmp, "include")
    shutil.rmtree(inc, ignore_errors=True)
    shutil.copytree(os.path.join(args.src, "include"), inc)
    path = os.path.join(inc, "pyverify", "Bytecode", "VersionTraits.def")
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(edit(text))
    tu = os.path.join(tmp, "tu.cpp")
    with open(tu, "w") as f:
        f.write(TU)
    p = subprocess.run([args.cxx, "-std=c++20", "-fsyntax-only", "-I", inc,
                        "-I", args.llvm_include, tu], capture_output=True, text=True)
    return p.returncode, p.stderr


def rows(text):
    return list(re.finditer(r"^PYV_VERSION\((V\w+),.*?\)\n(?=PYV_|\n|#)", text,
                            re.M | re.S))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cxx", default="c++")
    ap.add_argument("--llvm-include", default="/usr/lib/llvm-14/include")
    ap.add_argument("src")
    args = ap.parse_args()
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        rc, err = compile_with(args, tmp, lambda t: t)
        if rc != 0:
            fails.append("the rows as they are do not compile:\n" + err[-2000:])
        text = open(os.path.join(args.src, "include", "pyverify", "Bytecode",
                                 "VersionTraits.def")).read()
        rs = rows(text)
        if len(rs) < 2:
            fails.append("found %d rows in VersionTraits.def" % len(rs))
        for r in rs:
            name = r.group(1)
            rc, err = compile_with(args, tmp,
                                   lambda t, r=r: t[:r.start()] + t[r.end():])
            if rc == 0 or MESSAGE not in err:
                fails.append("without the %s row: compiled (exit %d) or failed for "
                             "another reason:\n%s" % (name, rc, err[-1500:]))
            else:
                print("without the %s row: does not compile (%s)" % (name, MESSAGE))
        if len(rs) >= 2:
            a, b = rs[0], rs[1]
            swap = lambda t: t[:a.start()] + b.group(0) + a.group(0) + t[b.end():]
            rc, err = compile_with(args, tmp, swap)
            if rc == 0 or MESSAGE not in err:
                fails.append("rows %s and %s swapped: compiled" % (a.group(1), b.group(1)))
            else:
                print("rows %s and %s swapped: does not compile" % (a.group(1), b.group(1)))
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
