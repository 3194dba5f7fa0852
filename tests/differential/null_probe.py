"""Every opcode with a NULL in each of its top stack slots.

  null_probe.py --python PY --pyverify BIN [--out DIR] [--depth 4]
                [--args 0,1,3] [--opcodes A,B] [--fill int,str,none,tuple]
                [--timeout 2]

For each opcode of PY's version (not instrumented, specialised or a pseudo
instruction), each argument in --args, each depth d <= --depth and each
slot p < d: d values (the int 1, or each --fill's constant in turn:
None, "ab", (1, 2); at p, a NULL pushed by PUSH_NULL), the
opcode, then `raise exc`; a jump's target is a second `raise exc`.  The
same d values with no NULL is each shape's control.  pyverify checks every
case in one call; PY runs them in batches and a crash is run again alone.

The sweep's random programs put NULLs under instructions only by chance;
this walks the slots one by one, so a slot an instruction reads in place
(LIST_APPEND's list, SEND's receiver, DICT_MERGE's callable ...) is met
with a NULL on every version.  Prints every case pyverify calls clean that
crashed PY alone (MISSED) and a summary per fill; exits 1 when there is
one.  A control that crashes clean is a miss too (an int where the
instruction wants a code object, a str where it wants a function).

Pyodide's 3.14 and 3.15 run it, but a NULL read does not trap in
WebAssembly (address 0 is memory): only the controls mean something there.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import families  # noqa: E402
import run_sweep  # noqa: E402

FILL = {"int": families.ONE, "none": families.NONE, "str": families.AB,
        "tuple": families.TUPLE}
# Not probed: frame and generator machinery, and what no stack slot reaches.
SKIP = {"CACHE", "EXTENDED_ARG", "RESUME", "ENTER_EXECUTOR", "RESERVED",
        "INTERPRETER_EXIT", "RETURN_GENERATOR", "YIELD_VALUE",
        "NOT_TAKEN", "NOP", "PUSH_NULL", "MAKE_CELL", "COPY_FREE_VARS",
        "RESUME_CHECK", "JUMP_BACKWARD_NO_JIT"}

OPCODES = r"""
import dis, json, opcode, sys
spec = set()
for name in ("_specialized_instructions",):
    spec |= set(getattr(opcode, name, ()))
for fam in getattr(opcode, "_specializations", {}).values():
    spec |= set(fam)
spec |= set(getattr(opcode, "_specialized_opmap", {}))
jumps = set(dis.hasjrel) | set(getattr(dis, "hasjabs", ())) | \
    set(getattr(dis, "hasjump", ()))
out = []
for name, op in sorted(opcode.opmap.items(), key=lambda x: x[1]):
    if op >= 256 or name in spec or name.startswith("INSTRUMENTED"):
        continue
    out.append([name, op >= opcode.HAVE_ARGUMENT, op in jumps,
                "BACKWARD" in name])
json.dump(out, sys.stdout)
"""


def opcodes(py):
    p = subprocess.run([py, "-c", OPCODES], stdout=subprocess.PIPE, check=True)
    return json.loads(p.stdout)


def shape(name, arg, jump, backward, depth, null_at, fill):
    """The items of one case (families.py's shape format); null_at None:
    the control."""
    raise_ = [("LOAD_FAST", 2), ("RAISE_VARARGS", 1)]
    setup = [("PUSH_NULL", 0) if k == null_at else ("LOAD_CONST", fill)
             for k in range(depth)]
    op = (name, arg, None, 1) if jump else (name, arg)
    if backward:
        return [("JUMP_FORWARD", 0, None, 2), 1, *raise_, 2, *setup, op,
                *raise_]
    return [*setup, op, *raise_, 1, *raise_]


def probe(a, version, fill):
    """One fill's cases: the count of misses."""
    only = set(filter(None, a.opcodes.split(",")))
    specs = []
    for name, has_arg, jump, backward in opcodes(a.python):
        if name in SKIP or (only and name not in only):
            continue
        for arg in ([int(x) for x in a.args.split(",")] if has_arg else [0]):
            for depth in range(1, a.depth + 1):
                for null_at in [None, *range(depth)]:
                    tag = (f"{name}-{arg}-d{depth}-" +
                           ("ctl" if null_at is None else f"n{null_at}"))
                    sp = families.spec_of(version, tag, shape(
                        name, arg, jump, backward, depth, null_at, FILL[fill]))
                    sp["names"] = ["x", "y", "z", "w"]
                    sp["index"] = len(specs)
                    specs.append(sp)
    out = os.path.join(a.out, fill)
    os.makedirs(out, exist_ok=True)
    lines = os.path.join(out, f"{version}-specs.jsonl")
    with open(lines, "w") as f:
        for sp in specs:
            f.write(json.dumps(sp) + "\n")
    code_dir = os.path.join(out, f"{version}-code")
    subprocess.run([a.python, run_sweep.GEN, "build-many", lines, code_dir],
                   check=True)
    for k, sp in enumerate(specs):
        sp["file"] = os.path.join(code_dir, f"{k}.marshal")
    by_file, errs = run_sweep.pyverify_check(
        a.pyverify, version, [sp["file"] for sp in specs], jobs=a.jobs)
    clean = [sp for sp in specs
             if run_sweep.is_clean(by_file.get(sp["file"], []))]
    ran = run_sweep.run_cases(a.python, clean, out, f"nullprobe-{version}",
                              a.timeout, a.jobs)
    crashed = {c["index"] for c in ran["crashes"]}
    missed = []
    for sp in clean:
        if sp["index"] not in crashed:
            continue
        alone = run_sweep.run_alone(a.python, sp, out, a.timeout,
                                    f"nullprobe-{version}-alone")
        if alone.startswith("crash"):
            missed.append((sp["name"], alone))
    for name, how in missed:
        print(f"{version} {fill:5} {name:40} pyverify: CLEAN  run: {how}"
              "   <-- MISSED")
    print(f"{version} {fill:5}: {len(specs)} cases, {len(specs) - len(clean)}"
          f" reported, {len(clean)} clean, {len(crashed)} of them crashed in "
          f"a batch, {len(missed)} alone (missed); input errors {len(errs)}")
    return len(missed)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    run_sweep.add_case_args(ap, "null-probe")
    ap.add_argument("--depth", type=int, default=4)
    ap.add_argument("--args", default="0,1,3")
    ap.add_argument("--opcodes", default="")
    ap.add_argument("--fill", default="int",
                    help="comma-separated: " + ", ".join(sorted(FILL)))
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    fills = a.fill.split(",")
    if not all(f in FILL for f in fills):
        ap.error(f"--fill: one of {', '.join(sorted(FILL))}, comma-separated")
    version = run_sweep.interpreter_version(a.python)
    missed = sum(probe(a, version, f) for f in fills)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
