#!/usr/bin/env python3.11
"""Corpus comparison: pyverify against python3.11 peers on the same files.

Run by `make bench` as

    /usr/bin/python3.11 benchmarks/run_benchmarks.py --build build

It makes sure the stdlib corpus exists (tests/corpus/compile_corpus.py), then
runs N rounds (--repeat), each of which times once, on files already in memory
on both sides:

  * pyverify-corpus-bench (after two untimed passes in the same process: the
    heap settles after the first two; the interpreter's is warm already):
      - readPyc + DecodedCode::decode on every code object (the pipeline);
      - the full check: readPyc + decode + verifyCode (`pyverify check`
        without file I/O and printing), on every code object and on those
        python3-bytecode handles (check_comparable);
      - issue 3's passes (+ CFG, stack depth, stack checks) and issue 4's
        (+ block stack, context balance), and each pass alone (split_*);
  * in this process: marshal.loads(data[16:]) for every file;
  * marshal.loads + list(dis.get_instructions(co)) + dis._parse_exception_table
    for every code object, recursively through co_consts;
  * marshal.loads + python3-bytecode's
    ControlFlowGraph.from_bytecode(Bytecode.from_code(co)).compute_stacksize()
    for every code object -- in the first --bytecode-rounds rounds only (it
    takes ~25 s a pass). Code objects bytecode raises on (found in an untimed
    pass first, which also counts how often its stack size equals
    co_stacksize) are left out of this measurement and of pyverify's
    check_comparable, so that per-object figures compare the same set;
  * the `pyverify check` CLI on the corpus directory, --jobs=1 and --jobs=2
    (a secondary figure: process start, file I/O and printing included; CPU
    is the child's user + system time).

Rounds interleave the sides so that a machine busy with other work slows
them alike; each figure is the median over the rounds. It prints absolute
times, microseconds per code object and the ratios, of wall time and of
process CPU time (which a busy machine disturbs less).

Goals, printed as met or not, never asserted (speed is compared against peers
in one run, so it says something on any machine, and never fails a build):

  * the decode pipeline faster than marshal.loads alone;
  * issue 3: the full check at least 450x faster than bytecode's stack-size
    computation, and no slower than marshal.loads of the same files;
  * issue 4: the cost of the block-stack and context-balance passes, as the
    ratio of the issue 4 check to the issue 3 check (no goal, a figure).

Then it runs benchmarks/bench_python_module.py (`import pyverify`: verify()
per code object from Python against dis, and the import time), and
benchmarks/bench_prove.py (issue 7: `pyverify prove` time and Z3 rlimit per
fixture bundle, goal median < 50 ms and no timeout).

Then benchmarks/bench_callgrind.py (skip with --no-callgrind; skipped with a
message when valgrind is missing): callgrind instruction counts (Ir) of each
pass of the check and of marshal.loads over the same corpus, a table of Ir
per corpus pass, per code object and share, and the Ir ratio check /
marshal.loads; and benchmarks/bench_linear.py (skip with --no-linear):
generated single-code-object modules whose co_code grows to 1 MiB and whose
exception table grows to 20,000 entries, the check's Ir and time per code
unit and per table entry, and the slope ratio (goal <= 1.5). With
--prove-stdlib (minutes) it also times `pyverify prove --format=json
--jobs=2` over the stdlib corpus as plain code (the issue's baseline: 273 s
for ctest prove-stdlib, which also proves the gen-stdlib bundles).

Finally it runs the Google Benchmark codec benchmarks briefly (skip with
--no-gbench), prints every goal with its figure and "met"/"NOT met", and
writes everything to BUILD/bench/results.json (the scripts' own files and
profiles next to it, in BUILD/bench). --quick: 3 rounds, python3-bytecode in
1, three sizes per linear family.
"""
import argparse
import datetime
import dis
import gc
import json
import marshal
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fail(msg):
    print(f"run_benchmarks: error: {msg}", file=sys.stderr)
    sys.exit(1)


def list_pyc(corpus):
    """Every .pyc under CORPUS, sorted by path (BenchCorpus.cpp's order)."""
    out = []
    for root, dirs, files in os.walk(corpus):
        out.extend(os.path.join(root, f) for f in files if f.endswith(".pyc"))
    return sorted(out)


def ensure_corpus(corpus, is_default):
    if list_pyc(corpus):
        return
    if not is_default:
        fail(f"no .pyc files under {corpus}")
    src = f"/usr/lib/python{sys.version_info[0]}.{sys.version_info[1]}"
    print(f"corpus {corpus} missing: compiling {src} (make corpus)",
          flush=True)
    subprocess.run([sys.executable,
                    os.path.join(ROOT, "tests", "corpus", "compile_corpus.py"),
                    src, corpus], check=True)
    if not list_pyc(corpus):
        fail(f"compiling the corpus left no .pyc under {corpus}")


def find_binary(build, name, subdir="benchmarks"):
    path = os.path.join(build, subdir, name)
    if not os.path.exists(path):
        print(f"{path} missing: building it", flush=True)
        subprocess.run(["cmake", "--build", build, "--target", name],
                       check=True)
    return path


def time_once(fn):
    """(wall, cpu) seconds of one call of FN.

    The garbage collector is off while timing, as timeit does, and collected
    first so that no pass pays for the previous one."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        return time.perf_counter() - w0, time.process_time() - c0
    finally:
        if enabled:
            gc.enable()


class Samples:
    """Wall and CPU times of one measurement across rounds."""

    def __init__(self):
        self.wall, self.cpu = [], []

    def add(self, wall, cpu):
        self.wall.append(wall)
        self.cpu.append(cpu)

    def medians(self):
        return statistics.median(self.wall), statistics.median(self.cpu)

    def to_json(self):
        return {"seconds_median": statistics.median(self.wall),
                "seconds": self.wall,
                "cpu_seconds_median": statistics.median(self.cpu),
                "cpu_seconds": self.cpu}


def code_objects(root):
    """ROOT and its nested code objects (dis's order is not needed here)."""
    stack = [root]
    while stack:
        co = stack.pop()
        yield co
        stack.extend(c for c in co.co_consts if isinstance(c, types.CodeType))


def preorder_code_objects(root):
    """ROOT and its nested code objects in pyverify's forEachCodeObject order
    (pre-order, co_consts order, each distinct object once), so that the
    index of a code object names the same one on both sides."""
    seen = set()
    stack = [root]
    while stack:
        co = stack.pop()
        if id(co) in seen:
            continue
        seen.add(id(co))
        yield co
        stack.extend(reversed([c for c in co.co_consts
                               if isinstance(c, types.CodeType)]))


def python_side(payloads):
    """The python3.11 measurements, as {key: function}, and the number of
    code objects they see."""
    loads = marshal.loads
    get_instructions = dis.get_instructions
    parse_exception_table = dis._parse_exception_table

    def marshal_only():
        for p in payloads:
            loads(p)

    def marshal_and_dis():
        n = 0
        for p in payloads:
            for co in code_objects(loads(p)):
                list(get_instructions(co))
                parse_exception_table(co)
                n += 1
        return n

    roots = [loads(p) for p in payloads]
    all_code = [co for r in roots for co in code_objects(r)]

    def dis_only():
        for co in all_code:
            list(get_instructions(co))
            parse_exception_table(co)

    fns = {"marshal": marshal_only, "marshal_dis": marshal_and_dis,
           "dis": dis_only}
    return fns, len(all_code)


def bytecode_side(payloads, rels):
    """python3-bytecode's stack-size computation as a peer.

    Returns None when the module is missing, else (function, survey): an
    untimed pass first runs it on every code object, noting those it raises
    on (left out of the timed function, and written for pyverify's
    -exclude) and whether its result equals co_stacksize (a peer, not an
    oracle: it may disagree either way)."""
    try:
        import bytecode
    except ImportError:
        return None
    loads = marshal.loads
    from_code = bytecode.Bytecode.from_code
    from_bytecode = bytecode.ControlFlowGraph.from_bytecode

    failures, disagreements = [], []
    excluded = [set() for _ in payloads]
    n_ok = n_agree = 0
    w0 = time.perf_counter()
    for fi, p in enumerate(payloads):
        for i, co in enumerate(preorder_code_objects(loads(p))):
            try:
                size = from_bytecode(from_code(co)).compute_stacksize()
            except Exception as e:  # noqa: BLE001 -- any failure excludes
                excluded[fi].add(i)
                failures.append({"file": rels[fi], "index": i,
                                 "qualname": co.co_qualname,
                                 "error": f"{type(e).__name__}: {e}"[:200]})
                continue
            n_ok += 1
            if size == co.co_stacksize:
                n_agree += 1
            else:
                disagreements.append({"file": rels[fi], "index": i,
                                      "qualname": co.co_qualname,
                                      "bytecode": size,
                                      "co_stacksize": co.co_stacksize})
    survey_seconds = time.perf_counter() - w0

    def marshal_bytecode():
        for fi, p in enumerate(payloads):
            ex = excluded[fi]
            for i, co in enumerate(preorder_code_objects(loads(p))):
                if ex and i in ex:
                    continue
                from_bytecode(from_code(co)).compute_stacksize()

    survey = {"version": getattr(bytecode, "__version__", "?"),
              "code_objects_ok": n_ok,
              "raised": len(failures),
              "stacksize_equal_co_stacksize": n_agree,
              "stacksize_differs": len(disagreements),
              "failures": failures,
              "disagreements": disagreements,
              "survey_seconds": survey_seconds}
    return marshal_bytecode, survey


def run_corpus_bench(bench, corpus, exclude=None):
    """One timed pass of pyverify-corpus-bench (after two untimed ones)."""
    cmd = [bench, corpus, "-repeat=1", "-warmup=2"]
    if exclude:
        cmd.append(f"-exclude={exclude}")
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{bench} exited with {r.returncode}:\n{r.stderr}")
    return json.loads(r.stdout)


def time_cli(pyverify, corpus, jobs):
    """(wall, cpu, summary line) of `pyverify check --jobs=JOBS CORPUS`; cpu
    is the child's user + system time."""
    cmd = [pyverify, "check", f"--jobs={jobs}", corpus]
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - w0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode not in (0, 1):  # 1: error findings, still a full run
        fail(f"{' '.join(cmd)} exited with {r.returncode}:\n{r.stderr}")
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    lines = (r.stdout + r.stderr).strip().splitlines()
    return wall, cpu, lines[-1] if lines else ""


def run_gbench(binary, corpus, min_time):
    cmd = [binary, f"--corpus={corpus}", f"--benchmark_min_time={min_time}",
           "--benchmark_format=json"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} exited with {r.returncode}:\n{r.stderr}")
    if not r.stdout.strip():  # skipped: no corpus
        print(r.stderr.strip())
        return None
    data = json.loads(r.stdout)
    rows = []
    for b in data.get("benchmarks", []):
        scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
        rows.append({"name": b["name"],
                     "ms_per_pass": b["real_time"] * scale,
                     "iterations": b["iterations"],
                     "code_objects_per_second": b.get("items_per_second"),
                     "bytes_per_second": b.get("bytes_per_second")})
    return {"context": data.get("context", {}), "benchmarks": rows}


def fmt_row(name, wall, cpu, n, ref=None, over_ref=False):
    """One table row: times, us per code object, and REF / this (this / REF
    with OVER_REF)."""
    out = (f"{name:50} {wall * 1e3:9.2f} {cpu * 1e3:9.2f} "
           f"{wall / n * 1e6:9.3f}")
    if ref is not None:
        if over_ref:
            out += f" {wall / ref[0]:9.3f} {cpu / ref[1]:7.3f}"
        else:
            out += f" {ref[0] / wall:9.3f} {ref[1] / cpu:7.3f}"
    return out


def run_bench_script(title, script, args, json_path, env=None):
    """Runs benchmarks/SCRIPT ARGS --json JSON_PATH with this interpreter;
    its figures (None if it failed: its output says why)."""
    print(f"\n{title} (benchmarks/{script})")
    sys.stdout.flush()
    r = subprocess.run(
        [sys.executable,
         os.path.join(os.path.dirname(os.path.abspath(__file__)), script),
         *args, "--json", json_path], env=env)
    if r.returncode != 0 or not os.path.exists(json_path):
        return None
    with open(json_path) as f:
        return json.load(f)


PROVE_STDLIB_BASELINE_S = 273.0  # the figure: ctest prove-stdlib


def time_prove_stdlib(pyverify, corpus, jobs=2):
    """Wall time of `pyverify prove --format=json --jobs=JOBS CORPUS` (every
    stdlib code object proved as plain code, as tests/prove/test_prove.py's
    plain_stdlib does), with its verdict counts and the prover's own
    per-result seconds (sum, median, max, the slowest five)."""
    cmd = [pyverify, "prove", "--format=json", f"--jobs={jobs}", corpus]
    print(f"\n`pyverify prove` over the stdlib corpus: {' '.join(cmd)}",
          flush=True)
    w0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - w0
    if r.returncode not in (0, 1, 3):  # 1 refuted, 3 unknown: a full run
        fail(f"{' '.join(cmd)} exited with {r.returncode}:\n"
             f"{r.stderr[-3000:]}")
    try:
        res = json.loads(r.stdout)["results"]
    except (ValueError, KeyError, TypeError) as e:
        fail(f"{' '.join(cmd)} printed no results JSON ({e})")
    verdicts = {}
    for x in res:
        v = x.get("verdict", "?")
        verdicts[v] = verdicts.get(v, 0) + 1
    secs = sorted(((float(x.get("seconds") or 0),
                    f"{os.path.relpath(x.get('file', '?'), corpus)}:"
                    f"{x.get('code', x.get('target', ''))}") for x in res),
                  reverse=True)
    total = sum(t for t, _ in secs)
    print(f"  {wall:.1f} s wall (exit {r.returncode}), {len(res)} results: "
          + ", ".join(f"{k} {verdicts[k]}" for k in sorted(verdicts)))
    print(f"  prover's own seconds: sum {total:.1f}, median "
          f"{statistics.median([t for t, _ in secs]) if secs else 0:.4f}, "
          f"max {secs[0][0] if secs else 0:.2f}; slowest: "
          + ", ".join(f"{n} {t:.2f} s" for t, n in secs[:5]))
    print(f"  (issue baseline: {PROVE_STDLIB_BASELINE_S:.0f} s for ctest "
          f"prove-stdlib, which also generates and proves the gen-stdlib "
          f"bundles)")
    return {"command": cmd, "wall_seconds": wall, "exit": r.returncode,
            "results": len(res), "verdicts": verdicts,
            "prover_seconds_sum": total,
            "slowest": [{"result": n, "seconds": t} for t, n in secs[:20]],
            "baseline_seconds_ctest_prove_stdlib": PROVE_STDLIB_BASELINE_S}


def print_goals(results, ratio_cm, bc_result, module, prove_stdlib,
                callgrind, linear):
    """Every goal of the issue, with its figure, printed as met or NOT met;
    returned as a list for the results file."""
    goals = []

    def goal(name, figure, target, met):
        goals.append({"goal": name, "figure": figure, "target": target,
                      "met": met})

    goal("1. full check / marshal.loads (wall, cpu)",
         f"{ratio_cm['wall']:.3f}, {ratio_cm['cpu']:.3f}", "<= 1.0",
         ratio_cm["wall"] <= 1 and ratio_cm["cpu"] <= 1)
    if callgrind and "check_over_marshal_ir" in callgrind:
        r = callgrind["check_over_marshal_ir"]
        goal("1. full check / marshal.loads (callgrind Ir)", f"{r:.3f}",
             "<= 1.0", r <= 1)
    if bc_result:
        sp = bc_result["speedup_over_bytecode"]
        goal("2. python3-bytecode compute_stacksize / check (wall, cpu)",
             f"{sp['wall']:.1f}x, {sp['cpu']:.1f}x", ">= 450x",
             bc_result["goal_450x_faster_than_bytecode"])
    if module:
        us = module["us_per_code_object"]["verify"]
        # The mean over the code objects (the bulk timing, median of the
        # rounds): a stricter reading than the median code object,
        # reported beside it.
        goal("3. pyverify.verify(co), mean over the stdlib's code objects "
             "(median round; "
             f"{module['ratios']['verify_over_parse_exception_table']:.2f}x "
             "dis._parse_exception_table)", f"{us:.2f} us", "<= 3 us",
             us <= 3.0)
        b = module.get("breakdown", {})
        if "median_verify_us" in b:
            r = b["median_verify_over_parse_exception_table"]
            goal("3. verify(co, recursive=False), median code object, and "
                 f"its ratio to dis._parse_exception_table's ({r:.2f}x)",
                 f"{b['median_verify_us']:.2f} us", "<=3us,2x",
                 b["median_verify_us"] <= 3.0 and r <= 2.0)
        if "median_first_call_us" in b:
            # The same goal read for a code object verified once, as a
            # compiler verifies what it emits (docs/python.md, "The first
            # call on an object").
            goal("3. verify(co, recursive=False), the first call on each "
                 f"object (median; a repeat {b['median_repeat_us']:.2f} us)",
                 f"{b['median_first_call_us']:.2f} us", "<= 3 us",
                 b["median_first_call_us"] <= 3.0)
    versions = results.get("versions") or {}
    for name in ("3.11", "3.12", "3.13"):
        v = versions.get(name)
        if not v:
            continue
        cpu_x = 1 / v["marshal/check"]
        fig = f"{cpu_x:.2f}x cpu"
        met = cpu_x <= 1
        if "check_ir/marshal_ir" in v:
            fig += f", {v['check_ir/marshal_ir']:.2f}x Ir"
            met = met and v["check_ir/marshal_ir"] <= 1
        goal(f"1. {name} stdlib: full check / that interpreter's "
             f"marshal.loads (check / reading the files: "
             f"{v['check/read_files']:.0f}x)", fig, "<= 1.0", met)
    allocs = results.get("allocations")
    if allocs:
        c = allocs["check"]
        goal("6. heap allocations of the check per instruction (per code "
             f"object: {c['allocations_per_code_object']:.1f}, median "
             f"{c['median_per_code_object']}, max {c['max_per_code_object']})",
             f"{c['allocations_per_instruction']:.3f}", "~0", None)
    if prove_stdlib:
        w = prove_stdlib["wall_seconds"]
        goals.append({"goal": "4. pyverify prove --jobs=2 over the stdlib "
                      "(plain code)", "figure": f"{w:.1f} s",
                      "target": f"(baseline {PROVE_STDLIB_BASELINE_S:.0f} s, "
                      "ctest prove-stdlib)", "met": None})
    if linear:
        for kind, fam in linear["families"].items():
            s = fam["slope_ratio"][fam["slope_judged_on"]]
            goal(f"5. linear cost: {kind} family, per-"
                 f"{fam['per'].replace('_', ' ')} cost largest / smallest "
                 f"({fam['slope_judged_on']})", f"{s:.2f}",
                 f"<= {linear['goal_slope_at_most']}", fam["goal_met"])
    print("\n== goals (reported, never asserted) ==")
    for g in goals:
        verdict = ("" if g["met"] is None
                   else "met" if g["met"] else "NOT met")
        print(f"  {g['goal']:78} {g['figure']:>16}  goal {g['target']:8} "
              f"{verdict}")
    return goals


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build", help="CMake build directory")
    ap.add_argument("--corpus",
                    help="directory of .pyc files "
                    "(default BUILD/corpus/stdlib)")
    ap.add_argument("--repeat", type=int, default=None,
                    help="rounds, each timing every measurement once; the "
                    "median is used (default 7, --quick 3)")
    ap.add_argument("--bytecode-rounds", type=int, default=None,
                    help="rounds (the first ones) that also time "
                    "python3-bytecode, ~25 s each; 0 skips it, and its "
                    "untimed survey (default 3, --quick 1)")
    ap.add_argument("--quick", action="store_true",
                    help="fewer rounds, fewer linear sizes")
    ap.add_argument("--no-callgrind", action="store_true",
                    help="no callgrind instruction counts (per pass, and in "
                    "the linear benchmark)")
    ap.add_argument("--no-linear", action="store_true",
                    help="do not run benchmarks/bench_linear.py")
    ap.add_argument("--prove-stdlib", action="store_true",
                    help="also time `pyverify prove --jobs=2` over the "
                    "stdlib corpus (minutes)")
    ap.add_argument("--no-cli", action="store_true",
                    help="do not time the pyverify check CLI")
    ap.add_argument("--no-gbench", action="store_true",
                    help="do not run the Google Benchmark codec benchmarks")
    ap.add_argument("--gbench-min-time", default="0.05",
                    help="--benchmark_min_time for the codec benchmarks")
    ap.add_argument("--output",
                    help="results file (default BUILD/bench/results.json)")
    a = ap.parse_args()
    if a.repeat is None:
        a.repeat = 3 if a.quick else 7
    if a.bytecode_rounds is None:
        a.bytecode_rounds = 1 if a.quick else 3
    if sys.version_info[:2] != (3, 11):
        fail("needs python3.11 (the peer being measured is its marshal/dis)")
    if a.repeat < 1:
        fail("--repeat must be >= 1")
    if a.bytecode_rounds < 0:
        fail("--bytecode-rounds must be >= 0")
    build = os.path.abspath(a.build)
    corpus = os.path.abspath(a.corpus
                             or os.path.join(build, "corpus", "stdlib"))
    output = a.output or os.path.join(build, "bench", "results.json")
    bench_dir = os.path.dirname(os.path.abspath(output))
    os.makedirs(bench_dir, exist_ok=True)

    ensure_corpus(corpus, is_default=a.corpus is None)
    bench = find_binary(build, "pyverify-corpus-bench")
    pyverify = None if a.no_cli else find_binary(build, "pyverify",
                                                 "tools/pyverify")

    paths = list_pyc(corpus)
    rels = [os.path.relpath(p, corpus) for p in paths]
    datas = []
    for p in paths:
        with open(p, "rb") as f:
            datas.append(f.read())
    payloads = [d[16:] for d in datas]  # sliced before timing: no copy timed
    fns, py_code_objects = python_side(payloads)
    for fn in fns.values():  # warm-up, as pyverify-corpus-bench does
        fn()

    # python3-bytecode: the untimed survey doubles as its warm-up.
    survey, exclude_path = None, None
    bytecode_rounds = min(a.bytecode_rounds, a.repeat)
    if bytecode_rounds:
        print("python3-bytecode: untimed survey of every code object "
              "(~25 s)", flush=True)
        bc = bytecode_side(payloads, rels)
        if bc is None:
            print("python3-bytecode is not installed (apt install "
                  "python3-bytecode): its comparison is skipped")
            bytecode_rounds = 0
        else:
            fns_bc, survey = bc
            exclude_path = os.path.join(bench_dir, "bytecode_excluded.tsv")
            with open(exclude_path, "w") as f:
                for x in survey["failures"]:
                    f.write(f"{x['file']}\t{x['index']}\n")

    samples = {}

    def add(key, wall, cpu):
        samples.setdefault(key, Samples()).add(wall, cpu)

    pv = None
    pv_counts = None
    cli_summaries = set()
    deterministic = True
    print("rounds:", end="", flush=True)
    for r in range(a.repeat):
        print(f" {r + 1}", end="", flush=True)
        out = run_corpus_bench(bench, corpus, exclude_path)
        for name in out["measurements"]:
            add(name, out[f"{name}_seconds"][0], out[f"{name}_cpu_seconds"][0])
        if pv is not None:
            deterministic &= all(out[k] == pv[k] for k in (
                "code_objects", "instructions", "table_entries", "positions",
                "findings", "read_errors"))
            deterministic &= out["counts"] == pv_counts
        deterministic &= out.get("deterministic", True)
        pv, pv_counts = out, out["counts"]
        for key, fn in fns.items():
            add(key, *time_once(fn))
        if r < bytecode_rounds:
            add("marshal_bytecode", *time_once(fns_bc))
        if pyverify:
            for jobs in (1, 2):
                wall, cpu, summary = time_cli(pyverify, corpus, jobs)
                add(f"cli_jobs{jobs}", wall, cpu)
                cli_summaries.add(summary)
    print()

    def med(key):
        return samples[key].medians()

    py = {k: samples[k].to_json() for k in fns}
    py["code_objects"] = py_code_objects
    measurements = pv["measurements"]
    pv = {k: v for k, v in pv.items()
          if "seconds" not in k and k not in ("repeat", "measurements")}
    pv["deterministic"] = deterministic
    for key in measurements:
        pv[key] = samples[key].to_json()

    if len(datas) != pv["files"] or py_code_objects != pv["code_objects"]:
        print(f"warning: the two sides saw different corpora: pyverify "
              f"{pv['files']} files / {pv['code_objects']} code objects, "
              f"python {len(datas)} / {py_code_objects}", file=sys.stderr)

    n_code = pv["code_objects"]
    pipeline = med("pipeline")
    header = (f"{'':50} {'wall ms':>9} {'cpu ms':>9} {'us/obj':>9}")
    print(f"\ncorpus {corpus}: {pv['files']} files, {pv['bytes']:,} bytes, "
          f"{n_code:,} code objects, {pv['instructions']:,} instructions; "
          f"median of {a.repeat} interleaved rounds, files in memory on "
          f"both sides\n")

    # --- The decode pipeline against marshal and dis (the first goal).
    print("== decode pipeline ==")
    print(header + f" {'pyv/this':>9} {'(cpu)':>7}")
    for name, key in (
            ("pyverify: readPyc + DecodedCode::decode", "pipeline"),
            ("  of which readPyc alone", "read"),
            ("  of which DecodedCode::decode alone", "decode"),
            ("python3.11: marshal.loads", "marshal"),
            ("python3.11: marshal.loads + dis", "marshal_dis"),
            ("  of which dis alone", "dis")):
        print(fmt_row(name, *med(key), n_code, pipeline))

    def ratio(num, den):
        (nw, nc), (dw, dc) = med(num), med(den)
        return {"wall": nw / dw, "cpu": nc / dc}
    ratio_m = ratio("pipeline", "marshal")
    ratio_md = ratio("pipeline", "marshal_dis")
    print(f"\npyverify pipeline / marshal.loads       = {ratio_m['wall']:.3f} "
          f"wall, {ratio_m['cpu']:.3f} cpu  (below 1: pyverify is faster)")
    print(f"pyverify pipeline / marshal.loads + dis = {ratio_md['wall']:.4f} "
          f"wall, {ratio_md['cpu']:.4f} cpu  (pyverify "
          f"{1 / ratio_md['wall']:.1f}x faster)")
    goal = ratio_m["wall"] < 1 and ratio_m["cpu"] < 1
    print(f"goal 'whole pipeline faster than marshal.loads alone': "
          f"{'met' if goal else 'NOT met'}")

    # --- Issue 3: the full check against marshal and python3-bytecode.
    check = med("check")
    print("\n== issue 3: the full check against its peers ==")
    print(header + f" {'chk/this':>9} {'(cpu)':>7}")
    print(fmt_row("pyverify: readPyc + decode + verifyCode", *check, n_code,
                  check))
    print(fmt_row("python3.11: marshal.loads", *med("marshal"), n_code,
                  check))
    ratio_cm = ratio("check", "marshal")
    goal_cm = ratio_cm["wall"] <= 1 and ratio_cm["cpu"] <= 1
    bc_result = None
    if survey:
        n_cmp = n_code - survey["raised"]
        cmp_key = "check_comparable" if "check_comparable" in samples \
            else "check"
        comparable = med(cmp_key)
        print(fmt_row(f"pyverify: the same, {n_cmp:,} objs bytecode takes",
                      *comparable, n_cmp, comparable))
        print(fmt_row("python3-bytecode: marshal.loads + compute_stacksize",
                      *med("marshal_bytecode"), n_cmp, comparable))
        speedup = {"wall": med("marshal_bytecode")[0] / comparable[0],
                   "cpu": med("marshal_bytecode")[1] / comparable[1]}
        goal_bc = speedup["wall"] >= 450 and speedup["cpu"] >= 450
        print(f"\n(bytecode timed in {bytecode_rounds} of the rounds; it "
              f"raised on {survey['raised']} code object(s), left out of "
              f"both sides' per-object figures: "
              + ", ".join(f"{x['file']}:{x['qualname']}"
                          for x in survey["failures"]) + ")")
        print(f"bytecode's stack size equals co_stacksize on "
              f"{survey['stacksize_equal_co_stacksize']:,} of "
              f"{survey['code_objects_ok']:,} code objects; differs on "
              f"{survey['stacksize_differs']}"
              + ("" if not survey["disagreements"] else ": " + ", ".join(
                  f"{x['file']}:{x['qualname']} ({x['bytecode']} vs "
                  f"{x['co_stacksize']})" for x in survey["disagreements"]))
              + ")")
        print(f"\npython3-bytecode / pyverify check = {speedup['wall']:.1f}x "
              f"wall, {speedup['cpu']:.1f}x cpu  (goal >= 450x: "
              f"{'met' if goal_bc else 'NOT met'})")
        bc_result = {"speedup_over_bytecode": speedup,
                     "goal_450x_faster_than_bytecode": goal_bc,
                     "comparable_code_objects": n_cmp,
                     "us_per_code_object": {
                         "pyverify_check": comparable[0] / n_cmp * 1e6,
                         "bytecode": med("marshal_bytecode")[0] / n_cmp
                         * 1e6}}
    print(f"pyverify check / marshal.loads    = {ratio_cm['wall']:.3f} "
          f"wall, {ratio_cm['cpu']:.3f} cpu  (goal <= 1: "
          f"{'met' if goal_cm else 'NOT met'})")
    cli = None
    if pyverify:
        print("\n`pyverify check DIR` as a process (start, file I/O and "
              "printing included; cpu = user + sys):")
        for jobs in (1, 2):
            w, c = med(f"cli_jobs{jobs}")
            print(f"  --jobs={jobs}: {w * 1e3:8.1f} ms wall, "
                  f"{c * 1e3:8.1f} ms cpu; / marshal.loads "
                  f"{w / med('marshal')[0]:.2f} wall")
        for summary in sorted(cli_summaries):
            print(f"  {summary}")
        cli = {f"jobs{j}": samples[f"cli_jobs{j}"].to_json() for j in (1, 2)}
        cli["summaries"] = sorted(cli_summaries)

    # --- Issue 4: the cost of the block-stack and context-balance passes.
    print("\n== issue 4: cost of the new passes ==")
    print(header + f" {'this/is.3':>9} {'(cpu)':>7}")
    i3 = med("issue3")
    for name, key in (
            ("decode only (readPyc + decode)", "pipeline"),
            ("issue 3: + CFG + stack depth + stack checks", "issue3"),
            ("issue 4: + block stack + context balance", "issue4"),
            ("full check (verifyCode)", "check")):
        print(fmt_row(name, *med(key), n_code, i3, over_ref=True))
    cost = ratio("issue4", "issue3")
    print(f"\nissue 4 / issue 3 = {cost['wall']:.3f} wall, "
          f"{cost['cpu']:.3f} cpu: the new passes cost "
          f"{(cost['wall'] - 1) * 100:.0f}% on top of the issue 3 check")

    # Per-pass split: per round, the difference of successive cumulative
    # levels over code objects decoded up front; medians of those.
    levels = [("CFG::build", "split_cfg"),
              ("computeStackDepth", "split_depth"),
              ("checkStack", "split_stackchecks"),
              ("BlockStack::compute", "split_blockstack"),
              ("checkContextBalance", "split_context")]
    split = {}
    prev = None
    for name, key in levels:
        w = list(samples[key].wall)
        c = list(samples[key].cpu)
        if prev:
            w = [x - y for x, y in zip(w, samples[prev].wall)]
            c = [x - y for x, y in zip(c, samples[prev].cpu)]
        split[name] = (statistics.median(w), statistics.median(c))
        prev = key
    split["readPyc"] = med("read")
    split["DecodedCode::decode"] = med("decode")
    total = sum(v[0] for v in split.values())
    print("\nper pass (each alone, inputs prepared up front; passes after "
          "decode: difference of successive cumulative levels):")
    print(f"{'':50} {'wall ms':>9} {'cpu ms':>9} {'us/obj':>9} "
          f"{'share':>7}")
    for name in ("readPyc", "DecodedCode::decode") + tuple(
            n for n, _ in levels):
        w, c = split[name]
        print(f"  {name:48} {w * 1e3:9.2f} {c * 1e3:9.2f} "
              f"{w / n_code * 1e6:9.3f} {w / total * 100:6.1f}%")
    new = split["BlockStack::compute"][0] + split["checkContextBalance"][0]
    old = sum(split[n][0] for n in ("CFG::build", "computeStackDepth",
                                    "checkStack"))
    print(f"  new passes / issue 3 passes alone (no read or decode): "
          f"{new / old:.2f}")

    if not deterministic:
        print("warning: pyverify-corpus-bench passes disagreed on their "
              "counts", file=sys.stderr)

    gb = None
    if not a.no_gbench:
        gb = run_gbench(find_binary(build, "pyverify-codec-bench"), corpus,
                        a.gbench_min_time)
        if gb:
            print(f"\nGoogle Benchmark codecs (--benchmark_min_time="
                  f"{a.gbench_min_time}; one iteration = one pass over the "
                  f"corpus)")
            print(f"{'benchmark':28} {'ms/pass':>9} {'iters':>6} "
                  f"{'k code obj/s':>13} {'MB/s':>9}")
            for b in gb["benchmarks"]:
                ips = b["code_objects_per_second"] or 0
                bps = b["bytes_per_second"] or 0
                print(f"{b['name']:28} {b['ms_per_pass']:9.3f} "
                      f"{b['iterations']:6} {ips / 1e3:13.1f} "
                      f"{bps / 1e6:9.1f}")
            if gb["context"].get("library_build_type") == "debug":
                print("(libbenchmark reports itself built as DEBUG -- Debian "
                      "packages it so; only its harness is affected, not the "
                      "code measured)")

    # Heap allocations per code object and per instruction (issue 29): a
    # count, not a time, so one run.
    allocs = json.loads(subprocess.run(
        [find_binary(build, "pyverify-alloc-bench"), corpus],
        check=True, capture_output=True, text=True).stdout)
    print(f"\nheap allocations (pyverify-alloc-bench: malloc and its kin, "
          f"{allocs['code_objects']} code objects, "
          f"{allocs['instructions']} instructions)")
    print(f"{'phase':8} {'allocations':>12} {'per code obj':>13} "
          f"{'per instr':>10} {'median/obj':>11} {'max/obj':>8}")
    for phase in ("read", "decode", "check"):
        p = allocs[phase]
        print(f"{phase:8} {p['allocations']:12} "
              f"{p['allocations_per_code_object']:13.2f} "
              f"{p['allocations_per_instruction']:10.3f} "
              f"{p.get('median_per_code_object', '-'):>11} "
              f"{p.get('max_per_code_object', '-'):>8}")

    # `import pyverify` from Python (issue 6) and `pyverify prove` (issue 7):
    # their own scripts, in child processes.
    module = None
    mod_dir = os.path.join(build, "python")
    if os.path.isdir(os.path.join(mod_dir, "pyverify")):
        module = run_bench_script(
            "`import pyverify`", "bench_python_module.py",
            ["--corpus", corpus, "--repeat", str(a.repeat)],
            os.path.join(bench_dir, "python_module.json"),
            env=dict(os.environ, PYTHONPATH=mod_dir))
    hook = None
    if module is not None:
        hook = run_bench_script(
            "pyverify.dynamo hook", "bench_dynamo_hook.py",
            ["--repeat", str(max(a.repeat, 3))],
            os.path.join(bench_dir, "dynamo_hook.json"),
            env=dict(os.environ, PYTHONPATH=mod_dir))
    versions = run_bench_script(
        "3.11-3.15: read and decode vs marshal.loads", "bench_versions.py",
        ["--build", build, "--repeat", str(a.repeat)] +
        ([] if a.no_callgrind else ["--callgrind"]),
        os.path.join(bench_dir, "versions.json"))
    prove = run_bench_script(
        "`pyverify prove`", "bench_prove.py",
        ["--pyverify", os.path.join(build, "tools", "pyverify", "pyverify"),
         "--fixtures-dir", os.path.join(build, "bundles", "fixtures")],
        os.path.join(bench_dir, "prove.json"))
    prove_stdlib = None
    if a.prove_stdlib:
        prove_stdlib = time_prove_stdlib(
            os.path.join(build, "tools", "pyverify", "pyverify"), corpus)

    # Instruction counts per pass (callgrind) and the linearity benchmark.
    callgrind = None
    if not a.no_callgrind:
        callgrind = run_bench_script(
            "callgrind instruction counts per pass", "bench_callgrind.py",
            ["--bench", bench, "--corpus", corpus,
             "--out-dir", os.path.join(bench_dir, "callgrind")],
            os.path.join(bench_dir, "callgrind.json"))
        if callgrind is None:
            fail("benchmarks/bench_callgrind.py failed (its output says "
                 "why)")
    linear = None
    if not a.no_linear:
        linear = run_bench_script(
            "cost against code size and table entries", "bench_linear.py",
            ["--bench", bench, "--work-dir", os.path.join(bench_dir,
                                                          "linear"),
             *(["--quick"] if a.quick else []),
             *(["--no-callgrind"] if a.no_callgrind else [])],
            os.path.join(bench_dir, "linear.json"))
        if linear is None:
            fail("benchmarks/bench_linear.py failed (its output says why)")

    if survey:
        py["marshal_bytecode"] = samples["marshal_bytecode"].to_json()
        py["marshal_bytecode"]["rounds"] = bytecode_rounds
    results = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "machine": {"platform": platform.platform(),
                    "cpus": os.cpu_count(),
                    "python": sys.version.split()[0]},
        "corpus": corpus,
        "rounds": a.repeat,
        "pyverify": pv,
        "python": py,
        "bytecode": survey,
        "cli": cli,
        "issue4": {
            "issue4_over_issue3": cost,
            "per_pass_seconds": {k: {"wall": v[0], "cpu": v[1]}
                                 for k, v in split.items()},
            "new_passes_over_issue3_passes": new / old},
        "ratios": {"pipeline_over_marshal": ratio_m,
                   "pipeline_over_marshal_dis": ratio_md,
                   "goal_pipeline_faster_than_marshal": goal,
                   "check_over_marshal": ratio_cm,
                   "goal_check_no_slower_than_marshal": goal_cm,
                   "issue4_over_issue3": cost,
                   **(bc_result or {})},
        "gbench": gb,
        "allocations": allocs,
        "python_module": module,
        "versions": versions,
        "prove": prove,
        "prove_stdlib": prove_stdlib,
        "callgrind": callgrind,
        "linear": linear,
    }
    results["goals"] = print_goals(results, ratio_cm, bc_result, module,
                                   prove_stdlib, callgrind, linear)
    with open(output, "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    print(f"\nresults written to {output}")


if __name__ == "__main__":
    main()
