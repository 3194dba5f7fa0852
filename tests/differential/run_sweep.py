"""Differential sweep: random code objects, pyverify check, CPython runs them.

  run_sweep.py --python PY --pyverify BIN --count N --seed S --out DIR [--jobs J] [--generators] [--cells]
               [--timeout SEC] [--batch B] [--minimize K]

Per run (the version is PY's):
 1. gen_code.py under PY writes N code objects (one marshal file each) and
    their specs (DIR/<ver>/gen-*/cases.jsonl);
 2. `pyverify check --format=json --python-version=<ver>` in batches of B
    files; a case is CLEAN when its file has no error-severity finding and is
    not an input error (warnings and remarks count as clean);
 3. every clean case runs under PY in a child process that runs many in
    sequence: it writes "S <index>" to its stdout pipe before each run and
    "D <index> <status>" after; the call is types.FunctionType(code, {})(...)
    inside a try/except that swallows every exception but KeyboardInterrupt,
    a soft timer (half the timeout) raises an exception at the next
    eval-breaker check, and gc.collect() runs after each case.  When the
    child dies by a signal (or exits abnormally) while a case is open, that
    case is a CRASH; when a case stays open for --timeout seconds the child
    is killed and the case is a HANG; either way a new child resumes after
    it.  Each crash and hang is then re-run alone in a fresh child.
 4. DIR/<ver>/results.json, DIR/<ver>/crashes/<index>.json (the spec to
    rebuild it, the signal, the child's stderr, dis listing, co_code and
    exception-table hex, marshal hex) and a text report on stdout.  With
    --minimize K, up to K crashers are minimised: instructions are deleted
    while the case stays clean and still crashes (crashes/<index>.min.json).

Exit status: 0 when no clean case crashed or hung, 1 otherwise, 2 on a
harness failure (a child that died outside a case, pyverify exiting 2 on
input it wrote itself).

  run_sweep.py --repro ARTIFACT.json --python PY [--pyverify BIN] [--minimize 1]
      rebuild the case, print pyverify's verdict and run it alone (and
      minimise it).
"""
import argparse
import collections
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "gen_code.py")


# --- the child: runs cases in sequence ------------------------------------

def child_main(listfile, start, soft):
    import ctypes
    import gc
    import marshal
    import types

    try:
        import resource   # not in Pyodide's 3.14 / 3.15 (a 2 GB heap there)
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    except (ImportError, ValueError, OSError):
        pass
    # Pyodide has no interval timer: there the soft timeout is checked at
    # every jump instead (sys.monitoring's JUMP event: each loop's backward
    # jump, where the interpreter's eval breaker would raise it), and
    # raised from there.
    timer = getattr(signal, "setitimer", None)
    deadline = [None]
    if timer is None and hasattr(sys, "monitoring"):
        mon = sys.monitoring

        def on_jump(code, offset, dest):
            if deadline[0] is not None and time.monotonic() > deadline[0]:
                raise SoftTimeout()
        mon.use_tool_id(5, "pyverify-sweep")
        mon.register_callback(5, mon.events.JUMP, on_jump)
        mon.set_events(5, mon.events.JUMP)

    class SoftTimeout(BaseException):
        pass

    class Probe(Exception):
        pass

    set_handled = ctypes.pythonapi.PyErr_SetHandledException
    set_handled.argtypes = [ctypes.py_object]
    set_handled.restype = None

    armed = [False]

    def on_alarm(signum, frame):
        if armed[0]:
            raise SoftTimeout()

    signal.signal(signal.SIGALRM, on_alarm)

    class CM:
        def __init__(self, suppress):
            self.suppress = suppress

        def __enter__(self):
            return 5

        def __exit__(self, et, ev, tb):
            return self.suppress

    def make_boom(kind):
        def boom(*args, **kwargs):
            if kind == "return":
                return 3
            raise {"ZeroDivisionError": ZeroDivisionError,
                   "ValueError": ValueError}[kind]("boom")
        return boom

    excs = {"ZeroDivisionError": ZeroDivisionError, "ValueError": ValueError,
            "Exception": Exception}
    with open(listfile) as f:
        cases = [json.loads(line) for line in f]
    # The progress pipe gets its own descriptor: whatever a case writes to
    # stdout (CALL_INTRINSIC_1 1 prints) goes to /dev/null.
    progress = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    for case in cases[start:]:
        idx = case["index"]
        os.write(progress, f"S {idx}\n".encode())
        with open(case["file"], "rb") as f:
            data = f.read()
        status = "returned"
        try:
            code = marshal.loads(data)
            fn = types.FunctionType(code, {})
            a = case["args"]
            args = (CM(a["suppress"]), make_boom(a["boom"]), excs[a["exc"]],
                    7, 2.5, "ab")
            armed[0] = True
            if timer:
                timer(signal.ITIMER_REAL, soft, 0.05)
            else:
                deadline[0] = time.monotonic() + soft
            try:
                result = fn(*args)
                # Generator code: run it to its end (a few items at most;
                # its loops spend fuel like any other).
                if isinstance(result, types.GeneratorType):
                    for _ in zip(range(1000), result):
                        pass
                    result.close()
                del result
            finally:
                armed[0] = False
                deadline[0] = None
                if timer:
                    timer(signal.ITIMER_REAL, 0)
        except KeyboardInterrupt:
            raise
        except SoftTimeout:
            status = "interrupted"
        except BaseException as e:
            status = "raised:" + type(e).__name__
        e = None
        # The handled exception a case leaves behind (PUSH_EXC_INFO without
        # POP_EXCEPT, POP_EXCEPT of another value) outlives its frame: raise
        # once here so that a non-exception there crashes in this case, not
        # in a later one; then clear it so that cases stay independent.
        try:
            raise Probe()
        except Probe:
            pass
        if sys.exception() is not None:
            status += "+left-exc-info"
            set_handled(None)
        gc.collect()
        os.write(progress, f"D {idx} {status}\n".encode())
    return 0


# --- the parent ------------------------------------------------------------

def run_shard(py, cases, workdir, name, timeout, out):
    """Run cases (dicts) in monitored children; fill out (dict)."""
    listfile = os.path.join(workdir, f"{name}.jsonl")
    with open(listfile, "w") as f:
        for c in cases:
            f.write(json.dumps({"index": c["index"], "file": c["file"],
                                "args": c["args"]}) + "\n")
    pos_of = {c["index"]: k for k, c in enumerate(cases)}
    pos, restarts = 0, 0
    while pos < len(cases):
        errpath = os.path.join(workdir, f"{name}.stderr.{restarts}")
        restarts += 1
        with open(errpath, "wb") as err:
            p = subprocess.Popen(
                [py, os.path.abspath(__file__), "--child", listfile, str(pos),
                 str(timeout / 2)],
                stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL,
                env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
                         PYTHONFAULTHANDLER="1"))
        fd = p.stdout.fileno()
        current, started, buf = None, time.time(), b""
        while True:
            wait = (started + timeout - time.time()) if current is not None else 120
            r, _, _ = select.select([fd], [], [], max(wait, 0))
            if not r:
                p.kill()
                p.wait()
                p.stdout.close()
                if current is None:
                    out["harness"].append(f"{name}: child silent for 120 s")
                    return
                out["hangs"].append({"index": current, "stderr": errpath})
                pos = pos_of[current] + 1
                break
            data = os.read(fd, 65536)
            if not data:
                rc = p.wait()
                p.stdout.close()
                if current is not None:
                    out["crashes"].append({
                        "index": current, "returncode": rc,
                        "signal": signal.Signals(-rc).name if rc < 0 else None,
                        "stderr": errpath})
                    pos = pos_of[current] + 1
                elif rc != 0:
                    out["harness"].append(f"{name}: child exited {rc} between cases "
                                          f"(stderr {errpath})")
                    return
                else:
                    pos = len(cases)
                break
            buf += data
            *lines, buf = buf.split(b"\n")
            for line in lines:
                parts = line.decode(errors="replace").split()
                if len(parts) < 2:
                    continue
                if parts[0] == "S":
                    current, started = int(parts[1]), time.time()
                elif parts[0] == "D" and len(parts) == 3:
                    current = None
                    out["statuses"][parts[2]] += 1
                    out["run"] += 1


def run_cases(py, cases, workdir, tag, timeout, jobs):
    out = {"crashes": [], "hangs": [], "harness": [], "run": 0,
           "statuses": collections.Counter()}
    shards = [cases[k::jobs] for k in range(jobs)]
    locks = [dict(out, crashes=[], hangs=[], harness=[], run=0,
                  statuses=collections.Counter()) for _ in shards]
    threads = [threading.Thread(target=run_shard,
                                args=(py, s, workdir, f"{tag}-{k}", timeout, locks[k]))
               for k, s in enumerate(shards) if s]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for part in locks:
        for key in ("crashes", "hangs", "harness"):
            out[key] += part[key]
        out["run"] += part["run"]
        out["statuses"] += part["statuses"]
    return out


def pyverify_check(pyverify, version, files, jobs=1):
    """{file: [diagnostic]} and the input errors."""
    cmd = [pyverify, "check", "--format=json", f"--python-version={version}",
           f"--jobs={jobs}"] + files
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode not in (0, 1, 2):
        raise RuntimeError(f"pyverify check exited {p.returncode}: "
                           f"{p.stderr.decode()[-2000:]}")
    d = json.loads(p.stdout)
    by_file = collections.defaultdict(list)
    for x in d["diagnostics"]:
        by_file[x["file"]].append(x)
    return by_file, d["input_errors"]


def is_clean(diags):
    return not any(x["severity"] == "error" for x in diags)


def check_all(pyverify, version, cases, batch, jobs):
    files = [c["file"] for c in cases]
    batches = [files[k:k + batch] for k in range(0, len(files), batch)]
    results = [None] * len(batches)

    def work(k):
        try:
            results[k] = pyverify_check(pyverify, version, batches[k])
        except Exception as e:   # re-raised below, in the main thread
            results[k] = e

    pending = list(range(len(batches)))
    while pending:
        group, pending = pending[:jobs], pending[jobs:]
        ts = [threading.Thread(target=work, args=(k,)) for k in group]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    by_file, input_errors = {}, []
    for r in results:
        if isinstance(r, Exception):
            raise r
    for bf, ie in results:
        by_file.update(bf)
        input_errors += ie
    return by_file, input_errors


def add_case_args(ap, out):
    """The arguments of a script that checks cases with pyverify and runs
    them under an interpreter (families.py, null_probe.py)."""
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--pyverify", required=True)
    ap.add_argument("--out", default=out)
    ap.add_argument("--timeout", type=float, default=2.0)


def interpreter_version(py):
    return subprocess.check_output(
        [py, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        text=True).strip()


def describe(py, path):
    p = subprocess.run([py, GEN, "describe", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode:
        return {"describe_error": p.stderr[-2000:]}
    return json.loads(p.stdout)


def run_alone(py, spec_or_case, workdir, timeout, name):
    """Run one case in a fresh child: 'crash:SIG', 'hang', or a status."""
    out = run_cases(py, [spec_or_case], workdir, name, timeout, 1)
    if out["crashes"]:
        c = out["crashes"][0]
        return f"crash:{c['signal'] or 'exit %d' % c['returncode']}"
    if out["hangs"]:
        return "hang"
    if out["harness"]:
        return "harness:" + out["harness"][0]
    return "ok:" + ",".join(out["statuses"])


def build_spec(py, spec, path):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(spec, f)
    try:
        p = subprocess.run([py, GEN, "build", f.name, path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        return p.returncode == 0
    finally:
        os.unlink(f.name)


def minimise(py, pyverify, version, spec, workdir, timeout, rounds=60):
    """Delete op items while the rebuilt case stays clean and still crashes:
    drop the table/stacksize edits, then windows of items (half the items,
    then a quarter, ... one).  Each round builds every candidate of the
    current window size, checks them in one pyverify call, runs the clean
    ones in one child sequence and keeps the first that crashes (confirmed
    alone).  Returns (spec, marshal path, rounds used)."""
    mdir = os.path.join(workdir, f"min-{spec['index']}")
    os.makedirs(mdir, exist_ok=True)
    used = [0]

    def first_success(cands):
        used[0] += 1
        listfile = os.path.join(mdir, "cands.jsonl")
        with open(listfile, "w") as f:
            for c in cands:
                f.write(json.dumps(c) + "\n")
        outdir = os.path.join(mdir, f"round{used[0]}")
        if subprocess.run([py, GEN, "build-many", listfile, outdir],
                          stderr=subprocess.DEVNULL).returncode:
            return None
        files = [os.path.join(outdir, f"{k}.marshal") for k in range(len(cands))]
        by_file, errs = pyverify_check(pyverify, version, files)
        bad = {e["file"] for e in errs}
        runnable = [dict(c, index=k, file=files[k]) for k, c in enumerate(cands)
                    if files[k] not in bad and is_clean(by_file.get(files[k], []))]
        if not runnable:
            return None
        out = run_cases(py, runnable, mdir, f"round{used[0]}", timeout, 1)
        for k in sorted(r["index"] for r in out["crashes"]):
            c = dict(cands[k], file=files[k])
            if run_alone(py, c, mdir, timeout, "confirm").startswith("crash"):
                return k
        return None

    spec = json.loads(json.dumps(spec))
    for key, empty in (("table_edits", []), ("stacksize_delta", 0)):
        if spec.get(key) != empty:
            cand = dict(spec, **{key: empty})
            if first_success([cand]) == 0:
                spec = cand
    chunk = max(1, len(spec["items"]) // 2)
    while chunk >= 1 and used[0] < rounds:
        items = spec["items"]
        cands = []
        for k in range(0, len(items), chunk):
            window = items[k:k + chunk]
            if any("op" in it for it in window):
                kept = [it for it in window if "label" in it]
                cands.append(dict(spec, items=items[:k] + kept + items[k + chunk:]))
        k = first_success(cands) if cands else None
        if k is None:
            chunk //= 2
        else:
            spec = cands[k]
            chunk = min(chunk, max(1, len(spec["items"]) // 2))
    path = os.path.join(mdir, "min.marshal")
    build_spec(py, spec, path)
    return spec, path, used[0]


def report_crash(py, version, kind, rec, spec, verdict_diags, alone, crashdir):
    stderr = ""
    try:
        with open(rec["stderr"], "rb") as f:
            stderr = f.read()[-3000:].decode(errors="replace")
    except OSError:
        pass
    art = {"python": py, "version": version, "kind": kind,
           "seed": spec["seed"], "index": spec["index"],
           "signal": rec.get("signal"), "returncode": rec.get("returncode"),
           "alone": alone, "tags": spec["tags"], "stderr_tail": stderr,
           "pyverify_findings": [f"{x['severity']} {x['check']} @{x['offset']}: "
                                 f"{x['message']}" for x in verdict_diags],
           "spec": spec}
    art.update(describe(py, spec["file"]))
    with open(spec["file"], "rb") as f:
        art["marshal_hex"] = f.read().hex()
    path = os.path.join(crashdir, f"{spec['index']:06d}.json")
    with open(path, "w") as f:
        json.dump(art, f, indent=1)
    return art, path


def sweep(a):
    version = interpreter_version(a.python)
    root = os.path.join(a.out, version)
    if os.path.isdir(root):
        shutil.rmtree(root)
    os.makedirs(root)
    crashdir = os.path.join(root, "crashes")
    os.makedirs(crashdir)
    t0 = time.time()
    # 1. generate, in --jobs slices
    per = -(-a.count // a.jobs)
    procs = []
    for k in range(a.jobs):
        start, n = k * per, min(per, a.count - k * per)
        if n <= 0:
            continue
        procs.append(subprocess.Popen(
            [a.python, GEN, "generate", "--seed", str(a.seed), "--start",
             str(start), "--count", str(n), "--out", os.path.join(root, f"gen-{k}")]
            + (["--generators"] if a.generators else [])
            + (["--cells"] if a.cells else [])))
    if any(p.wait() for p in procs):
        print("run_sweep: generation failed", file=sys.stderr)
        return 2
    specs = []
    for k in range(a.jobs):
        p = os.path.join(root, f"gen-{k}", "cases.jsonl")
        if os.path.exists(p):
            with open(p) as f:
                specs += [json.loads(line) for line in f]
    t1 = time.time()
    # 2. check
    by_file, input_errors = check_all(a.pyverify, version, specs, a.batch, a.jobs)
    unreadable = {e["file"] for e in input_errors}
    clean = [s for s in specs if s["file"] not in unreadable
             and is_clean(by_file.get(s["file"], []))]
    wellformed = [s for s in specs if not s["tags"]]
    clean_idx = {s["index"] for s in clean}
    flagged_wellformed = [s for s in wellformed if s["index"] not in clean_idx]
    t2 = time.time()
    # 3. run
    out = run_cases(a.python, clean, root, "run", a.timeout, a.jobs)
    t3 = time.time()
    spec_of = {s["index"]: s for s in specs}
    arts = []
    for kind in ("crashes", "hangs"):
        for rec in sorted(out[kind], key=lambda r: r["index"]):
            spec = spec_of[rec["index"]]
            alone = run_alone(a.python, spec, root, a.timeout, "alone")
            art, path = report_crash(a.python, version, kind[:-1] if kind == "hangs" else "crash",
                                     rec, spec, by_file.get(spec["file"], []),
                                     alone, crashdir)
            arts.append((art, path))
    # 4. minimise a few
    minimised = 0
    for art, path in arts:
        if minimised >= a.minimize or not art["alone"].startswith("crash"):
            continue
        minimised += 1
        spec, mpath, tries = minimise(a.python, a.pyverify, version, art["spec"],
                                      root, a.timeout)
        m = {"python": a.python, "version": version, "index": spec["index"],
             "rounds": tries, "spec": dict(spec, file=mpath),
             "alone": run_alone(a.python, dict(spec, file=mpath), root, a.timeout,
                                "alone")}
        m.update(describe(a.python, mpath))
        with open(path.replace(".json", ".min.json"), "w") as f:
            json.dump(m, f, indent=1)
        art["minimised"] = m
    summary = {
        "version": version, "seed": a.seed, "generated": len(specs),
        "clean": len(clean), "unreadable": len(unreadable),
        "wellformed": len(wellformed),
        "wellformed_flagged": [s["index"] for s in flagged_wellformed],
        "run": out["run"], "crashed": len(out["crashes"]),
        "hung": len(out["hangs"]), "statuses": dict(out["statuses"]),
        "harness": out["harness"],
        "crashes": [{"index": art["index"], "kind": art["kind"],
                     "signal": art["signal"], "alone": art["alone"],
                     "tags": art["tags"], "artifact": path}
                    for art, path in arts],
        "seconds": {"generate": round(t1 - t0, 1), "check": round(t2 - t1, 1),
                    "run": round(t3 - t2, 1), "total": round(time.time() - t0, 1)},
    }
    with open(os.path.join(root, "results.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(f"differential sweep {version} (seed {a.seed}): generated {len(specs)}, "
          f"clean {len(clean)}, run {out['run']}, crashed {len(out['crashes'])}, "
          f"hung {len(out['hangs'])}  [well-formed {len(wellformed)}, of which "
          f"pyverify flagged {len(flagged_wellformed)}; unreadable {len(unreadable)}; "
          f"outcomes {dict(out['statuses'])}; {summary['seconds']['total']} s]")
    for art, path in arts:
        print(f"\n{art['kind'].upper()} index {art['index']} "
              f"({art['signal'] or art['returncode'] or 'timeout'}; alone: {art['alone']}) "
              f"corruptions {art['tags']}\n  artifact {path}\n"
              f"  repro: {sys.executable} {os.path.abspath(__file__)} --repro {path} "
              f"--python {a.python} --pyverify {a.pyverify}")
        print("  co_code " + art.get("co_code", "?"))
        print("  exceptiontable " + art.get("exceptiontable", "?"))
        for line in art.get("dis", "").splitlines():
            print("    " + line)
        if "minimised" in art:
            print("  minimised:")
            for line in art["minimised"].get("dis", "").splitlines():
                print("    " + line)
    for h in out["harness"]:
        print("harness failure: " + h)
    if out["harness"]:
        return 2
    return 1 if (out["crashes"] or out["hangs"]) else 0


def repro(a):
    with open(a.repro) as f:
        art = json.load(f)
    spec = art["spec"]
    version = interpreter_version(a.python)
    work = tempfile.mkdtemp(prefix="pyverify-diff-")
    path = os.path.join(work, f"{spec['index']:06d}.marshal")
    if not build_spec(a.python, spec, path):
        print("cannot rebuild the spec under", a.python)
        return 2
    spec = dict(spec, file=path)
    d = describe(a.python, path)
    print(d.get("dis", ""))
    print("co_code", d.get("co_code"), "\nexceptiontable", d.get("exceptiontable"),
          "\nstacksize", d.get("stacksize"))
    if a.pyverify:
        by_file, errs = pyverify_check(a.pyverify, version, [path])
        diags = by_file.get(path, [])
        print("pyverify:", "CLEAN" if not errs and is_clean(diags) else "error",
              [f"{x['severity']} {x['check']} @{x['offset']}" for x in diags], errs)
    print("run alone:", run_alone(a.python, spec, work, a.timeout, "repro"))
    if a.minimize and a.pyverify:
        spec, mpath, rounds = minimise(a.python, a.pyverify, version, spec, work,
                                       a.timeout)
        d = describe(a.python, mpath)
        print(f"\nminimised ({rounds} rounds; {mpath}):")
        print(d.get("dis", ""))
        print("co_code", d.get("co_code"), "\nexceptiontable", d.get("exceptiontable"),
              "\nstacksize", d.get("stacksize"))
        with open(os.path.join(work, "min.json"), "w") as f:
            json.dump({"spec": spec}, f)
        print("spec:", os.path.join(work, "min.json"))
    return 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        return child_main(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
    ap = argparse.ArgumentParser(description="differential sweep (see the docstring)")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--pyverify")
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--generators", action="store_true",
                    help="half the cases generator code (gen_code.py)")
    ap.add_argument("--cells", action="store_true",
                    help="half the cases with cell variables (gen_code.py)")
    ap.add_argument("--out", default="differential-out")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=2.0,
                    help="seconds per code object before it is a hang")
    ap.add_argument("--batch", type=int, default=400,
                    help="files per pyverify check process")
    ap.add_argument("--minimize", type=int, default=0,
                    help="minimise up to this many crashers")
    ap.add_argument("--repro", help="rebuild and rerun one crash artifact")
    a = ap.parse_args()
    if a.repro:
        return repro(a)
    if not a.pyverify:
        ap.error("--pyverify is required")
    return sweep(a)


if __name__ == "__main__":
    sys.exit(main())
