# analyze --format=json --keys=KEY,...: each instruction row keeps only the
# named keys -- the dis row keys and --print's own key -- for an oracle that
# reads a few of them (tests/corpus/test_block_stack_ast.py); the code
# object's keys stay. Without --keys the rows are the whole contract. An
# unknown key, another --print's key or --keys without JSON is a usage error.
# RUN: %mkcode pyc %s %t.pyc
# RUN: %pyverify analyze --print=block-stack --format=json --keys=offset,opname,blocks %t.pyc | FileCheck %s
# RUN: %pyverify analyze --print=block-stack --format=json %t.pyc | FileCheck %s --check-prefix=ALL
# RUN: %pyverify analyze --print=stack-depth --format=json --keys=line,depth %t.pyc | FileCheck %s --check-prefix=DEPTH
# RUN: %pyverify analyze --print=contexts --format=json --keys=offset %t.pyc | FileCheck %s --check-prefix=NOPRINTKEY
# RUN: %not --code 2 %pyverify analyze --print=block-stack --format=json --keys=offset,depth %t.pyc 2>&1 | FileCheck %s --check-prefix=BAD
# RUN: %not --code 2 %pyverify analyze --print=block-stack --keys=offset %t.pyc 2>&1 | FileCheck %s --check-prefix=TEXT

def f(cm):
    with cm:
        g()

# Exactly the three keys (sorted), the with block on the body's rows.
# CHECK:      "flags":3,"instructions":[{"blocks":[],"offset":0,"opname":"RESUME"},
# CHECK-SAME: {"blocks":[],"offset":4,"opname":"BEFORE_WITH"},
# CHECK-SAME: {"blocks":[{"enter":4,"handler":62,"kind":"with"}],"offset":8,"opname":"LOAD_GLOBAL"},
# CHECK-SAME: "name":"f","qualname":"f","stacksize":

# ALL:      "instructions":[{"arg":0,"argrepr":"","blocks":[],"col":0,"end_col":0,"end_line":14,"line":14,"offset":0,"opcode":151,"opname":"RESUME","target":null},

# DEPTH:      "instructions":[{"depth":0,"line":14},{"depth":0,"line":15},{"depth":1,"line":15},
# DEPTH-SAME: "max_depth":6,"name":"f"

# --print's key left out: the rows hold the dis keys named, nothing else.
# NOPRINTKEY: "instructions":[{"offset":0},{"offset":2},{"offset":4},

# BAD: error: analyze: --keys: 'depth' is not a key of an instruction row (the dis row keys: offset, opname, opcode, arg, argrepr, target, line, col, end_line, end_col; and blocks)
# TEXT: error: analyze: --keys selects keys of the JSON output: give --format=json
