#!/usr/bin/env python3.11
"""Every bundle `pyverify prove` proves, run against eager under fault
injection at every observation point (issue 25).

    check_proved_at_runtime.py --pyverify BIN [--python-dir python]
        [--fixtures DIR] [--jobs 2] [--json OUT] WORKDIR

Generates the fixtures (`python3.11 -m pyverify_rewriter gen-fixtures
WORKDIR/fixtures`, unless --fixtures names a generated directory), runs
`pyverify prove --format=json --jobs=N` on them and groups the results per
bundle (tests/prove/summarize.py).  Every bundle whose results are all
proved -- whatever its variant, correct or buggy -- is rebuilt in-process
(rewriter_cases.CASES[case], the manifest's break offset and variant; the
rebuilt frame and resume function must be the bundle's, byte for byte) and
run against the eager function, for every input of the case, by
tests/python/rewriter_oracle.py's rules:

  (a) op faults: the k-th op() call raises, k = 0..N and no fault
      (rewriter_oracle.oracle_runs; outcome equal and logs_match).
  (b) opcode injection: Boom raised by an opcode trace hook (sys.settrace,
      f_trace_opcodes; rewriter_oracle.run_injected, with its
      _dry_traced_run first) at every instruction execution of the frame
      and of the resume function in the fault-free run -- among them the
      resume instruction (the first original-body instruction, the target
      of the resume prologue's jump).
  (c) the same after an op fault k: with op fault k, at every instruction
      execution of the frame and the resume function after the fault (the
      handlers: the wrapper's, the resume function's new ones, WITH_EXCEPT_
      START ...): two exceptions, the second while the first is handled.

An injection point of the frame or the resume function is
  * mapped when the rewriter copied the instruction from the original: the
    frame's break group (its [KW_NAMES] PRECALL CALL are O's at
    break_offset) and every resume-body instruction (Rewrite.body_offsets:
    original offset -> resume offset).  Its counterpart in eager is that
    original instruction, at the same execution count: the n-th execution
    of the copy is the (p + n)-th of the original instruction, where p is
    how often eager ran it before it first reached the break group (the
    stand-in graph runs exactly that prefix).  Eager is run with the same
    injection there; outcome and normalised log must agree (logs_match).
  * unmapped otherwise (frame prologue, graph call and mode replay, wrapper
    setup and epilogues, the resume call; resume prologue, new handlers):
    the run must only stay balanced -- every entered context exited once,
    innermost first, and the mode stack back to depth 0.  An
    unbalanced run there is a divergence unless the prover assumes the
    instruction does not raise (docs/prove.md "Assumptions" and the raise
    model, RaiseModel.h): the resume prologue; LOAD_FAST of the code's own
    locals; __enter__/__exit__ attribute loads; the rewriter's globals and
    mode-stack operations; the frame's wrapper code while replayed modes are
    held; an exit call (its exception means the exit was called); an
    instruction the opcode table says cannot raise.  Those are counted and
    listed as "outside the prover's assumptions", not failed.
  Only injections that fired count (in the rewritten run; a mapped one whose
  eager counterpart did not fire is a divergence of its own).
  A mapped point whose original instruction the compiler left outside every
  entry and whose copy the rewriter covered (cover_compiler_gaps: 3.15.0rc1's
  NOT_TAKENs in with bodies) may differ from eager in one way only: eager
  leaks a context there (CPython's fault) and the rewritten run is balanced;
  that is counted apart, anything else there is a divergence.

Prints: bundles proved, runs compared, injections fired, divergences (each:
bundle, injection point, eager vs rewritten log and outcome).  Exit 1 if a
proved bundle diverges.  The same numbers are printed for the refuted
bundles, for information (a refuted bundle that never diverges at run time
is listed, not failed).  Each bundle runs in a forked child (some variants
corrupt the interpreter: a crash is that bundle's result; a proved bundle
that crashes is re-run writing each run's point first, and the last one is
reported), --workers at a time; a run over 5 s (a flipped loop) ends the
bundle as a timeout.  A proved bundle that crashes, times out or cannot be
rebuilt fails the check like a divergence.

--python-dir is the rewriter gen-fixtures runs (PYTHONPATH); the in-process
rebuild imports this tree's python/ and tests/python/, so the two must be
the same tree (the byte-for-byte check says so when they are not).
"""
import argparse
import collections
import ctypes
import gc
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
sys.path.insert(0, os.path.join(ROOT, "python"))

from summarize import bundle_verdict, group_results  # noqa: E402

import rewriter_oracle as ro  # noqa: E402  (read-only: the oracle's rules)
import rewriter_cases as rc  # noqa: E402
from pyverify_rewriter import modestack, opcodes, rewrite, rewriter  # noqa: E402
from pyverify_rewriter.bundle import read_bundle  # noqa: E402
from pyverify_rewriter.opcodes import NAME, may_raise  # noqa: E402

ctypes.pythonapi.PyErr_SetExcInfo.argtypes = [ctypes.c_void_p] * 3
ctypes.pythonapi.PyErr_SetExcInfo.restype = None

BUNDLE_TIMEOUT = 60         # seconds for one bundle's child
RUN_TIMEOUT = 5             # seconds for one run (a flipped loop may not end)
MODESTACK_GLOBAL = "__import_pyverify_rewriter_dot_modestack"
ENV_PREFIXES = ("__pyverify_", "__resume_at_", "__compiled_fn_",
                "__import_pyverify_rewriter_dot_", "__import_torch_dot_")


# The run in progress (its injection point, or the op-fault run's index),
# reported when a child times out or fails; PROGRESS, a file, gets every
# run's point before it runs when a crashed bundle is re-run.
LAST = None
PROGRESS = None


def progress(**point):
    global LAST
    LAST = point
    if PROGRESS is not None:
        PROGRESS.write(json.dumps(point) + "\n")
        PROGRESS.flush()


class RunTimeout(BaseException):
    """Not an Exception: neither a case's handlers nor the oracle's
    ``except Exception`` may take it for the run's outcome."""


def _alarm(signum, frame):
    raise RunTimeout("run took over %d s" % RUN_TIMEOUT)


# The 3.14 oracle (CPython in WebAssembly, Pyodide) has no fork, no interval
# timer and no resource module: there the bundles run one after the other in
# this process (run_bundles), a run is not cut short (the ctest's timeout is
# the bound), and a crash ends the whole check, naming the bundle.
def _can_fork():
    from rewriter_serial import can_fork  # the one test of it (tests/python)
    return can_fork()


CAN_FORK = _can_fork()


def _timer(seconds):
    """Arm (0: disarm) the run's timeout, where there is an interval timer."""
    if hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_REAL, seconds)


# ---------------------------------------------------------------------------
# Tracing

class Recorder:
    """Opcode trace of some code objects: (tag, offset, op calls so far) per
    executed instruction.  Never raises."""

    def __init__(self, codes):
        self.tags = {id(c): t for t, c in codes.items()}
        self.keep = list(codes.values())
        self.events = []

    def global_trace(self, frame, event, arg):
        if id(frame.f_code) in self.tags:
            frame.f_trace_opcodes = True
            frame.f_trace_lines = False
            return self.local_trace
        return None

    def local_trace(self, frame, event, arg):
        if event == "opcode":
            self.events.append((self.tags[id(frame.f_code)], frame.f_lasti,
                                rc.op_count()))
        return self.local_trace


def _call(name, fn, args):
    _timer(RUN_TIMEOUT)
    try:
        value = rc.call(name, fn, args)
        return ("return", repr(value))
    except RunTimeout:
        raise
    except Exception as e:  # noqa: BLE001 - the outcome is what we compare
        return ("raise", type(e).__name__, str(e))
    finally:
        _timer(0)
        _clear_handled()


def _clear_handled():
    """An injection at an instruction no cleanup entry covers (a handler's
    POP_EXCEPT, say) unwinds past it without restoring the handled
    exception, which then stays the thread's "current" one and becomes the
    __context__ of every later exception: clear it after every run, so runs
    stay independent (eager and rewritten alike)."""
    ctypes.pythonapi.PyErr_SetExcInfo(None, None, None)


def recorded_run(name, fn, args, codes, raise_at):
    if sys.version_info >= (3, 12):
        # a throw-away recorded run first, as rewriter_oracle's
        # _dry_traced_run: 3.12.1's first sys.settrace and 3.13.0's code
        # objects not yet instrumented for opcode events deliver none
        dry = Recorder(codes)
        rc.reset(raise_at=raise_at)
        sys.settrace(dry.global_trace)
        try:
            _call(name, fn, args)
        except Exception:  # noqa: BLE001 - only the instrumentation matters
            pass
        finally:
            sys.settrace(None)
            _clear_handled()
    rec = Recorder(codes)
    rc.reset(raise_at=raise_at)
    sys.settrace(rec.global_trace)
    try:
        outcome = _call(name, fn, args)
    finally:
        sys.settrace(None)
    return list(rc.LOG), outcome + (modestack.depth(),), rec.events


def injected_run(name, fn, args, code, offset, nth, raise_at):
    """rewriter_oracle.run_injected with an op fault as well (raise_at);
    without one it is run_injected itself."""
    if raise_at is None:
        _timer(RUN_TIMEOUT)
        try:
            return ro.run_injected(name, fn, args, code, offset, nth)
        finally:
            _timer(0)
            _clear_handled()
    ro._dry_traced_run(name, fn, args, code)
    inj = ro.Injector(code, offset, nth)
    rc.reset(raise_at=raise_at)
    sys.settrace(inj.global_trace)
    try:
        outcome = _call(name, fn, args)
    finally:
        sys.settrace(None)
    return list(rc.LOG), outcome + (modestack.depth(),), inj.fired


def balanced(log, outcome):
    """None if every entered context was exited once, innermost first, and
    the mode stack is back at depth 0; else why not.  Modes are judged by
    the final depth alone: the stand-in graph's pushes are logged but its
    restore of the stack (GraphFunction: the graph is pure) is not."""
    ctx = []
    for ev in log:
        if ev[0] == "enter":
            ctx.append(ev[1])
        elif ev[0] == "exit":
            if not ctx or ctx[-1] != ev[1]:
                return "exit of %r with %r active" % (ev[1], ctx)
            ctx.pop()
    if ctx:
        return "contexts never exited: %r" % ctx
    if outcome[-1] != 0:
        return "mode stack left at depth %r" % outcome[-1]
    return None


# ---------------------------------------------------------------------------
# The rewrite's instructions: mapping and regions

def _name_of(code, ins):
    """The global or attribute name an instruction loads, if any."""
    n = NAME[ins.op]
    if n in ("LOAD_GLOBAL", "LOAD_METHOD", "LOAD_ATTR") and \
            isinstance(ins.arg, int):
        # the version's operand rule (3.12's LOAD_ATTR: arg >> 1)
        return code.co_names[opcodes.name_index(ins.op, ins.arg)]
    return None


class Layout:
    """Where each frame / resume instruction comes from, and whether the
    prover assumes an unmapped one does not raise (and why)."""

    def __init__(self, r):
        info = r.info
        self.group = [info.instrs[k].orig
                      for k in range(info.k_group, info.k_call + 1)]
        self.group_start = self.group[0]
        fi = r.frame_instrs
        kb = next(k for k, i in enumerate(fi) if i.note == "break")
        kg = kb - len(self.group) + 1
        self.fmap = {fi[kg + j].offset: o for j, o in enumerate(self.group)}
        for j, o in enumerate(self.group):
            assert fi[kg + j].op == info.instrs[info.k_group + j].op
        self.rmap = {res: o for o, res in r.body_offsets.items()}
        self.resume_instr = r.body_offsets[r.resume_offset]
        # resume-body instructions the compiler left outside every entry and
        # the rewriter covered (rewriter.cover_compiler_gaps: 3.15's
        # NOT_TAKENs in with bodies), where eager's own run leaks a context
        uncovered = {i.orig for i in info.instrs if i.entry is None}
        self.covered_gaps = {i.offset for i in r.resume_instrs
                             if i.entry is not None and
                             self.rmap.get(i.offset) in uncovered}
        self.desc = {}          # (tag, offset) -> "OPNAME arg"
        self.why_assumed = {}   # (tag, offset) -> assumption, unmapped only
        self.region = {}
        has_modes = any(c["kind"] == "mode" for c in r.contexts)
        # the frame
        replay = None
        for k, ins in enumerate(fi):
            key = ("frame", ins.offset)
            self.desc[key] = self._d(r.frame, ins)
            if key[1] in self.fmap:
                self.region[key] = "break group"
                continue
            name = _name_of(r.frame, ins)
            if name == MODESTACK_GLOBAL and replay is None and k < kg:
                replay = k
            if k < kg:
                region = ("setup: modes replayed" if replay is not None
                          else "setup")
            else:
                region = "epilogue, resume call"
            self.region[key] = region
            why = self._assumed(r.frame, fi, k, name)
            if why is None and has_modes and replay is not None and \
                    replay <= k < kg:
                why = "frame wrapper code while replayed modes are held"
            if why:
                self.why_assumed[key] = why
        # the resume function
        ri = r.resume_instrs
        jump = next(k for k, i in enumerate(ri)
                    if NAME[i.op] == "JUMP_FORWARD" and i.target is not None
                    and i.target.offset == self.resume_instr)
        for k, ins in enumerate(ri):
            key = ("resume", ins.offset)
            self.desc[key] = self._d(r.resume, ins)
            if ins.offset in self.rmap:
                self.region[key] = ("resume instruction"
                                    if ins.offset == self.resume_instr
                                    else "body")
                continue
            if k <= jump:
                self.region[key] = "prologue"
                self.why_assumed[key] = "the resume prologue does not raise"
                continue
            self.region[key] = "new handler"
            why = self._assumed(r.resume, ri, k, _name_of(r.resume, ins))
            if why:
                self.why_assumed[key] = why

    @staticmethod
    def _d(code, ins):
        n = NAME[ins.op]
        name = _name_of(code, ins)
        if name is not None:
            return "%s %s" % (n, name)
        if ins.arg is None:
            return n
        return "%s %s" % (n, ins.arg)

    @staticmethod
    def _assumed(code, instrs, k, name):
        ins = instrs[k]
        n = NAME[ins.op]
        if not may_raise(ins.op, ins.arg):
            return "cannot raise (opcode table)"
        if n == "WITH_EXCEPT_START":
            return "an exception raised by an exit call means the exit was " \
                   "called"
        if n in ("LOAD_FAST", "LOAD_FAST_CHECK"):
            return "LOAD_FAST of a bound local"
        if n == "LOAD_GLOBAL" and name and name.startswith(ENV_PREFIXES):
            return "rewriter global exists (environment)"
        if n in ("LOAD_METHOD", "LOAD_ATTR") and name in ("__enter__",
                                                          "__exit__"):
            return "a context manager has __enter__ and __exit__"
        if n in ("LOAD_METHOD", "LOAD_ATTR") and name in (
                "push", "pop", "get_stack", "set_stack"):
            return "mode-stack operation succeeds (environment)"
        if n in ("PRECALL", "CALL", "KW_NAMES"):
            # the callee: the nearest LOAD_METHOD / LOAD_GLOBAL before
            for j in range(k - 1, max(-1, k - 12), -1):
                m = _name_of(code, instrs[j])
                if m is None:
                    continue
                if m == "__exit__":
                    return "an exception raised by an exit call means the " \
                           "exit was called"
                if m in ("push", "pop", "get_stack", "set_stack"):
                    return "mode-stack operation succeeds (environment)"
                if m.startswith("__resume_at_"):
                    return "the frame's call of the resume function hands " \
                           "its modes to the resume function"
                if m.startswith(ENV_PREFIXES):
                    return "rewriter runtime helper (environment)"
                break
        return None


# ---------------------------------------------------------------------------
# One bundle (in a forked child)

def _short_log(log):
    return [list(ev) for ev in ro.normalize(log)]


def check_bundle(m, fixtures, modes_of):
    name, off, variant = m["case"], m["break_offset"], m["variant"]
    fn, inputs = rc.CASES[name]
    rewriter.reset_counter()        # the names gen-fixtures gave
    r = rewrite(fn, off, modes=modes_of[(name, off)], variant=variant)
    b = read_bundle(os.path.join(fixtures, m["file"]))
    for what, mine, theirs in (("frame", r.frame, b["frame"]),
                               ("resume", r.resume,
                                b["resumes"][0]["code"])):
        if mine.co_code != theirs.co_code or \
                mine.co_exceptiontable != theirs.co_exceptiontable:
            raise RuntimeError("the rebuilt %s is not the bundle's" % what)
    g = r.make_function()
    lay = Layout(r)
    codes = {"frame": r.frame, "resume": r.resume}
    code_of = {"frame": r.frame, "resume": r.resume}
    orig = fn.__code__
    res = collections.Counter()
    divs = []
    outside = []
    seen_resume_instr = 0

    def div(how, args, k, point, e, w, why):
        divs.append({"how": how, "args": repr(args), "op_fault": k,
                     "point": point, "why": why,
                     "eager": [repr(e[1]), _short_log(e[0])] if e else None,
                     "rewritten": [repr(w[1]), _short_log(w[0])]})

    # (a) op faults
    runs = ro.oracle_runs(name, fn, inputs, g, r.frame)
    while True:
        progress(how="op-fault", after=res["op-fault runs"])
        _timer(2 * RUN_TIMEOUT)
        try:
            args, k, e, w, _ = next(runs)
        except StopIteration:
            break
        finally:
            _timer(0)
            _clear_handled()
        res["op-fault runs"] += 1
        if w[1] != e[1] or not ro.logs_match(e[0], w[0], e[1]):
            div("op-fault", args, k, None, e, w,
                "outcome or log differs from eager")
    # (b), (c) opcode injection
    for args in inputs:
        _, _, n = ro.run_once(name, fn, args, None)
        for k in [None] + list(range(n)):
            e_log, e_out, e_ev = recorded_run(name, fn, args, {"O": orig}, k)
            w_log, w_out, w_ev = recorded_run(name, g, args, codes, k)
            eager_offs = [ev[1] for ev in e_ev]
            try:
                p = eager_offs.index(lay.group_start)
            except ValueError:
                p = len(eager_offs)
            prefix = collections.Counter(eager_offs[:p])
            mapped = collections.Counter()
            local = collections.Counter()
            seq = []
            for tag, o, calls in w_ev:
                key = (tag, o)
                local[key] += 1
                src = (lay.fmap if tag == "frame" else lay.rmap).get(o)
                if src is not None:
                    mapped[src] += 1
                    seq.append(src)
                if k is not None and calls <= k:
                    continue        # (c): only after the op fault
                point = {"code": tag, "offset": o, "nth": local[key],
                         "instr": lay.desc.get(key, "?"),
                         "region": lay.region.get(key, "?")}
                if src is not None:
                    point["orig"] = src
                    point["eager_nth"] = prefix[src] + mapped[src]
                fired = _inject(name, fn, g, args, k, code_of, orig, point,
                                src, lay, res, div, outside)
                if fired and point["region"] == "resume instruction":
                    seen_resume_instr += 1
            if k is None and seq != eager_offs[p:p + len(seq)]:
                res["mapping misaligned (fault-free)"] += 1
    res["resume instruction injections"] = seen_resume_instr
    return {"file": m["file"], "variant": variant, "counts": dict(res),
            "divergences": divs, "outside": outside}


def _inject(name, fn, g, args, k, code_of, orig, point, src, lay, res, div,
            outside):
    """One injection; True if it fired in the rewritten run."""
    tag, o, nth = point["code"], point["offset"], point["nth"]
    progress(how="injected", args=repr(args), op_fault=k, point=point)
    w_log, w_out, fired = injected_run(name, g, args, code_of[tag], o, nth, k)
    if not fired:
        res["injections not fired"] += 1
        return False
    kind = "(b)" if k is None else "(c)"
    res["injections fired " + kind] += 1
    res["runs compared"] += 1
    if src is not None:
        res["mapped injections"] += 1
        e_log, e_out, e_fired = injected_run(name, fn, args, orig, src,
                                             point["eager_nth"], k)
        if not e_fired:
            div("injected " + kind, args, k, point, None, (w_log, w_out),
                "eager never ran the original instruction %d %d times"
                % (src, point["eager_nth"]))
            return True
        if w_out != e_out or not ro.logs_match(e_log, w_log, e_out):
            if tag == "resume" and o in lay.covered_gaps and \
                    balanced(e_log, e_out) is not None and \
                    balanced(w_log, w_out) is None:
                # eager raises at an instruction its compiler left outside
                # the with's entry and skips __exit__ (CPython's fault,
                # shown by version-with-body-coverage-3.15); the rewritten
                # run, whose copy the rewriter covered, exits every context
                res["eager leaks at the compiler's uncovered instruction, "
                    "rewritten balanced"] += 1
                return True
            div("injected " + kind, args, k, point, (e_log, e_out),
                (w_log, w_out), "outcome or log differs from eager")
        return True
    res["unmapped injections"] += 1
    why = balanced(w_log, w_out)
    if why is None:
        return True
    assumed = lay.why_assumed.get((tag, o))
    if assumed:
        res["unbalanced outside the prover's assumptions"] += 1
        outside.append({"args": repr(args), "op_fault": k, "point": point,
                        "assumption": assumed, "unbalanced": why,
                        "rewritten": [repr(w_out), _short_log(w_log)]})
        return True
    div("injected " + kind, args, k, point, None, (w_log, w_out),
        "unbalanced: " + why)
    return True


def _child(m, fixtures, modes_of, out_path, progress_path=None):
    global PROGRESS
    if progress_path:
        PROGRESS = open(progress_path, "w")
    signal.signal(signal.SIGALRM, _alarm)
    if CAN_FORK:
        import resource
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    t0 = time.monotonic()
    try:
        d = check_bundle(m, fixtures, modes_of)
        d["status"] = "done"
        d["seconds"] = round(time.monotonic() - t0, 3)
    except RunTimeout as e:
        d = {"file": m["file"], "variant": m["variant"], "status": "timeout",
             "error": str(e), "last_run": LAST}
    except BaseException:  # noqa: BLE001 - reported to the parent
        d = {"file": m["file"], "variant": m["variant"], "status": "error",
             "error": traceback.format_exc()[-3000:], "last_run": LAST}
    with open(out_path, "w") as f:
        json.dump(d, f)


def run_bundles(entries, fixtures, workers, tmp, trace_crashes=True):
    """check_bundle for each manifest entry in a forked child, ``workers``
    at a time; a child that crashes or hangs is that bundle's result.  With
    ``trace_crashes``, such a bundle is run once more, writing each run's
    injection point before the run, and the last one is reported."""
    modes_of = {(n, o): md for n, o, md in ro.BREAKS}
    results = {}
    if not CAN_FORK:
        return run_bundles_in_process(entries, fixtures, modes_of, tmp)
    running = {}        # pid -> (entry, out path, start, progress path)
    todo = [(m, None) for m in entries]
    sys.stdout.flush()
    sys.stderr.flush()
    gc.collect()
    gc.freeze()         # fewer pages copied into each child
    while todo or running:
        while todo and len(running) < workers:
            m, prog = todo.pop(0)
            out = os.path.join(tmp, m["file"].replace("/", "__") + ".json")
            pid = os.fork()
            if pid == 0:
                code = 0
                try:
                    _child(m, fixtures, modes_of, out, prog)
                except BaseException:  # noqa: BLE001
                    code = 3
                finally:
                    os._exit(code)
            running[pid] = (m, out, time.monotonic(), prog)
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            time.sleep(0.002)
            for p, (m, out, t0, prog) in list(running.items()):
                if time.monotonic() - t0 > BUNDLE_TIMEOUT:
                    os.kill(p, signal.SIGKILL)
                    os.waitpid(p, 0)
                    del running[p]
                    d = {"file": m["file"], "variant": m["variant"],
                         "status": "timeout",
                         "error": "over %d s" % BUNDLE_TIMEOUT}
                    _finish(m, d, prog, results, todo, tmp, trace_crashes)
            continue
        m, out, _, prog = running.pop(pid)
        d = None
        if os.path.exists(out):
            with open(out) as f:
                try:
                    d = json.load(f)
                except ValueError:
                    d = None
        if d is None:
            how = ("signal %d" % os.WTERMSIG(status)
                   if os.WIFSIGNALED(status)
                   else "exit %d" % os.WEXITSTATUS(status))
            d = {"file": m["file"], "variant": m["variant"],
                 "status": "crashed", "error": how}
        _finish(m, d, prog, results, todo, tmp, trace_crashes)
    gc.unfreeze()
    return results


def run_bundles_in_process(entries, fixtures, modes_of, tmp):
    """run_bundles without fork (CAN_FORK): each bundle in this process, in
    order; tmp/current names the bundle running, for a crash."""
    results = {}
    for m in entries:
        with open(os.path.join(tmp, "current"), "w") as f:
            f.write(m["file"] + "\n")
        out = os.path.join(tmp, m["file"].replace("/", "__") + ".json")
        _child(m, fixtures, modes_of, out)
        with open(out) as f:
            results[m["file"]] = json.load(f)
    return results


def _finish(m, d, prog, results, todo, tmp, trace_crashes):
    if d["status"] == "crashed" or (d["status"] == "timeout" and
                                    not d.get("last_run")):
        if prog is None and trace_crashes:
            todo.insert(0, (m, os.path.join(
                tmp, m["file"].replace("/", "__") + ".progress")))
            return
        if prog is not None and os.path.exists(prog):
            with open(prog) as f:
                lines = f.read().splitlines()
            if lines:
                d["last_run"] = json.loads(lines[-1])
    results[m["file"]] = d


# ---------------------------------------------------------------------------
# Driver

def prove(pyverify, fixtures, jobs):
    cmd = [pyverify, "prove", "--format=json", "--jobs=%d" % jobs, fixtures]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if p.returncode not in (0, 1, 3):
        raise SystemExit("pyverify prove exited %d:\n%s"
                         % (p.returncode, p.stderr[-3000:]))
    return json.loads(p.stdout)


def _fmt_point(pt):
    if pt is None:
        return "-"
    s = "%s@%d #%d %s [%s]" % (pt["code"], pt["offset"], pt["nth"],
                               pt["instr"], pt["region"])
    if "orig" in pt:
        s += " = original@%d #%d" % (pt["orig"], pt["eager_nth"])
    return s


def summarize(title, bundles, results, out):
    """Print the numbers over ``bundles``; (totals, [(file, divergences or
    why it did not run)], [files without a divergence])."""
    tot = collections.Counter()
    failed = []         # (file, reason) bundles that diverge or cannot run
    clean = []
    for m in bundles:
        d = results[m["file"]]
        if d["status"] != "done":
            why = "%s: %s" % (d["status"], d.get("error", "")[-600:])
            if d.get("last_run"):
                lr = d["last_run"]
                why += "; in the run of %s %s" % (lr.get("how"), (
                    "args=%s op_fault=%s at %s" % (
                        lr["args"], lr["op_fault"], _fmt_point(lr["point"]))
                    if "point" in lr else "#%d" % lr.get("after", 0)))
            failed.append((m["file"], why))
            tot["bundles " + d["status"]] += 1
            continue
        tot.update(d["counts"])
        if d["counts"].get("resume instruction injections"):
            tot["bundles injected at the resume instruction"] += 1
        if d["divergences"]:
            failed.append((m["file"], d["divergences"]))
        else:
            clean.append(m["file"])
        tot["outside-assumption points"] += len(d["outside"])
    fired = tot["injections fired (b)"] + tot["injections fired (c)"]
    ndiv = sum(len(x) if isinstance(x, list) else 1 for _, x in failed)
    print("\n%s: %d bundles" % (title, len(bundles)), file=out)
    print("  runs compared: %d (op-fault runs %d, injected runs %d)"
          % (tot["op-fault runs"] + tot["runs compared"],
             tot["op-fault runs"], tot["runs compared"]), file=out)
    print("  injections fired: %d ((b) fault-free %d, (c) after an op fault "
          "%d; mapped to an original instruction %d, unmapped %d; at the "
          "resume instruction %d; %d did not fire)"
          % (fired, tot["injections fired (b)"], tot["injections fired (c)"],
             tot["mapped injections"], tot["unmapped injections"],
             tot["resume instruction injections"],
             tot["injections not fired"]), file=out)
    print("  the resume instruction was injected in %d of the %d bundles"
          % (tot["bundles injected at the resume instruction"],
             len(bundles)), file=out)
    if tot["mapping misaligned (fault-free)"]:
        print("  fault-free runs whose copied instructions do not follow "
              "eager's: %d" % tot["mapping misaligned (fault-free)"],
              file=out)
    print("  unbalanced at instructions the prover assumes do not raise "
          "(not counted as divergences): %d"
          % tot["unbalanced outside the prover's assumptions"], file=out)
    gaps = tot["eager leaks at the compiler's uncovered instruction, "
               "rewritten balanced"]
    if gaps:
        print("  eager leaks a context at an instruction its compiler left "
              "uncovered, which the rewriter covered; rewritten balanced "
              "(not counted as divergences): %d" % gaps, file=out)
    print("  divergences: %d in %d bundles" % (ndiv, len(failed)), file=out)
    for st in ("crashed", "timeout", "error"):
        if tot["bundles " + st]:
            print("    of which %d bundles %s (each counted as one "
                  "divergence)" % (tot["bundles " + st], st), file=out)
    return tot, failed, clean


def dropped_report(bundles, results, out):
    """For bundles whose manifest notes name the resume-body instructions a
    variant left without their exception-table entry ("dropped": [[resume
    offset, original offset], ...], body-entries-dropped): how many of the
    divergences are at them, and how many of them diverged."""
    at = elsewhere = hit = total = 0
    for m in bundles:
        dropped = {tuple(x) for x in m.get("notes", {}).get("dropped", [])}
        if not dropped:
            continue
        total += len(dropped)
        seen = set()
        for x in results[m["file"]].get("divergences", []):
            pt = x["point"]
            key = pt and (pt["offset"], pt.get("orig"))
            if pt and pt["code"] == "resume" and key in dropped:
                at += 1
                seen.add(key)
            else:
                elsewhere += 1
        hit += len(seen)
    if total:
        print("  instructions left uncovered by the variant (manifest "
              "'dropped'): %d, %d of them diverge; divergences at them %d, "
              "elsewhere %d" % (total, hit, at, elsewhere), file=out)


def print_failed(failed, out, limit=None):
    for f, x in failed[:limit]:
        if not isinstance(x, list):
            print("  %s: %s" % (f, x), file=out)
            continue
        for d in x:
            print("  %s: %s args=%s op_fault=%s at %s: %s" % (
                f, d["how"], d["args"], d["op_fault"], _fmt_point(d["point"]),
                d["why"]), file=out)
            if d["eager"]:
                print("      eager:     %s %s" % (d["eager"][0],
                                                 d["eager"][1]), file=out)
            print("      rewritten: %s %s" % (d["rewritten"][0],
                                              d["rewritten"][1]), file=out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workdir")
    ap.add_argument("--pyverify", default=ro.PYVERIFY)
    ap.add_argument("--python-dir", default=os.path.join(ROOT, "python"))
    ap.add_argument("--fixtures", help="a gen-fixtures directory to use")
    ap.add_argument("--jobs", type=int, default=2, help="pyverify --jobs")
    ap.add_argument("--workers", type=int, default=2,
                    help="bundles checked at a time (forked children)")
    ap.add_argument("--json", help="write every bundle's result here")
    ap.add_argument("--no-refuted", action="store_true",
                    help="skip the refuted bundles (information only)")
    a = ap.parse_args(argv)
    t0 = time.monotonic()
    os.makedirs(a.workdir, exist_ok=True)
    fixtures = a.fixtures
    if not fixtures:
        fixtures = os.path.join(a.workdir, "fixtures")
        if os.path.isdir(fixtures):
            shutil.rmtree(fixtures)
        env = dict(os.environ, PYTHONPATH=a.python_dir)
        p = subprocess.run([sys.executable, "-m", "pyverify_rewriter",
                            "gen-fixtures", fixtures], env=env,
                           capture_output=True, text=True)
        if p.returncode != 0:
            print("gen-fixtures failed:\n%s%s" % (p.stdout, p.stderr))
            return 1
    with open(os.path.join(fixtures, "manifest.json")) as f:
        manifest = json.load(f)
    data = prove(a.pyverify, fixtures, a.jobs)
    by = group_results(data)
    verdict = {m["file"]: bundle_verdict(by.get(os.path.realpath(
        os.path.join(fixtures, m["file"])), [])) for m in manifest}
    proved = [m for m in manifest if verdict[m["file"]] == "proved"]
    refuted = [m for m in manifest if verdict[m["file"]] == "refuted"]
    unknown = [m for m in manifest if verdict[m["file"]] == "unknown"]
    t1 = time.monotonic()
    print("%d fixture bundles: %d proved, %d refuted, %d unknown "
          "(pyverify prove --jobs=%d; generation and proof %.1f s)"
          % (len(manifest), len(proved), len(refuted), len(unknown), a.jobs,
             t1 - t0))
    for v, n in sorted(collections.Counter(m["variant"]
                                           for m in proved).items()):
        print("  proved %-34s %d" % (v, n))
    tmp = tempfile.mkdtemp(prefix="proved-at-runtime-", dir=a.workdir)
    try:
        results = run_bundles(proved, fixtures, a.workers, tmp)
        if not a.no_refuted:
            results.update(run_bundles(refuted, fixtures, a.workers, tmp,
                                       trace_crashes=False))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    t2 = time.monotonic()
    out = sys.stdout
    tot, failed, _ = summarize("proved bundles under the runtime oracle",
                               proved, results, out)
    print("  per variant:", file=out)
    for v in sorted({m["variant"] for m in proved}):
        ms = [m for m in proved if m["variant"] == v]
        nd = sum(1 for f, _ in failed if f.startswith(v + "/"))
        print("    %-34s %d bundles, %d diverge" % (v, len(ms), nd),
              file=out)
    dropped_report(proved, results, out)
    if failed:
        print("\nDIVERGENCES of proved bundles:", file=out)
        print_failed(failed, out)
    outside = [(m["file"], o) for m in proved
               for o in results[m["file"]].get("outside", [])]
    if outside:
        print("\nunbalanced at points the prover assumes do not raise "
              "(proved bundles; information):", file=out)
        by_assumption = collections.Counter(
            (o["assumption"], re.sub(r"_\d+_\d+$", "_{int}_{int}",
                                     o["point"]["instr"]))
            for _, o in outside)
        for (why, ins), n in by_assumption.most_common():
            print("  %4d  %-32s %s" % (n, ins, why), file=out)
    if not a.no_refuted:
        rt, rfailed, rclean = summarize(
            "refuted bundles (information: how many diverge at run time)",
            refuted, results, out)
        print("  per variant (diverging / all):", file=out)
        for v in sorted({m["variant"] for m in refuted}):
            ms = [m for m in refuted if m["variant"] == v]
            nd = sum(1 for f, _ in rfailed if f.startswith(v + "/"))
            print("    %-34s %d / %d" % (v, nd, len(ms)), file=out)
        if rclean:
            print("  refuted bundles that never diverge at run time:",
                  file=out)
            for f in rclean:
                print("    " + f, file=out)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"verdicts": verdict, "results": results}, f, indent=1)
    ndiv = sum(len(x) if isinstance(x, list) else 1 for _, x in failed)
    print("\nproved-at-runtime: %d proved bundles, %d runs compared, %d "
          "injections fired, %d divergences in %d bundles (runtime %.1f s)"
          % (len(proved), tot["op-fault runs"] + tot["runs compared"],
             tot["injections fired (b)"] + tot["injections fired (c)"],
             ndiv, len(failed), t2 - t1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
