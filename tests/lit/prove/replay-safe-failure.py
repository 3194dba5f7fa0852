# A well-formed refutation whose dataflow error is safe to run -- a checked
# read of an unbound local in an exception handler raises UnboundLocalError
# there, nothing worse -- carries the path exactly-once finds through it,
# and its --replay script runs that path on this interpreter and shows the
# error (exit 1). One that is not safe to run (stacksize-too-small: the
# interpreter would write past the frame's stack) keeps having no path:
# "cannot replay", exit 2 (replay.py). docs/prove-cli.md, "Replay".
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t
# RUN: cd %t && %not --code 1 %pyverify prove --replay=replay --format=json handler.pvb > prove.json
# RUN: %python %s check-json %t/prove.json | FileCheck %s --check-prefix=JSON
# JSON:      resume:0 well-formed path: 7 step(s), raises UnboundLocalError at {{[0-9]+}}
#
# The text output shows the path under the refutation.
# RUN: %not --code 1 %pyverify prove handler.pvb | FileCheck %s --check-prefix=TEXT
# TEXT:      handler.pvb: [resume:0] refuted: well-formed: 1 dataflow error(s), first: {{[0-9]+}} LOAD_FAST {{[0-9]+}} in an exception handler reads local '___prev_torch_function_mode_stack'{{.*}}[local-unbound]
# TEXT:      LOAD_FAST [raises UnboundLocalError: '___prev_torch_function_mode_stack' is never assigned here]
#
# RUN: cd %t/replay && %not --code 1 %python -I handler.resume_0.py | FileCheck %s --check-prefix=REPLAY
# REPLAY:      pyverify replay: handler.pvb [resume:0] well-formed: 1 dataflow error(s)
# REPLAY:      emitted (resume:0):
# REPLAY:      [enter mode#0]
# REPLAY:      [raises] (ScheduledRaise: the counterexample says {{.*}} raises)
# REPLAY:      >> {{ *}}[[STEP:[0-9]+]] resume:0:[[OFF:[0-9]+]] LOAD_FAST(___prev_torch_function_mode_stack) [raises] (UnboundLocalError: {{.*}})
# REPLAY:      -> raises out
# REPLAY-NEXT: dataflow error at resume:0:[[OFF]]: {{.*}} [local-unbound]
# REPLAY-NEXT:   expected: step [[STEP]] raises UnboundLocalError (the path the prover gives)
# REPLAY-NEXT:   observed: step [[STEP]] raised UnboundLocalError: {{.*}}
# REPLAY-NEXT: then, violation at emitted step {{[0-9]+}}: resume:0 raises out with mode#0 still active: never exited on this path
# REPLAY:      result: reproduced: the dataflow error happens on this interpreter: resume:0:[[OFF]] raises UnboundLocalError (exit status 1)

import json
import os
import sys


def nested(cm1, cm2, f, g):
    with cm1:
        a = f(1)
        with cm2 as y:
            b = g(a, y)
            f(b)
        g(b)
    return a


def check_json(path):
    for r in json.load(open(path))["results"]:
        cex = r["counterexample"]
        if r["verdict"] != "refuted" or cex is None:
            continue
        raised = [s for s in cex["emitted"] if "raises UnboundLocalError" in (s["event"] or "")]
        print("%s %s path: %d step(s), raises UnboundLocalError at %s" % (
            r["target"], r["property"], len(cex["emitted"]),
            ",".join(str(s["offset"]) for s in raised)))


if __name__ == "__main__":
    if sys.argv[1] == "check-json":
        check_json(sys.argv[2])
        sys.exit(0)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "..", "..", "python"))
    import pyverify_rewriter as pr
    bp = next(b for b in pr.break_points(nested) if b.reason is None)
    pr.write_bundle(os.path.join(sys.argv[1], "handler.pvb"),
                    pr.rewrite(nested, bp.offset, modes=(0,),
                               variant="handler-reads-first-frame-local"))
