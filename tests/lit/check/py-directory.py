# A directory of .py files and their __pycache__: each module is checked
# once, and every .py file of the run is compiled by ONE interpreter process
# (PySource.h's driver). A __pycache__/STEM.TAG[.opt-N].pyc whose STEM.py is
# checked too, TAG being the compiling interpreter's cache tag, is skipped
# with a note; a .pyc of another tag, or one named on the command line, is
# checked. Before: 6 files (each module three times) and one interpreter
# start per .py file (20 files: 14 s through a pyenv shim).
# RUN: rm -rf %t && mkdir -p %t/pkg
# RUN: cp %s %t/pkg/a.py
# RUN: cp %s %t/pkg/b.py
# RUN: %python -m compileall -q -o 0 -o 1 %t/pkg
# A wrapper interpreter that counts its starts.
# RUN: echo '#!/bin/sh' > %t/py
# RUN: echo 'echo start >> %t/starts' >> %t/py
# RUN: echo 'exec %python "$@"' >> %t/py
# RUN: chmod +x %t/py
# RUN: %pyverify check --python=%t/py %t/pkg 2> %t/err | FileCheck %s --check-prefix=ONCE
# ONCE: pyverify: 2 file(s), 4 code object(s): 0 error(s)
# RUN: FileCheck %s --check-prefix=NOTE < %t/err
# NOTE: pyverify: note: skipped 4 __pycache__ .pyc file(s) compiled from a .py file that is checked ({{.*}}a.cpython-311.opt-1.pyc, {{.*}}a.cpython-311.pyc, {{.*}}b.cpython-311.opt-1.pyc, and 1 more); name a .pyc on the command line to check it too
# RUN: FileCheck %s --check-prefix=STARTS < %t/starts
# STARTS: start
# STARTS-NOT: start

# Named on the command line, a .pyc is checked; so is another tag's.
# RUN: %pyverify check --python=%python %t/pkg %t/pkg/__pycache__/a.cpython-311.pyc | FileCheck %s --check-prefix=NAMED
# NAMED: pyverify: 3 file(s), 6 code object(s): 0 error(s)
# RUN: cp %t/pkg/__pycache__/a.cpython-311.pyc %t/pkg/__pycache__/a.cpython-399.pyc
# RUN: %pyverify check --python=%python %t/pkg | FileCheck %s --check-prefix=NAMED

# Without the source, the .pyc files are all checked.
# RUN: rm %t/pkg/a.py %t/pkg/b.py
# RUN: %pyverify check %t/pkg | FileCheck %s --check-prefix=PYCS
# PYCS: pyverify: 5 file(s), 10 code object(s): 0 error(s)

# Every command selects the same files: prove and dis too.
# RUN: cp %s %t/pkg/a.py
# RUN: %pyverify prove --python=%python %t/pkg 2>&1 | FileCheck %s --check-prefix=PROVE
# PROVE: skipped 2 __pycache__ .pyc file(s)
# PROVE: pyverify: 4 file(s)


def f(cm, x):
    with cm:
        return x
