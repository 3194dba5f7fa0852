#!/usr/bin/env python3.11
"""Is the check's cost linear in code size and in exception-table entries?

    /usr/bin/python3.11 benchmarks/bench_linear.py \
        --bench build/benchmarks/pyverify-corpus-bench \
        [--work-dir build/bench/linear] [--repeat 5] [--quick] \
        [--no-callgrind] [--json OUT]

Generates two families of modules, each .pyc holding ONE code object (the
module's; no nested function, class or comprehension), compiled by this
python3.11 from generated source with compile() and written as a .pyc (the
16-byte header: importlib.util.MAGIC_NUMBER, flags 0, 8 zero bytes; then
marshal.dumps), one per directory:

  * code   co_code of 64 KiB, 128, 256, 512 and 1024 KiB (--quick: 64, 256,
           1024): a run of one block repeated, each block a few simple
           statements, an if, a for loop, a with statement and a
           try/except -- so that every pass (CFG, stack depth, stack checks,
           block stack, context balance) has work, and the exception table
           grows with the code (6 entries a block);
  * table  exception tables of 1,250, 2,500, 5,000, 10,000 and 20,000
           entries (--quick: 1,250, 5,000, 20,000): a run of small
           try/except blocks (3 entries, 15 code units each).

Every generated code object is checked with python before it is measured:
one code object, len(co_code) and len(list(dis._parse_exception_table(co)))
as intended; pyverify-corpus-bench's own counts (code objects, table
entries) must agree, and the check's findings are reported (0 expected).

For each module, the cost of the full check (pyverify-corpus-bench
-only=check: readPyc + decode + verifyCode, from the bytes in memory):

  * Ir: valgrind --tool=callgrind, counted inside Measurement::Run only (see
    bench_callgrind.py: process start and corpus loading are not counted),
    of `-only=check -repeat=1 -warmup=0`, divided by its 2 runs; minus the
    same count for a module of one statement (`pass`), so that what is left
    grows with the code;
  * wall and CPU time: the median check time of `-only=check -repeat=N
    -warmup=2` (N = --repeat), minus the same for the one-statement module.

Printed per size: co_code KiB, code units (co_code bytes / 2), table
entries, Ir and time, Ir per code unit, ns per code unit (and per table
entry); then per family the slope ratio -- the per-unit cost (per code unit
for the code family, per table entry for the table family) at the largest
size over the same at the smallest. Linear cost gives a ratio near 1; the
goal (printed as met or NOT met, never asserted) is a ratio <= 1.5, on Ir
(wall time is printed as a second opinion: it also sees cache effects).
Without valgrind (or with --no-callgrind) only the time is measured and the
goal is judged on CPU time.
"""
import argparse
import dis
import importlib.util
import json
import marshal
import os
import statistics
import subprocess
import sys
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_callgrind  # noqa: E402

GOAL_SLOPE = 1.5
CODE_KIB = (64, 128, 256, 512, 1024)
CODE_KIB_QUICK = (64, 256, 1024)
TABLE_ENTRIES = (1250, 2500, 5000, 10000, 20000)
TABLE_ENTRIES_QUICK = (1250, 5000, 20000)


def code_block(i):
    """One block of the code family: 81 code units, 6 table entries. The
    constants repeat (i % 200) so that no LOAD_CONST needs EXTENDED_ARG and
    every block has the same size."""
    k = i % 200
    return (f"a = b + c * {k}\n"
            f"if a:\n    d = a - 1\n"
            f"for q in r:\n    s = s + q\n"
            f"with cm as e:\n    f = e.g\n"
            f"try:\n    h = t[{k}]\nexcept E:\n    h = None\n")


def table_block(i):
    """One block of the table family: a try/except, 3 table entries."""
    return "try:\n    x = y\nexcept E:\n    pass\n"


def compile_blocks(block, n):
    src = "".join(block(i) for i in range(n))
    return compile(src, "<bench_linear>", "exec")


def table_entries(co):
    return len(list(dis._parse_exception_table(co)))


def generate(kind, target):
    """(code object, seconds to compile it): the fewest blocks of KIND whose
    co_code reaches TARGET bytes (code) or whose table reaches TARGET
    entries (table)."""
    block = code_block if kind == "code" else table_block

    def size(co):
        return len(co.co_code) if kind == "code" else table_entries(co)

    base = size(compile_blocks(block, 0))
    per = (size(compile_blocks(block, 100)) - base) / 100
    n = max(1, int((target - base) / per))
    while True:
        t0 = time.perf_counter()
        co = compile_blocks(block, n)
        dt = time.perf_counter() - t0
        got = size(co)
        if got >= target:
            return co, dt
        n += max(1, int((target - got) / per))


def write_pyc(co, path):
    data = (importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little")
            + bytes(8) + marshal.dumps(co))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return len(data)


def describe(path):
    """What python sees in the .pyc at PATH (the sanity check)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != importlib.util.MAGIC_NUMBER:
        raise ValueError(f"{path}: not a python3.11 .pyc")
    co = marshal.loads(data[16:])
    nested = [c for c in co.co_consts if isinstance(c, types.CodeType)]
    return {"file_bytes": len(data), "code_objects": 1 + len(nested),
            "co_code_bytes": len(co.co_code),
            "code_units": len(co.co_code) // 2,
            "table_entries": table_entries(co),
            "co_stacksize": co.co_stacksize,
            "last_line": max((ln for _, _, ln in co.co_lines() if ln),
                             default=0)}


def fail(msg):
    print(f"bench_linear: error: {msg}", file=sys.stderr)
    sys.exit(1)


def run_check(bench, directory, repeat):
    """pyverify-corpus-bench DIRECTORY -only=check: its JSON."""
    cmd = [bench, directory, "-only=check", f"-repeat={repeat}",
           "-warmup=2"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} exited with {r.returncode}:\n{r.stderr}")
    return json.loads(r.stdout)


def measure(bench, directory, repeat, use_callgrind, cg_file):
    out = run_check(bench, directory, repeat)
    res = {"wall": out["check_seconds_median"],
           "cpu": out["check_cpu_seconds_median"],
           "pyverify_code_objects": out["code_objects"],
           "pyverify_table_entries": out["table_entries"],
           "pyverify_instructions": out["instructions"],
           "findings": out["findings"], "read_errors": out["read_errors"]}
    if use_callgrind:
        res["ir"], _ = bench_callgrind.bench_pass_ir(bench, directory,
                                                     "check", cg_file)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", required=True,
                    help="the pyverify-corpus-bench binary")
    ap.add_argument("--work-dir", default="build/bench/linear",
                    help="where the generated .pyc and profiles go")
    ap.add_argument("--repeat", type=int, default=5,
                    help="timed check passes per module (median)")
    ap.add_argument("--quick", action="store_true",
                    help="three sizes per family instead of five")
    ap.add_argument("--no-callgrind", action="store_true",
                    help="time only (no instruction counts)")
    ap.add_argument("--json", help="write the figures here")
    a = ap.parse_args()
    if sys.version_info[:2] != (3, 11):
        fail("needs python3.11 (pyverify checks CPython 3.11 bytecode)")
    bench = os.path.abspath(a.bench)
    if not os.path.exists(bench):
        fail(f"{bench} missing")
    if a.repeat < 1:
        fail("--repeat must be >= 1")
    work = os.path.abspath(a.work_dir)
    use_cg = not a.no_callgrind
    if use_cg and not bench_callgrind.have_valgrind():
        print("bench_linear: valgrind is not installed (apt install "
              "valgrind): time only, no instruction counts")
        use_cg = False

    families = [("code", CODE_KIB_QUICK if a.quick else CODE_KIB),
                ("table", TABLE_ENTRIES_QUICK if a.quick else TABLE_ENTRIES)]
    t_start = time.perf_counter()
    # The one-statement module whose cost is subtracted.
    base_dir = os.path.join(work, "base")
    write_pyc(compile("pass\n", "<bench_linear>", "exec"),
              os.path.join(base_dir, "mod.pyc"))
    try:
        base = measure(bench, base_dir, a.repeat, use_cg,
                       os.path.join(work, "base.callgrind.out"))
    except bench_callgrind.CallgrindError as e:
        fail(str(e))

    results = {"goal_slope_at_most": GOAL_SLOPE, "base": base,
               "families": {}}
    print(f"bench_linear: one code object per module; check cost minus a "
          f"one-statement module's ({'Ir by callgrind, ' if use_cg else ''}"
          f"median of {a.repeat} timed passes)")
    for kind, sizes in families:
        rows = []
        for target in sizes:
            name = (f"code-{target:04d}KiB" if kind == "code"
                    else f"table-{target:05d}")
            d = os.path.join(work, name)
            co, compile_s = generate(kind,
                                     target * 1024 if kind == "code"
                                     else target)
            path = os.path.join(d, "mod.pyc")
            write_pyc(co, path)
            info = describe(path)
            want = target * 1024 if kind == "code" else target
            got = (info["co_code_bytes"] if kind == "code"
                   else info["table_entries"])
            if info["code_objects"] != 1 or got < want:
                fail(f"{path}: generated {info} (wanted one code object "
                     f"with {want} {'bytes' if kind == 'code' else 'entries'})")
            try:
                m = measure(bench, d, a.repeat, use_cg,
                            os.path.join(work, name + ".callgrind.out"))
            except bench_callgrind.CallgrindError as e:
                fail(str(e))
            if (m["pyverify_code_objects"] != 1
                    or m["pyverify_table_entries"] != info["table_entries"]
                    or m["read_errors"]):
                fail(f"{path}: pyverify sees {m['pyverify_code_objects']} "
                     f"code objects, {m['pyverify_table_entries']} table "
                     f"entries, {m['read_errors']} read errors; python "
                     f"{info['code_objects']} and {info['table_entries']}")
            row = {"name": name, "target": target, **info,
                   "compile_seconds": compile_s,
                   "instructions": m["pyverify_instructions"],
                   "findings": m["findings"],
                   "wall": m["wall"] - base["wall"],
                   "cpu": m["cpu"] - base["cpu"],
                   "wall_raw": m["wall"], "cpu_raw": m["cpu"]}
            if use_cg:
                row["ir"] = m["ir"] - base["ir"]
                row["ir_raw"] = m["ir"]
            for unit, key in (("code_unit", "code_units"),
                              ("table_entry", "table_entries")):
                if use_cg:
                    row[f"ir_per_{unit}"] = row["ir"] / row[key]
                row[f"ns_per_{unit}"] = row["wall"] / row[key] * 1e9
                row[f"cpu_ns_per_{unit}"] = row["cpu"] / row[key] * 1e9
            rows.append(row)

        per = "code_unit" if kind == "code" else "table_entry"
        slope = {}
        for metric in (["ir"] if use_cg else []) + ["ns", "cpu_ns"]:
            k = f"{metric}_per_{per}"
            slope[metric] = rows[-1][k] / rows[0][k]
        judged = "ir" if use_cg else "cpu_ns"
        met = slope[judged] <= GOAL_SLOPE
        results["families"][kind] = {
            "rows": rows, "per": per, "slope_ratio": slope,
            "slope_judged_on": judged, "goal_met": met}

        print(f"\n{kind} family (slope per {per.replace('_', ' ')}):")
        hdr = (f"  {'module':16} {'KiB':>6} {'units':>8} {'entries':>7} "
               f"{'findings':>8}")
        if use_cg:
            hdr += f" {'Ir':>13} {'Ir/unit':>8} {'Ir/entry':>9}"
        hdr += f" {'ms':>8} {'ns/unit':>8} {'ns/entry':>9} {'compile s':>9}"
        print(hdr)
        for r in rows:
            line = (f"  {r['name']:16} {r['co_code_bytes'] / 1024:6.0f} "
                    f"{r['code_units']:8,} {r['table_entries']:7,} "
                    f"{r['findings']:8}")
            if use_cg:
                line += (f" {r['ir']:13,.0f} {r['ir_per_code_unit']:8.1f} "
                         f"{r['ir_per_table_entry']:9.1f}")
            line += (f" {r['wall'] * 1e3:8.2f} {r['ns_per_code_unit']:8.2f} "
                     f"{r['ns_per_table_entry']:9.2f} "
                     f"{r['compile_seconds']:9.2f}")
            print(line)
        parts = [f"{m} {v:.2f}" for m, v in slope.items()]
        print(f"  slope ratio (per-{per.replace('_', ' ')} cost at "
              f"{rows[-1]['name']} / at {rows[0]['name']}): "
              + ", ".join(parts)
              + f"  (goal <= {GOAL_SLOPE} on {judged}: "
              f"{'met' if met else 'NOT met'})")
    results["callgrind"] = use_cg
    results["seconds"] = time.perf_counter() - t_start
    print(f"\nbench_linear: {results['seconds']:.0f} s; modules and "
          f"profiles in {work}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
