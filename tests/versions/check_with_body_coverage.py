"""The run-time oracle of pyverify's with-body-uncovered check, on the running
interpreter.

    python3.X tests/versions/check_with_body_coverage.py build/tools/pyverify/pyverify
        [--verbose] [--json]

with-body-uncovered (lib/Check/WithBodyChecks.cpp) reports an instruction of a
with body at which a trace function can raise when the exception-table lookup
there finds no entry, or one that unwinds below the with's bound __exit__. This
script asks the interpreter:

1. A corpus of with shapes: check_raise_tiers.py's 27 functions, the shapes
   3.13.0's stdlib findings come from (SHAPES_SRC: a `while x:` in a `for`
   in a with; `for ...: if x is None / is not None / if not x.f()`, a
   `break` with `else`, in a with, in a generator like WeakSet.__iter__; `yield from` and `await` in `with` and
   `async with`, with a throw() into the suspended sub-iterator, which
   returns: the CLEANUP_THROW path; if/elif chains; try/except in a with),
   and variants of some with their exception table damaged on purpose
   (breakcode.py): the with's entry split so that one STORE_FAST, LOAD_CONST
   or POP_TOP of the body is uncovered; the with's entries dropped; the
   with's entry retargeted to an enclosing try's or with's handler, whose
   depth is below this with's __exit__.
2. Every code object is marshalled and checked with `pyverify check
   --format=json --checks=with-body-uncovered,context-not-exited,
   with-handler-mismatch --python-version=X.Y`; a with-body-uncovered
   finding "A OP .. B OP (n instructions)" flags every instruction from A
   to B.
3. Every instruction that runs while a context manager of the run is entered
   (after __enter__ returned -- for `async with`, after the await of
   __aenter__'s result finished -- and before __exit__ / __aexit__ is
   called) gets an exception injected by a trace function at its first
   such execution: an 'opcode' event (f_trace_opcodes), and, separately, a
   'line' event at every offset that gets one. Each injected run follows a
   throw-away traced run (3.12.1, 3.13.0: check_raise_tiers.py), and counts
   only if the injection fired. Recorded: whether every entered context
   manager's __exit__ ran.
4. Asserted: where pyverify flags, the injected raise skips some __exit__;
   where it does not flag, __exit__ runs -- except at what the check leaves
   out by its rule (NOP, a with's exit sequence [SWAP 2] LOAD_CONST None x3
   [PRECALL 2] CALL 2, the handler's PUSH_EXC_INFO / WITH_EXCEPT_START, an
   instruction pyverify reports as context-not-exited
   -- it raises by itself: that check's business -- and the first body
   instruction when with-handler-mismatch reports the body's entry), where
   the result is only recorded; and a line event a backward jump to the same
   line delivers on 3.12/3.13 (no handler of the frame runs,
   docs/versions.md), counted apart. Exits 1 on any disagreement, or if no
   flagged instruction was injected (the damaged variants guarantee some on
   every version), or, on 3.12 and 3.13, if a stdlib-derived shape has no
   flagged instruction where __exit__ is really skipped (3.12.1: the
   JUMP_BACKWARD closing a for or while body that its compiler leaves
   outside the with's entry; 3.13.0: the conditional jump before it and
   the JUMP_BACKWARD_NO_INTERRUPT after CLEANUP_THROW).
"""
import argparse
import dis
import json
import marshal
import os
import re
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lit", "Inputs"))
import breakcode as bc  # noqa: E402  (the exception-table codec)
import check_raise_tiers as crt  # noqa: E402  (its corpus)

PY = sys.version_info[:2]
VERSION = "%d.%d" % PY


# --- context managers -----------------------------------------------------------------

class Injected(BaseException):
    """What the trace function raises; no `except Exception` catches it."""


class Thrown(Exception):
    """What the drivers throw() into a suspended generator or coroutine."""


class CM:
    suppress = False
    pending = False  # async: __aenter__ called, its awaitable not finished

    def __init__(self, name):
        self.name = name
        self.depth = 0
        self.exits = 0
        self.enter_at = None

    def __enter__(self):
        self.depth += 1
        return self

    def __exit__(self, *exc):
        self.depth -= 1
        self.exits += 1
        return self.suppress

    def entered(self):
        return self.depth > 0 and not self.pending


class Suppressing(CM):
    suppress = True


async def _done(value):
    return value


class ACM(CM):
    """An async context manager; __aexit__ counts as called when the coroutine is
    made (the exit sequence's CALL), like a with's __exit__ call."""

    def __aenter__(self):
        self.depth += 1
        self.pending = True
        self.enter_at = sys._getframe(1).f_lasti  # BEFORE_ASYNC_WITH (3.14: CALL)
        return _done(self)

    def __aexit__(self, *exc):
        self.depth -= 1
        self.exits += 1
        return _done(self.suppress)


class Tick:
    """An awaitable that suspends once; a Thrown thrown in makes it return."""

    def __await__(self):
        try:
            yield "tick"
        except Thrown:
            return "caught"
        return "ticked"


def sub():
    try:
        yield 1
    except Thrown:
        return "caught"
    return "done"


# --- the corpus -----------------------------------------------------------------------
#
# Every function takes (cm, cm2, sup) like check_raise_tiers.py's: two ordinary
# context managers and one that suppresses what reaches its __exit__ (cm is an
# async one for the functions whose name starts with "async_").

SHAPES_SRC = '''
def for_while_in_with(cm, cm2, sup):
    # _android_support.TextLogStream.write: with: for: while line:
    n = 0
    with cm:
        for line in ["ab", "c"]:
            while line:
                line = line[1:]
                n += 1
    return n

def iter_guard(cm, cm2, sup, refs=(1, None, 2)):
    # _weakrefset.WeakSet.__iter__: with: for: if item is not None: yield
    with cm:
        for ref in refs:
            item = ref
            if item is not None:
                yield item

def for_if_none(cm, cm2, sup, refs=(1, None, 2)):
    n = 0
    with cm:
        for ref in refs:
            if ref is None:
                n += 1
    return n

def for_if_call(cm, cm2, sup, lines=("a=1", "b=2")):
    # idlelib PyShellEditorWindow.store_file_breaks: with: for: if not x.f():
    n = None
    with cm:
        for line in lines:
            if not line.startswith("a="):
                n = line
        m = 1
    return n

def for_break_else(cm, cm2, sup, polls=(1, None)):
    # test_os Win32KillTests._kill_with_event: with: for: if x is None: break
    with cm:
        for p in polls:
            if p is None:
                break
        else:
            q = 1
        q = 2
    return q

def yield_from_in_with(cm, cm2, sup):
    with cm:
        x = yield from sub()
        y = yield from sub()
    return x

def thrown_yield_from_in_with(cm, cm2, sup):
    with cm:
        x = yield from sub()
        y = yield from sub()
    return x

async def async_await_in_async_with(cm, cm2, sup):
    async with cm:
        x = await Tick()
        y = await Tick()
    return x

async def async_thrown_await_in_async_with(cm, cm2, sup):
    # asyncio BaseEventLoop.shutdown_default_executor: async with / with:
    # await, the sub-iterator returning from a throw()
    async with cm:
        x = await Tick()
        y = await Tick()
    return x

async def await_in_with(cm, cm2, sup):
    with cm:
        x = await Tick()
        y = await Tick()
    return x

async def thrown_await_in_with(cm, cm2, sup):
    with cm:
        x = await Tick()
        y = await Tick()
    return x

def if_chain(cm, cm2, sup, v=2):
    with cm:
        if v == 0:
            r = 0
        elif v == 1:
            r = 1
        elif v:
            r = 2
        else:
            r = 3
        if v is None:
            r = 4
        elif v is not None:
            r = 5
    return r

def try_except_in_with(cm, cm2, sup, v=None):
    with cm:
        try:
            x = v.attr
        except AttributeError:
            x = 1
        else:
            x = 2
        try:
            y = 1
        except ValueError:
            y = 2
    return x

def try_around_with(cm, cm2, sup):
    try:
        with cm:
            a = 1
            b = a
            h(a, b)
    except BaseException:
        a = 2
    return a
'''

# The functions whose uncovered instructions 3.13.0's stdlib findings come from.
STDLIB_SHAPES = {"for_while_in_with", "iter_guard", "for_if_none", "for_if_call",
                 "for_break_else",
                 "thrown_yield_from_in_with", "async_thrown_await_in_async_with",
                 "thrown_await_in_with"}


# 3.12.1 covers the conditional jump but leaves the JUMP_BACKWARD after it
# outside the with's entry (and a while loop's closing jump).
STDLIB_SHAPES_312 = {"iter_guard", "for_if_none", "for_if_call", "for_break_else"}

# 3.14.2 (measured): 3.13.0's shapes -- the conditional jump ending a for
# body, now with its NOT_TAKEN and the JUMP_BACKWARD after it, and both
# JUMP_BACKWARD_NO_INTERRUPTs after CLEANUP_THROW -- and the NOT_TAKEN after a
# conditional jump that it leaves outside the with's entry (if/else, if/elif,
# `while n:`), and `while True:`'s closing POP_JUMP_IF_FALSE / NOT_TAKEN /
# JUMP_BACKWARD: a trace raise at each skips __exit__.
STDLIB_SHAPES_314 = STDLIB_SHAPES | {"while_true", "branches", "if_chain", "while_loop"}


def corpus():
    """[(name, function)]: check_raise_tiers.py's corpus, then SHAPES_SRC's."""
    out = list(crt.corpus())
    ns = {"Tick": Tick, "sub": sub, "h": crt.h, "Obj": crt.Obj}
    exec(compile(SHAPES_SRC, "<with-body corpus>", "exec"), ns)
    out += [(n, f) for n, f in ns.items()
            if isinstance(f, types.FunctionType) and f.__code__.co_filename.startswith("<with")]
    return out


# --- damaged exception tables ----------------------------------------------------------

def instructions(code):
    return [i for i in dis.get_instructions(code) if i.opname != "CACHE"]


def with_handler_entries(code):
    """{handler offset: [indices of the entries targeting it]} for every with's
    handler (PUSH_EXC_INFO; WITH_EXCEPT_START)."""
    insts = instructions(code)
    at = {i.offset: k for k, i in enumerate(insts)}
    out = {}
    for n, e in enumerate(bc.entries(code)):
        k = at.get(e.target)
        if (k is not None and insts[k].opname == "PUSH_EXC_INFO"
                and insts[k + 1].opname == "WITH_EXCEPT_START"):
            out.setdefault(e.target, []).append(n)
    return out


def first_body_entry(code):
    """(index, entry) of the first entry of the first with's body."""
    handlers = with_handler_entries(code)
    table = bc.entries(code)
    n = min(min(v) for v in handlers.values())
    return n, table[n]


def uncover_one(code, opname):
    """The first \\p opname inside the first with body's first entry split out of
    it: that one instruction is left uncovered."""
    n, e = first_body_entry(code)
    insts = instructions(code)
    for k, i in enumerate(insts):
        if e.start < i.offset and insts[k + 1].offset < e.end and i.opname == opname:
            table = bc.entries(code)
            table[n:n + 1] = [bc.Entry(e.start, i.offset, e.target, e.depth, e.lasti),
                              bc.Entry(insts[k + 1].offset, e.end, e.target, e.depth,
                                       e.lasti)]
            return bc.with_entries(code, table)
    raise LookupError(f"{code.co_name}: no {opname} inside its first with entry")


def drop_with(code):
    """Every entry of the first with's body dropped (not its handler's cleanup)."""
    handlers = with_handler_entries(code)
    first = min(handlers)
    table = [e for n, e in enumerate(bc.entries(code)) if n not in handlers[first]]
    return bc.with_entries(code, table)


def retarget(code, to_handler_of):
    """The first entry of the innermost with's body sent to \\p to_handler_of's handler
    with that entry's depth: "try" -> the enclosing try's except, "with" -> the
    enclosing with's handler. The depth unwinds below this with's __exit__."""
    table = bc.entries(code)
    handlers = with_handler_entries(code)
    # The innermost with: the one whose body's first entry starts last.
    inner = max(handlers, key=lambda t: table[min(handlers[t])].start)
    n = min(handlers[inner])
    src = table[n]
    # The enclosing handler: the last entry before this one of another target (the
    # table is flat: the enclosing entry stops where the with's starts).
    dst = [e for e in table[:n] if e.target != inner
           and (e.target in handlers) == (to_handler_of == "with")][-1]
    table[n] = bc.Entry(src.start, src.end, dst.target, dst.depth, dst.lasti)
    return bc.with_entries(code, table)


# (variant name, corpus function, how): every variant must get flags.
DAMAGED = [
    ("store-uncovered", "assign", lambda c: uncover_one(c, "STORE_FAST")),
    ("load-const-uncovered", "assign", lambda c: uncover_one(c, "LOAD_CONST")),
    ("pop-top-uncovered", "calls", lambda c: uncover_one(c, "POP_TOP")),
    ("with-entries-dropped", "assign", drop_with),
    ("with-entries-dropped", "branches", drop_with),
    ("with-entries-dropped", "for_if_none", drop_with),
    ("depth-below-exit", "try_around_with", lambda c: retarget(c, "try")),
    ("depth-below-exit", "nested", lambda c: retarget(c, "with")),
]


def variants():
    """[(label, function, shape)]: the corpus as compiled, then the damaged ones."""
    fs = dict(corpus())
    out = [(name, f, name) for name, f in fs.items()]
    for what, name, how in DAMAGED:
        f = fs[name]
        code = how(f.__code__)
        g = types.FunctionType(code, f.__globals__, name, f.__defaults__)
        out.append((f"{name}[{what}]", g, name))
    return out


# --- pyverify -------------------------------------------------------------------------

RUN = re.compile(r"^(\d+) (\w+)(?: \.\. (\d+) (\w+) \((\d+) instructions\))? runs in the body")
RAISED = re.compile(r"raised by (\d+) (\w+)")


def logical(code):
    """{offset: the offset of the instruction it belongs to} (an EXTENDED_ARG
    prefix belongs to the instruction after it), and that instruction list."""
    insts = instructions(code)
    out, pending = {}, []
    real = []
    for i in insts:
        pending.append(i.offset)
        if i.opname != "EXTENDED_ARG":
            for o in pending:
                out[o] = i.offset
            pending = []
            real.append(i)
    return out, real


def pyverify_flags(pyverify, codes, tmp, errors):
    """{label: (flagged offsets, {offset another check reports: why}, [messages])}:
    with-body-uncovered leaves out what context-not-exited (the instruction raises
    by itself) and with-handler-mismatch (the body's first instruction) report."""
    paths = {}
    for n, (label, code) in enumerate(codes):
        p = os.path.join(tmp, f"c{n}.marshal")
        with open(p, "wb") as fh:
            fh.write(marshal.dumps(code))
        paths[p] = (label, code)
    out = {label: (set(), {}, []) for label, _ in codes}
    proc = subprocess.run([pyverify, "check", "--format=json",
                           "--checks=with-body-uncovered,context-not-exited,with-handler-mismatch",
                           "--python-version=" + VERSION, *paths],
                          capture_output=True, text=True)
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        errors.append(f"pyverify: no JSON report ({proc.returncode}): {proc.stderr[-500:]}")
        return out
    for e in report.get("input_errors", []):
        errors.append(f"pyverify input error: {e}")
    for d in report["diagnostics"]:
        label, code = paths[os.path.abspath(d["file"])] if os.path.abspath(d["file"]) in paths \
            else paths[d["file"]]
        if d["code"] != code.co_qualname:
            continue  # a nested code object (a lambda, a comprehension)
        flagged, raising, msgs = out[label]
        texts = [d["message"]] + [n["message"][len("also: "):] for n in d.get("notes", [])
                                  if n["message"].startswith("also: ")]
        if d["check"] == "context-not-exited":
            for t in texts:
                m = RAISED.search(t)
                if m:
                    raising[int(m.group(1))] = "raises itself (context-not-exited)"
            continue
        if d["check"] == "with-handler-mismatch":
            raising.setdefault(d["offset"], "with-handler-mismatch reported there")
            continue
        if d["check"] != "with-body-uncovered":
            continue
        _, real = logical(code)
        offs = [i.offset for i in real]
        for t in texts:
            m = RUN.match(t)
            if not m:
                errors.append(f"{label}: unparsed with-body-uncovered message: {t[:120]}")
                continue
            a = int(m.group(1))
            b = int(m.group(3)) if m.group(3) else a
            n = int(m.group(5)) if m.group(5) else 1
            run = [o for o in offs if a <= o <= b]
            if len(run) != n:
                errors.append(f"{label}: run {a}..{b} has {len(run)} instructions, "
                              f"pyverify says {n}")
            flagged.update(run)
            msgs.append(t.split(": an exception")[0])
    return out


# --- injection ------------------------------------------------------------------------

def calls_aenter(insts, k):
    """Instruction k calls __aenter__: BEFORE_ASYNC_WITH, or 3.14's CALL 0
    after LOAD_SPECIAL __aenter__ (there is no BEFORE_ASYNC_WITH)."""
    i = insts[k]
    return i.opname == "BEFORE_ASYNC_WITH" or (
        i.opname == "CALL" and k > 0 and insts[k - 1].opname == "LOAD_SPECIAL"
        and insts[k - 1].argrepr == "__aenter__")


def body_starts(code):
    """{offset of the instruction that calls __aenter__ (its caller's f_lasti):
    the first instruction after the await of __aenter__'s result} (3.11:
    SEND's target; 3.12+: after its END_SEND)."""
    insts = instructions(code)
    out = {}
    for k, i in enumerate(insts):
        if calls_aenter(insts, k):
            send = next(j for j in insts[k:] if j.opname == "SEND")
            t = next(n for n, j in enumerate(insts) if j.offset == send.argval)
            if insts[t].opname == "END_SEND":
                t += 1
            out[i.offset] = insts[t].offset
    return out


class Tracer:
    """Traces \\p code only, with opcode events on. With \\p target: raises Injected
    on the first \\p mode event at that offset while a context manager is
    entered."""

    def __init__(self, code, mode, cms, target=None):
        self.code, self.mode, self.cms, self.target = code, mode, cms, target
        self.starts = body_starts(code)
        self.events = []   # (event, offset, prev opcode offset, entered)
        self.prev = None
        self.exc = None
        self.active = []

    def glob(self, frame, event, arg):
        if frame.f_code is self.code:
            frame.f_trace_opcodes = self.mode == "opcode" or self.target is None
            return self.local
        return None

    def local(self, frame, event, arg):
        if event not in ("line", "opcode"):
            return self.local
        off = frame.f_lasti
        for cm in self.cms:
            if cm.pending and (event == "line" or off == self.starts.get(cm.enter_at)):
                cm.pending = False
        entered = [cm for cm in self.cms if cm.entered()]
        self.events.append((event, off, self.prev, bool(entered)))
        if event == "opcode":
            self.prev = off
        if (self.target is not None and self.exc is None and event == self.mode
                and off == self.target and entered):
            self.active = entered
            self.exits_before = {cm.name: cm.exits for cm in self.cms}
            self.exc = Injected()
            raise self.exc
        return self.local


def fresh_cms(name):
    first = ACM("cm") if name.startswith("async_") else CM("cm")
    return [first, CM("cm2"), Suppressing("sup")]


def drive(f, name, cms):
    r = f(*cms)
    if not isinstance(r, (types.GeneratorType, types.CoroutineType)):
        return r
    # "thrown" shapes: throw Thrown into every suspension; the sub-iterator
    # returns from it (CLEANUP_THROW's StopIteration path). crt's thrown_gen:
    # ValueError into the first, which its suppressing with swallows.
    try:
        r.send(None)
        if name == "thrown_gen":
            r.throw(ValueError)
        while True:
            if "thrown" in name and name != "thrown_gen":
                r.throw(Thrown)
            else:
                r.send(None)
    except StopIteration:
        pass
    except (Thrown, ValueError):  # an injection ran it elsewhere
        pass
    finally:
        r.close()


def traced_run(f, name, mode, target=None):
    cms = fresh_cms(name)
    t = Tracer(f.__code__, mode, cms, target)
    sys.settrace(t.glob)
    try:
        drive(f, name, cms)
    except Injected:
        pass
    finally:
        sys.settrace(None)
    return t, cms


def inject(f, name, mode, target):
    traced_run(f, name, mode)  # throw-away (3.12.1, 3.13.0)
    t, cms = traced_run(f, name, mode, target)
    if t.exc is None:
        return None
    skipped = [cm.name for cm in t.active if cm.exits == t.exits_before[cm.name]]
    return {"active": [cm.name for cm in t.active], "skipped": skipped}


def exit_sequence_offsets(real):
    """Offsets of every [SWAP 2] LOAD_CONST None x3 [PRECALL 2] CALL 2 (3.14:
    [SWAP 3; SWAP 2] LOAD_CONST None x3; CALL 3 -- LOAD_SPECIAL left __exit__
    and its self, which the call passes as the first argument)."""
    out = set()
    nargs = 3 if PY >= (3, 14) else 2
    for k, i in enumerate(real):
        if i.opname != "CALL" or i.arg != nargs:
            continue
        j = k - 1
        if j >= 0 and real[j].opname == "PRECALL" and real[j].arg == 2:
            j -= 1
        consts = real[j - 2:j + 1] if j >= 2 else []
        # 3.15 loads None with LOAD_COMMON_CONSTANT.
        if len(consts) == 3 and all(c.opname in ("LOAD_CONST", "LOAD_COMMON_CONSTANT")
                                    and c.argval is None for c in consts):
            seq = real[j - 2:k + 1]
            if j - 3 >= 0 and real[j - 3].opname == "SWAP" and real[j - 3].arg == 2:
                seq = real[j - 3:k + 1]
                if PY >= (3, 14) and j - 4 >= 0 and real[j - 4].opname == "SWAP" \
                        and real[j - 4].arg == 3:
                    seq = real[j - 4:k + 1]
            out |= {s.offset for s in seq}
    return out


def rule_excluded(real, flagged_raising):
    """{offset: why} for what the check leaves out by its rule."""
    out = {}
    for k, i in enumerate(real):
        if i.opname == "NOP":
            out[i.offset] = "NOP"
        elif i.opname == "WITH_EXCEPT_START" or (
                i.opname == "PUSH_EXC_INFO" and k + 1 < len(real)
                and real[k + 1].opname == "WITH_EXCEPT_START"):
            out[i.offset] = "with handler start"  # a try's PUSH_EXC_INFO is asserted
    for o in exit_sequence_offsets(real):
        out[o] = "exit sequence"
    out.update(flagged_raising)
    return out


def measure(label, f, shape, flags, rows, errors, verbose):
    code = f.__code__
    name = f.__name__
    to_inst, real = logical(code)
    at = {i.offset: i for i in real}
    flagged, raising, _msgs = flags
    excluded = rule_excluded(real, raising)
    # Where events come while a context is entered (two runs: 3.12.1 / 3.13.0
    # may deliver none in the first).
    events = []
    for _ in range(2):
        t, _ = traced_run(f, name, "opcode")
        events = t.events
    for mode in ("opcode", "line"):
        targets, by_jump, seen = [], set(), set()
        for ev, off, prev, entered in events:
            if ev != mode or off in seen:
                continue
            seen.add(off)
            if not entered:
                continue  # the first event there is not in a with: not injected
            targets.append(off)
            j = at.get(to_inst.get(prev))
            if (ev == "line" and j is not None and "BACKWARD" in j.opname
                    and "NO_INTERRUPT" not in j.opname
                    and crt.line_of(code, prev) == crt.line_of(code, off)):
                by_jump.add(off)
        for off in targets:
            r = inject(f, name, mode, off)
            if r is None:
                errors.append(f"{label} {mode}+{off}: the injection did not fire")
                continue
            o = to_inst[off]
            i = at[o]
            is_flagged = o in flagged
            row = {"variant": label, "shape": shape, "mode": mode, "offset": off,
                   "instruction": o, "opname": i.opname, "flagged": is_flagged,
                   "skipped": r["skipped"], "active": r["active"]}
            if is_flagged:
                row["kind"] = "flagged"
                row["agree"] = bool(r["skipped"])
            elif off in by_jump and PY >= (3, 12):
                row["kind"] = "same-line backward jump"
            elif o in excluded:
                row["kind"] = "excluded: " + excluded[o]
            else:
                row["kind"] = "covered"
                row["agree"] = not r["skipped"]
            rows.append(row)
            if verbose:
                print(label, mode, off, i.opname, row["kind"], r["skipped"], file=sys.stderr)
    # What pyverify flags but no run reached.
    reached = {to_inst[r["offset"]] for r in rows if r["variant"] == label}
    return sorted(flagged - reached)


# --- main -----------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pyverify")
    ap.add_argument("--verbose", action="store_true", help="every injection, on stderr")
    ap.add_argument("--json", action="store_true",
                    help="every injection, as JSON (the summary on stderr)")
    args = ap.parse_args()
    errors = []
    vs = variants()
    with tempfile.TemporaryDirectory() as tmp:
        flags = pyverify_flags(args.pyverify, [(label, f.__code__) for label, f, _ in vs],
                               tmp, errors)
    rows, unreached = [], {}
    for label, f, shape in vs:
        miss = measure(label, f, shape, flags[label], rows, errors, args.verbose)
        if miss:
            unreached[label] = miss
    v = "%d.%d.%d" % sys.version_info[:3]
    lines = []
    say = lines.append
    dis_rows = [r for r in rows if r.get("agree") is False]
    for mode in ("opcode", "line"):
        m = [r for r in rows if r["mode"] == mode]
        fl = [r for r in m if r["flagged"]]
        cov = [r for r in m if r["kind"] == "covered"]
        exc = [r for r in m if r["kind"].startswith("excluded")]
        slb = [r for r in m if r["kind"] == "same-line backward jump"]
        say(f"{v} {mode} events: {len(m)} injected in with bodies; pyverify flagged "
            f"{len(fl)} ({sum(bool(r['skipped']) for r in fl)} skipped __exit__); not "
            f"flagged {len(cov)} ({sum(not r['skipped'] for r in cov)} ran __exit__); "
            f"excluded by the rule {len(exc)} "
            f"({sum(bool(r['skipped']) for r in exc)} skipped __exit__); same-line "
            f"backward jumps {len(slb)} ({sum(bool(r['skipped']) for r in slb)} skipped); "
            f"agreements {sum(r.get('agree') is True for r in m)}, disagreements "
            f"{sum(r.get('agree') is False for r in m)}")
    kinds = {}
    for r in rows:
        if r["kind"].startswith("excluded") and r["skipped"]:
            kinds.setdefault(r["kind"][len("excluded: "):], set()).add(r["opname"])
    say(f"{v} excluded by the rule, __exit__ skipped at: "
        + "; ".join(f"{k}: {', '.join(sorted(o))}" for k, o in sorted(kinds.items())))
    byshape = {}
    for r in rows:
        if r["flagged"] and r["skipped"] and r["mode"] == "opcode":
            byshape.setdefault(r["variant"], set()).add(f"{r['instruction']} {r['opname']}")
    for label, offs in byshape.items():
        say(f"{v} flagged, __exit__ skipped: {label}: {', '.join(sorted(offs))}")
    for label, miss in unreached.items():
        say(f"{v} flagged, not reached by the run: {label}: {miss}")
    for r in dis_rows:
        said = "flagged" if r["flagged"] else "not flagged"
        did = f"skipped __exit__ of {r['skipped']}" if r["skipped"] else "ran every __exit__"
        errors.append(f"disagreement: {r['variant']} ({r['mode']} event) {r['instruction']} "
                      f"{r['opname']}: pyverify {said}, the interpreter {did}")
    if not any(r["flagged"] and r["skipped"] for r in rows):
        errors.append("no flagged instruction was injected: the test shows nothing")
    for what, name, _ in DAMAGED:
        if not any(r["flagged"] and r["skipped"] for r in rows
                   if r["variant"] == f"{name}[{what}]"):
            errors.append(f"{name}[{what}]: no flagged instruction skipped __exit__")
    if PY == (3, 13):
        for name in sorted(STDLIB_SHAPES):
            if name not in byshape:
                errors.append(f"3.13 {name}: no flagged instruction where __exit__ is "
                              f"skipped (the stdlib findings' shape)")
    if PY in ((3, 14), (3, 15)):  # 3.15.0rc1 (measured): 3.14's shapes
        for name in sorted(STDLIB_SHAPES_314):
            if name not in byshape:
                errors.append(f"{VERSION} {name}: no flagged instruction where __exit__ is "
                              f"skipped (the compiler's uncovered instructions)")
    if PY == (3, 12):
        for name in sorted(STDLIB_SHAPES_312):
            if name not in byshape:
                errors.append(f"3.12 {name}: no flagged instruction where __exit__ is "
                              f"skipped (the stdlib findings' shape)")
    if args.json:
        print(json.dumps(rows, indent=1))
    out = sys.stderr if args.json else sys.stdout
    for line in lines:
        print(line, file=out)
    for e in errors:
        print("FAIL:", e, file=out)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
