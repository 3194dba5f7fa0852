# `check -` reads standard input, named "<stdin>" in messages. What it holds
# is decided by its bytes (CodeInputs.h): with a NUL byte, a .pyc (magic
# number and "\r\n"), a bundle (a marshal dict holding "pyverify-bundle") or
# a marshal stream; without, Python source -- which cannot hold a NUL byte.
# Before: "-: no such file or directory", exit 2.
#
# Python source, compiled as for a .py file.
# RUN: %pyverify check --python=%python - < %s | FileCheck %s --check-prefix=CLEAN
# CLEAN: pyverify: 1 file(s), 2 code object(s): 0 error(s), 0 warning(s)
# Nothing on stdin (a failed producer in a pipe) is an input error, not a
# clean empty module.
# RUN: %not --code 2 %pyverify check - < /dev/null 2>&1 | FileCheck %s --check-prefix=EMPTY
# EMPTY: <stdin>: empty input
# RUN: %mkcode raw 6465662066283a0a %t.bad
# RUN: %not --code 2 %pyverify check --python=%python - < %t.bad 2>&1 | FileCheck %s --check-prefix=SYNTAX
# SYNTAX: pyverify: error: <stdin>: cannot compile with {{.*}}: <stdin>:1:7: error: invalid syntax
#
# A .pyc.
# RUN: %mkcode pyc %s %t.pyc
# RUN: %pyverify check - < %t.pyc | FileCheck %s --check-prefix=CLEAN
#
# A marshal stream; findings name <stdin>.
# RUN: %mkcode marshal %s %t.marshal
# RUN: %not --code 1 %pyverify check - < %t.marshal | FileCheck %s --check-prefix=MARSHAL
# MARSHAL: error: POP_TOP needs 1 stack value(s) but only 0 are on the stack [stack-underflow]
# MARSHAL: read from <stdin>
# RUN: %not --code 1 %pyverify check --format=json - < %t.marshal | FileCheck %s --check-prefix=JSON
# JSON: "file": "<stdin>"
#
# A bundle.
# RUN: %mkcode marshal %s %t.pvb --object BUNDLE
# RUN: %pyverify check - < %t.pvb | FileCheck %s --check-prefix=CLEAN
# RUN: %pyverify prove - < %t.pvb | FileCheck %s --check-prefix=PROVED
# PROVED: pyverify: 1 file(s), {{[0-9]+}} result(s): {{[0-9]+}} proved, 0 refuted, 0 unknown


def f(cm, x):
    with cm:
        return x


if __name__ == "mkcode":
    c = f.__code__
    # RESUME 0; POP_TOP (nothing to pop); ... : a stack underflow.
    CODE = c.replace(co_code=c.co_code[:2] + bytes([1, 0]) + c.co_code[4:])
    BUNDLE = {"format": "pyverify-bundle", "version": 1, "original": c,
              "frame": c, "break_offset": 0, "resumes": []}
