#!/usr/bin/env python3.11
"""Instruction counts (valgrind --tool=callgrind, Ir) of each check pass and
of python3.11's marshal.loads over the same corpus.

    /usr/bin/python3.11 benchmarks/bench_callgrind.py \
        --bench build/benchmarks/pyverify-corpus-bench \
        [--corpus build/corpus/stdlib] [--out-dir build/bench/callgrind] \
        [--json OUT]

Instruction counts do not depend on how busy the machine is, so they show a
pass's cost (and its change between two commits) where wall time cannot.

What is counted, on the pyverify side. For each measurement M in read,
decode, split_cfg, split_depth, split_stackchecks, split_blockstack,
split_context and check, one process runs

    valgrind --tool=callgrind --toggle-collect=PATTERN \
        pyverify-corpus-bench CORPUS -only=M -repeat=1 -warmup=0

PATTERN is the std::function invoker through which pyverify-corpus-bench
calls every measurement (Measurement::Run, a std::function<PassCounts()>):
callgrind counts only inside it. So process start, loading the corpus into
memory, JSON printing and the untimed "Prepare" (reading and decoding every
file once for decode and the split_* levels, which CorpusBench.cpp calls
outside Run) are NOT counted; no baseline has to be subtracted. Run is
called twice -- the untimed expected-count run and the one timed repeat
(-warmup=0 and -warmup=1 are the same: no extra round) -- so the count is
divided by 2: Ir per corpus pass, the mean of a first and a second pass.
What a measurement's pass holds (CorpusBench.cpp):

  read        readPyc of every file (and freeing the result)
  decode      DecodedCode::decode of every code object, over files read
              up front
  split_*     cumulative levels over code objects decoded up front: CFG;
              + stack depth; + stack checks; + block stack; + context
              balance. A pass's cost is the difference of two successive
              levels; split_cfg also holds the loop over the decoded code
              objects and the CodeAnalysis set-up.
  check       readPyc + decode + verifyCode: the full check, from the bytes

The table's passes (read, decode, CFG ... context balance) therefore add up
to about the check; their sum and the check are both printed ("share" is of
the check).

On the python3.11 side: one script reads every file into memory, then runs
the marshal.loads(data[16:]) loop over all of them K times (gc disabled, as
run_benchmarks.py times it; PYTHONHASHSEED=0). It runs under callgrind with
K=0 and K=2 (no toggle: the interpreter has no symbol to toggle on);
(Ir(K=2) - Ir(K=0)) / 2 is marshal's count per corpus pass -- like
pyverify's, the mean of a first and a second pass.

Prints a table: pass, Ir per corpus pass, Ir per code object, share of the
check, and the ratio Ir(check) / Ir(marshal.loads). The callgrind output
files are kept in --out-dir (callgrind_annotate --inclusive=yes FILE).
Exits 0 with a message when valgrind is not installed (the figures are
optional), 1 when a run fails or the toggle pattern counted nothing.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# Measurement::Run is a std::function<PassCounts()>; its invoker's demangled
# name, whatever the lambda's number.
TOGGLE = ("std::_Function_handler<(anonymous namespace)::PassCounts ()*"
          "_M_invoke*")
# The passes of the table, in order: (row name, measurement, measurement
# whose count is subtracted or None).
PASSES = [
    ("readPyc", "read", None),
    ("DecodedCode::decode", "decode", None),
    ("CFG::build", "split_cfg", None),
    ("computeStackDepth", "split_depth", "split_cfg"),
    ("checkStack", "split_stackchecks", "split_depth"),
    ("BlockStack::compute", "split_blockstack", "split_stackchecks"),
    ("checkContextBalance", "split_context", "split_blockstack"),
]
MEASUREMENTS = [m for _, m, _ in PASSES] + ["check"]
RUNS_PER_PROCESS = 2  # the expected-count run + the one timed repeat

MARSHAL_SCRIPT = r"""
import gc, marshal, os, sys
corpus, k = sys.argv[1], int(sys.argv[2])
paths = []
for root, dirs, files in os.walk(corpus):
    paths.extend(os.path.join(root, f) for f in files if f.endswith(".pyc"))
payloads = []
for p in sorted(paths):
    with open(p, "rb") as f:
        payloads.append(f.read()[16:])
loads = marshal.loads
gc.collect()
gc.disable()
for _ in range(k):
    for p in payloads:
        loads(p)
"""


class CallgrindError(Exception):
    pass


def have_valgrind():
    """The valgrind binary, or None."""
    return shutil.which("valgrind")


def callgrind(cmd, out_file, toggle=None, env=None):
    """(Ir counted by callgrind for CMD -- inside TOGGLE only, if given --,
    CMD's stdout); the profile is written to OUT_FILE. Raises CallgrindError if the run fails
    or counts nothing."""
    vg = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}"]
    if toggle:
        vg.append(f"--toggle-collect={toggle}")
    r = subprocess.run(vg + cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise CallgrindError(f"{' '.join(cmd)} under callgrind exited with "
                             f"{r.returncode}:\n{r.stderr[-3000:]}")
    total = None
    with open(out_file) as f:
        for line in f:
            m = re.match(r"(?:summary|totals):\s+(\d+)", line)
            if m:
                total = int(m.group(1))
    if total is None:
        raise CallgrindError(f"no summary line in {out_file}")
    if toggle and total == 0:
        raise CallgrindError(
            f"callgrind counted nothing inside {toggle!r} for "
            f"{' '.join(cmd)}: is Measurement::Run of CorpusBench.cpp still "
            f"a std::function<PassCounts()>?")
    return total, r.stdout


def bench_pass_ir(bench, corpus, measurement, out_file, extra=()):
    """Ir of one corpus pass of MEASUREMENT (see the module docstring), and
    the process's JSON output."""
    cmd = [bench, corpus, f"-only={measurement}", "-repeat=1", "-warmup=0",
           *extra]
    total, stdout = callgrind(cmd, out_file, toggle=TOGGLE)
    try:
        out = json.loads(stdout)
    except ValueError as e:
        raise CallgrindError(f"{' '.join(cmd)} printed no JSON ({e})")
    return total / RUNS_PER_PROCESS, out


def marshal_pass_ir(python, corpus, out_dir):
    """Ir of one marshal.loads pass over CORPUS in PYTHON (see the module
    docstring)."""
    env = dict(os.environ, PYTHONHASHSEED="0")
    env.pop("PYTHONSTARTUP", None)
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(MARSHAL_SCRIPT)
        script = f.name
    try:
        counts = {}
        for k in (0, 2):
            counts[k], _ = callgrind(
                [python, "-S", "-E", script, corpus, str(k)],
                os.path.join(out_dir, f"marshal-k{k}.out"), env=env)
    finally:
        os.unlink(script)
    return (counts[2] - counts[0]) / 2, counts


def per_pass(bench, corpus, out_dir, python=sys.executable, log=print):
    """The figures as a dict (see main), or None when valgrind is missing."""
    if not have_valgrind():
        return None
    os.makedirs(out_dir, exist_ok=True)
    t0 = time.perf_counter()
    ir, code_objects, files = {}, None, None
    for m in MEASUREMENTS:
        log(f"  callgrind: -only={m}", flush=True)
        ir[m], out = bench_pass_ir(bench, corpus, m,
                                   os.path.join(out_dir, f"{m}.out"))
        if m == "check":  # the first key describes -only's measurement
            code_objects, files = out["code_objects"], out["files"]
    log("  callgrind: python3.11 marshal.loads (K=0, K=2)", flush=True)
    marshal_ir, marshal_runs = marshal_pass_ir(python, corpus, out_dir)
    rows = []
    for name, m, minus in PASSES:
        v = ir[m] - (ir[minus] if minus else 0)
        rows.append({"pass": name, "measurement": m, "minus": minus,
                     "ir": v, "ir_per_code_object": v / code_objects,
                     "share_of_check": v / ir["check"]})
    total = sum(r["ir"] for r in rows)
    return {
        "tool": "valgrind --tool=callgrind, Ir",
        "toggle_collect": TOGGLE,
        "runs_per_process": RUNS_PER_PROCESS,
        "corpus": corpus, "files": files, "code_objects": code_objects,
        "measurement_ir_per_pass": ir,
        "passes": rows,
        "sum_of_passes_ir": total,
        "check_ir": ir["check"],
        "check_ir_per_code_object": ir["check"] / code_objects,
        "marshal_ir": marshal_ir,
        "marshal_ir_per_code_object": marshal_ir / code_objects,
        "marshal_process_ir": {f"k{k}": v for k, v in marshal_runs.items()},
        "check_over_marshal_ir": ir["check"] / marshal_ir,
        "out_dir": out_dir,
        "seconds": time.perf_counter() - t0,
    }


def print_table(res, out=print):
    n = res["code_objects"]
    out(f"callgrind Ir per corpus pass ({res['files']} files, {n:,} code "
        f"objects; counted inside Measurement::Run only, /"
        f"{res['runs_per_process']} runs):")
    out(f"  {'pass':24} {'-only= measurement(s)':38} {'Ir/pass':>15} "
        f"{'Ir/code obj':>11} {'share':>6}")

    def row(name, how, ir):
        out(f"  {name:24} {how:38} {ir:15,.0f} {ir / n:11,.0f} "
            f"{ir / res['check_ir'] * 100:5.1f}%")
    for r in res["passes"]:
        row(r["pass"], f"{r['measurement']} - {r['minus']}" if r["minus"]
            else r["measurement"], r["ir"])
    row("sum of the passes", "", res["sum_of_passes_ir"])
    # What the levels do not split: the rest of verifyCode (value kinds,
    # operand checks, borrows, with-body and handler checks, the finding
    # sort), and the level set-ups the split runs pay but the check does not.
    row("rest of the check", "check - sum (value kinds, operands, ...)",
        res["check_ir"] - res["sum_of_passes_ir"])
    row("full check", "check (readPyc + decode + verifyCode)",
        res["check_ir"])
    row("python3.11 marshal.loads", "(K=2 - K=0) / 2", res["marshal_ir"])
    out(f"  Ir ratio check / marshal.loads = "
        f"{res['check_over_marshal_ir']:.3f} (goal <= 1: "
        f"{'met' if res['check_over_marshal_ir'] <= 1 else 'NOT met'}; "
        f"profiles in {res['out_dir']}, {res['seconds']:.0f} s)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", required=True,
                    help="the pyverify-corpus-bench binary")
    ap.add_argument("--corpus", default="build/corpus/stdlib")
    ap.add_argument("--out-dir", default="build/bench/callgrind",
                    help="where the callgrind profiles go")
    ap.add_argument("--json", help="write the figures here")
    a = ap.parse_args()
    if not os.path.exists(a.bench):
        print(f"bench_callgrind: error: {a.bench} missing", file=sys.stderr)
        return 1
    try:
        res = per_pass(os.path.abspath(a.bench), os.path.abspath(a.corpus),
                       os.path.abspath(a.out_dir))
    except CallgrindError as e:
        print(f"bench_callgrind: error: {e}", file=sys.stderr)
        return 1
    if res is None:
        print("bench_callgrind: valgrind is not installed (apt install "
              "valgrind): instruction counts skipped")
        res = {"skipped": "valgrind not installed"}
    else:
        print_table(res)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
