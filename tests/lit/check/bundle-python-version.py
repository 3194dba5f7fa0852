# A bundle says the bytecode version of its code objects (python_version);
# check and prove read every code object as that version's, a version
# without tables is an error naming the key, and --python-version cannot
# contradict it (issue 26: before, every .pvb was decoded as 3.11).
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t
#
# The key absent: 3.11 (the format before the key), clean.
# RUN: %pyverify check %t/none.pvb | FileCheck %s --check-prefix=NONE
# NONE: pyverify: 1 file(s), 2 code object(s): 0 error(s)
# RUN: %pyverify check %t/v311.pvb | FileCheck %s --check-prefix=NONE
#
# A version without tables.
# RUN: %not --code 2 %pyverify check %t/v310.pvb 2>&1 | FileCheck %s --check-prefix=V310
# V310: v310.pvb: bundle key 'python_version': '3.10' has no opcode tables (pyverify reads 3.11, 3.12, 3.13, 3.14 and 3.15)
#
# --python-version contradicting the bundle.
# RUN: %not --code 2 %pyverify check --python-version=3.12 %t/v311.pvb 2>&1 | FileCheck %s --check-prefix=CONFLICT
# CONFLICT: v311.pvb: bundle key 'python_version': the bundle is CPython 3.11 bytecode, but --python-version=3.12 was given
# ... but naming the version of a bundle that does not say it is allowed:
# the same 3.11 code read as 3.12's does not decode (3.12 numbers its
# opcodes differently).
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t/none.pvb | FileCheck %s --check-prefix=ASKED
# ASKED: error: {{.*}} [bytecode-decode]
#
# 3.11 bytecode labelled 3.12 is decoded as 3.12's (the labels say what the
# code is; a wrong label shows as decode errors of that version).
# RUN: %not --code 1 %pyverify check %t/v312.pvb | FileCheck %s --check-prefix=ASKED
#
# prove reads it as 3.12's too: the mislabelled code is not well-formed.
# RUN: %not --code 1 %pyverify prove %t/v312.pvb | FileCheck %s --check-prefix=PROVE
# PROVE: [frame] refuted: well-formed: {{.*}}[bytecode-decode]
# PROVE: 0 proved, 1 refuted, 0 unknown
# (Code objects of two versions in one bundle, which only the API can build:
# tests/unit/ProveVersionsTest.cpp.)

import marshal
import os
import sys


def f(cm, g, x):
    with cm:
        return g(x)


def frame(cm, g, x):
    with cm:
        return g(x)


def write(name, **extra):
    d = {"format": "pyverify-bundle", "version": 1, "original": f.__code__,
         "frame": frame.__code__, "break_offset": 0, "resumes": []}
    d.update(extra)
    with open(os.path.join(sys.argv[1], name), "wb") as fh:
        fh.write(marshal.dumps(d))


write("none.pvb")
write("v311.pvb", python_version="3.11")
write("v310.pvb", python_version="3.10")
write("v312.pvb", python_version="3.12")
