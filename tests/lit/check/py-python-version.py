# REQUIRES: python312
# A .py file is compiled by an interpreter of the bytecode version asked
# (PySource.h): --python-version=3.12 runs python3.12, found as the build
# finds it -- $PYENV_ROOT/versions/3.12.P/bin (the highest patch P; not a
# free-threaded 3.12.Pt), then PATH. Before, --python-version was ignored
# for .py files: python3.11 compiled them and 3.11 bytecode was checked.
# A fake pyenv root: 3.12.0 and 3.12.9t hold interpreters that fail.
# RUN: rm -rf %t.pyenv %t.empty && mkdir -p %t.pyenv/versions/3.12.1/bin %t.pyenv/versions/3.12.0/bin %t.pyenv/versions/3.12.9t/bin %t.empty
# RUN: ln -s %python312 %t.pyenv/versions/3.12.1/bin/python3.12
# RUN: echo "exit 1" > %t.pyenv/versions/3.12.0/bin/python3.12
# RUN: echo "exit 1" > %t.pyenv/versions/3.12.9t/bin/python3.12
# RUN: chmod +x %t.pyenv/versions/3.12.0/bin/python3.12 %t.pyenv/versions/3.12.9t/bin/python3.12
# RUN: env PYENV_ROOT=%t.pyenv PATH=%t.empty %pyverify dis --python-version=3.12 %s | FileCheck %s --check-prefix=DIS312
# RUN: env PYENV_ROOT=%t.pyenv PATH=%t.empty %pyverify check --python-version=3.12 %s | FileCheck %s --check-prefix=CLEAN
# 3.12's module code ends in RETURN_CONST, an opcode 3.11 does not have.
# DIS312: RETURN_CONST
# CLEAN: pyverify: 1 file(s), 2 code object(s): 0 error(s), 0 warning(s), 0 remark(s)

# --python= without --python-version: the interpreter's version is the
# bytecode's (before: refused, "is Python 3.12, not 3.11").
# RUN: %pyverify check --python=%python312 %s | FileCheck %s --check-prefix=CLEAN
# RUN: %pyverify dis --python=%python312 %s | FileCheck %s --check-prefix=DIS312
# RUN: %pyverify dis --python=%python %s | FileCheck %s --check-prefix=DIS311
# DIS311-NOT: RETURN_CONST

# With both, they must agree: the interpreter is asked its version.
# RUN: %not --code 2 %pyverify check --python=%python --python-version=3.12 %s 2>&1 | FileCheck %s --check-prefix=MISMATCH
# MISMATCH: pyverify: error: {{.*}}py-python-version.py: {{.*}} is Python 3.11, not 3.12 as --python-version says; pass --python= a 3.12 interpreter

# No interpreter of the version: a clear error, exit 2.
# RUN: env PYENV_ROOT=%t.empty PATH=%t.empty %not --code 2 %pyverify check --python-version=3.13 %s 2>&1 | FileCheck %s --check-prefix=MISSING
# MISSING: pyverify: error: {{.*}}py-python-version.py: cannot find python3.13 (in $PYENV_ROOT/versions/3.13.*/bin or on PATH) to compile .py files as 3.13 bytecode; pass --python= a 3.13 interpreter


def f(cm, x):
    with cm:
        return x
