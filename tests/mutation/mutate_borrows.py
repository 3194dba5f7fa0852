#!/usr/bin/env python3
"""Borrow mutants: plant use-after-free bugs of borrowed references (3.14+).

Runs under the 3.14 or 3.15 oracle (the Pyodide shim) on that version's
stdlib corpus, with mutate_stdlib.py's decoder, exception-table codec and
real-stack flow (same directory). The classes (README.md, "Borrow mutants",
fixed before any run):

  borrow-load       LOAD_FAST x the compiler did not borrow -> LOAD_FAST_BORROW x
  borrow-load-pair  LOAD_FAST_LOAD_FAST x, y -> LOAD_FAST_BORROW_LOAD_FAST_BORROW
  borrow-kill       a kill of local z (STORE_FAST, STORE_FAST_LOAD_FAST's or
                    STORE_FAST_STORE_FAST's store, DELETE_FAST,
                    LOAD_FAST_AND_CLEAR) run while the compiler's borrow of
                    x is on the stack -> the same kill of x

This tool's own model decides each mutant before pyverify runs (README.md,
"Borrow mutants"): from the borrowing load, over normal and exception
edges, the borrowed value is followed on the stack (COPY copies it, SWAP
moves it), into the locals it is stored in and through the instructions
that push their input; a kill of its local frees it; a freed borrow taken
(popped, or read in place, by anything but a move) is a use after free:
expected `borrow-outlives-local`. A mutant on no path of which the borrow
is freed before it is taken is a safe borrow: pyverify must report nothing
there (a finding is a false alarm). A freed borrow through a pass-through
instruction, or a free by LOAD_FAST_AND_CLEAR, is not planted (counted).

Exits 1 if a use-after-free mutant is missed, a safe one or the unmutated
corpus gets `borrow-outlives-local`; 2 on a setup error.
"""

import argparse
import collections
import copy
import json
import marshal
import os
import random
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutate_stdlib as M  # noqa: E402

if M.PY < (3, 14):
    sys.exit("mutate_borrows.py needs python3.14 or 3.15 (LOAD_FAST_BORROW)")

CHECK = "borrow-outlives-local"
op = M._op
LOAD_FAST = op("LOAD_FAST")
LOAD_FAST_BORROW = op("LOAD_FAST_BORROW")
LFLF = op("LOAD_FAST_LOAD_FAST")
LFBLFB = op("LOAD_FAST_BORROW_LOAD_FAST_BORROW")
STORE_FAST = op("STORE_FAST")
SFLF = op("STORE_FAST_LOAD_FAST")
SFSF = op("STORE_FAST_STORE_FAST")
DELETE_FAST = op("DELETE_FAST")
LFAC = op("LOAD_FAST_AND_CLEAR")
COPY, SWAP = M.COPY, M.SWAP
# Instructions whose outputs may be their input itself (docs/checks.md,
# borrow-outlives-local): a borrow through them is not modelled here.
# 3.15's GET_ITER leaves a list or tuple in place. LOAD_ATTR: with the
# method bit only (its self slot).
PASS_THROUGH = {op(n) for n in (
    "LOAD_SPECIAL", "LOAD_SUPER_ATTR", "FORMAT_SIMPLE", "END_SEND",
    "SET_FUNCTION_ATTRIBUTE", "PUSH_EXC_INFO")} - {-1}
if M.AWAIT_NULL:  # 3.15 (GET_ITER pushes the iterable and an index)
    PASS_THROUGH.add(op("GET_ITER"))
LOAD_ATTR = op("LOAD_ATTR")


def passes_through(ins):
    return ins.op in PASS_THROUGH or (ins.op == LOAD_ATTR and ins.arg & 1)
KILLS = {STORE_FAST, SFLF, SFSF, DELETE_FAST, LFAC}
CLASSES = ["borrow-load", "borrow-load-pair", "borrow-kill"]
KILL_SHAPES = ["STORE_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST",
               "DELETE_FAST", "LOAD_FAST_AND_CLEAR"]


def killed(ins):
    """Locals `ins` kills (drops the local's reference), in order."""
    if ins.op in (STORE_FAST, DELETE_FAST, LFAC):
        return [ins.arg]
    if ins.op == SFLF:
        return [ins.arg >> 4]
    if ins.op == SFSF:
        return [ins.arg >> 4, ins.arg & 15]
    return []


def count(row, key, arg):
    return M.pv.count(row[key], arg or 0)


class Undecided(Exception):
    """The model cannot decide; args[0] is the kind (counted), args[1]
    where."""


LOADS = {LOAD_FAST: 1, LOAD_FAST_BORROW: 1, op("LOAD_FAST_CHECK"): 1,
         LFLF: 2, LFBLFB: 2}


def loaded(ins):
    """Locals `ins` pushes (a load or a fused store-load's load), in order."""
    if LOADS.get(ins.op) == 1:
        return [ins.arg]
    if ins.op in (LFLF, LFBLFB):
        return [ins.arg >> 4, ins.arg & 15]
    if ins.op == SFLF:
        return [ins.arg & 15]
    return []


def stored_into(ins):
    """Locals the values `ins` pops are stored into, top first."""
    if ins.op in (STORE_FAST, SFLF):
        return [ins.arg >> 4 if ins.op == SFLF else ins.arg]
    if ins.op == SFSF:
        return [ins.arg >> 4, ins.arg & 15]
    return []


def pass_through(ins, popped):
    """The tags an instruction that may push its input pushes (docs/
    checks.md, borrow-outlives-local), or None for any other."""
    name = ins.name
    if name == "LOAD_ATTR" and ins.arg & 1 or name == "LOAD_SPECIAL" or \
            name == "PUSH_EXC_INFO":
        return [None, popped[-1]]  # (attr or prev_exc, self or exc)
    if name == "LOAD_SUPER_ATTR":
        return [None, popped[-1]] if ins.arg & 1 else [None]
    if name in ("FORMAT_SIMPLE", "END_SEND", "SET_FUNCTION_ATTRIBUTE"):
        return [popped[-1]]  # the value, the function
    if name == "GET_ITER" and M.AWAIT_NULL:  # 3.15: the iterable stays
        return [popped[-1], None]
    return None


def track(flow, start, locs, limit=20000):
    """From insts[start] (a borrowing load of `locs`), follow the borrowed
    slot(s) on the stack and in the locals they are stored into. Returns
    (uaf, kills): uaf is (the kill's opcode name, text) of the first use
    after free found, or None; kills lists (instruction index, local) of
    kills of other locals run while a borrow is on the stack. Raises
    Undecided."""
    insts = flow.insts
    s0 = flow.state[start]
    if s0 is None:
        raise Undecided("unreachable", "")
    fresh = tuple(("B", x) for x in locs)
    work = [(start + 1, (tuple([None] * len(s0)) + fresh, ()))]
    seen = set()
    kills = set()
    uaf = None
    while work:
        i, (t, lv) = work.pop()
        if i is None or i >= len(insts) or (i, t, lv) in seen:
            continue
        if not any(t) and not lv:
            continue
        seen.add((i, t, lv))
        if len(seen) > limit:
            raise Undecided("state limit", "")
        ins = insts[i]
        st = flow.state[i]
        if st is None or len(st) != len(t):
            raise Undecided("depth disagrees", ins.text())
        row = M.STACK_IO[ins.op]
        if ins.may_raise():  # the state before the instruction, cut
            e = flow.lookup(ins.off)
            if e >= 0:
                _, _, target, depth, lasti = flow.table[e]
                work.append((flow.at.get(target),
                             (t[:depth] + (None,) * (lasti + 1), lv)))
        edges = ([False] if ins.op not in M.NO_FALLTHROUGH else []) + \
            ([True] if ins.target() is not None else [])
        # a terminator (RETURN_VALUE, RAISE_VARARGS, ...) still takes its
        # inputs
        for jump in edges or [None]:
            s, L = list(t), dict(lv)
            if ins.op == COPY:
                s.append(s[-ins.arg] if ins.arg <= len(s) else None)
            elif ins.op == SWAP:
                s[-1], s[-ins.arg] = s[-ins.arg], s[-1]
            else:
                reads = count(row, "reads", ins.arg)
                pops = count(row, "jump_pops" if jump else "pops", ins.arg)
                n = max(reads, pops)
                top = s[len(s) - n:] if n else []
                into = stored_into(ins)
                moved = top[len(top) - len(into):] if into else []
                taken = top[:len(top) - len(into)] if into else top
                if any(x and x[0] == "F" for x in taken):
                    f = [x for x in taken if x and x[0] == "F"][0]
                    if passes_through(ins):
                        raise Undecided("freed borrow through " + ins.name,
                                        ins.text())
                    uaf = uaf or (f[2], "%s takes the borrow of local %d "
                                  "freed by %s" % (ins.text(), f[1], f[3]))
                    continue
                popped = s[len(s) - pops:] if pops else []
                del s[len(s) - pops:]
                outs = None
                if passes_through(ins) and any(popped):
                    outs = pass_through(ins, popped)
                    if outs is None:
                        raise Undecided("borrow through " + ins.name,
                                        ins.text())
                # kills: each local's old value is dropped, then the value
                # popped for it (top first) moves in; a value still to be
                # stored may be a borrow of the local just overwritten
                # (`a, b = b, a` with both loads borrowing)
                pending = list(reversed(moved))
                for k, x in enumerate(killed(ins)):
                    live = any(v and v[0] == "B" for v in s + pending)
                    hit = False
                    for seq in (s, pending):
                        for j, v in enumerate(seq):
                            if v and v[0] == "B" and v[1] == x:
                                seq[j] = ("F", x, ins.name, ins.text())
                                hit = True
                    for y, v in list(L.items()):
                        if v[0] == "B" and v[1] == x:
                            L[y] = ("F", x, ins.name, ins.text())
                            hit = True
                    if hit and ins.op == LFAC:
                        # moves the reference to the stack: no free at run
                        # time (pyverify reports it, docs/checks.md)
                        raise Undecided("kill by LOAD_FAST_AND_CLEAR",
                                        ins.text())
                    if not hit and live:
                        kills.add((i, x))
                    if ins.op == LFAC:
                        continue
                    L.pop(x, None)
                    if k < len(pending) and into and pending[k]:
                        L[x] = pending[k]
                if ins.op == LFAC:
                    v = L.pop(ins.arg, None)
                    s.append(v)
                elif outs is not None:
                    s += outs
                elif i == start:
                    s += list(fresh)
                elif loaded(ins):
                    s += [L.get(y) for y in loaded(ins)]
                else:
                    s += [None] * count(row, "jump_pushes" if jump else
                                        "pushes", ins.arg)
            if jump is None:
                continue
            state = (tuple(s), tuple(sorted(L.items())))
            nxt = flow.landing(ins) if jump else i + 1
            if jump and ins.op in M.EVAL_BREAKER_JUMPS:
                e = flow.lookup(ins.target() - 2)
                if e >= 0:
                    _, _, target, depth, lasti = flow.table[e]
                    work.append((flow.at.get(target),
                                 (state[0][:depth] + (None,) * (lasti + 1),
                                  state[1])))
            work.append((nxt, state))
    return uaf, sorted(kills)


class Mutant:
    def __init__(self, cls, shape, src, co, ins, units, start, locs, desc):
        self.cls, self.shape, self.src, self.co = cls, shape, src, co
        self.ins, self.units, self.start, self.locs = ins, units, start, locs
        self.desc = desc
        self.expected = None  # CHECK or "safe"
        self.why = None
        self.reported = []
        self.path = None


def mutate(co, at, units):
    return M.patch(co.co_code, at, units)


def judge(m, flow):
    """Run this tool's model on the mutant; sets m.expected / m.why. Every
    class keeps the stack effects (an opcode of the same effect, or another
    local), so the mutant's flow is the original's with the one instruction
    replaced."""
    code = mutate(m.co, m.ins.off, m.units)
    mflow = copy.copy(flow)
    mflow.insts = list(flow.insts)
    (op_, arg), = m.units
    mflow.insts[m.ins.idx] = M.Inst(m.ins.idx, m.ins.start, m.ins.off, op_,
                                    arg, m.ins.end)
    uaf, _ = track(mflow, m.start, m.locs)
    m.expected = CHECK if uaf else "safe"
    m.why = uaf[1] if uaf else "no path frees the borrow before it is taken"
    if uaf:
        m.shape = uaf[0]  # the kill that freed it
    m.code_obj = m.co.replace(co_code=code)


def candidates(src, co, flow):
    """(class, shape, instruction, units, start index, locals, desc)."""
    out = []
    for ins in flow.insts:
        if ins.start != ins.off or flow.state[ins.idx] is None:
            continue
        if ins.op == LOAD_FAST:
            out.append(("borrow-load", "LOAD_FAST", ins,
                        [(LOAD_FAST_BORROW, ins.arg)], ins.idx, [ins.arg],
                        "%s -> LOAD_FAST_BORROW" % ins.text()))
        elif ins.op == LFLF:
            out.append(("borrow-load-pair", "LOAD_FAST_LOAD_FAST", ins,
                        [(LFBLFB, ins.arg)], ins.idx,
                        [ins.arg >> 4, ins.arg & 15],
                        "%s -> LOAD_FAST_BORROW_LOAD_FAST_BORROW" % ins.text()))
        elif ins.op in (LOAD_FAST_BORROW, LFBLFB):
            locs = ([ins.arg] if ins.op == LOAD_FAST_BORROW
                    else [ins.arg >> 4, ins.arg & 15])
            try:
                _, kills = track(flow, ins.idx, locs)
            except Undecided:
                continue
            for k, z in kills:
                kin = flow.insts[k]
                if kin.start != kin.off:
                    continue
                for x in locs:
                    if x == z:
                        continue
                    a = kin.arg
                    if kin.op in (STORE_FAST, DELETE_FAST, LFAC):
                        new = x
                    elif kin.op == SFLF and x < 16:
                        new = (x << 4) | (a & 15)
                    elif kin.op == SFSF and x < 16:
                        new = ((x << 4) | (a & 15)) if (a >> 4) == z \
                            else ((a & 0xF0) | x)
                    else:
                        continue
                    if new > 255:
                        continue
                    out.append(("borrow-kill", kin.name, kin,
                                [(kin.op, new)], ins.idx, locs,
                                "%s -> arg %d (kills %s while %s's borrow "
                                "lives)" % (kin.text(), new,
                                            co.co_varnames[x] if x < len(co.co_varnames) else x,
                                            ins.text())))
                    break
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pyverify", required=True)
    ap.add_argument("--pyc-dir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--safe-sample", type=int, default=2000,
                    help="safe borrow mutants kept (sampled; 0: all)")
    ap.add_argument("--limit", type=int, default=0,
                    help="use-after-free mutants kept per class (0: all)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    t0 = time.time()
    pycs = []
    for root, dirs, files in os.walk(a.pyc_dir):
        dirs.sort()
        pycs += [os.path.join(root, f) for f in sorted(files)
                 if f.endswith(".pyc")]
    if not pycs or not os.access(a.pyverify, os.X_OK):
        print("error: no .pyc under %s or no pyverify" % a.pyc_dir,
              file=sys.stderr)
        return 2
    vers = "%d.%d" % M.PY
    # The compiler's own borrows: the whole corpus unmutated.
    r = subprocess.run([a.pyverify, "check", "--python-version=" + vers,
                        "--format=json", "--jobs=0", a.pyc_dir],
                       capture_output=True, text=True)
    try:
        base = json.loads(r.stdout)
    except ValueError:
        print("error: pyverify printed no JSON: %s" % r.stderr[:500],
              file=sys.stderr)
        return 2
    own = [d for d in base["diagnostics"] if d["check"] == CHECK]

    muts = []
    undecided = collections.Counter()
    n_code = n_borrow_code = n_borrows = 0
    for path in pycs:
        rel = os.path.relpath(path, a.pyc_dir)
        for co in M.walk_code(M.load_pyc(path)):
            n_code += 1
            code = co.co_code
            if not any(o in code[::2] for o in (LOAD_FAST, LFLF,
                                                 LOAD_FAST_BORROW, LFBLFB)):
                continue
            insts = M.decode(code)
            nb = sum(i.op in (LOAD_FAST_BORROW, LFBLFB) for i in insts)
            if nb:
                n_borrow_code += 1
                n_borrows += nb
            flow = M.Flow(co, code, M.parse_table(co.co_exceptiontable), insts)
            if flow.conflicts:
                undecided["code object: own depth model disagrees"] += 1
                continue
            for c in candidates(rel, co, flow):
                m = Mutant(c[0], c[1], rel, co, *c[2:])
                try:
                    judge(m, flow)
                except Undecided as exc:
                    undecided["%s: %s" % (m.cls, exc.args[0])] += 1
                    continue
                muts.append(m)
    rng = random.Random(a.seed)
    keep = []
    for c in CLASSES:
        u = [m for m in muts if m.cls == c and m.expected == CHECK]
        s = [m for m in muts if m.cls == c and m.expected == "safe"]
        if a.limit and len(u) > a.limit:
            u = rng.sample(u, a.limit)
        if a.safe_sample and len(s) > a.safe_sample:
            s = rng.sample(s, a.safe_sample)
        keep += u + s
    generated = collections.Counter((m.cls, m.expected) for m in muts)
    muts = keep

    mdir = os.path.join(a.out, "mutants")
    shutil.rmtree(mdir, ignore_errors=True)
    os.makedirs(mdir)
    for k, m in enumerate(muts):
        m.path = os.path.join(mdir, "%s__%s__%s__%05d.marshal" % (
            M.safe_name(m.src[:-4], 60), M.safe_name(m.co.co_qualname, 60),
            m.cls, k))
        with open(m.path, "wb") as f:
            f.write(marshal.dumps(m.code_obj))
    diags = M.run_pyverify(a.pyverify, [m.path for m in muts])
    for m in muts:
        m.reported = sorted({d["check"] for d in diags.get(m.path, [])
                             if d["code"] == m.co.co_qualname and
                             d["firstlineno"] == m.co.co_firstlineno})

    print("bytecode: CPython %s (pyverify check --python-version=%s)" % (
        vers, vers))
    print("corpus: %d files, %d code objects, %d borrowing loads in %d" % (
        len(pycs), n_code, n_borrows, n_borrow_code))
    print("the compiler's own borrows (the corpus unmutated): %d %s findings"
          % (len(own), CHECK))
    print("not planted (this model cannot decide): %s" % ", ".join(
        "%s %d" % kv for kv in sorted(undecided.items())))
    print()
    print("%-17s %-22s %9s %9s %7s %9s %6s" % (
        "class", "kill shape", "uaf", "caught", "missed", "safe", "false"))
    bad = 0
    shapes = collections.defaultdict(lambda: [0, 0, 0, 0])
    for m in muts:
        sh = shapes[(m.cls, m.shape if m.expected == CHECK else "-")]
        hit = CHECK in m.reported
        if m.expected == CHECK:
            sh[0] += 1
            sh[1] += hit
        else:
            sh[2] += 1
            sh[3] += hit
    tot = [0, 0, 0, 0]
    for (c, shp), (u, h, s, f) in sorted(shapes.items()):
        print("%-17s %-22s %9d %9d %7d %9d %6d" % (c, shp, u, h, u - h, s, f))
        tot = [x + y for x, y in zip(tot, (u, h, s, f))]
    print("%-17s %-22s %9d %9d %7d %9d %6d" % ("total", "", tot[0], tot[1],
                                                tot[0] - tot[1], tot[2], tot[3]))
    print("generated before sampling: %s" % ", ".join(
        "%s %s %d" % (c, e, n) for (c, e), n in sorted(generated.items())))
    # The use-after-free shapes of borrow-load mutants: which kill frees it.
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump([{"class": m.cls, "shape": m.shape, "file": m.src,
                    "code": m.co.co_qualname, "desc": m.desc,
                    "expected": m.expected, "why": m.why,
                    "reported": m.reported, "path": m.path} for m in muts],
                  f, indent=1)
    missed = [m for m in muts if m.expected == CHECK and CHECK not in m.reported]
    false = [m for m in muts if m.expected == "safe" and CHECK in m.reported]
    with open(os.path.join(a.out, "missed.log"), "w") as f:
        for m in missed + false:
            f.write("%s %s %s: %s; %s; reported %s\n" % (
                "MISSED" if m in missed else "FALSE", m.path, m.co.co_qualname,
                m.desc, m.why, m.reported))
    for m in (missed + false)[:20]:
        print("%s: %s %s: %s (%s)" % ("missed" if m in missed else "false alarm",
                                       m.src, m.co.co_qualname, m.desc, m.why))
    if own:
        print("FAIL: %d findings on the compiler's own borrows" % len(own))
        bad = 1
    if missed or false:
        print("FAIL: %d missed, %d false alarms" % (len(missed), len(false)))
        bad = 1
    print("%d borrow mutants: %d of %d use-after-free caught, %d safe with "
          "%d false alarms  [%.1fs]" % (len(muts), tot[1], tot[0], tot[2],
                                         tot[3], time.time() - t0))
    return bad


if __name__ == "__main__":
    sys.exit(main())
