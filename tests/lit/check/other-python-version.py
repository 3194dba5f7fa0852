# Bytecode of another CPython version is named as such. A .pyc says its
# version in its magic number: the error names the version (PycMagic.h, 3.6
# to 3.15). A marshalled code object does not: when it fails to decode as
# 3.11 but every code object decodes cleanly as 3.12 (or 3.13) opcodes and
# caches, a note says which version it looks like and which instruction
# shows it. Before, the magic number was "another Python version" and a 3.12
# code object got only decode, jump and table errors.
#
# The 3.12 code is Inputs/v312code.py, which python3.12 wrote, so the test
# needs no 3.12 interpreter.

# .pyc magic numbers: each version named, pre-releases too. check, analyze,
# cfg, dis, stats and prove read 3.12 and 3.13 .pyc files (their payload
# here is None, not code).
# RUN: %mkcode raw cb0d0d0a0000000000000000000000004e %t.py312
# RUN: %not --code 2 %pyverify check %t.py312 2>&1 | FileCheck %s --check-prefix=PYC312
# PYC312: error: {{.*}}.py312: at byte 16: .pyc payload is not a code object
# RUN: %not --code 2 %pyverify prove %t.py312 2>&1 | FileCheck %s --check-prefix=PYC312
# RUN: %mkcode raw f30d0d0a0000000000000000000000004e %t.py313
# RUN: %not --code 2 %pyverify analyze --print=stack-depth %t.py313 2>&1 | FileCheck %s --check-prefix=PYC313
# PYC313: .py313: at byte 16: .pyc payload is not a code object
# RUN: %mkcode raw 6f0d0d0a0000000000000000000000004e %t.py310
# RUN: %not --code 2 %pyverify prove %t.py310 2>&1 | FileCheck %s --check-prefix=PYC310
# PYC310: magic 3439 is Python 3.10's;
# RUN: %mkcode raw 330d0d0a0000000000000000000000004e %t.py36
# RUN: %not --code 2 %pyverify stats %t.py36 2>&1 | FileCheck %s --check-prefix=PYC36
# PYC36: magic 3379 is Python 3.6's;
# RUN: %mkcode raw 100e0d0a0000000000000000000000004e %t.py314
# RUN: %not --code 2 %pyverify check %t.py314 2>&1 | FileCheck %s --check-prefix=PYC314
# PYC314: magic 3600 is Python 3.14's (a 3.14 pre-release);
# 3.15.0rc1's magic (3666) is read as 3.15: its payload here is None.
# RUN: %mkcode raw 520e0d0a0000000000000000000000004e %t.py315
# RUN: %not --code 2 %pyverify check %t.py315 2>&1 | FileCheck %s --check-prefix=PYC315
# PYC315: .py315: at byte 16: .pyc payload is not a code object
# RUN: %mkcode raw 510e0d0a0000000000000000000000004e %t.py315a
# RUN: %not --code 2 %pyverify check %t.py315a 2>&1 | FileCheck %s --check-prefix=PYC315A
# PYC315A: magic 3665 is Python 3.15's (a 3.15 pre-release);
# RUN: %mkcode raw c40d0d0a0000000000000000000000004e %t.py312a
# RUN: %not --code 2 %pyverify check %t.py312a 2>&1 | FileCheck %s --check-prefix=PRE
# PRE: magic 3524 is Python 3.12's (a 3.12 pre-release);
# RUN: %mkcode raw d2040d0a0000000000000000000000004e %t.unknown
# RUN: %not --code 2 %pyverify check %t.unknown 2>&1 | FileCheck %s --check-prefix=UNKNOWN
# UNKNOWN: magic 1234 is not a CPython 3.6 to 3.15 magic number;

import marshal
import sys

if __name__ == "mkcode":
    # RUN: %mkcode marshal %s %t.v312
    import os, sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
    from v312code import MARSHAL as CODE

# Read as 3.11 when asked to (--python-version=3.11): the note, then the
# 3.11 errors it explains; exit 1 as for any error. Unasked, the stream is
# not read as 3.11 at all: one input error (check/marshal-version.py).
# RUN: %not --code 1 %pyverify check --python-version=3.11 %t.v312 2> %t.v312.err | FileCheck %s --check-prefix=ERRORS
# RUN: FileCheck %s --check-prefix=NOTE < %t.v312.err
# NOTE: pyverify: note: {{.*}}.v312: this looks like CPython 3.12 bytecode, not 3.11: every code object decodes as 3.12 opcodes and their inline caches, and offset {{[0-9]+}} of {{.*}} holds 3.12's {{[A-Z_]+}} (byte {{[0-9]+}}){{.*}}; a marshal stream is read as 3.11 unless --python-version says otherwise{{$}}
# ERRORS: error: {{.*}}[bytecode-decode]
# The other commands say it too; SARIF carries it as a warning. Told the
# version, check reads it as 3.12 and finds nothing (dis:
# dis/other-versions.py).
# RUN: %pyverify check --python-version=3.12 %t.v312 | FileCheck %s --check-prefix=AS312
# AS312: 0 error(s), 0 warning(s)
# RUN: %pyverify cfg --python-version=3.11 %t.v312 2>&1 >/dev/null | FileCheck %s --check-prefix=NOTE
# RUN: %not --code 1 %pyverify check --python-version=3.11 --format=sarif %t.v312 | %python -m json.tool | FileCheck %s --check-prefix=SARIF
# SARIF:      "level": "warning",
# SARIF:      "text": "{{.*}}.v312: this looks like CPython 3.12 bytecode, not 3.11:

# Broken 3.11 code is not mistaken for another version: four EXTENDED_ARG
# prefixes decode as 3.12 too, but 3.11 reads every opcode the same way.
# RUN: %mkcode marshal %s %t.prefixes --object PREFIXES
# RUN: %not --code 1 %pyverify check %t.prefixes 2>&1 | FileCheck %s --check-prefix=NO-NOTE
# NO-NOTE-NOT: looks like
# NO-NOTE: more than three EXTENDED_ARG
def k(x):
    return x

if __name__ == "mkcode":
    EA = bytes([144, 0])  # EXTENDED_ARG 0, in 3.11 and 3.12
    c = k.__code__
    PREFIXES = c.replace(co_code=c.co_code[:2] + EA * 4 + c.co_code[2:],
                         co_linetable=b"")
