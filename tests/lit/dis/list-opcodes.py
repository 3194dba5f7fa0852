# dis --list-opcodes: the base opcodes pyverify knows for a version
# (VersionOpcodes.h); tests/versions/check_version_opcodes.py compares the
# JSON with each interpreter. An unknown version is a usage error.
# RUN: %pyverify dis --list-opcodes | FileCheck %s --check-prefix=V311
# V311: {{^}}  1 POP_TOP                          caches 0{{$}}
# V311: {{^}}116 LOAD_GLOBAL                      caches 5, arg{{$}}
# V311: {{^}}166 PRECALL                          caches 1, arg{{$}}
# RUN: %pyverify dis --list-opcodes --python-version=3.12 | FileCheck %s --check-prefix=V312
# V312: {{^}}  4 END_FOR                          caches 0{{$}}
# V312: {{^}}121 RETURN_CONST                     caches 0, arg, terminator{{$}}
# V312-NOT: PRECALL
# RUN: %pyverify dis --list-opcodes --python-version=3.13 --format=json | FileCheck %s --check-prefix=V313
# V313: "name": "LOAD_FAST_LOAD_FAST"
# V313: "python_version": "3.13"
# RUN: %pyverify dis --list-opcodes --python-version=3.14 | FileCheck %s --check-prefix=V314
# V314: {{^}} 95 LOAD_SPECIAL                     caches 0, arg{{$}}
# V314-NOT: BEFORE_WITH
# 3.15.0rc1: GET_ITER takes an argument and has a cache, GET_YIELD_FROM_ITER
# is gone, TRACE_RECORD (a JIT instruction that aborts the interpreter in
# co_code) is no row.
# RUN: %pyverify dis --list-opcodes --python-version=3.15 | FileCheck %s --check-prefix=V315
# V315: {{^}} 70 GET_ITER                         caches 1, arg{{$}}
# V315-NOT: GET_YIELD_FROM_ITER
# V315-NOT: TRACE_RECORD
# RUN: %not --code 2 %pyverify dis --list-opcodes --python-version=3.16 2>&1 | FileCheck %s --check-prefix=BAD
# BAD: error: --python-version=3.16: pyverify has opcode tables for 3.11, 3.12, 3.13, 3.14 and 3.15
# RUN: %not --code 2 %pyverify dis 2>&1 | FileCheck %s --check-prefix=NONE
# NONE: error: dis: no input
