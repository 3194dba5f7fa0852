"""Where the interpreter running this script looks up an exception raised
inside a frame an instruction pushed (a Python callee), measured: a try
body's instruction whose callee raises, with the exception table split so
that either the instruction's own code units or the one unit before it are
left outside the try's entry. Prints, per instruction kind, what happens on
the first run (unspecialised) and after 60 runs (specialised): "caught"
(looked up in the try's entry) or "out".

Measured 2026-12-05 (issue 28; the finding is open: the raise model of
pyverify looks every raise of an instruction up at the instruction, see
tests/lit/check/call-lookup-before.py, XFAIL):
  3.11.2, 3.12.1: always at the instruction.
  3.13.0, 3.14.2, 3.15.0rc1: CALL / CALL_KW / CALL_FUNCTION_EX of a Python
  function at the unit BEFORE the instruction, from the first run (the
  frame is pushed inline); a class's Python __init__ (CALL), __getitem__
  (BINARY_SUBSCR, 3.14's BINARY_OP []), a property (LOAD_ATTR) and a
  generator (FOR_ITER): at the instruction on the first run, at the unit
  before once specialised.

    python3.N tests/versions/callee_lookup.py
"""
import dis
import sys
from dis import _parse_exception_table


def enc(v, first):
    chunks = []
    while True:
        chunks.append(v & 63); v >>= 6
        if not v: break
    chunks.reverse()
    return [c | (64 if k < len(chunks) - 1 else 0) | (128 if k == 0 and first else 0)
            for k, c in enumerate(chunks)]
def uncover(co, lo, hi):
    tab = []
    for e in _parse_exception_table(co):
        parts = []
        if e.start < lo: parts.append((e.start, min(e.end, lo)))
        if e.end > hi: parts.append((max(e.start, hi), e.end))
        if not (e.start < hi and e.end > lo): parts = [(e.start, e.end)]
        for s, t in parts:
            tab += enc(s // 2, True) + enc((t - s) // 2, False) + enc(e.target // 2, False) + enc((e.depth << 1) | e.lasti, False)
    return co.replace(co_exceptiontable=bytes(tab))


def main():
    print(sys.version.split()[0])
    for name, (expr, op, val) in CASES.items():
        src = "def f(g, a=()):\n    try:\n        return %s\n    except RuntimeError:\n        return 'caught'\n" % expr
        ns = {}
        exec(compile(src, "c", "exec"), ns)
        co = ns["f"].__code__
        ins = list(dis.get_instructions(co))
        if op is None:
            op = "BINARY_SUBSCR" if any(i.opname == "BINARY_SUBSCR" for i in ins) else "BINARY_OP"
        tgt = [i for i in ins if i.opname == op]
        if not tgt: print(name, "no", op); continue
        t = tgt[-1] if op != "BINARY_OP" else [i for i in tgt if i.arg == 26][0]
        j = ins.index(t)
        end = ins[j + 1].offset if j + 1 < len(ins) else t.offset + 2
        res = []
        for lo, hi in ((t.offset, end), (t.offset - 2, t.offset)):
            g = type(ns["f"])(uncover(co, lo, hi), ns)
            out = []
            for rep in range(60):  # warm up: specialisation
                v = val if val is not None else gen()
                try: out.append(g(v, ()))
                except RuntimeError: out.append("out")
            res.append("%s/%s" % (out[0], out[-1]))
        print("%-20s %-16s uncover-instr: %-16s uncover-prev-unit: %s" % (name, op, res[0], res[1]))


class G:
    def __getitem__(s, k): raise RuntimeError("gi")
    @property
    def p(s): raise RuntimeError("prop")
class I:
    def __init__(s): raise RuntimeError("init")
def py(*a, **k): raise RuntimeError("py")
def gen():
    raise RuntimeError("gen")
    yield
CASES = {  # name: (expression, the instruction, the value it works on)
 "CALL": ("g()", "CALL", py),
 "CALL_KW": ("g(x=1)", "CALL_KW", py),
 "CALL_FUNCTION_EX": ("g(*a)", "CALL_FUNCTION_EX", py),
 "CALL init": ("g()", "CALL", I),
 "SUBSCR": ("g[0]", None, G()),
 "LOAD_ATTR property": ("g.p", "LOAD_ATTR", G()),
 "FOR_ITER gen": ("[x for x in g]", "FOR_ITER", None),
}


if __name__ == "__main__":
    main()
