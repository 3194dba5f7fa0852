# Inputs are never skipped silently, and every command selects files the same
# way (InputFiles.h): a file named on the command line is read whatever its
# name (a raw marshal stream), a directory is walked for *.pyc, *.py and
# *.pvb; a note on stderr names what a directory walk skipped and why, or
# says that a directory held no input file. Before, a directory of raw
# marshal files gave "0 file(s)" and nothing else, and prove skipped the .py
# files check took.
import os

def k(x):
    return x + 1

if __name__ == "mkcode":
    # RUN: rm -rf %t && mkdir -p %t/raw %t/src %t/empty
    # RUN: %mkcode marshal %s %t/raw/a.bin
    # RUN: %mkcode marshal %s %t/raw/b.marshal
    # RUN: %mkcode marshal %s %t/raw/c
    # RUN: %mkcode marshal %s %t/raw/d.code
    CODE = k.__code__

# A directory of raw marshal files: nothing is taken, and the note says why
# and how to read them.
# RUN: %pyverify check %t/raw 2> %t/raw.err | FileCheck %s --check-prefix=RAW
# RUN: FileCheck %s --check-prefix=RAW-NOTE < %t/raw.err
# RAW: pyverify: 0 file(s), 0 code object(s)
# RAW-NOTE: pyverify: note: {{.*}}raw: skipped 4 file(s) not named *.pyc, *.py or *.pvb (a.bin, b.marshal, c, and 1 more); name a file on the command line to read it as a marshal stream
# RUN: %pyverify check %t/raw/a.bin %t/raw/c 2>&1 | FileCheck %s --check-prefix=NAMED
# NAMED-NOT: note
# NAMED: pyverify: 2 file(s), 2 code object(s): 0 error(s)

# Every command says the same.
# RUN: %pyverify prove %t/raw 2>&1 | FileCheck %s --check-prefix=RAW-NOTE
# RUN: %pyverify stats %t/raw 2>&1 | FileCheck %s --check-prefix=RAW-NOTE
# RUN: %pyverify dis %t/raw 2>&1 | FileCheck %s --check-prefix=RAW-NOTE
# RUN: %pyverify cfg %t/raw 2>&1 | FileCheck %s --check-prefix=RAW-NOTE
# RUN: %pyverify analyze --print=stack-depth %t/raw 2>&1 | FileCheck %s --check-prefix=RAW-NOTE

# An empty directory.
# RUN: %pyverify check %t/empty 2>&1 | FileCheck %s --check-prefix=EMPTY
# EMPTY: pyverify: note: {{.*}}empty: no .pyc, .py or .pvb file in this directory

# A .py in a directory: check and prove both take it.
# RUN: cp %s %t/src/mod.py
# RUN: %pyverify check --python=%python %t/src 2>&1 | FileCheck %s --check-prefix=PY-CHECK
# PY-CHECK-NOT: note
# PY-CHECK: pyverify: 1 file(s), 2 code object(s)
# RUN: %pyverify prove --python=%python %t/src 2>&1 | FileCheck %s --check-prefix=PY-PROVE
# PY-PROVE-NOT: note
# PY-PROVE: mod.py: [original] proved
# PY-PROVE: pyverify: 1 file(s), 2 result(s)
