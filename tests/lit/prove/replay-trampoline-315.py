# A replay script starts the original at the resume offset through a
# trampoline: a preamble that pushes the stack there and jumps. 3.15's
# RESUME has an inline cache unit (the trampoline wrote none, so 3.15 read
# the unit after it, the first push, as RESUME's cache: the stack value went
# missing and a local got the context's stand-in: 4 scripts of 3.15's
# fixtures stopped with "cannot replay", this one among them). The break at Ctx("r")'s construction call
# leaves the context manager on the stack at the resume offset; the
# operand-flipped resume function's divergence is reproduced.
#
# REQUIRES: python315
# RUN: rm -rf %t && mkdir -p %t
# RUN: env PYTHONDONTWRITEBYTECODE=1 %python315 %s %t/flipped.pvb
# RUN: cd %t && %not --code 1 %pyverify prove --replay=replay flipped.pvb | FileCheck %s --check-prefix=PROVE
# PROVE: flipped.pvb: [resume:0] refuted: matches-eager
# RUN: cd %t/replay && %not --code 1 %python315 -I flipped.resume_0.py | FileCheck %s
# CHECK: eager (original from offset {{[0-9]+}} with [] active):
# CHECK: CALL(0) [enter ctx#0]  {stack0.__enter__()}
# CHECK: BINARY_OP(5)  {(x * 2)}
# CHECK: result: reproduced: the emitted code does not match eager execution (exit status 1)
import dis, os, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(here, "..", "..", "..", "python"),
                os.path.join(here, "..", "..", "python")]
import rewriter_cases as rc
from pyverify_rewriter import rewrite
from pyverify_rewriter.bundle import write_bundle

fn = rc.CASES["return_in_with"][0]
ctx_call = next(i.offset for i in dis.get_instructions(fn)
                if i.opname == "CALL" and i.arg == 1)
write_bundle(sys.argv[1], rewrite(fn, ctx_call, variant="operand-flipped"))
