"""Reading, decoding and checking 3.11 - 3.15 bytecode, as
ratios to that version's own marshal.loads, measured in one run (issues 15,
28).

For each version whose interpreter is found (python3.11, pyenv's python3.12
and python3.13, Pyodide's 3.14 and 3.15 through the build's shims
build/pyodide/bin/python3.14, python3.15), on that version's standard
library compiled by it (build/corpus/stdlib for 3.11, build/corpus/stdlib-3.X,
compiled here when missing, 3.14's and 3.15's by tests/corpus/extract_stdlib.py
as ctest corpus-compile-stdlib-3.14 / -3.15 does):

  marshal   python3.X: marshal.loads of every .pyc's payload, the bytes read
            into memory first (the peer);
  read      pyverify-corpus-bench -only=read: readPyc of every file;
  pipeline  pyverify-corpus-bench -only=pipeline: readPyc and
            DecodedCode::decode of every code object (instructions with the
            version's caches and jumps, exception table, location table);
  check     pyverify-corpus-bench -only=check: the whole `check` of every
            code object (CFG, depth, values, block stack, context balance).

Times are medians of --repeat rounds of process CPU time; the ratios are
marshal / read, marshal / pipeline and marshal / check (above 1: pyverify
is faster); check's CPU time per instruction is printed too, and the check
beside reading the files alone (open and read of every .pyc, CPU time, in
the peer's process). For 3.11-3.13 a goal line (issue 29: the full check at
most marshal.loads' cost, in CPU time and, with --callgrind, in Ir: that
interpreter's marshal.loads counted as bench_callgrind.py counts it). 3.14's and
3.15's marshal.loads run in WebAssembly: its ratios are printed but are no fair
comparison, so the per-instruction figures (and, with --callgrind, the
full check's Ir per instruction, valgrind --tool=callgrind as
bench_callgrind.py counts it) are the ones to set beside 3.13's. Nothing is
asserted.

    python3.11 benchmarks/bench_versions.py --build build [--repeat 5] \
        [--callgrind] [--versions 3.13,3.14,3.15] [--json F]
"""

import argparse
import glob
import json
import os
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), ".."))

MARSHAL_PEER = r"""
import marshal, os, sys, time, json
files = []
for root, dirs, fs in os.walk(sys.argv[1]):
    dirs.sort()
    files += [os.path.join(root, f) for f in sorted(fs) if f.endswith(".pyc")]
files.sort()
rounds = int(sys.argv[2])
# Reading the files alone (open and read every .pyc, from the page cache):
# the floor any reader of them pays.
io = []
for _ in range(rounds):
    t = time.process_time()
    for f in files:
        with open(f, "rb") as fh:
            fh.read()
    io.append(time.process_time() - t)
io.sort()
data = [open(f, "rb").read()[16:] for f in files]
for d in data:  # warm-up
    marshal.loads(d)
cpu = []
for _ in range(rounds):
    t = time.process_time()
    for d in data:
        marshal.loads(d)
    cpu.append(time.process_time() - t)
cpu.sort()
print(json.dumps({"files": len(data), "cpu_seconds_median": cpu[len(cpu) // 2],
                  "read_files_cpu_seconds_median": io[len(io) // 2]}))
"""


def find_python(minor, build):
    if minor == 11:
        return sys.executable if sys.version_info[:2] == (3, 11) else None
    if minor >= 14:  # Pyodide under Node (cmake/pyverifyPyodide.cmake)
        shim = os.path.join(build, "pyodide", "bin", "python3.%d" % minor)
        return shim if os.path.exists(shim) else None
    for p in sorted(glob.glob(os.path.expanduser(
            "~/.pyenv/versions/3.%d.*/bin/python3.%d" % (minor, minor)))):
        return p
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json")
    ap.add_argument("--callgrind", action="store_true",
                    help="also count the full check's Ir per instruction")
    ap.add_argument("--versions", default="3.11,3.12,3.13,3.14,3.15",
                    help="which versions, comma-separated")
    a = ap.parse_args()
    bench = os.path.join(a.build, "benchmarks", "pyverify-corpus-bench")
    results = {}
    for minor in (11, 12, 13, 14, 15):
        if "3.%d" % minor not in a.versions.split(","):
            continue
        py = find_python(minor, a.build)
        name = "3.%d" % minor
        if not py:
            print(f"bench_versions: {name}: no python{name} found (pyenv); "
                  "skipped")
            continue
        corpus = os.path.join(a.build, "corpus",
                              "stdlib" if minor == 11 else "stdlib-" + name)
        stdlib = subprocess.run(
            [py, "-c", "import sysconfig; "
             "print(sysconfig.get_paths()['stdlib'])"],
            capture_output=True, text=True, check=True).stdout.strip()
        if minor >= 14 and not os.path.isdir(corpus):
            # as ctest corpus-compile-stdlib-3.X does (the 3.15 one is among
            # the optional slow tests)
            r = subprocess.run(
                [py, os.path.join(ROOT, "tests", "corpus", "extract_stdlib.py"),
                 corpus + "-src", corpus], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"bench_versions: {name}: {corpus} missing and "
                      f"extract_stdlib.py failed ({r.stderr.strip()[-200:]}); "
                      "skipped")
                continue
        if minor in (12, 13):  # 3.11's is `make corpus`'s, 3.14+'s ctest's
            subprocess.run([py, os.path.join(ROOT, "tests", "corpus",
                                             "compile_corpus.py"), stdlib,
                            corpus], check=True, capture_output=True)
        peer = json.loads(subprocess.run(
            [py, "-c", MARSHAL_PEER, corpus, str(a.repeat)],
            capture_output=True, text=True, check=True).stdout)
        mine = json.loads(subprocess.run(
            [bench, corpus, "-only=read,pipeline,check", f"-repeat={a.repeat}",
             "-warmup=1"], capture_output=True, text=True,
            check=True).stdout)
        m = peer["cpu_seconds_median"]
        r = {"files": peer["files"], "marshal_cpu_s": m,
             "read_cpu_s": mine["read_cpu_seconds_median"],
             "pipeline_cpu_s": mine["pipeline_cpu_seconds_median"],
             "check_cpu_s": mine["check_cpu_seconds_median"]}
        r["marshal/read"] = m / r["read_cpu_s"]
        r["marshal/pipeline"] = m / r["pipeline_cpu_s"]
        r["marshal/check"] = m / r["check_cpu_s"]
        r["read_files_cpu_s"] = peer["read_files_cpu_seconds_median"]
        r["check/read_files"] = r["check_cpu_s"] / max(
            1e-9, r["read_files_cpu_s"])
        r["instructions"] = mine["instructions"]
        r["check_ns_per_instruction"] = 1e9 * r["check_cpu_s"] / max(
            1, mine["instructions"])
        if a.callgrind:
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            import bench_callgrind
            if bench_callgrind.have_valgrind():
                out_dir = os.path.join(a.build, "bench", "callgrind-" + name)
                os.makedirs(out_dir, exist_ok=True)
                ir, _ = bench_callgrind.bench_pass_ir(
                    bench, corpus, "check", os.path.join(out_dir, "check.out"))
                r["check_ir"] = ir
                r["check_ir_per_instruction"] = ir / max(1, mine["instructions"])
                if minor <= 13:  # a native peer: its Ir compare
                    mir, _ = bench_callgrind.marshal_pass_ir(py, corpus,
                                                             out_dir)
                    r["marshal_ir"] = mir
                    r["check_ir/marshal_ir"] = ir / mir
        results[name] = r
        print(f"bench_versions: {name}: {r['files']} files; CPU medians of "
              f"{a.repeat}: marshal.loads {m:.3f} s, read {r['read_cpu_s']:.3f}"
              f" s ({r['marshal/read']:.2f}x), read+decode "
              f"{r['pipeline_cpu_s']:.3f} s ({r['marshal/pipeline']:.2f}x), "
              f"check {r['check_cpu_s']:.3f} s ({r['marshal/check']:.2f}x)"
              f"{' [WebAssembly peer]' if minor >= 14 else ''}; "
              f"{r['instructions']} instructions, check "
              f"{r['check_ns_per_instruction']:.1f} ns/instruction" +
              (f", {r['check_ir_per_instruction']:.0f} Ir/instruction"
               if "check_ir_per_instruction" in r else ""))
        if minor <= 13:
            # Issue 29's goal: the full check at most marshal.loads' cost.
            cpu_x = 1 / r["marshal/check"]
            ir_x = r.get("check_ir/marshal_ir")
            met = cpu_x <= 1.0 and (ir_x is None or ir_x <= 1.0)
            print(f"bench_versions: {name}: goal check <= 1.0x marshal.loads:"
                  f" {'met' if met else 'NOT met'} (CPU {cpu_x:.2f}x" +
                  (f", Ir {ir_x:.2f}x: {r['check_ir'] / 1e6:,.0f} M against "
                   f"{r['marshal_ir'] / 1e6:,.0f} M" if ir_x else "") +
                  f"); check / reading the files alone "
                  f"({r['read_files_cpu_s'] * 1e3:.1f} ms): "
                  f"{r['check/read_files']:.1f}x")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
