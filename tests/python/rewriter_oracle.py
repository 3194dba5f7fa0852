"""The runtime oracle and the pyverify fixture check, shared by
tests/python/test_rewriter.py (pytest, python3.11) and
tests/python/rewriter_versions.py (a plain script, any supported version).

Log normalisation (docs/rewriter.md, "Runtime oracle"): rewriters re-enter
ordinary contexts once per segment, so an ``("exit", n, None)`` immediately
followed by ``("enter", n)`` is a segment boundary and is removed; and the
frame's wrapper passes ``(None, None, None)`` to ``__exit__`` while the
unsupported instruction's exception propagates (emitted-code section 4.3), so
in the final run of exits of a raising call an exit may see ``None`` where
eager saw the exception type.

Run as a script (``rewriter_oracle.py --worker VARIANT OUT.jsonl``) it is the
forked worker of ``run_variant``.
"""

import json
import marshal
import os
import select
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
if os.path.join(ROOT, "python") not in sys.path:
    sys.path.insert(0, os.path.join(ROOT, "python"))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import rewriter_cases as rc  # noqa: E402
from pyverify_rewriter import (VariantNotApplicable, break_points,  # noqa: E402
                               modestack, rewrite)
from pyverify_rewriter import analysis, asm  # noqa: E402

PYVERIFY = os.environ.get("PYVERIFY") or next(
    (p for p in (os.path.join(ROOT, "build-dev/tools/pyverify/pyverify"),
                 os.path.join(ROOT, "build/tools/pyverify/pyverify"))
     if os.path.exists(p)), None)


# ---------------------------------------------------------------------------
# The oracle

def normalize(log):
    out = []
    for ev in log:
        if ev[0] == "enter" and out and out[-1][0] == "exit" and \
                out[-1][1] == ev[1] and out[-1][2] is None:
            out.pop()
            continue
        out.append(ev)
    return out


def run_once(name, fn, args, raise_at, break_code=None):
    rc.reset(raise_at=raise_at, break_code=break_code)
    try:
        value = rc.call(name, fn, args)
        outcome = ("return", repr(value))
    except Exception as e:  # noqa: BLE001 - the outcome is what we compare
        outcome = ("raise", type(e).__name__, str(e))
    outcome = outcome + (modestack.depth(),)
    return list(rc.LOG), outcome, rc.op_count()


def logs_match(eager, rewritten, outcome):
    """Compare normalised logs, allowing the documented wrapper deviation."""
    a, b = normalize(eager), normalize(rewritten)
    if a == b:
        return True
    if outcome[0] != "raise" or len(a) != len(b):
        return False
    tail = 0
    while tail < len(a) and a[len(a) - 1 - tail][0] in ("exit", "pop"):
        tail += 1
    n = len(a) - tail
    if a[:n] != b[:n]:
        return False
    for x, y in zip(a[n:], b[n:]):
        if x == y:
            continue
        if x[0] == "exit" and y[0] == "exit" and x[1] == y[1] and \
                y[2] is None and x[2] == outcome[1]:
            continue
        return False
    return True


def oracle_runs(name, fn, inputs, rewritten, break_code):
    """Yield (args, raise_at, eager, rew) for every input and fault point."""
    for args in inputs:
        _, _, n = run_once(name, fn, args, None)
        for k in list(range(n)) + [None]:
            e_log, e_out, _ = run_once(name, fn, args, k)
            r_log, r_out, _ = run_once(name, rewritten, args, k, break_code)
            yield args, k, (e_log, e_out), (r_log, r_out), rc.break_stats()


def all_break_points():
    out = []
    for name, (fn, inputs) in rc.CASES.items():
        for bp in break_points(fn, rc.MODE_CLASS_NAMES):
            if bp.eligible:
                out.append((name, bp.offset, bp.modes))
    return out


BREAKS = all_break_points()


def _id(p):
    return "%s@%d" % (p[0], p[1])



# ---------------------------------------------------------------------------
# Buggy variants: run in a subprocess (some corrupt memory)

WORKER = os.path.abspath(__file__)


class Injector:
    """Raise Boom when the n-th execution of the instruction at ``offset`` of
    ``code`` is about to run (opcode tracing; CPython looks the handler up at
    that instruction, as if it had raised)."""

    def __init__(self, code, offset, nth=1):
        self.code, self.offset, self.nth = code, offset, nth
        self.count = 0
        self.fired = False

    def global_trace(self, frame, event, arg):
        if frame.f_code is self.code:
            frame.f_trace_opcodes = True
            frame.f_trace_lines = False
            return self.local_trace
        return None

    def local_trace(self, frame, event, arg):
        if event == "opcode" and frame.f_lasti == self.offset and not self.fired:
            self.count += 1
            if self.count == self.nth:
                self.fired = True
                raise rc.Boom("injected")
        return self.local_trace


class ArmedInjector(Injector):
    """Raise Boom at the first execution of the instruction at ``offset`` of
    ``code`` after the instruction at ``arm`` (the break CALL) ran once: in
    the eager run, the execution that a resume function's first execution of
    the same original instruction stands for."""

    def __init__(self, code, offset, arm):
        super().__init__(code, offset)
        self.arm = arm
        self.armed = False

    def local_trace(self, frame, event, arg):
        if event == "opcode" and not self.fired:
            if self.armed and frame.f_lasti == self.offset:
                self.fired = True
                raise rc.Boom("injected")
            if frame.f_lasti == self.arm:
                self.armed = True
        return self.local_trace


def _dry_traced_run(name, fn, args, code):
    """Measured: an opcode-traced run of a code object can deliver no opcode
    event at all, so an injection would silently not fire: on 3.12.1 the
    first sys.settrace of a process; on 3.13.0 a run whose code object was
    not instrumented for opcode events when it was entered (f_trace_opcodes
    set in the call event takes effect at the next entry, and tracing other
    code objects in between can undo it).  3.12+: one throw-away traced run
    (it never fires) right before each injected run."""
    if sys.version_info < (3, 12):
        return
    inj = Injector(code, -1)
    rc.reset()
    sys.settrace(inj.global_trace)
    try:
        rc.call(name, fn, args)
    except Exception:  # noqa: BLE001 - only the instrumentation matters
        pass
    finally:
        sys.settrace(None)


def run_injected(name, fn, args, code, offset, nth=1, injector=None):
    _dry_traced_run(name, fn, args, code)
    inj = injector or Injector(code, offset, nth)
    rc.reset()
    sys.settrace(inj.global_trace)
    try:
        value = rc.call(name, fn, args)
        outcome = ("return", repr(value))
    except Exception as e:  # noqa: BLE001
        outcome = ("raise", type(e).__name__, str(e))
    finally:
        sys.settrace(None)
    return list(rc.LOG), outcome + (modestack.depth(),), inj.fired


def injection_targets(good, bad):
    """(code_good, off_good, code_bad, off_bad) pairs naming the same
    instruction in the correct and the buggy rewrite: the unsupported
    instruction in the frame, and every original-body instruction of the
    resume function covered by a redirected entry."""
    out = [(good.frame, good.frame_break_offset, bad.frame,
            bad.frame_break_offset)]
    for o in good.redirected:
        if o in bad.body_offsets:
            out.append((good.resume, good.body_offsets[o], bad.resume,
                        bad.body_offsets[o]))
    return out


# seconds one break point may run (all its inputs and injections); a point
# takes well under a second even on a loaded machine, so only a hung
# interpreter reaches it (CI, 2 cores: 3.12 had 2-3 hung points a run)
POINT_DEADLINE = 15


def _wait_point(pid):
    """waitpid(pid) with POINT_DEADLINE; None (child killed) when it hung."""
    fd = os.pidfd_open(pid)
    try:
        ready, _, _ = select.select([fd], [], [], POINT_DEADLINE)
    finally:
        os.close(fd)
    if not ready:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        return None
    return os.waitpid(pid, 0)[1]


def _worker_main(variant, out_path):
    """Run every (case, break point) with ``variant``; one JSON line each."""
    results = open(out_path, "a", buffering=1)
    done = set()
    if os.path.exists(out_path):
        with open(out_path) as f:
            for line in f:
                try:
                    done.add(tuple(json.loads(line)["point"][:2]))
                except (ValueError, KeyError, TypeError):
                    pass
    refused = _refusals(variant, done)
    for name, off, modes in BREAKS:
        if (name, off) in done:
            continue
        results.write(json.dumps({"point": [name, off], "status": "started"})
                      + "\n")
        if (name, off) in refused:
            results.write(json.dumps({"point": [name, off], "status": "n/a",
                                      "reason": refused[name, off]}) + "\n")
            continue
        # each point runs in a forked child, so a crash (memory corruption by
        # a bad co_stacksize or table depth) is attributed to its own point
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                _worker_point(variant, name, off, modes, results)
            except BaseException:  # noqa: BLE001 - reported to the parent
                import traceback
                results.write(json.dumps({"point": [name, off],
                                          "status": "error",
                                          "traceback": traceback.format_exc()})
                              + "\n")
                code = 3
            finally:
                results.flush()
                os._exit(code)
        status = _wait_point(pid)
        if status is None:
            # no verdict within the deadline: memory corrupted by a bad
            # co_stacksize can leave the interpreter looping forever, which
            # is as much a divergence from eager as a crash
            results.write(json.dumps({"point": [name, off], "status": "crashed",
                                      "hung": POINT_DEADLINE}) + "\n")
        elif os.WIFSIGNALED(status):
            results.write(json.dumps({"point": [name, off], "status": "crashed",
                                      "signal": os.WTERMSIG(status)}) + "\n")
        else:
            with open(out_path) as f:
                last = json.loads(f.read().splitlines()[-1])
            if last["status"] == "started":
                # the child died without a verdict: a corrupted interpreter
                # (e.g. the exception object overwritten by a callee frame)
                results.write(json.dumps({"point": [name, off],
                                          "status": "crashed",
                                          "exit": os.WEXITSTATUS(status)})
                              + "\n")


def _refusals(variant, done):
    """{(case, offset): reason} of the points rewrite() refuses for
    ``variant`` (VariantNotApplicable: before it builds or runs anything),
    whose "n/a" line the worker then writes without a fork per point: they
    were 9 in 10 of the forks, each ~20 ms of page faults. Found in one
    forked child, so the worker's own heap -- which every point's child
    inherits, and where a variant that corrupts memory lands -- and
    rewriter's resume counter stay as they were. Empty if that child
    fails: then every point forks as before."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rfd)
        code = 0
        try:
            out = []
            for name, off, modes in BREAKS:
                if (name, off) in done:
                    continue
                try:
                    rewrite(rc.CASES[name][0], off, modes=modes,
                            variant=variant)
                except VariantNotApplicable as e:
                    out.append([name, off, e.reason])
                except Exception:  # noqa: BLE001 - its child reports it
                    pass
            with os.fdopen(wfd, "w") as f:
                json.dump(out, f)
        except BaseException:  # noqa: BLE001 - the parent forks every point
            code = 3
        finally:
            os._exit(code)
    os.close(wfd)
    with os.fdopen(rfd) as f:
        text = f.read()
    status = os.waitpid(pid, 0)[1]
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        return {}
    return {(name, off): reason for name, off, reason in json.loads(text)}


def _worker_point(variant, name, off, modes, results):
    fn, inputs = rc.CASES[name]
    try:
        r = rewrite(fn, off, modes=modes, variant=variant)
    except VariantNotApplicable as e:
        results.write(json.dumps({"point": [name, off], "status": "n/a",
                                  "reason": e.reason}) + "\n")
        return
    good = rewrite(fn, off, modes=modes)
    g = r.make_function()
    gg = good.make_function()
    detected = []
    hits = raised = 0
    # 1. against eager, with op faults
    for args, k, (e_log, e_out), (r_log, r_out), (bh, br) in oracle_runs(
            name, fn, inputs, g, r.frame):
        hits += bh
        raised += br
        if r_out != e_out or not logs_match(e_log, r_log, e_out):
            detected.append({"how": "op-fault", "args": repr(args),
                             "raise_at": k, "eager": repr(e_out),
                             "rewritten": repr(r_out)})
            break
    # 2. against eager, with an exception injected by the opcode trace at
    #    each instruction whose entries the variant dropped
    #    (body-entries-dropped) and at the same original instruction in the
    #    eager run (its first execution after the break); the correct rewrite
    #    injected there must agree with eager, or the comparison means
    #    nothing
    #    (every input, every instruction of the range: all are run, so that
    #    the correct rewrite is compared with eager at each)
    eager_injected = eager_differs = 0
    correct_differs = []
    for args in inputs:
        for rb, o in r.notes.get("dropped") or ():
            if o is None:       # half of a 3.13 superinstruction
                continue
            le, oute, fe = run_injected(
                name, fn, args, r.original, o,
                injector=ArmedInjector(r.original, o, r.break_offset))
            if not fe:
                continue
            lg, outg, fg = run_injected(name, gg, args, good.resume,
                                        good.body_offsets[o])
            lb, outb, fb = run_injected(name, g, args, r.resume, rb)
            if not (fg and fb):
                continue
            eager_injected += 1
            if outg != oute or not logs_match(le, lg, oute):
                correct_differs.append({"args": repr(args), "orig": o,
                                        "eager": repr(oute),
                                        "correct": repr(outg)})
            elif outb != oute or not logs_match(le, lb, oute):
                eager_differs += 1
                if not detected:
                    detected.append({"how": "eager-injected",
                                     "args": repr(args), "offset": rb,
                                     "orig": o, "eager": repr(oute),
                                     "buggy": repr(outb)})
    # 3. against the correct rewrite, with an exception injected at the
    #    same instruction (the two differ only in the changed code)
    injected = 0
    if not detected:
        for args in inputs:
            for cg, og, cb, ob in injection_targets(good, r):
                lg, outg, fired = run_injected(name, gg, args, cg, og)
                if not fired:
                    continue
                lb, outb, _ = run_injected(name, g, args, cb, ob)
                injected += 1
                if (lg, outg) != (lb, outb):
                    detected.append({"how": "injected", "args": repr(args),
                                     "offset": ob, "correct": repr(outg),
                                     "buggy": repr(outb)})
                    break
            if detected:
                break
    results.write(json.dumps({"point": [name, off], "status": "done",
                              "detected": detected, "break_hits": hits,
                              "break_raised": raised, "injected": injected,
                              "eager_injected": eager_injected,
                              "eager_differs": eager_differs,
                              "correct_differs": correct_differs,
                              "expect": r.expect,
                              "notes": repr(r.notes)[:300]}) + "\n")




def run_variant(variant, out_dir):
    """Run the worker for ``variant`` over BREAKS; {(case, offset): result}."""
    out = os.path.join(str(out_dir), "%s.jsonl" % variant)
    for _ in range(len(BREAKS) + 1):
        p = subprocess.run([sys.executable, WORKER, "--worker", variant, out],
                           capture_output=True, text=True, timeout=900)
        if p.returncode == 0:
            break
        # a crash: mark the started point as crashed and continue after it
        with open(out) as f:
            lines = [json.loads(line) for line in f]
        last = lines[-1]
        assert last["status"] == "started", p.stderr[-2000:]
        with open(out, "a") as f:
            f.write(json.dumps({"point": last["point"], "status": "crashed",
                                "returncode": p.returncode,
                                "stderr": p.stderr[-300:]}) + "\n")
    res = {}
    with open(out) as f:
        for line in f:
            d = json.loads(line)
            if d["status"] != "started":
                res[tuple(d["point"])] = d
    return res


RUNTIME_INVISIBLE = {
    "entries-not-redirected":
        "the old handler is byte-identical to the new one and still reachable "
        "(the body is copied verbatim), so the code behaves the same; it "
        "differs only for a suppressing context (README, 'Buggy variants')",
    "stacksize-no-exc-edges":
        "the slots above co_stacksize are written only while no callee frame "
        "occupies that memory, so the overrun is usually silent; pyverify "
        "catches it statically",
    "list-replay":
        "a correct frame (Dynamo's set_stack([graph_out_0[k], ...]) replay "
        "shape): it must behave as eager under every fault",
}

# variants that must never be seen at run time (equivalent to the correct
# rewrite; the tests fail if one is)
RUNTIME_EQUIVALENT = ("entries-not-redirected", "list-replay")


def classify(variant, d):
    """'seen', or the reason the runtime cannot see the variant here."""
    if d.get("correct_differs"):
        return "NOT DETECTED: the correct rewrite differs from eager under " \
            "the same injection %r" % d["correct_differs"][:2]
    if d["status"] == "crashed" or d.get("detected"):
        return "seen"
    if variant in RUNTIME_INVISIBLE:
        return RUNTIME_INVISIBLE[variant]
    if variant == "handler-reads-first-frame-local" and d["injected"] <= 1:
        return "no instruction after the break is covered by the mode's " \
               "handler (the with body ends at the break)"
    return "NOT DETECTED"


# operand-flipped is not run: a flipped comparison or operator can turn a
# loop into one that never ends or grows without bound (`i < n` -> `i >= n`),
# and what it changes is plain data flow, not a context; pyverify prove
# refutes every one statically (tests/prove/test_prove.py).
NOT_RUN = {"correct", "operand-flipped"}



def _pyverify_json(path, version=None, pyverify=None):
    """``pyverify check --format=json`` of a marshal file; ``version`` (e.g.
    "3.12") is passed as --python-version (a raw marshal says nothing)."""
    cmd = [pyverify or PYVERIFY, "check", "--format=json"]
    if version:
        cmd.append("--python-version=%s" % version)
    p = subprocess.run(cmd + [path], capture_output=True, text=True)
    return json.loads(p.stdout)


def check_fixtures(pairs, version=None, pyverify=None, findings=None,
                   known=None):
    """pairs: list of (key, expect, frame, resume, *more): the frame, the
    resume function and any more code objects of one rewrite (e.g. the graph
    helper), checked as single code objects in one marshal file.  Returns per
    key the verdict and the known findings seen (those ``known(diag, tag,
    key)`` names: tag is "F", "R" or "G..."; there is no list of pyverify
    false positives any more, every other error or warning counts);
    ``findings``, if a dict, gets per key the findings that are not known."""
    codes = []
    for key, _, *objs in pairs:
        for tag, co in zip(("F", "R") + ("G",) * (len(objs) - 2), objs):
            q = "%s|%s" % (tag, key)
            if tag == "G" and len(objs) > 3:
                q = "G%d|%s" % (len(codes), key)
            codes.append(co.replace(co_qualname=q))
    with tempfile.NamedTemporaryFile(suffix=".bin", delete=False) as f:
        marshal.dump(tuple(codes), f)
        path = f.name
    try:
        diags = _pyverify_json(path, version, pyverify)["diagnostics"]
    finally:
        os.unlink(path)
    by = {}
    for d in diags:
        if d["severity"] not in ("error", "warning"):
            continue
        by.setdefault(d["code"].split("|", 1)[1], []).append(d)
    out = {}
    for key, expect, *_ in pairs:
        ds = by.get(key, [])
        fps = {}
        real = []
        for d in ds:
            k = known and known(d, d["code"].split("|", 1)[0], key)
            if k:
                fps[k] = fps.get(k, 0) + 1
            else:
                real.append(d)
        if findings is not None:
            findings[key] = real
        ids = {d["check"] for d in real}
        if expect == "ok" or expect.startswith("smt:"):
            verdict = "as expected" if not real else "unexpected: %s" % sorted(ids)
        elif expect in ids or expect in {d["check"] for d in ds}:
            verdict = "as expected"
        else:
            verdict = "missing %s (got %s)" % (expect, sorted(ids))
        out[key] = (verdict, fps)
    return out

if __name__ == "__main__" and len(sys.argv) >= 4 and sys.argv[1] == "--worker":
    _worker_main(sys.argv[2], sys.argv[3])
