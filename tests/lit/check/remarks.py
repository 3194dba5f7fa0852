# The two remarks, off by default: stacksize-larger-than-needed and
# unreachable-code. Remarks never fail a run (exit 0).
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def k(x):
    return x + 1

# k: 0 RESUME; 2 LOAD_FAST x; 4 LOAD_CONST 1 (depth 1 -> 2); 6 BINARY_OP +;
#    10 RETURN_VALUE.  co_stacksize 2.

if __name__ == "mkcode":
    code = k.__code__
    assert code.co_stacksize == 2 and len(code.co_code) == 12

    # co_stacksize 5 for a code object that needs 2.
    # RUN: %mkcode marshal %s %t.big --object BIG
    # RUN: %pyverify check %t.big | FileCheck %s --check-prefix=DEFAULT
    # DEFAULT-NOT: remark
    # DEFAULT:     pyverify: 1 file(s), 1 code object(s): 0 error(s), 0 warning(s), 0 remark(s)
    # RUN: %pyverify check --checks=stacksize-larger-than-needed %t.big | FileCheck %s --check-prefix=BIG
    BIG = bc.set_stacksize(code, 5)
    # BIG:      {{.*}}.py:8:16: remark: co_stacksize is 5 but no reachable instruction needs more than 2 [stacksize-larger-than-needed]
    # BIG-NEXT:   in k (line 7) at offset 4: LOAD_CONST 1
    # BIG-NEXT: {{.*}}.py:8:16: note: the deepest point (offset 4)
    # BIG-NEXT: pyverify: 1 file(s), 1 code object(s): 0 error(s), 0 warning(s), 1 remark(s)

    # Dead code after RETURN_VALUE: LOAD_CONST None; RETURN_VALUE appended.
    # RUN: %mkcode marshal %s %t.dead --object DEAD
    # RUN: %pyverify check %t.dead | FileCheck %s --check-prefix=DEFAULT
    # RUN: %pyverify check --checks=unreachable-code %t.dead | FileCheck %s --check-prefix=DEAD
    DEAD = bc.insert_bytes(code, 12, bc.unit("LOAD_CONST", 0) +
                           bc.unit("RETURN_VALUE"))
    # The appended units have no location.
    # DEAD:      {{.*}}.py:{{[0-9]+}}: remark: 2 instruction(s) from 12 to 14 are unreachable [unreachable-code]
    # DEAD-NEXT:   in k (line 7) at offset 12 (no line of its own): LOAD_CONST 0
    # DEAD-NEXT: pyverify: 1 file(s), 1 code object(s): 0 error(s), 0 warning(s), 1 remark(s)

    # Both at once, with a prefix pattern.
    # RUN: %pyverify check '--checks=stacksize-*,unreachable-*' %t.dead %t.big | FileCheck %s --check-prefix=BOTH
    # BOTH-DAG: remark: co_stacksize is 5 {{.*}}[stacksize-larger-than-needed]
    # BOTH-DAG: remark: 2 instruction(s) from 12 to 14 are unreachable [unreachable-code]
    # BOTH:     pyverify: 2 file(s), 2 code object(s): 0 error(s), 0 warning(s), 2 remark(s)

def g(x):
    try:
        return x.y
    except AttributeError:
        return None

# g: 4 LOAD_FAST x; 6 LOAD_ATTR y; 16 RETURN_VALUE; 18 PUSH_EXC_INFO ...
#    50 RERAISE 1.  Table: 4 to 14 -> 18 [0], 18 to 36 -> 46 [1] lasti,
#    44 to 44 -> 46 [1] lasti.

if __name__ == "mkcode":
    # The try body's entry dropped: nothing reaches the except clause any
    # more, and the stack never goes above 1.
    # RUN: %mkcode marshal %s %t.nohandler --object NO_HANDLER
    # RUN: %pyverify check '--checks=*' %t.nohandler | FileCheck %s --check-prefix=NOHANDLER
    NO_HANDLER = bc.drop_entry(g.__code__, 0)
    # NOHANDLER:      {{.*}}.py:48:16: remark: co_stacksize is 4 but no reachable instruction needs more than 1 [stacksize-larger-than-needed]
    # NOHANDLER-NEXT:   in g (line 46) at offset 4: LOAD_FAST 0
    # NOHANDLER-NEXT: {{.*}}.py:48:16: note: the deepest point (offset 4)
    # NOHANDLER-NEXT: {{.*}}.py:{{[0-9]+}}: remark: 12 instruction(s) from 18 to 50 are unreachable [unreachable-code]
    # NOHANDLER-NEXT:   in g (line 46) at offset 18 (no line of its own): PUSH_EXC_INFO
    # NOHANDLER-NEXT: pyverify: 1 file(s), 1 code object(s): 0 error(s), 0 warning(s), 2 remark(s)
