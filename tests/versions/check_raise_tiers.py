"""Where exceptions that an instruction does not raise by itself are raised, and
where the interpreter looks them up in the exception table: the fact base of
pyverify's raise tiers, measured on the running interpreter.

    python3.X tests/versions/check_raise_tiers.py [--json] [--verbose]

Tiers: (1) the instruction raises by itself (not measured here); (2) the eval
breaker raises (a signal handler, _thread.interrupt_main(), an asynchronous
exception set with PyThreadState_SetAsyncExc); (3) a trace function raises
(sys.settrace: an 'opcode' event with frame.f_trace_opcodes, a 'line' event;
pdb's quit is BdbQuit from a line event).

A. Opcode events. A corpus of functions with `with` statements (CORPUS) is
   run under sys.settrace with f_trace_opcodes. For every instruction that
   gets an opcode event, the function is run again with a trace function that
   raises on the first opcode event at that instruction. Recorded: which
   opcodes never get an event; the f_lasti of the event and the tb_lasti of
   the frame's traceback entry (both must be the instruction's offset); which
   of the context managers entered at that moment had __exit__ called. The
   exits must be the ones the exception table gives for a lookup at the
   instruction's offset (handler after handler, see `predicted_exits`).
B. Line events: the same, raising on the first 'line' event at each offset
   that gets one; whether that offset is the first instruction of its line.
   A line event that a backward jump to the same line delivers (3.12 and 3.13:
   from the jump's JUMP monitoring event) is told apart: what the trace
   function raises there leaves the frame without any of its handlers.
C. The instructions that run while a context is entered (after __enter__
   returned, before __exit__ is called) but where a raise skips __exit__:
   what CPython's compiler leaves outside the with's own handler (the exit
   call sequence, the handler's PUSH_EXC_INFO / WITH_EXCEPT_START, ...).
D. The eval breaker. An exception is made pending without an eval-breaker
   check in between (from C: a ctypes call of PyThreadState_SetAsyncExc
   driven by map(), sorted(key=...); or from another thread while the main
   thread spins in a loop whose only check is its back edge), and recorded:
   the instruction it is raised at (tb_lasti), and the code unit the
   exception table is searched at -- found by giving the with's body entry
   one code unit only, for each candidate unit, and seeing for which one
   __exit__ runs.

Each interpreter's facts are asserted (EXPECTED, below); the script exits 1
listing every measured fact that differs. 3.12.1's first sys.settrace of a
process may deliver no opcode events, and 3.13.0 takes f_trace_opcodes set in
the call event into account at the next entry only (docs/rewriter.md,
"Tracing in the oracle"): every injected run is preceded by a throw-away
traced run of the same code, and an injection counts only if it fired.
"""
import _thread
import argparse
import ctypes
import dis
import functools
import itertools
import json
import operator
import os
import sys
import threading
import time
import types

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "lit", "Inputs"))
import breakcode as bc  # noqa: E402  (the exception-table codec)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import breaker_inject  # noqa: E402  (no threads in Pyodide: its interrupt buffer)

PY = sys.version_info[:2]
VERSION = "%d.%d" % PY


# --- the asserted facts ---------------------------------------------------------------

# Measured on 3.11.2, 3.12.1 and 3.13.0 (docs/versions.md, "Raise tiers").
_CALL_LAST_UNIT = ["CALL", "its last cache unit"]
_BREAKER_COMMON = {
    "call_method_kw/c": _CALL_LAST_UNIT,
    "call_other/f": _CALL_LAST_UNIT,
    "call_ex/c": ["CALL_FUNCTION_EX", "the instruction"],
    "resume_after_yield/resume": ["RESUME", "the instruction"],
}
_BACK_EDGE_TARGET = ["JUMP_BACKWARD", "the jump target - 1"]
_BACK_EDGE_ITSELF = ["JUMP_BACKWARD", "its last cache unit"]  # its one cache unit
_EXIT_SEQUENCE = ["CALL", "LOAD_CONST", "NOP", "PUSH_EXC_INFO", "SWAP", "WITH_EXCEPT_START"]
EXPECTED = {
    (3, 11): {
        "no_opcode_event": ["MAKE_CELL", "RESUME", "RETURN_GENERATOR"],
        # 3.11 dispatches the instruction after EXTENDED_ARG without tracing it.
        "extended_arg_event_prefix_and_instruction": [True, False],
        "opcode_raise_at_instruction": True,
        "line_event_not_at_line_start": ["FOR_ITER", "LOAD_FAST", "PUSH_EXC_INFO"],
        "backward_jump_line_events": ["FOR_ITER", "LOAD_FAST"],
        "backward_jump_line_raise": "looked up at the event's instruction",
        "uncovered_while_entered": sorted(_EXIT_SEQUENCE + ["PRECALL"]),
        "breaker": dict(_BREAKER_COMMON, **{
            # A specialized PRECALL makes the call itself and skips the CALL.
            "call_builtin_kw/c": ["PRECALL", "the CALL's last cache unit"],
            "call_class/c": ["PRECALL", "the CALL's last cache unit"],
            "while_true/thread": _BACK_EDGE_TARGET,
            "while_true/signal": _BACK_EDGE_TARGET,
            "while_cond/thread": ["POP_JUMP_BACKWARD_IF_TRUE", "the jump target - 1"],
            "for_repeat/thread": _BACK_EDGE_TARGET}),
    },
    (3, 12): {
        # END_FOR is never executed: an exhausted FOR_ITER jumps over it.
        "no_opcode_event": ["END_FOR", "MAKE_CELL", "RESUME", "RETURN_GENERATOR"],
        "extended_arg_event_prefix_and_instruction": [True, True],
        "opcode_raise_at_instruction": True,
        "line_event_not_at_line_start": ["FOR_ITER", "LOAD_FAST"],
        "backward_jump_line_events": ["FOR_ITER", "LOAD_FAST"],
        "backward_jump_line_raise": "leaves the frame without a handler",
        "uncovered_while_entered": sorted(_EXIT_SEQUENCE + ["JUMP_BACKWARD"]),
        "breaker": dict(_BREAKER_COMMON, **{
            "call_builtin_kw/c": _CALL_LAST_UNIT,
            "call_class/c": _CALL_LAST_UNIT,
            "while_true/thread": _BACK_EDGE_TARGET,
            "while_true/signal": _BACK_EDGE_TARGET,
            "while_cond/thread": _BACK_EDGE_TARGET,
            "for_repeat/thread": _BACK_EDGE_TARGET}),
    },
    (3, 13): {
        "no_opcode_event": ["END_FOR", "MAKE_CELL", "RESUME", "RETURN_GENERATOR"],
        "extended_arg_event_prefix_and_instruction": [True, True],
        "opcode_raise_at_instruction": True,
        "line_event_not_at_line_start": ["FOR_ITER", "JUMP_BACKWARD"],
        "backward_jump_line_events": ["JUMP_BACKWARD"],
        "backward_jump_line_raise": "leaves the frame without a handler",
        "uncovered_while_entered": sorted(_EXIT_SEQUENCE + ["JUMP_BACKWARD"]),
        "breaker": dict(_BREAKER_COMMON, **{
            "call_builtin_kw/c": ["CALL_KW", "the instruction"],  # CALL_KW has no cache
            "call_method_kw/c": ["CALL_KW", "the instruction"],
            "call_class/c": _CALL_LAST_UNIT,
            "while_true/thread": _BACK_EDGE_ITSELF,
            "while_true/signal": _BACK_EDGE_ITSELF,
            "while_cond/thread": _BACK_EDGE_ITSELF,
            "for_repeat/thread": _BACK_EDGE_ITSELF}),
    },
    # Measured on 3.14.2 (Pyodide, no threads: the back edges are interrupted
    # by a signal handler the eval breaker runs, breaker_inject.py).
    (3, 14): {
        "no_opcode_event": ["END_FOR", "MAKE_CELL", "RESUME", "RETURN_GENERATOR"],
        "extended_arg_event_prefix_and_instruction": [True, True],
        "opcode_raise_at_instruction": True,
        "line_event_not_at_line_start": ["FOR_ITER", "JUMP_BACKWARD"],
        "backward_jump_line_events": ["JUMP_BACKWARD"],
        "backward_jump_line_raise": "leaves the frame without a handler",
        # The compiler leaves NOT_TAKEN after a conditional jump outside the
        # with's entry, and `while True:`'s closing test and back edge.
        "uncovered_while_entered": sorted(_EXIT_SEQUENCE + [
            "JUMP_BACKWARD", "NOT_TAKEN", "POP_JUMP_IF_FALSE"]),
        "breaker": dict(_BREAKER_COMMON, **{
            "call_builtin_kw/c": ["CALL_KW", "its last cache unit"],  # 3.14: caches
            "call_method_kw/c": ["CALL_KW", "its last cache unit"],
            "call_class/c": _CALL_LAST_UNIT,
            "while_true/signal": _BACK_EDGE_ITSELF,
            "while_cond/signal": _BACK_EDGE_ITSELF,
            "for_repeat/signal": _BACK_EDGE_ITSELF}),
    },
}
# Measured on 3.15.0rc1 (Pyodide, as 3.14): 3.14's facts, but RESUME and
# CALL_FUNCTION_EX have a cache unit now (the breaker's raise is looked up at
# it), None is LOAD_COMMON_CONSTANT in the with's exit sequence, and a
# line event's raise at a same-line backward jump is looked up at the
# JUMP_BACKWARD (3.12 to 3.14: no handler of the frame ran).
EXPECTED[(3, 15)] = dict(EXPECTED[(3, 14)], **{
    "backward_jump_line_raise": "looked up at the event's instruction",
    "uncovered_while_entered": sorted(
        [n for n in EXPECTED[(3, 14)]["uncovered_while_entered"] if n != "LOAD_CONST"]
        + ["LOAD_COMMON_CONSTANT"]),
    "breaker": dict(EXPECTED[(3, 14)]["breaker"], **{
        "call_ex/c": ["CALL_FUNCTION_EX", "its last cache unit"],
        "resume_after_yield/resume": ["RESUME", "its last cache unit"]}),
})


# --- context managers -----------------------------------------------------------------

class Injected(BaseException):
    """What the trace function raises; no `except Exception` catches it."""


class AsyncExc(BaseException):
    """What PyThreadState_SetAsyncExc raises."""


class CM:
    suppress = False

    def __init__(self, name):
        self.name = name
        self.depth = 0          # entered and not exited
        self.exits = 0
        self.enter_at = None    # the caller's f_lasti at __enter__: its BEFORE_WITH (CALL)

    def __enter__(self):
        self.depth += 1
        self.enter_at = sys._getframe(1).f_lasti
        return self

    def __exit__(self, *exc):
        self.depth -= 1
        self.exits += 1
        return self.suppress


class Suppressing(CM):
    suppress = True


class Obj:
    def m(self, *a, **k):
        return a


def h(*a, **k):
    return len(a) + len(k)


# --- the corpus -----------------------------------------------------------------------
#
# Every function takes (cm, cm2, sup): two ordinary context managers and one that
# suppresses what reaches its __exit__.

MANY = 300  # locals: forces EXTENDED_ARG on LOAD_FAST / STORE_FAST

CORPUS_SRC = '''
G = 0

def assign(cm, cm2, sup):
    global G
    o = Obj(); l = [0, 0]; d = {}
    with cm:
        a = 1
        b = a
        G = b
        G = G + 1
        o.x = a
        l[0] = o.x
        d["k"] = l[0]
        y = l[0:1]
        l[0:1] = y
        l[a] += 1
        o.x += 1
    return a

def arith(cm, cm2, sup):
    a, b = 3, 4
    with cm:
        c = a * b - a // b % 2 ** 1
        c = -c
        c = +a
        c = ~a
        e = not c
        f = a < b
        g = a is b
        i = a in (1, 2, 3)
        j = a == b != c
        k = (a, b)
        m = [a, b]
        n = {a: b}
        p = {a, b}
    return c

def calls(cm, cm2, sup):
    o = Obj()
    with cm:
        h()
        h(1, 2)
        h(1, k=2)
        o.m(1)
        o.m(1, k=2)
        h(*[1], **{"k": 2})
        h(*[1])
        len([1])
        r = h()
    return r

def branches(cm, cm2, sup, flag=True, none=None):
    x = 0
    with cm:
        if flag:
            x = 1
        else:
            x = 2
        if not flag:
            x = 3
        x = 4 if flag else 5
        y = flag and x
        z = flag or x
        if none is None:
            x = 6
        if none is not None:
            x = 7
        assert flag
    return x

def for_loop(cm, cm2, sup):
    t = 0
    with cm:
        for i in range(2):
            t += i
    return t

def while_loop(cm, cm2, sup):
    n = 2
    with cm:
        while n:
            n -= 1
    return n

def while_true(cm, cm2, sup):
    n = 2
    with cm:
        while True:
            n -= 1
            if not n:
                break
    return n

def with_in_loop(cm, cm2, sup):
    for i in range(3):
        with cm:
            if i == 0:
                continue
            if i == 1:
                break
    return i

def loop_in_with_break(cm, cm2, sup):
    with cm:
        for i in range(3):
            if i == 0:
                continue
            break
    return i

def try_in_with(cm, cm2, sup):
    with cm:
        try:
            x = 1 // 0
        except ZeroDivisionError:
            x = 0
        try:
            x = 1 // 0
        except ZeroDivisionError as e:
            x = 3
        try:
            x = 2
        finally:
            x = x + 1
    return x

def nested(cm, cm2, sup):
    with cm:
        with cm2:
            x = 1
        y = 2
    return x + y

def multi_item(cm, cm2, sup):
    with cm as a, cm2 as b:
        x = 1
    return x

def return_in_with(cm, cm2, sup):
    with cm:
        x = 1
        return x

def return_const_in_with(cm, cm2, sup):
    with cm:
        return 1

def fstring_unpack(cm, cm2, sup):
    v = 5
    with cm:
        s = f"{v}-{v!r:>4}"
        a, b = 1, 2
        a, *b = [1, 2, 3]
        (a, b), c = (1, 2), 3
        a, b = b, a
    return s

def comprehensions(cm, cm2, sup):
    with cm:
        l = [i for i in range(2)]
        s = {i for i in range(2)}
        g = list(i for i in range(2))
        d = {i: i for i in range(2)}
        f = lambda: 1
    return l

def delete(cm, cm2, sup):
    global G2
    o = Obj(); l = [1, 2]
    with cm:
        x = 1
        del x
        o.y = 1
        del o.y
        del l[0]
        G2 = 1
        del G2

def passes(cm, cm2, sup):
    with cm:
        pass
    with cm:
        pass
        x = 1
        pass
    return x

def gen(cm, cm2, sup):
    with cm:
        x = yield 1
        yield from [2, 3]
    yield 4

def closure(cm, cm2, sup):
    c = 1
    with cm:
        c = c + 1
        f = lambda: c
        c = f()
    return c

def imports(cm, cm2, sup):
    with cm:
        import os
        from os import path
    return path

def raising_body(cm, cm2, sup):
    try:
        with cm:
            raise ValueError
    except ValueError:
        pass
    with sup:
        x = 1 // 0
    return 1

def same_line_loops(cm, cm2, sup):
    n = 2
    with cm:
        for i in range(2): n += 1
        while n > 2: n -= 1
    return n

def failing_assert(cm, cm2, sup):
    with sup:
        assert not cm
    return 1

def thrown_gen(cm, cm2, sup):
    with sup:
        yield from [1, 2]
    yield 3

def suppressed_return(cm, cm2, sup):
    with sup:
        raise ValueError
    return 1

def extended(cm, cm2, sup):
    PROLOGUE
    with cm:
        vLAST = v0
        v0 = vLAST
    return v0
'''.replace("PROLOGUE", "; ".join("v%d = 0" % i for i in range(MANY))).replace(
    "LAST", str(MANY - 1))

# Functions whose prologue is only there to make a shape: injected only from their first
# BEFORE_WITH on (the prologue's instructions still count for the opcode-event census).
INJECT_FROM_WITH = {"extended"}


def corpus():
    ns = {"Obj": Obj, "h": h}
    exec(compile(CORPUS_SRC, "<raise-tiers corpus>", "exec"), ns)
    return [(name, f) for name, f in ns.items()
            if isinstance(f, types.FunctionType) and f.__code__.co_filename.startswith("<raise")]


# --- code helpers ---------------------------------------------------------------------

def instructions(code):
    return [i for i in dis.get_instructions(code) if i.opname != "CACHE"]


def size_of(insts, k, code):
    end = insts[k + 1].offset if k + 1 < len(insts) else len(code.co_code)
    return end - insts[k].offset


def line_starts(code):
    """Offsets where dis says a line starts."""
    out = set()
    for i in dis.get_instructions(code):
        if PY >= (3, 13):
            if i.starts_line:
                out.add(i.offset)
        elif i.starts_line is not None:
            out.add(i.offset)
    return out


def lookup(table, off):
    for e in table:
        if e.start <= off < e.end:
            return e
    return None


def enters_with(insts, k):
    """Instruction k calls __enter__ (the caller's f_lasti in it): BEFORE_WITH,
    or 3.14's CALL 0 after LOAD_SPECIAL __enter__ (no BEFORE_WITH there)."""
    i = insts[k]
    return i.opname == "BEFORE_WITH" or (
        i.opname == "CALL" and k > 0 and insts[k - 1].opname == "LOAD_SPECIAL"
        and insts[k - 1].argrepr == "__enter__")


def with_handlers(code):
    """{handler offset: the BEFORE_WITH offset (3.14: the CALL of __enter__)}
    for every with of \\p code."""
    insts = instructions(code)
    table = bc.entries(code)
    out = {}
    for k, i in enumerate(insts):
        if enters_with(insts, k):
            e = lookup(table, insts[k + 1].offset)
            if e is not None:
                out[e.target] = i.offset
    return out


def predicted_exits(code, off, cms):
    """The context managers whose __exit__ a raise looked up at \\p off calls: the
    handler found there, then the handler found at that handler's first instruction
    (which a with's or an except's unmatched path re-raises under), and so on, until
    no entry covers it or a suppressing context manager's handler is reached."""
    table = bc.entries(code)
    handlers = with_handlers(code)
    by_enter = {}
    for cm in cms:
        if cm.depth > 0:
            by_enter[cm.enter_at] = cm
    out, seen = [], set()
    while True:
        e = lookup(table, off)
        if e is None or e.target in seen:
            return out
        seen.add(e.target)
        cm = by_enter.get(handlers.get(e.target))
        if cm is not None:
            out.append(cm)
            if cm.suppress:
                return out
        off = e.target


# --- tracing --------------------------------------------------------------------------

class Tracer:
    """Traces \\p code only. mode 'opcode' turns on opcode events; \\p target: raise
    Injected on the first \\p mode event at that offset."""

    def __init__(self, code, mode, target=None, cms=()):
        self.code, self.mode, self.target, self.cms = code, mode, target, cms
        self.events = []
        self.exc = None
        self.fired_at = None
        self.active = None

    def glob(self, frame, event, arg):
        if frame.f_code is self.code:
            frame.f_trace_opcodes = self.mode == "opcode"
            return self.local
        return None

    def local(self, frame, event, arg):
        if event in ("line", "opcode"):
            self.events.append((event, frame.f_lasti))
            if (self.target is not None and self.exc is None and event == self.mode
                    and frame.f_lasti == self.target):
                self.fired_at = frame.f_lasti
                self.active = [cm for cm in self.cms if cm.depth > 0]
                self.predicted = predicted_exits(self.code, frame.f_lasti, self.cms)
                self.exits_before = {cm.name: cm.exits for cm in self.cms}
                self.exc = Injected()
                raise self.exc
        return self.local


def fresh_cms():
    return [CM("cm"), CM("cm2"), Suppressing("sup")]


def call(f, cms):
    r = f(*cms)
    if isinstance(r, types.GeneratorType):
        if f.__name__.startswith("thrown"):  # throw() into its yield from
            try:
                next(r)
                r.throw(ValueError)
            except (ValueError, StopIteration):  # an injection ran it elsewhere
                pass
        r = list(r)
    return r


def traced_run(f, mode, target=None):
    cms = fresh_cms()
    t = Tracer(f.__code__, mode, target, cms)
    sys.settrace(t.glob)
    try:
        call(f, cms)
    except Injected:
        pass
    finally:
        sys.settrace(None)
    return t, cms


def tb_lasti(exc, code):
    tb = exc.__traceback__
    out = None
    while tb is not None:
        if tb.tb_frame.f_code is code:
            out = tb.tb_lasti
        tb = tb.tb_next
    return out


def backward_jump_events(f):
    """Offsets whose first 'line' event is delivered by a backward jump to the same
    line: the last opcode event before it is a backward jump on that line."""
    code = f.__code__
    traced_run(f, "opcode")
    t, _ = traced_run(f, "opcode")
    at = {i.offset: i for i in instructions(code)}
    lines = {i.offset: line_of(code, i.offset) for i in at.values()}
    out, seen, prev = set(), set(), None
    for ev, off in t.events:
        if ev == "opcode":
            prev = off
        elif off not in seen:
            seen.add(off)
            j = at.get(prev)
            if (j is not None and "BACKWARD" in j.opname and "NO_INTERRUPT" not in j.opname
                    and lines.get(prev) == lines.get(off)):
                out.add(off)
    return out


def line_of(code, off):
    for start, end, line in code.co_lines():
        if start <= off < end:
            return line
    return None


def inject(f, mode, target):
    """One throw-away traced run, then the injected one. None if it did not fire."""
    traced_run(f, mode)
    t, cms = traced_run(f, mode, target)
    if t.exc is None:
        return None
    exited = [cm.name for cm in t.active if cm.exits > t.exits_before[cm.name]]
    return {"event_lasti": t.fired_at, "tb_lasti": tb_lasti(t.exc, f.__code__),
            "active": [cm.name for cm in t.active], "exited": exited,
            "predicted": [cm.name for cm in t.predicted]}


def measure_tracing(mode, errors, verbose):
    """Part A (mode 'opcode') or B ('line') over the corpus."""
    rows = []          # one per injected instruction
    census = {}        # opname -> [instances, with an event]
    for name, f in corpus():
        code = f.__code__
        insts = instructions(code)
        at = {i.offset: i for i in insts}
        seen = set()
        for _ in range(2):  # the first run may deliver no opcode event (3.12.1, 3.13.0)
            t, _cms = traced_run(f, mode)
            seen |= {off for ev, off in t.events if ev == mode}
        starts = line_starts(code)
        by_jump = backward_jump_events(f) if mode == "line" else set()
        if mode == "opcode":
            for i in insts:
                c = census.setdefault(i.opname, [0, 0])
                c[0] += 1
                c[1] += i.offset in seen
        first_with = min((i.offset for k, i in enumerate(insts) if enters_with(insts, k)),
                         default=0)
        for off in sorted(seen):
            if name in INJECT_FROM_WITH and off < first_with:
                continue
            r = inject(f, mode, off)
            if r is None:
                errors.append(f"{mode} {name}+{off}: the injection did not fire")
                continue
            i = at.get(off)
            k = insts.index(i) if i else None
            r.update({"function": name, "offset": off,
                      "opname": i.opname if i else "?",
                      "after_extended_arg": bool(k and insts[k - 1].opname == "EXTENDED_ARG"),
                      "line_start": off in starts, "by_backward_jump": off in by_jump})
            rows.append(r)
            if r["event_lasti"] != off or r["tb_lasti"] != off:
                errors.append(f"{mode} {name}+{off} {r['opname']}: event at {r['event_lasti']}, "
                              f"tb_lasti {r['tb_lasti']}")
            # 3.12 and 3.13 deliver a backward jump's line event from the jump's JUMP
            # event; what the trace function raises there leaves the frame without any
            # of its handlers (summarize() reports it, EXPECTED asserts it).
            r["escaped"] = r["by_backward_jump"] and not r["exited"] and bool(r["predicted"])
            if not r["escaped"] and sorted(r["exited"]) != sorted(r["predicted"]):
                errors.append(f"{mode} {name}+{off} {r['opname']}: __exit__ of {r['exited']} "
                              f"ran, the table at {off} gives {r['predicted']}")
            if verbose:
                print(mode, name, off, r["opname"], r["active"], r["exited"], file=sys.stderr)
    return rows, census



# --- D: the eval breaker --------------------------------------------------------------

_set_async = ctypes.pythonapi.PyThreadState_SetAsyncExc
_set_async.argtypes = [ctypes.c_ulong, ctypes.py_object]
_set_async.restype = ctypes.c_int

BREAKER_SRC = """
def call_builtin_kw(cm):
    with cm:
        sorted(L, key=KEY)
        x = 1

def call_method_kw(cm):
    l = list(L)
    with cm:
        l.sort(key=KEY)
        x = 1

def call_class(cm):
    with cm:
        list(map(KEY, L))
        x = 1

def call_ex(cm):
    with cm:
        sorted(*A, **K)
        x = 1

def call_other(cm):
    with cm:
        F()
        x = 1

def resume_after_yield(cm):
    with cm:
        yield 1
        x = 2

def while_true(cm):
    n = 0
    with cm:
        while True:
            n = n + 0

def while_cond(cm, n=1):
    with cm:
        while n:
            n = n + 0

def for_repeat(cm):
    with cm:
        for _ in R:
            n = 0
"""

# (function, how the exception is made pending). 'c': from C, in the call itself
# (KEY sets it; warmed up with KEY = id first so that the call is specialized);
# 'f': F, a functools.partial of the ctypes function, sets it (not specialized);
# 'resume': set between two next() of the generator, both called from C;
# 'thread' / 'signal': from another thread while the loop spins
# (PyThreadState_SetAsyncExc / _thread.interrupt_main()).
BREAKER_CASES = [
    ("call_builtin_kw", "c"), ("call_method_kw", "c"), ("call_class", "c"),
    ("call_ex", "c"), ("call_other", "f"), ("resume_after_yield", "resume"),
    ("while_true", "thread"), ("while_true", "signal"), ("while_cond", "thread"),
    ("for_repeat", "thread"),
]
if not breaker_inject.THREADS:
    # Pyodide (3.14, 3.15): no other thread; a signal handler run by the eval
    # breaker at the back edge instead (breaker_inject.py), one case per loop.
    BREAKER_CASES = [(n, "signal" if how == "thread" else how) for n, how in BREAKER_CASES
                     if (n, how) != ("while_true", "signal")]


def breaker_namespace():
    tid = threading.get_ident()
    ns = {"L": [AsyncExc], "KEY": id, "A": ([AsyncExc],), "K": {"key": id},
          "F": functools.partial(_set_async, tid, AsyncExc), "R": itertools.repeat(0)}
    exec(compile(BREAKER_SRC, "<raise-tiers breaker>", "exec"), ns)
    return ns, tid


def breaker_run(f, how, ns, tid, warm):
    """Runs \\p f once with an exception made pending as \\p how says; returns
    (the exception, whether __exit__ ran)."""
    cm = CM("cm")
    if how == "c":
        for _ in range(warm):  # specialize the call, with a key that sets nothing
            ns["KEY"], ns["K"]["key"] = id, id
            f(CM("warm"))
        setter = functools.partial(_set_async, tid)
        ns["KEY"], ns["K"]["key"] = setter, setter
    try:
        if how in ("c", "f"):
            f(cm)
        elif how == "resume":
            g = f(cm)
            next(g)
            list(map(operator.call, [ns["F"], g.__next__]))
        elif not breaker_inject.THREADS:
            breaker_inject.interrupt_back_edge(lambda: f(cm), f.__code__, AsyncExc)
        else:
            if how == "thread":
                fire = functools.partial(_set_async, tid, AsyncExc)
            else:
                fire = _thread.interrupt_main
            th = threading.Thread(target=lambda: (time.sleep(0.03), fire()))
            th.start()
            try:
                f(cm)
            finally:
                th.join()
        return None, cm.exits == 1
    except (AsyncExc, KeyboardInterrupt) as e:
        return e, cm.exits == 1


def measure_breaker(errors):
    ns, tid = breaker_namespace()
    rows = []
    for name, how in BREAKER_CASES:
        f = ns[name]
        code = f.__code__
        insts = instructions(code)
        warm = 64 if how == "c" else 0
        exc, ran = breaker_run(f, how, ns, tid, warm)
        if exc is None:
            errors.append(f"breaker {name} ({how}): nothing was raised")
            continue
        last = tb_lasti(exc, code)
        k = next(n for n, i in enumerate(insts)
                 if i.offset <= last < i.offset + size_of(insts, n, code))
        inst = insts[k]
        # The with body's entry, and the candidate lookup units: the raising
        # instruction's units (with its caches), its neighbours, a jump's target - 1.
        table = bc.entries(code)
        handler = min(with_handlers(code))
        body = [e for e in table if e.target == handler]
        depth = body[0].depth
        end = insts[k + 1].offset + size_of(insts, k + 1, code) if k + 1 < len(insts) \
            else len(code.co_code)
        cands = set(range(inst.offset - 2, end + 2, 2))
        if "JUMP" in inst.opname:
            cands |= {inst.argval - 2, inst.argval}
        hits = []
        for u in sorted(c for c in cands if c >= 0):
            variant = types.FunctionType(
                bc.with_entries(code, [bc.Entry(u, u + 2, handler, depth, True)]), ns,
                name, f.__defaults__)
            e2, ran2 = breaker_run(variant, how, ns, tid, warm)
            if e2 is not None and ran2:
                hits.append(u)
        if len(hits) != 1:
            errors.append(f"breaker {name} ({how}): looked up at {hits}, not one unit")
        unit = hits[0] if hits else None
        if unit is None:
            where = "?"
        elif unit == inst.offset:
            where = "the instruction"
        elif inst.offset < unit < inst.offset + size_of(insts, k, code):
            where = "its last cache unit" if unit == inst.offset + size_of(insts, k, code) - 2 \
                else "a cache unit"
        elif inst.opname == "PRECALL" and unit == end - 2:
            where = "the CALL's last cache unit"
        elif "JUMP" in inst.opname and unit == inst.argval - 2:
            where = "the jump target - 1"
        else:
            where = f"offset {unit}"
        rows.append({"case": name, "how": how, "raised_at": inst.opname,
                     "tb_lasti": last, "offset": inst.offset, "lookup_unit": unit,
                     "lookup": where, "exit_ran_as_compiled": ran})
    return rows


# --- main -----------------------------------------------------------------------------

def extended_arg_events(errors):
    """(EXTENDED_ARG gets an opcode event, the instruction it prefixes gets one)."""
    f = dict(corpus())["extended"]
    insts = instructions(f.__code__)
    traced_run(f, "opcode")
    t, _ = traced_run(f, "opcode")
    seen = {off for ev, off in t.events if ev == "opcode"}
    pairs = {(insts[k - 1].offset in seen, i.offset in seen)
             for k, i in enumerate(insts) if k and insts[k - 1].opname == "EXTENDED_ARG"}
    if len(pairs) != 1:
        errors.append(f"EXTENDED_ARG: mixed events {pairs}")
    return list(next(iter(pairs))) if pairs else None


def escapes(line_rows):
    rows = [r for r in line_rows if r["by_backward_jump"] and r["predicted"]]
    if not rows:
        return "not measured"
    if all(r["escaped"] for r in rows):
        return "leaves the frame without a handler"
    if not any(r["escaped"] for r in rows):
        return "looked up at the event's instruction"
    return "mixed"


def summarize(op_rows, census, line_rows, breaker_rows, ext):
    uncovered = {}
    for r in op_rows:
        if any(n not in r["exited"] for n in r["active"]):
            uncovered.setdefault(r["opname"], []).append(f"{r['function']}+{r['offset']}")
    return {
        "version": "%d.%d.%d" % sys.version_info[:3],
        "opcode_injections": len(op_rows),
        "line_injections": len(line_rows),
        "no_opcode_event": sorted(n for n, (total, ev) in census.items() if ev == 0),
        "extended_arg_event_prefix_and_instruction": ext,
        "opcode_raise_at_instruction": all(r["tb_lasti"] == r["offset"] for r in op_rows),
        "line_event_not_at_line_start": sorted({r["opname"] for r in line_rows
                                                if not r["line_start"]}),
        "backward_jump_line_events": sorted({r["opname"] for r in line_rows
                                             if r["by_backward_jump"]}),
        "backward_jump_line_raise": escapes(line_rows),
        "uncovered_while_entered": sorted(uncovered),
        "uncovered_examples": {k: v[:4] for k, v in sorted(uncovered.items())},
        "breaker": {f"{r['case']}/{r['how']}": [r["raised_at"], r["lookup"]]
                    for r in breaker_rows},
    }


def compare(facts, errors):
    want = EXPECTED.get(PY)
    if want is None:
        errors.append(f"no asserted facts for {VERSION}")
        return
    for key, value in want.items():
        got = facts.get(key)
        if isinstance(value, dict):
            for k, v in value.items():
                if got.get(k) != v:
                    errors.append(f"{key} {k}: measured {got.get(k)}, asserted {v}")
            for k in set(got) - set(value):
                errors.append(f"{key} {k}: measured {got[k]}, nothing asserted")
        elif got != value:
            errors.append(f"{key}: measured {got}, asserted {value}")


def print_table(facts):
    v = facts["version"]
    ext = facts["extended_arg_event_prefix_and_instruction"]
    print(f"{v} tier 3, opcode event ({facts['opcode_injections']} injections): every "
          f"instruction except {', '.join(facts['no_opcode_event'])}; raised and looked up at "
          f"the instruction: {facts['opcode_raise_at_instruction']}; EXTENDED_ARG / the "
          f"instruction it prefixes get an event: {ext}")
    print(f"{v} tier 3, line event ({facts['line_injections']} injections): at the first "
          f"instruction of a line, or {', '.join(facts['line_event_not_at_line_start'])}; "
          f"a backward jump to the same line delivers it at "
          f"{', '.join(facts['backward_jump_line_events'])}, and its raise "
          f"{facts['backward_jump_line_raise']}")
    print(f"{v} entered, outside the with's handler (a raise skips __exit__): "
          f"{', '.join(facts['uncovered_while_entered'])}")
    for case, (op, where) in facts["breaker"].items():
        print(f"{v} tier 2, eval breaker, {case}: raised at {op}, looked up at {where}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true", help="print the measured facts as JSON")
    ap.add_argument("--verbose", action="store_true", help="every injection, on stderr")
    args = ap.parse_args()
    errors = []
    op_rows, census = measure_tracing("opcode", errors, args.verbose)
    line_rows, _ = measure_tracing("line", errors, args.verbose)
    ext = extended_arg_events(errors)
    breaker_rows = measure_breaker(errors)
    facts = summarize(op_rows, census, line_rows, breaker_rows, ext)
    compare(facts, errors)
    if args.json:
        print(json.dumps(facts, indent=1))
    else:
        print_table(facts)
    for e in errors:
        print("FAIL:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
