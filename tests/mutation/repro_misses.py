#!/usr/bin/python3.11
"""Minimal reproducers for the mutants pyverify misses on the stdlib.

Each case compiles a few lines, plants one mutation with the machinery of
mutate_stdlib.py (same classes, same expected ids), runs
`pyverify check --format=json` on the mutant and prints what it reports.
It runs under python3.11, 3.12, 3.13, 3.14 or 3.15 (the cases of that version).

    /usr/bin/python3.11 tests/mutation/repro_misses.py --pyverify PATH [--out DIR]

Exits 1 if any case is still missed (pyverify does not report the expected
id), 0 when all are detected.
"""

import argparse
import collections
import dis
import json
import marshal
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutate_stdlib as M  # noqa: E402  (same directory)

LOOP_WITH = '''
def f(cm, xs):
    for x in xs:
        with cm:
            g(x)
'''

BACK_EDGE = '''
def f(lock, q):
    with lock:
        while True:
            try:
                q.get()
            except Exception:
                break
'''

LOOP_SWAP = '''
def f(a, b, xs):
    with a:
        for x in xs:
            with b:
                if x:
                    continue
                g()
'''

# Two withs at the same depth whose bodies always raise (no exit call): the
# first body's entry retargeted to the second's handler (every version). The
# first handler, and with it the second with, become unreachable: the code
# that runs enters and exits `a` once (balanced) and skips `with b`, so the
# expected finding is the unreachable-code remark over the second
# BEFORE_WITH (mutate_stdlib.py's KILLED_WITH_EXPECTED).
SIBLING_NO_EXIT = '''
def f(a, b):
    with a:
        raise E
    with b:
        raise E
'''

# An await in a with body: the throw() path's CLEANUP_THROW (reached from the
# await loop's YIELD_VALUE) loses its with-body entry.
AWAIT_THROW = '''
async def f(cm, aw):
    with cm:
        await aw
'''


def site_nth(k):
    """Pick the mutant planted at the k-th with site (code order)."""
    def pick(m, co):
        insts = M.decode(co.co_code)
        enters = [i.off for i in insts if M.enter_tag(insts, i.idx)]
        return m.site == enters[k]
    return pick


def covers(op_name):
    """Pick the drop-entry / shrink-entry mutant whose uncovered range holds
    an `op_name` instruction."""
    def pick(m, co):
        lo, hi = m.region
        return any(i.name == op_name and lo <= i.start < hi
                   for i in M.decode(co.co_code))
    return pick


# (name, source, class, variant prefix or pick(mutant, original code),
#  what goes wrong, versions)
ALL = {(3, 11), (3, 12), (3, 13), (3, 14), (3, 15)}
# 3.14 and 3.15 have no dup-enter and no swap-exits (mutate_stdlib.py's with
# shape).
UP_TO_313 = ALL - {(3, 14), (3, 15)}
CASES = [
    ("loop-depth-plus1", LOOP_WITH, "entry-depth", "plus1",
     "body entry depth 2 -> 3 on a with inside a for loop", ALL),
    ("loop-depth-minus1", LOOP_WITH, "entry-depth", "minus1",
     "body entry depth 2 -> 1 on a with inside a for loop", ALL),
    ("loop-dup-enter", LOOP_WITH, "dup-enter", "",
     "POP_TOP after BEFORE_WITH -> BEFORE_WITH inside a for loop", UP_TO_313),
    ("back-edge-drop", BACK_EDGE, "drop-entry", "entry0",
     "drop the body entry [POP_TOP; NOP(while)]: the back edge's eval-breaker "
     "key (target - 1 = the while NOP) is uncovered", {(3, 11), (3, 12)}),
    ("back-edge-shrink", BACK_EDGE, "shrink-entry", "entry0",
     "shrink the body entry so the while NOP (key of the back edge) is "
     "uncovered", {(3, 11), (3, 12)}),
    ("loop-swap", LOOP_SWAP, "swap-exits", "nop",
     "the `continue` NOP before the inner exit becomes SWAP 3: the inner exit "
     "calls the outer __exit__ on the first iteration", UP_TO_313),
    ("sibling-no-exit-retarget", SIBLING_NO_EXIT, "retarget-handler", site_nth(0),
     "the first with's body entry retargeted to the second with's handler "
     "(same depth, no normal exit): the second with becomes unreachable", ALL),
    ("sibling-no-exit-back", SIBLING_NO_EXIT, "retarget-handler", site_nth(1),
     "the second with's body entry retargeted to the first with's handler "
     "(same depth, neither exits normally): a suppressed exception in the "
     "second body continues after the first with and enters the second "
     "again; both are reachable, nothing merges their contexts", ALL),
    ("await-throw-drop", AWAIT_THROW, "drop-entry", covers("CLEANUP_THROW"),
     "drop the with-body entry of the CLEANUP_THROW that a throw() into the "
     "await reaches (from the YIELD_VALUE's own entry): the exception leaves "
     "the frame with the context active", {(3, 12), (3, 13), (3, 14), (3, 15)}),
]


def mutants_of(src, name="f"):
    top = compile(src, "<repro>", "exec")
    co = next(c for c in M.walk_code(top) if c.co_name == name)
    flow = M.Flow(co, co.co_code, M.parse_table(co.co_exceptiontable))
    sites = M.find_sites(flow, collections.Counter())
    return co, M.Mutator("repro.py", co, flow, sites).run()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pyverify", required=True)
    ap.add_argument("--out", default=None, help="keep the mutants here")
    ap.add_argument("--dis", action="store_true", help="print dis of each mutant")
    a = ap.parse_args()
    out = a.out or tempfile.mkdtemp(prefix="pyverify-repro-")
    os.makedirs(out, exist_ok=True)
    missed = 0
    cases = [c for c in CASES if M.PY in c[5]]
    for name, src, cls, variant, what, _ in cases:
        co, ms = mutants_of(src)
        if callable(variant):
            m = next(m for m in ms if m.cls == cls and variant(m, co))
        else:
            m = next(m for m in ms if m.cls == cls and m.variant.startswith(variant))
        m.finalize()
        path = os.path.join(out, name + ".marshal")
        with open(path, "wb") as f:
            f.write(marshal.dumps(m.code_obj))
        r = subprocess.run([a.pyverify, "check", "--format=json", *M.VERSION_FLAG,
                            "--checks=%s" % M.KILLED_WITH_EXPECTED, path],
                           capture_output=True, text=True)
        ds = json.loads(r.stdout)["diagnostics"]
        if m.kills is None:
            ok = any(d["check"] == m.expected for d in ds)
        else:  # the same rule as mutate_stdlib.py's
            ok = any(d["check"] == m.expected and M.dead_range_holds(d, m.kills)
                     for d in ds)
        missed += not ok
        print("== %s: %s" % (name, what))
        print("   mutation: %s" % m.desc)
        print("   expected %s: %s" % (m.expected, "REPORTED" if ok else "MISSED"))
        for d in ds:
            print("     %s %s @%d: %s" % (d["severity"], d["check"], d["offset"],
                                        d["message"][:150]))
        if not ds:
            print("     (no findings)")
        if a.dis:
            dis.dis(m.code_obj)
    print("%d of %d cases missed; mutants in %s" % (missed, len(cases), out))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
