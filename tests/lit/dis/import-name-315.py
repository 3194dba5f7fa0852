# 3.15's IMPORT_NAME: the name index is the argument >> 2; bit 0 makes the
# import lazy (PEP 810), bit 1 eager (an import the module's
# __lazy_modules__ or a function body would otherwise make lazy); dis shows
# "name + lazy" / "name + eager", and nothing after an empty name
# (`from . import x`). Before, 3.15's table took the argument as 3.14's
# (the generator read "+ lazy" as LOAD_GLOBAL's NULL bit: name index >> 1).
#
# REQUIRES: python315
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python315 %s %t/m.pyc
# RUN: %pyverify dis %t/m.pyc | FileCheck %s
# CHECK: IMPORT_NAME 0 (os)
# CHECK: IMPORT_NAME 5 (c + lazy)
# CHECK: IMPORT_NAME 8{{$}}
# CHECK: IMPORT_NAME 2 (d + eager)
# CHECK: IMPORT_NAME 6{{$}}
import importlib.util
import marshal
import sys

SRC = """
import os
lazy import c
from . import x
def f():
    import d
    from . import y
"""
co = compile(SRC, "m.py", "exec")
with open(sys.argv[1], "wb") as f:
    f.write(importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps(co))
