# analyze --print=stack-depth --format=json: the dis JSON contract plus
# "max_depth" per code object and "depth" per instruction -- null where no
# path reaches the instruction, or for code that cannot be analysed.
# RUN: %mkcode pyc %s %t.pyc
# RUN: %pyverify analyze --print=stack-depth --format=json %t.pyc | FileCheck %s
# RUN: %pyverify analyze --print=stack-depth %t.pyc | FileCheck %s --check-prefix=TEXT
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

# CPython 3.11 keeps the except clause of a try body that cannot raise: no
# exception-table entry covers `return 1`, so nothing reaches the handler
# at 8, yet co_stacksize (4) still counts it.
def const():
    try:
        return 1
    except ValueError:
        return 2

# const: 0 RESUME; 2 NOP; 4 LOAD_CONST 1; 6 RETURN_VALUE; 8 PUSH_EXC_INFO;
#        10 LOAD_GLOBAL ValueError; ... 40 RERAISE 1.

# One line per top-level code object, keys sorted; children first.
# CHECK:      {"code":{"children":[{"children":[],"exception_table":[
# CHECK-SAME: "instructions":[{"arg":0,{{[^{}]*}}"depth":0,{{[^{}]*}}"offset":0,"opcode":151,"opname":"RESUME"
# CHECK-SAME: "depth":0,{{[^{}]*}}"offset":4,"opcode":100,"opname":"LOAD_CONST"
# CHECK-SAME: "depth":1,{{[^{}]*}}"offset":6,"opcode":83,"opname":"RETURN_VALUE"
# CHECK-SAME: "depth":null,{{[^{}]*}}"offset":8,"opcode":35,"opname":"PUSH_EXC_INFO"
# CHECK-SAME: "depth":null,{{[^{}]*}}"offset":10,"opcode":116,"opname":"LOAD_GLOBAL"
# The maximum is over reachable code only: 1, below co_stacksize.
# CHECK-SAME: "max_depth":1,"name":"const","qualname":"const","stacksize":4}
# Then the module itself.
# CHECK-SAME: "max_depth":{{[0-9]+}},"name":"<module>"

# TEXT-LABEL: Disassembly of <code object const,
# TEXT-NEXT:  ; max depth 1 (co_stacksize 4)
# TEXT:       4 LOAD_CONST 1 (1) ; depth 0
# TEXT-NEXT:  6 RETURN_VALUE ; depth 1
# TEXT-NEXT:  8 PUSH_EXC_INFO ; unreachable
# TEXT-EMPTY:
# TEXT-NEXT:  17 10 LOAD_GLOBAL 0 (ValueError) ; unreachable

if __name__ == "mkcode":
    # Code that cannot be analysed (an exception-table target in the caches
    # of LOAD_GLOBAL): max_depth and every depth are null, and the text
    # listing says why.
    # RUN: %mkcode marshal %s %t.bad --object BAD
    # RUN: %pyverify analyze --print=stack-depth --format=json %t.bad | FileCheck %s --check-prefix=BAD
    # RUN: %pyverify analyze --print=stack-depth %t.bad | FileCheck %s --check-prefix=BAD-TEXT
    BAD = bc.set_entry(const.__code__, 0, target=12)
    # BAD-NOT:  "depth":{{[0-9]+}},"end_col"
    # BAD:      "max_depth":null,"name":"const"
    # BAD-TEXT:      Disassembly of <code object const,
    # BAD-TEXT-NEXT: ; no stack-depth analysis: not well-formed (run 'pyverify check')
    # BAD-TEXT-NEXT: 14 0 RESUME 0{{$}}
