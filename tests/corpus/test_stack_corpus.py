#!/usr/bin/env python3.11
"""Stack-depth oracle: pyverify's computed maximum depth == co_stacksize.

CPython's compiler computes co_stacksize over its CFG with exception-handler
edges; pyverify recomputes it from the final bytecode. For every code object
of every .pyc under PYC_DIR this test compares `max_depth` from
`pyverify analyze --print=stack-depth --format=json` with co_stacksize as
marshal.loads reports it, then runs `pyverify check --format=json` over the
directory and requires no error and no warning. Prints the counts; exits 1 on
any disagreement.

Run under python3.12 or python3.13 on that version's stdlib (tests
included), it compares with that interpreter's co_stacksize; 3.13's compiler
never writes a co_stacksize below 1, so a depth of 0 is compared as 1 there.
With --soundness-only (how CMake runs it for 3.12 and 3.13) it fails only
where pyverify's depth exceeds co_stacksize -- a false stacksize-too-small --
and reports the rest: those compilers leave co_stacksize above the reachable
depth where they removed dead handlers, and emit with-body back edges whose
eval-breaker exception skips __exit__ (tests/versions/check_back_edge.py;
docs/versions.md), which check reports.
"""
import argparse
import dis
import json
import marshal
import os
import subprocess
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from json_lines import JsonLines  # noqa: E402  (same directory)


def walk(co, j, out):
    out.append((co, j))
    kids = [c for c in co.co_consts if isinstance(c, types.CodeType)]
    assert len(kids) == len(j["children"]), co.co_qualname
    for k, kj in zip(kids, j["children"]):
        walk(k, kj, out)


def entry_handler_depth(co):
    """The depth the compiler's count reaches in handler code, reachable or
    not: from every entry's target (at depth + lasti + 1) and every
    PUSH_EXC_INFO (at the depth of the cleanup entry covering it, which is
    the handler's entry depth), by dis.stack_effect. Where co_stacksize is
    above pyverify's reachable depth, this says whether handler code only
    dead code reaches explains it (the compilers count handlers whose
    protected code they then removed). A report, not a pass criterion."""
    insts = list(dis.get_instructions(co))
    at = {i.offset: k for k, i in enumerate(insts)}
    best = 0
    seen = {}
    work = []
    table = dis._parse_exception_table(co)
    for e in table:
        work.append((e.target, e.depth + 1 + int(e.lasti)))
    # A handler's first instruction, PUSH_EXC_INFO, is covered by the
    # handler's own cleanup entry, whose depth is the handler's entry depth.
    for i in insts:
        if i.opname == "PUSH_EXC_INFO":
            for e in table:
                if e.start <= i.offset < e.end:
                    work.append((i.offset, e.depth))
    while work:
        off, d = work.pop()
        k = at.get(off)
        while k is not None and k < len(insts):
            if seen.get(k, -1) >= d:
                break
            seen[k] = d
            best = max(best, d)
            i = insts[k]
            if i.opcode in dis.hasjrel or i.opcode in dis.hasjabs:
                tgt = i.argval
                dj = d + dis.stack_effect(i.opcode, i.arg, jump=True)
                work.append((tgt, dj))
                best = max(best, dj)
            if i.opname in ("RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE",
                            "JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP"):
                break
            d = d + dis.stack_effect(i.opcode, i.arg if i.opcode >= dis.HAVE_ARGUMENT else None, jump=False)
            best = max(best, d)
            k += 1
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pyverify", required=True)
    ap.add_argument("--name", default="corpus")
    ap.add_argument("--jobs", default="0")
    ap.add_argument("--soundness-only", action="store_true")
    ap.add_argument("pyc_dir")
    a = ap.parse_args()
    files = sorted(os.path.join(r, f) for r, _, fs in os.walk(a.pyc_dir)
                   for f in fs if f.endswith(".pyc"))
    total = equal = 0
    bad = []
    unsound = []
    explained = 0
    floor = 1 if sys.version_info >= (3, 13) else 0
    for i in range(0, len(files), 200):
        part = files[i:i + 200]
        # Only max_depth and children are read: the rows keep one key
        # (`--keys=`, docs/json.md), not the dis listing's ten.
        out = JsonLines([a.pyverify, "analyze", "--print=stack-depth",
                         "--format=json", "--keys=depth", *part])
        if out.returncode != 0:
            print(out.stderr)
            return 1
        for path, line in zip(part, out):
            j = json.loads(line)
            with open(path, "rb") as f:
                root = marshal.loads(f.read()[16:])
            pairs = []
            walk(root, j["code"], pairs)
            for co, cj in pairs:
                total += 1
                depth = max(cj["max_depth"], floor)
                if depth > co.co_stacksize:
                    unsound.append(f"{path}:{co.co_qualname}: max_depth {depth} > "
                                   f"co_stacksize {co.co_stacksize}")
                if depth == co.co_stacksize:
                    equal += 1
                    continue
                dead = depth < co.co_stacksize and \
                    max(depth, entry_handler_depth(co)) == co.co_stacksize
                explained += dead
                if len(bad) < 30:
                    bad.append(f"{path}:{co.co_qualname}: max_depth "
                               f"{cj['max_depth']} != co_stacksize {co.co_stacksize}"
                               + (" (dead handlers)" if dead else ""))
    print(f"{a.name}: computed maximum depth == co_stacksize for {equal} of "
          f"{total} code objects ({len(files)} files)")
    if equal != total:
        print(f"{a.name}: of the {total - equal} others, co_stacksize is the "
              f"depth of handler code only dead code reaches for {explained}")
    chk = subprocess.run([a.pyverify, "check", "--format=json", f"--jobs={a.jobs}",
                          a.pyc_dir], capture_output=True, text=True)
    if chk.returncode not in (0, 1):
        print(chk.stderr)
        return 1
    report = json.loads(chk.stdout)
    s = report["summary"]
    print(f"{a.name}: pyverify check: {s['files']} files, {s['code_objects']} "
          f"code objects, {s['errors']} errors, {s['warnings']} warnings, "
          f"{s['remarks']} remarks in {s['seconds']:.2f} s")
    by_check = {}
    for d in report["diagnostics"]:
        by_check[d["check"]] = by_check.get(d["check"], 0) + 1
    print(f"{a.name}: findings by check: {sorted(by_check.items())}")
    for d in report["diagnostics"][:20]:
        print(f"  {d['file']}:{d['line']}: {d['severity']}: {d['message']} "
              f"[{d['check']}]")
    if bad:
        print("MISMATCHES:")
        for b in bad:
            print("  " + b)
    print(f"{a.name}: {len(unsound)} code objects where pyverify's depth exceeds "
          f"co_stacksize")
    for u in unsound[:30]:
        print("  UNSOUND " + u)
    ok = not bad and equal == total and s["errors"] == 0 and s["warnings"] == 0 \
        and s["code_objects"] == total
    if a.soundness_only:
        ok = not unsound and s["code_objects"] == total
    print(f"{a.name}: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
