# ===- ReplayRuntime.py - the body of every `pyverify prove --replay` script -===
#
# Embedded verbatim by lib/SMT/Replay.cpp after the script's docstring and its
# CASE data (docs/prove-cli.md, "Replay"). Standard library only; run by the
# input's interpreter (CASE["python_version"]). What it knows of each
# instruction is its row of CASE["tables"] (the columns CASE["columns"]
# names, written by Replay.cpp from pyverify's opcode tables and analyses):
# nothing here re-derives a bytecode fact from an opcode's name.
#
# A run executes one real code object under sys.settrace with opcode events.
# Every sync point it reaches (the instructions the prover makes steps of:
# branches, returns, instructions that may raise) must be the next step of
# its counterexample path; the step's events are the *directive* for the
# stand-ins: every value the code gets from outside is a StandIn whose
# operations look up the step the driven frame is executing and raise,
# answer a truth test or end an iteration as the path says. A run that cannot
# follow its path is stopped and the script says "cannot replay" (exit 2);
# a divergence or violation is only reported from runs that followed it.
#
# ===------------------------------------------------------------------------===
import base64
import builtins
import dis
import marshal
import opcode
import re
import sys
import types

REPRODUCED, NOT_REPRODUCED, CANNOT_REPLAY = 1, 0, 2
BUDGET = 200000  # opcode events per run
RUN = None  # the Run being executed


class CannotReplay(Exception):
    pass


class ScheduledRaise(Exception):
    """Raised by a stand-in where the counterexample says the step raises."""


class _Stop(BaseException):
    """Ends a run whose path is used up or that left its path."""


def _name(v):
    if isinstance(v, StandIn):
        return object.__getattribute__(v, "_pv_name")
    r = repr(v)
    return r if len(r) <= 40 else r[:37] + "..."


def _args(a, k=None):
    parts = [_name(x) for x in a] + ["%s=%s" % (n, _name(x)) for n, x in (k or {}).items()]
    s = ", ".join(parts)
    return s if len(s) <= 60 else s[:57] + "..."


def _step():
    """The record of the step the driven frame is executing, or None."""
    r = RUN
    if r is None or r.stopped or r.cur is None:
        return None
    return r.cur if r.cur_off in (r.cur.offset, r.folded) else None


def _hook(desc):
    """Notes an operation on a stand-in; raises when the step says so."""
    r = RUN
    if r is None:
        return None
    if r.stopped:
        raise _Stop()  # a stopped run ends at the next thing it does
    if getattr(r, "untraced", False) and r.frame is not None:
        r.rearm()
    rec = _step()
    if rec is None:
        r.unscheduled.append((r.cur_off, desc))
        return None
    rec.observed.append(desc)
    if rec.want_raise and not rec.raised_by_us and r.cur_off == rec.offset:
        rec.raised_by_us = True
        raise ScheduledRaise("the counterexample says %s:%d %s raises" % (r.label, rec.offset, rec.opname))
    return rec


def _short(s):
    return s if len(s) <= 72 else s[:69] + "..."


class StandIn:
    """An arbitrary value from outside: every operation consults the path."""

    __slots__ = ("_pv_name", "_pv_label", "_pv_kind", "_pv_modes", "_pv_next")

    def __init__(self, name, kind="with", label=None):
        object.__setattr__(self, "_pv_name", _short(name))
        object.__setattr__(self, "_pv_kind", kind)
        object.__setattr__(self, "_pv_label", label)
        object.__setattr__(self, "_pv_modes", 0)
        object.__setattr__(self, "_pv_next", 0)

    def __getattribute__(self, attr):
        if attr.startswith("_pv_") or attr == "__class__":
            return object.__getattribute__(self, attr)
        me = object.__getattribute__(self, "_pv_name")
        _hook("getattr %s.%s" % (me, attr))
        if attr in ("__enter__", "__exit__"):
            return object.__getattribute__(self, attr)
        return StandIn("%s.%s" % (me, attr))

    def __setattr__(self, attr, v):
        _hook("setattr %s.%s = %s" % (_name(self), attr, _name(v)))

    def __delattr__(self, attr):
        _hook("delattr %s.%s" % (_name(self), attr))

    def __call__(self, *a, **k):
        me = _name(self)
        _hook("call %s(%s)" % (me, _args(a, k)))
        return StandIn("%s(%s)" % (me, _args(a, k)))

    def __bool__(self):
        rec = _hook("bool(%s)" % _name(self))
        want = rec.want_truth if rec is not None else None
        return True if want is None else want

    def __iter__(self):
        rec = _hook("iter(%s)" % _name(self))
        if rec is not None and rec.unpack is not None:
            return iter(self._pv_items(rec))
        return StandIn("iter(%s)" % _name(self))

    def _pv_items(self, rec):
        return [StandIn("%s[%d]" % (_name(self), i)) for i in range(rec.unpack)]

    def __next__(self):
        rec = _hook("next(%s)" % _name(self))
        if rec is None or rec.want_exhausted in (None, True):
            raise StopIteration
        k = object.__getattribute__(self, "_pv_next")
        object.__setattr__(self, "_pv_next", k + 1)
        return StandIn("next(%s)#%d" % (_name(self), k))

    def __enter__(self):
        _hook("%s.__enter__()" % _name(self))
        if RUN is not None and not RUN.stopped:
            RUN.enter(self, object.__getattribute__(self, "_pv_kind"))
        return self

    def __exit__(self, *exc):
        r = RUN
        if r is None or r.stopped:
            return None
        r.exit(self)
        _hook("%s.__exit__(%s)" % (_name(self), _args(exc)))
        return StandIn("%s.__exit__()" % _name(self))

    def __getitem__(self, k):
        _hook("%s[%s]" % (_name(self), _name(k)))
        return StandIn("%s[%s]" % (_name(self), _name(k)))

    def __setitem__(self, k, v):
        _hook("%s[%s] = %s" % (_name(self), _name(k), _name(v)))

    def __delitem__(self, k):
        _hook("del %s[%s]" % (_name(self), _name(k)))

    def __contains__(self, k):
        rec = _hook("%s in %s" % (_name(k), _name(self)))
        return bool(rec is not None and rec.want_truth)

    def __len__(self):
        _hook("len(%s)" % _name(self))
        return 2

    def __index__(self):
        _hook("index(%s)" % _name(self))
        return 2

    __int__ = __index__

    def __float__(self):
        _hook("float(%s)" % _name(self))
        return 2.0

    def __format__(self, spec):
        _hook("format(%s)" % _name(self))
        return _name(self)

    def __repr__(self):
        return _name(self)

    __str__ = __repr__

    def __hash__(self):
        _hook("hash(%s)" % _name(self))
        return id(self)


def _binary(sym, reflected):
    def op(self, other):
        a, b = (other, self) if reflected else (self, other)
        desc = "(%s %s %s)" % (_name(a), sym, _name(b))
        _hook(desc)
        return StandIn(desc)
    return op


for _n, _sym in [("add", "+"), ("sub", "-"), ("mul", "*"), ("matmul", "@"), ("truediv", "/"),
                 ("floordiv", "//"), ("mod", "%"), ("pow", "**"), ("lshift", "<<"),
                 ("rshift", ">>"), ("and", "&"), ("or", "|"), ("xor", "^")]:
    setattr(StandIn, "__%s__" % _n, _binary(_sym, False))
    setattr(StandIn, "__r%s__" % _n, _binary(_sym, True))
    setattr(StandIn, "__i%s__" % _n, _binary(_sym + "=", False))
for _n, _sym in [("eq", "=="), ("ne", "!="), ("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">=")]:
    setattr(StandIn, "__%s__" % _n, _binary(_sym, False))
for _n, _sym in [("neg", "-"), ("pos", "+"), ("invert", "~"), ("abs", "abs")]:
    setattr(StandIn, "__%s__" % _n, lambda self, _s=_sym: (_hook("%s%s" % (_s, _name(self))), StandIn("%s%s" % (_s, _name(self))))[1])


class Factory(StandIn):
    """A resume function's context slot: calling it re-creates context k."""

    __slots__ = ("_pv_ctx",)

    def __init__(self, name, ctx):
        super().__init__(name)
        object.__setattr__(self, "_pv_ctx", ctx)

    def __call__(self, *a, **k):
        _hook("call %s(%s)" % (_name(self), _args(a, k)))
        return object.__getattribute__(self, "_pv_ctx")


class Mode(StandIn):
    """A torch-function mode: entering pushes it on the mode stack, exiting
    pops. A placeholder (the resume prologue's re-entry) does not push."""

    __slots__ = ("_pv_placeholder",)

    def __init__(self, name, label=None, placeholder=False):
        super().__init__(name, "mode", label)
        object.__setattr__(self, "_pv_placeholder", placeholder)

    def __enter__(self):
        _hook("%s.__enter__()" % _name(self))
        if RUN is not None and not RUN.stopped:
            RUN.enter(self, "mode")
            if not object.__getattribute__(self, "_pv_placeholder"):
                RUN.modes.append(self)
        return self

    def __exit__(self, *exc):
        r = RUN
        if r is None or r.stopped:
            return None
        r.pop_mode()
        _hook("%s.__exit__(%s)" % (_name(self), _args(exc)))
        return StandIn("%s.__exit__()" % _name(self))


class GraphFn(StandIn):
    """The compiled graph: returns the values the frame unpacks; with modes
    active at the break, the last one is the traced mode stack."""

    def __call__(self, *a, **k):
        _hook("call %s(%s)" % (_name(self), _args(a, k)))
        return _GraphOut("graph")


class _GraphOut(StandIn):
    def _pv_items(self, rec):
        items = StandIn._pv_items(self, rec)
        m = RUN.graph_modes if RUN is not None else 0
        if m and items:
            items[-1] = [Mode("traced mode %d" % i) for i in range(m)]
        return items


class ResumeFn(StandIn):
    """The resume function as the frame sees it: it takes over the modes the
    frame holds (and pops them); calling it may raise as the path says."""

    def __call__(self, *a, **k):
        r = RUN
        if r is not None and not r.stopped:
            rec = _step()
            if rec is not None:
                rec.events.append("calls the resume function")
            r.hand_modes()
        _hook("call %s(%s)" % (_name(self), _args(a, k)))
        return StandIn("resume result")


def _prefix(kind):
    return "mode#" if kind == "mode" else "ctx#"


def _events(step):
    return [e.strip() for e in (step.get("event") or "").split(";") if e.strip()]


def _wanted(test, events):
    """(taken, truth, exhausted) a branch step's events ask of its test."""
    taken = True if "branch taken" in events else False if "branch not taken" in events else None
    if taken is None or test is None:
        return taken, None, None
    holds = taken == test[1]  # the jump is taken when the test holds
    return taken, holds if test[0] == "truth" else None, holds if test[0] == "exhausted" else None


class Record:
    """One step of a run: what the path said and what the run did."""

    def __init__(self, index, step, row):
        self.index, self.offset, self.row = index, step["offset"], row
        self.opname, self.key, self.arg, self.next = row.name, row.key, row.arg, row.next
        self.target = row.landing if row.test is not None else None
        self.unpack, self.does = row.unpack, row.does
        self.path_events = _events(step)
        self.events, self.observed = [], []
        self.raised = self.raised_by_us = self.bad = False
        self.exc = None
        ev = self.path_events
        self.want_raise = any(e == "raises" for e in ev)
        # A raise through a raise tier (docs/prove.md, "Raise tiers"): the
        # run's trace function raises at the instruction itself.
        self.want_tier = next((e for e in ev if e.startswith("raises (a trace function")), None)
        self.want_taken, self.want_truth, self.want_exhausted = _wanted(row.test, ev)
        self.active_before = self.active_after = None

    def signature(self):
        ev = tuple("raises out" if e.startswith("raises out of") else e for e in self.events
                   if not e.startswith("hands "))
        return (self.key, ev, self.active_after)

    def text(self, label):
        s = "%s:%d %s" % (label, self.offset, self.key)
        if self.events:
            s += " [%s]" % "; ".join(self.events)
        if self.exc:
            s += " (%s)" % self.exc
        if self.observed:
            s += "  {%s}" % "; ".join(self.observed)
        return s


class Run:
    """One code object executed down one path."""

    def __init__(self, label, code, path, table, shift=0):
        self.label, self.code, self.path, self.table, self.shift = label, code, path, table, shift
        self.cursor, self.log, self.cur, self.cur_off = 0, [], None, -1
        self.failure, self.stopped, self.end, self.frame = None, False, None, None
        self.raising, self.budget, self.hidden = False, BUDGET, []
        self.active, self.modes, self.handed, self.violations = [], [], [], []
        self.next_label, self.used, self.graph_modes = 0, set(), 0
        self.unscheduled, self.prologue = [], []
        # The prover records the exit a handler's WITH_EXCEPT_START makes on
        # the raising step before it (no step of its own): its offset.
        self.folded = None
        # A matches-eager path of a resume function starts after its
        # prologue, which runs free (the prover assumes it does not raise).
        self.free_prologue = False

    # --- contexts ---
    def event(self, text):
        if self.cur is not None:
            self.cur.events.append(text)

    def violate(self, why):
        self.violations.append((len(self.log) - 1, why))

    def enter(self, obj, kind):
        lab = object.__getattribute__(obj, "_pv_label") if isinstance(obj, StandIn) else None
        if lab is None or lab in self.used:
            lab = self.next_label
            self.next_label += 1
        self.used.add(lab)
        if isinstance(obj, StandIn):
            object.__setattr__(obj, "_pv_label", lab)
        self.active.append([lab, kind, obj])
        self.event("enter %s%d" % (_prefix(kind), lab))

    def exit(self, obj, how="__exit__"):
        for i in range(len(self.active) - 1, -1, -1):
            if self.active[i][2] is obj:
                return self._exit_at(i, how)
        self.event("exit of a manager that is not active")
        self.violate("%s of %s, which is not active (exited already or never entered)" % (how, _name(obj)))

    def _exit_at(self, i, how):
        lab, kind, _ = self.active[i]
        for later in self.active[i + 1:]:
            if later[1] == kind:
                self.violate("%s exits %s%d while %s%d entered after it is still active (not LIFO)"
                             % (how, _prefix(kind), lab, _prefix(kind), later[0]))
                break
        del self.active[i]
        self.event("exit %s%d" % (_prefix(kind), lab))

    def pop_mode(self):
        if not self.modes:
            self.event("pop of an empty mode stack")
            self.violate("pop of an empty mode stack")
            return None
        m = self.modes.pop()
        self.exit(m, "the mode-stack pop")
        return m

    def set_modes(self, new):
        old, self.modes = self.modes, list(new)
        for m in reversed(old):
            if not any(m is n for n in new):
                self.exit(m, "set_stack")
        for m in new:
            if not any(m is o for o in old):
                self.enter(m, "mode")

    def hand_modes(self):
        for e in [e for e in self.active if e[1] == "mode"][::-1]:
            self.active.remove(e)
            self.handed.append(e[0])
            self.event("hands mode#%d to the resume function" % e[0])
        self.modes = []

    def active_sig(self):
        return tuple("%s%d" % (_prefix(e[1]), e[0]) for e in self.active)

    # --- following the path ---
    def stop(self):
        self.stopped = True
        raise _Stop()

    def fail(self, why, bad=None):
        if bad is not None:
            bad.bad = True
        if self.failure is None:
            self.failure = why
        self.stop()

    def restore(self):
        for d, n, v in self.hidden:
            d[n] = v
        self.hidden = []

    def finish(self, rec, next_off):
        rec.active_after = self.active_sig()
        if rec.does == "raise" and not rec.raised:
            rec.raised = True  # a re-raise unwinds without an 'exception' event
            rec.events.append("raises")
        if rec.target is not None and not rec.raised and next_off is not None:
            taken = next_off == rec.target and rec.target != rec.next
            rec.events.insert(0, "branch taken" if taken else "branch not taken")
            if rec.want_taken is not None and taken != rec.want_taken:
                self.fail("step %d: %s:%d %s went %s, the path says %s (the tested value is not "
                          "a stand-in)" % (rec.index, self.label, rec.offset, rec.opname,
                                           "taken" if taken else "not taken",
                                           "taken" if rec.want_taken else "not taken"), rec)
        if rec.want_raise and not rec.raised:
            self.fail("step %d: %s:%d %s did not raise (the path says it raises; what it "
                      "operates on is not a stand-in)" % (rec.index, self.label, rec.offset,
                                                          rec.opname), rec)

    def on_opcode(self, frame, off):
        self.restore()
        self.raising = False
        self.budget -= 1
        if self.budget < 0:
            self.fail("more than %d instructions executed" % BUDGET)
        if off < 0:
            return
        if self.folded is not None and off != self.folded:
            self.folded, self.cur.active_after = None, self.active_sig()
        if self.cur is not None and self.cur_off == self.cur.offset and self.cur.active_after is None:
            real = self.table.get(off)
            self.finish(self.cur, real if type(real) is int else off)
        info = self.table.get(off)
        if type(info) is int:  # an EXTENDED_ARG prefix: its instruction
            off, info = info, self.table.get(info)
        self.cur_off = off
        exp = self.path[self.cursor] if self.cursor < len(self.path) else None
        if exp is not None and exp["code"] == self.label and exp["offset"] == off and info:
            return self.consume(frame, exp, info)
        if info is not None and info.step:
            if self.free_prologue and not self.log:
                self.prologue.append("%d %s" % (off, info.name))
                return
            if info.does == "exit-call" and self.cur is not None and self.cur.raised \
                    and any(e.startswith("exit ") for e in self.cur.path_events):
                self.folded = off
                self.cur.observed.append("WITH_EXCEPT_START at %d, recorded on this step" % off)
                return
            if exp is None:
                self.end = "path ends"
                self.stop()
            self.fail("step %d: the path goes to %s:%d %s, the run reached %s:%d %s"
                      % (self.cursor, exp["code"], exp["offset"], exp["opname"], self.label,
                         off, info.name))

    def consume(self, frame, exp, info):
        rec = Record(self.cursor, exp, info)
        rec.active_before = self.active_sig()
        self.cursor += 1
        self.log.append(rec)
        self.cur = rec
        nxt = self.path[self.cursor] if self.cursor < len(self.path) else None
        if info.feeds and nxt is not None and nxt["code"] == self.label and \
                nxt["offset"] == info.feeds[0] and rec.want_truth is None:
            # This step computes the truth the branch after it tests (3.13's
            # TO_BOOL): the truth that branch's step asks for.
            want = _wanted(self.table[info.feeds[0]].test, _events(nxt))[1]
            rec.want_truth = None if want is None else want != info.feeds[1]
        if rec.want_tier:
            self.tier_raise(rec)
        if rec.want_raise and info.loads:  # a name lookup raises: hide the name
            n, scope, _ = info.loads
            for d in (frame.f_locals if scope == "name" else {}, frame.f_globals,
                      frame.f_builtins):
                if isinstance(d, dict) and n in d:
                    self.hidden.append((d, n, d.pop(n)))

    def tier_raise(self, rec):
        """The path raises at this instruction through a trace function or
        the eval breaker: this trace function raises here. CPython then turns
        tracing off (sys.settrace(None)); the next operation on a stand-in
        turns it back on (rearm)."""
        if "looked up at" in rec.want_tier:
            self.fail("step %d: %s:%d %s raises through the eval breaker, looked up at "
                      "another code unit: a trace function cannot raise there"
                      % (rec.index, self.label, rec.offset, rec.opname), rec)
        rec.raised = rec.raised_by_us = True
        rec.events.append(rec.want_tier)
        rec.events += [e for e in rec.path_events if e.startswith("leaves ")]
        rec.exc = "ScheduledRaise: raised by the trace function"
        self.untraced = True
        if any(e.startswith("raises out of") for e in rec.path_events):
            rec.active_after = self.active_sig()
            self.returned = True  # no 'return' event comes without tracing
        raise ScheduledRaise("the counterexample says a trace function raises at %s:%d %s"
                             % (self.label, rec.offset, rec.opname))

    def rearm(self):
        """Tracing back on after tier_raise, from the stand-in operation the
        driven frame performs (an __exit__ its handler calls): the step of the
        instruction performing it is consumed here, its opcode event passed."""
        self.untraced = False
        sys.settrace(_global_trace)
        self.frame.f_trace = _local_trace
        self.frame.f_trace_opcodes = True
        self.on_opcode(self.frame, self.frame.f_lasti - self.shift)

    def on_exception(self, off, arg):
        self.restore()
        if self.stopped or isinstance(arg[1], _Stop):
            return
        rec = self.cur
        if isinstance(arg[1], StopIteration) and rec is not None and rec.row.test and \
                rec.row.test[0] == "exhausted":
            return  # FOR_ITER reports the StopIteration that ends the loop
        self.raising = True
        rec = self.cur
        if rec is not None and rec.offset == off and self.cur_off == off and not rec.raised:
            rec.raised = True
            rec.events.append("raises")
            rec.exc = "%s: %s" % (type(arg[1]).__name__, arg[1])
            if not rec.want_raise and not any(e.startswith("raises ") for e in rec.path_events):
                self.fail("step %d: %s:%d %s raised %s where the path continues"
                          % (rec.index, self.label, off, rec.opname, rec.exc), rec)
            return
        if rec is not None and rec.offset == off and rec.raised:
            return
        self.fail("the run raised %s: %s at %s:%d, where the path has no step"
                  % (type(arg[1]).__name__, arg[1], self.label, off))

    def on_return(self, off):
        """The frame ends; how (returns or raises out) execute() tells."""
        self.restore()
        if self.stopped:
            return
        rec = self.cur
        if rec is not None and rec.active_after is None:
            self.finish(rec, None)
        if self.cursor < len(self.path):
            self.fail("the run ends at %s:%d after step %d; the path has %d steps"
                      % (self.label, off, self.cursor - 1, len(self.path)))
        self.returned = True

    def ended(self, raised):
        if not getattr(self, "returned", False) or self.stopped:
            return
        self.end = "raises out" if raised else "returns"
        rec = self.log[-1] if self.log else None
        if rec is not None and raised:
            rec.events.append("raises out of %s" % self.label)
        elif rec is not None and rec.does == "return":
            rec.events.append("returns")

    def good(self):
        """Records the run followed faithfully (a bad one and all after it excluded)."""
        for i, rec in enumerate(self.log):
            if rec.bad:
                return i
        return len(self.log)


def _global_trace(frame, event, arg):
    r = RUN
    if r is None or r.frame is not None or frame.f_code is not r.code:
        return None
    r.frame = frame
    frame.f_trace = _local_trace  # before f_trace_opcodes: 3.13 instruments then
    frame.f_trace_opcodes = True
    return _local_trace


def _local_trace(frame, event, arg):
    r = RUN
    if r is None or frame is not r.frame:
        return None
    if event == "opcode":
        r.on_opcode(frame, frame.f_lasti - r.shift)
    elif event == "exception":
        r.on_exception(frame.f_lasti - r.shift, arg)
    elif event == "return":
        r.on_return(frame.f_lasti - r.shift)
    return _local_trace


def execute(run, call):
    global RUN
    RUN = run
    # 3.12 turns opcode events on at sys.settrace() once any frame has asked
    # for them (f_trace_opcodes): ask from this frame first.
    me = sys._getframe()
    me.f_trace_opcodes = True
    me.f_trace_opcodes = False
    sys.settrace(_global_trace)
    try:
        call()
        run.ended(False)
    except _Stop:
        pass
    except BaseException as e:
        run.ended(True)
        run.outcome = e
    finally:
        sys.settrace(None)
        RUN = None
    run.stopped = True
    if run.end in ("returns", "raises out") and run.failure is None:
        for lab, kind, _ in run.active:
            run.violations.append((len(run.log) - 1, "%s %s with %s%d still active: never exited on "
                                   "this path" % (run.label, run.end, _prefix(kind), lab)))
        # A resume function pops every mode it was handed (and pushes none
        # it keeps): what is left on the mode stack leaked.
        if run.label.startswith("resume") and run.modes:
            run.violations.append((len(run.log) - 1, "%s %s with %d mode(s) still on the mode "
                                   "stack, never popped (handed over by the frame, or pushed "
                                   "again over one it handed)" % (run.label, run.end,
                                                                  len(run.modes))))
