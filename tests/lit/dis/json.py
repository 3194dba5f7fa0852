# The `pyverify dis --format=json` contract (docs/json.md): one line per
# top-level code object, children in co_consts order, byte offsets, table
# entries with exclusive end; "argrepr" as dis's (the listing's text).
# RUN: %mkcode pyc %s %t.pyc
# RUN: %pyverify dis --format=json %t.pyc | %python -m json.tool --sort-keys | FileCheck %s

def g(x):
    try:
        return x.y
    except AttributeError:
        return None

# CHECK:      "code": {
# CHECK:        "children": [
# CHECK:          "exception_table": [
# CHECK-NEXT:       {
# CHECK-NEXT:         "depth": 0,
# CHECK-NEXT:         "end": 16,
# CHECK-NEXT:         "lasti": false,
# CHECK-NEXT:         "start": 4,
# CHECK-NEXT:         "target": 18
# CHECK-NEXT:       },
# CHECK:          "firstlineno": 7,
# CHECK:          "instructions": [
# CHECK-NEXT:       {
# CHECK-NEXT:         "arg": 0,
# CHECK-NEXT:         "argrepr": "",
# CHECK-NEXT:         "col": 0,
# CHECK-NEXT:         "end_col": 0,
# CHECK-NEXT:         "end_line": 7,
# CHECK-NEXT:         "line": 7,
# CHECK-NEXT:         "offset": 0,
# CHECK-NEXT:         "opcode": 151,
# CHECK-NEXT:         "opname": "RESUME",
# CHECK-NEXT:         "target": null
# CHECK-NEXT:       },
# CHECK:          "name": "g",
# CHECK-NEXT:     "qualname": "g",
# CHECK-NEXT:     "stacksize": {{[0-9]+}}
# CHECK:      "file": "{{.*}}json.py.tmp.pyc"
