#!/usr/bin/env python3.11
"""`pyverify prove --replay=DIR` on the rewriter's fixture bundles.

Generates the fixtures with the interpreter running this test
(`sys.executable -m pyverify_rewriter gen-fixtures`: bundles of its version),
or reads those another test had the same interpreter write (--fixtures DIR:
ctest's prove-fixtures tests; a directory of another version's fails (b)),
runs `pyverify prove --replay=DIR --format=json` on them and requires:

  (a) every refuted result has its script (named as Replay.h says), every
      proved or unknown one has none, and DIR holds nothing else;
  (b) every script is self-contained: it imports neither pyverify nor
      pyverify_rewriter, says in its shebang and docstring the version it
      runs under (this interpreter's), and runs under it with nothing on
      PYTHONPATH, from a directory of its own;
  (c) every script of a refutation with a counterexample exits 1 and prints
      the divergence (">>" and "first divergence") or the violation
      ("violation at emitted step"), except at most --max-cannot of them,
      which exit 2 with "cannot replay: WHY" (each reason is printed);
  (d) every script of a refutation without a path (well-formed) exits 2 with
      "cannot replay: well-formed refutation (no path)";
  (e) every well-formed refutation with a path (its dataflow errors are safe
      to run: an unbound local's checked read raises UnboundLocalError) has
      a script that exits 1 showing the error raised on the path ("observed:
      step N raised"), and there are at least --min-safe-replays of them.

No script may exit 0 (its run followed the path and did not show the
refutation) or crash. Prints the counts: scripts written, exit 1, exit 2 and
why. The scripts run --jobs at a time (default 2); they are judged and
reported in name order. --no-path-sample N runs only N of the scripts
without a path, evenly spread over them in name order ((a) and (b) still
read every script): each costs an interpreter start and says the same.
--path-sample N runs only N of the scripts with a path, the same way, and at
most N of the well-formed ones with a path ((e)): for an
interpreter whose start is dear (the 3.14 oracle, CPython in WebAssembly:
about 3 s a script, and no threads, so the scripts run one at a time).
Usage: [pythonX.Y] test_replay.py --pyverify PYVERIFY --python-dir DIR
[--jobs N] [--no-path-sample N] OUTDIR
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

PYTHON = sys.executable
VERSION = "%d.%d" % sys.version_info[:2]


def script_name(result):
    """Replay.h's getReplayScriptName()."""
    path = os.path.splitext(result["file"])[0]
    parts = [("up" if p == ".." else p) for p in path.split("/") if p not in ("", ".")]
    return ".".join(parts).replace(":", "_") + "." + result["target"].replace(":", "_") + ".py"


def run_script(path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    return subprocess.run([PYTHON, "-I", path], capture_output=True, text=True, timeout=120,
                          cwd=os.path.dirname(path), env=env)


def text_failures(name, text):
    """(b), read off the script's text."""
    out = []
    if re.search(r"^\s*(import|from)\s+pyverify", text, re.M):
        out.append("(b) %s imports pyverify" % name)
    if not text.startswith("#!/usr/bin/env python%s\n" % VERSION) or \
            "Run it with python%s," % VERSION not in text:
        out.append("(b) %s does not say python%s" % (name, VERSION))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pyverify", required=True)
    ap.add_argument("--python-dir", required=True, help="directory holding pyverify_rewriter")
    ap.add_argument("--max-cannot", type=int, default=1,
                    help="scripts with a counterexample allowed to exit 2 (default 1)")
    ap.add_argument("--jobs", type=int, default=2,
                    help="scripts run at the same time (default 2)")
    ap.add_argument("--min-safe-replays", type=int, default=0,
                    help="well-formed refutations with a path required (default 0)")
    ap.add_argument("--no-path-sample", type=int, default=None,
                    help="run only this many scripts without a path (default all)")
    ap.add_argument("--path-sample", type=int, default=None,
                    help="run only this many scripts with a path, and this "
                         "many well-formed ones with a path (default all)")
    ap.add_argument("--fixtures", default=None,
                    help="the fixtures this interpreter's gen-fixtures wrote (read, never "
                         "written); default: generate them into OUTDIR/fixtures")
    ap.add_argument("outdir")
    a = ap.parse_args(argv)
    shutil.rmtree(a.outdir, ignore_errors=True)
    fx, rep = os.path.join(a.outdir, "fixtures"), os.path.join(a.outdir, "replay")
    if a.fixtures:
        fx = os.path.abspath(a.fixtures)
        if not os.path.isfile(os.path.join(fx, "manifest.json")):
            sys.exit("--fixtures %s: no manifest.json (not a gen-fixtures directory)" % fx)
    else:
        env = dict(os.environ, PYTHONPATH=a.python_dir)
        subprocess.run([PYTHON, "-m", "pyverify_rewriter", "gen-fixtures", fx], env=env,
                       check=True, capture_output=True)
    p = subprocess.run([os.path.abspath(a.pyverify), "prove", "--replay=" + os.path.abspath(rep), "--format=json",
                        "."], cwd=fx, capture_output=True, text=True)
    if p.returncode not in (0, 1, 3):
        sys.exit("pyverify prove exited %d: %s" % (p.returncode, p.stderr))
    results = json.loads(p.stdout)["results"]
    failures = []
    expected = {script_name(r): r for r in results if r["verdict"] == "refuted"}
    written = set(os.listdir(rep)) if os.path.isdir(rep) else set()
    for name in sorted(set(expected) - written):
        failures.append("(a) no script for a refuted result: %s" % name)
    for name in sorted(written - set(expected)):
        failures.append("(a) a script for no refuted result: %s" % name)
    status, cannot = collections.Counter(), collections.Counter()
    safe = 0
    names = sorted(written & set(expected))
    no_path = [n for n in names if expected[n]["counterexample"] is None]
    if a.no_path_sample is not None and len(no_path) > a.no_path_sample:
        keep = {no_path[k * len(no_path) // a.no_path_sample] for k in range(a.no_path_sample)}
        print("scripts without a path: running %d of %d" % (len(keep), len(no_path)))
    else:
        keep = set(no_path)
    path = [n for n in names if expected[n]["counterexample"] is not None]
    if a.path_sample is not None:
        def spread(ns):
            n = min(a.path_sample, len(ns))
            return {ns[k * len(ns) // n] for k in range(n)}
        wf = [n for n in path if expected[n]["property"] == "well-formed"]
        pick = spread(wf) | spread([n for n in path if n not in wf])
        keep |= pick
        print("scripts with a path: running %d of %d (%d well-formed)"
              % (len(pick), len(path), len(spread(wf))))
    else:
        keep |= set(path)
    for name in names:
        failures += text_failures(name, open(os.path.join(rep, name), encoding="utf-8").read())
    names = [n for n in names if n in keep]
    if sys.platform in ("emscripten", "wasi"):  # no threads (Pyodide)
        outs = {n: run_script(os.path.join(rep, n)) for n in names}
    else:
        with ThreadPoolExecutor(max_workers=max(a.jobs, 1)) as pool:
            outs = dict(zip(names, pool.map(lambda n: run_script(os.path.join(rep, n)), names)))
    for name in names:
        r = expected[name]
        out = outs[name]
        has_path = r["counterexample"] is not None
        status[(has_path, out.returncode)] += 1
        shown = (">>" in out.stdout and "first divergence" in out.stdout) or \
            "violation at emitted step" in out.stdout
        if has_path and r["property"] == "well-formed":
            if out.returncode == 1 and re.search(r"^  observed: step \d+ raised ", out.stdout, re.M):
                safe += 1
                continue
            failures.append("(e) %s: exit %d without the dataflow error raised\n%s%s" % (
                name, out.returncode, out.stdout[-2000:], out.stderr[-2000:]))
            continue
        if out.returncode == 1 and has_path and shown:
            continue
        m = re.search(r"^cannot replay: (.*)$", out.stdout, re.M)
        if out.returncode == 2 and m and not has_path and "well-formed refutation (no path)" in m.group(1):
            continue
        if out.returncode == 2 and m and has_path:
            cannot[re.sub(r"\d+", "N", m.group(1))] += 1
            print("exit 2: %s: %s" % (name, m.group(1)))
            continue
        failures.append("(c) %s: exit %d%s\n%s%s" % (name, out.returncode, "" if shown else
                        " without the divergence", out.stdout[-2000:], out.stderr[-2000:]))
    with_path = sum(v for (h, _), v in status.items() if h)
    print("scripts written: %d (refuted results: %d, of which %d with a counterexample)"
          % (len(written), len(expected), with_path))
    print("with a counterexample: %d exit 1, %d exit 2, %d other" % (
        status[(True, 1)], status[(True, 2)], with_path - status[(True, 1)] - status[(True, 2)]))
    for why, n in cannot.most_common():
        print("  %4d cannot replay: %s" % (n, why))
    print("well-formed with a path (safe to run): %d exit 1 showing the error" % safe)
    print("without a path (well-formed): %d exit 2" % status[(False, 2)])
    if safe < a.min_safe_replays:
        failures.append("(e) %d well-formed refutations replayed with a path (at least %d)"
                        % (safe, a.min_safe_replays))
    if sum(cannot.values()) > a.max_cannot:
        failures.append("(c) %d scripts with a counterexample cannot replay (at most %d)"
                        % (sum(cannot.values()), a.max_cannot))
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
