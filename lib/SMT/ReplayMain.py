# ===- ReplayMain.py - setting up, comparing and reporting the replay runs ---===
#
# The second half of every `pyverify prove --replay` script (after
# ReplayRuntime.py): rebuilds the code objects from the embedded input, makes
# the runs the counterexample describes -- the emitted code object with its
# stand-in arguments and globals, and the original started at the resume
# offset (or the break offset) with the contexts active there -- executes
# them, and prints the two event logs and where they differ.
#
# ===------------------------------------------------------------------------===
import signal

CO_OPTIMIZED, CO_VARARGS, CO_VARKEYWORDS, CO_GENERATOR = 0x1, 0x4, 0x8, 0x20
CO_ASYNC = 0x80 | 0x100 | 0x200
BRANCHES = {n for n in opcode.opmap if "JUMP" in n and "IF" in n} | {"FOR_ITER"}
FRAME_BUILTINS = {"super", "locals", "globals", "vars", "dir", "eval", "exec", "__import__",
                  "__build_class__"}
MODESTACKS = ("__import_pyverify_rewriter_dot_modestack", "__import_torch_dot__dynamo_dot_utils")
# The no-op-enter mode classes (Environment.def, PYV_ENV_CLASS): module, attribute.
NO_ENTER_CLASSES = {"__import_pyverify_rewriter_dot_modestack": "NoEnterMode",
                    "__import_torch_dot__dynamo_dot_polyfills": "NoEnterTorchFunctionMode"}


def load_codes(case):
    """The code objects by target name, and the bundle dict (or None)."""
    data = base64.b64decode(case["input"])
    kind = case["input_kind"]
    if kind == "bundle":
        b = marshal.loads(data)
        codes = {"original": b["original"]}
        if b.get("frame") is not None:
            codes["frame"] = b["frame"]
        for i, r in enumerate(b["resumes"]):
            codes["resume:%d" % i] = r["code"]
        return codes, b
    if kind == "pyc":
        root = marshal.loads(data[16:])
    elif kind == "marshal":
        root = marshal.loads(data)
    else:
        root = compile(data, case["file"], "exec", dont_inherit=True)
    order = []

    def walk(c):  # pre-order over co_consts, each object once (as the prover)
        if any(c is o for o in order):
            return
        order.append(c)
        for k in c.co_consts:
            if isinstance(k, types.CodeType):
                walk(k)
    walk(root)
    codes = {"original": order[0]}
    codes.update(("code:%d" % i, c) for i, c in enumerate(order) if i)
    return codes, None


def build_table(code, rows):
    """offset -> (opname, key, arg, branch target, next offset, sync); an
    EXTENDED_ARG's offset maps to its instruction's (the opcode event of a
    prefixed instruction reports the prefix)."""
    insts = list(dis.get_instructions(code))
    extra, alias = {}, {}
    for k, i in enumerate(insts):
        nxt = insts[k + 1].offset if k + 1 < len(insts) else None
        extra[i.offset] = (i.arg or 0, i.argval if i.opname in BRANCHES else None, nxt)
    for k, i in enumerate(insts):
        if i.opname == "EXTENDED_ARG":
            j = k
            while j < len(insts) and insts[j].opname == "EXTENDED_ARG":
                j += 1
            if j < len(insts):
                alias[i.offset] = insts[j].offset
    table = {}
    for off, name, key, sync in rows:
        arg, tgt, nxt = extra.get(off, (0, None, None))
        table[off] = (name, key, arg, tgt, nxt, bool(sync))
    for a, off in alias.items():
        if off in table:
            table[a] = off
    return table


def stack_shape(code, target):
    """The stack at instruction `target`: 'N' (NULL) or 'V' per slot, bottom
    first, by a walk over the instructions, jumps and exception handlers."""
    insts = {i.offset: i for i in dis.get_instructions(code)}
    order = sorted(insts)
    after = {o: order[k + 1] if k + 1 < len(order) else None for k, o in enumerate(order)}
    handlers = dis._parse_exception_table(code)
    seen, work = {}, [(order[0], ())]
    while work:
        off, st = work.pop()
        if off is None or off in seen or off not in insts:
            continue
        seen[off] = st
        i = insts[off]
        for e in handlers:
            if e.start <= off < e.end:
                work.append((e.target, st[:e.depth] + ("V",) * (1 + e.lasti)))
                break
        work.extend(_successors(i, st, after[off]))
    return seen.get(target)


def _successors(i, st, nxt):
    n, op, arg = i.opname, i.opcode, i.arg or 0
    if n in ("RETURN_VALUE", "RERAISE", "RAISE_VARARGS"):
        return []
    if n == "PUSH_NULL":
        return [(nxt, st + ("N",))]
    if n == "LOAD_GLOBAL":
        return [(nxt, st + (("N", "V") if arg & 1 else ("V",)))]
    if n == "LOAD_METHOD":
        return [(nxt, st[:-1] + ("N", "V"))]
    if n == "PRECALL":  # pops nothing at run time (dis books CALL's pops on it)
        return [(nxt, st)]
    if n == "CALL":
        return [(nxt, st[:-(arg + 2)] + ("V",))]
    if n == "CALL_FUNCTION_EX":
        return [(nxt, st[:-(3 + (arg & 1))] + ("V",))]
    if n == "COPY":
        return [(nxt, st + (st[-arg],))]
    if n == "SWAP":
        s = list(st)
        s[-1], s[-arg] = s[-arg], s[-1]
        return [(nxt, tuple(s))]

    def move(jump):
        e = dis.stack_effect(op, arg if op >= opcode.HAVE_ARGUMENT else None, jump=jump)
        return st + ("V",) * e if e >= 0 else st[:e]
    if n in ("JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"):
        return [(i.argval, st)]
    if n in BRANCHES:
        return [(i.argval, move(True)), (nxt, move(False))]
    return [(nxt, move(False))]


def _emit(op, arg):
    out = []
    for shift in (24, 16, 8):
        if arg >> shift:
            out += [opcode.opmap["EXTENDED_ARG"], (arg >> shift) & 255]
    return out + [opcode.opmap[op], arg & 255]


def _varint(v, start):
    chunks = [v & 63]
    while v >> 6:
        v >>= 6
        chunks.append(v & 63)
    chunks.reverse()
    out = [c | 64 for c in chunks[:-1]] + [chunks[-1]]
    if start:
        out[0] |= 128
    return out


def trampoline(code, target, shape, values, dead):
    """`code` started at `target`: a preamble deletes the dead locals,
    pushes the stack values and jumps there. Returns (code, preamble size)."""
    if code.co_flags & (CO_GENERATOR | CO_ASYNC):
        raise CannotReplay("the original is a generator or coroutine")
    consts, body = list(code.co_consts), []
    if code.co_freevars:  # what the original's own prefix does
        body += _emit("COPY_FREE_VARS", len(code.co_freevars))
    nvars = len(code.co_varnames)
    for k, n in enumerate(code.co_cellvars):
        slot = code.co_varnames.index(n) if n in code.co_varnames else nvars + k
        body += _emit("MAKE_CELL", slot)
        if n not in code.co_varnames:  # a cell only: give it a stand-in
            consts.append(StandIn(n))
            body += _emit("LOAD_CONST", len(consts) - 1) + _emit("STORE_DEREF", slot)
    body += _emit("RESUME", 0)
    for k in dead:
        body += _emit("DELETE_FAST", k)
    for m, v in zip(shape, values):
        if m == "N":
            body += _emit("PUSH_NULL", 0)
        else:
            consts.append(v)
            body += _emit("LOAD_CONST", len(consts) - 1)
    body += _emit("JUMP_FORWARD", target // 2)
    units = len(body) // 2
    table = []
    for e in dis._parse_exception_table(code):
        table += _varint(e.start // 2 + units, True) + _varint((e.end - e.start) // 2, False)
        table += _varint(e.target // 2 + units, False) + _varint(e.depth * 2 + e.lasti, False)
    lines, left = [], units
    while left:
        n = min(left, 8)
        lines.append(0xF8 | (n - 1))  # code 15: no location
        left -= n
    new = code.replace(co_code=bytes(body) + code.co_code, co_consts=tuple(consts),
                       co_argcount=len(code.co_varnames), co_posonlyargcount=0,
                       co_kwonlyargcount=0, co_flags=code.co_flags & ~(CO_VARARGS | CO_VARKEYWORDS),
                       co_exceptiontable=bytes(table), co_linetable=bytes(lines) + code.co_linetable,
                       co_stacksize=code.co_stacksize + 1)
    return new, len(body)


class BuiltinProxy(StandIn):
    """A builtin the code only calls: the real one, but a call the path says
    raises does (the prover treats every global as an arbitrary value)."""

    __slots__ = ("_pv_real",)

    def __init__(self, name, real):
        super().__init__(name)
        object.__setattr__(self, "_pv_real", real)

    def __call__(self, *a, **k):
        _hook("call %s(%s)" % (_name(self), _args(a, k)))
        return object.__getattribute__(self, "_pv_real")(*a, **k)


def _fake_import(name, globals=None, locals=None, fromlist=(), level=0):
    _hook("import %s" % name)
    return StandIn("import %s" % name)


def _modestack_module(name):
    m = types.ModuleType(name)

    def push(mode):
        _hook("push(%s)" % _name(mode))
        RUN.enter(mode, "mode")
        RUN.modes.append(mode)

    def pop():
        _hook("pop()")
        return RUN.pop_mode()

    def get_stack():
        _hook("get_stack()")
        return list(RUN.modes)

    def set_stack(modes):
        _hook("set_stack(%s)" % _name(modes))
        RUN.set_modes(list(modes))

    m.push, m.pop, m.get_stack, m.set_stack = push, pop, get_stack, set_stack
    m._push_on_torch_function_stack, m._pop_torch_function_stack = push, pop
    m.get_torch_function_mode_stack, m.set_torch_function_mode_stack = get_stack, set_stack
    m.depth = lambda: len(RUN.modes)
    _add_no_enter_class(m, name)
    return m


def _add_no_enter_class(m, name):
    """The module's no-op-enter mode class: an instance's __enter__ pushes
    nothing, its __exit__ pops (the resume prologue takes a replayed mode
    over)."""
    attr = NO_ENTER_CLASSES.get(name)
    if attr:
        setattr(m, attr, lambda *a, **k: Mode("%s()" % attr, placeholder=True))


def globals_for(code):
    """Fresh globals: a stand-in for every global the code loads that is not
    a builtin, the rewriter's globals as the bundle's runtime provides them."""
    b = dict(builtins.__dict__)
    b["__import__"] = _fake_import
    g = {"__name__": "__pyverify_replay__", "__builtins__": b}
    called, plain = set(), set()
    for i in dis.get_instructions(code):
        if i.opname == "LOAD_GLOBAL":
            (called if i.arg & 1 else plain).add(i.argval)
    for n in (called - plain) & set(b) - FRAME_BUILTINS:
        b[n] = BuiltinProxy(n, b[n])  # only ever called: the call may raise
    for i in dis.get_instructions(code):
        if i.opname not in ("LOAD_GLOBAL", "LOAD_NAME") or i.argval in b:
            continue
        n = i.argval
        if re.fullmatch(r"__resume_at_\d+_\d+", n):
            g[n] = ResumeFn(n)
        elif n.startswith("__compiled_fn_"):
            g[n] = GraphFn(n)
        elif n in MODESTACKS:
            g[n] = _modestack_module(n)
        elif n in NO_ENTER_CLASSES:
            g[n] = types.ModuleType(n)
            _add_no_enter_class(g[n], n)
        elif n == "__pyverify_pop_null":
            g[n] = lambda *a: None
        else:
            g[n] = StandIn(n)
    return g


def _call_with_standins(code, g):
    nargs = code.co_argcount + code.co_kwonlyargcount
    names = code.co_varnames[:nargs]
    pos = [StandIn(n) for n in names[:code.co_argcount]]
    kw = {n: StandIn(n) for n in names[code.co_argcount:]}
    cells = _cells(code)
    if not code.co_flags & CO_OPTIMIZED:
        return lambda: exec(code, g, g, closure=cells) if cells else exec(code, g)
    fn = types.FunctionType(code, g, code.co_name, None, cells)
    if code.co_flags & CO_GENERATOR:
        return lambda: [None for _ in fn(*pos, **kw)]
    return lambda: fn(*pos, **kw)


def _contexts(kind_list):
    """Context k of the bundle's list: a with stand-in or a mode."""
    objs = []
    for k, c in enumerate(kind_list):
        objs.append(Mode("mode%d" % k, k) if c["kind"] == "mode" else StandIn("ctx%d" % k, "with", k))
    return objs


def _slots(shape):
    """Raw stack index of each non-NULL slot (the resume's ___stack<j>)."""
    return [i for i, m in enumerate(shape or ()) if m == "V"]


def make_frame(case, codes, bundle, tables):
    f = codes["frame"]
    run = Run("frame", f, case["counterexample"]["emitted"], tables["frame"])
    ctxs = bundle["resumes"][0]["contexts"] if bundle["resumes"] else []
    run.graph_modes = sum(1 for c in ctxs if c["kind"] == "mode")
    return run, _call_with_standins(f, globals_for(f))


def make_resume(case, codes, bundle, tables, i):
    r, res = codes[case["target"]], bundle["resumes"][i]
    ctxs = res["contexts"]
    shape = stack_shape(codes["original"], res["original_offset"])
    if shape is None and ctxs:
        raise CannotReplay("offset %d is not reached in the original" % res["original_offset"])
    slots, raw = _slots(shape), {c["stack_index"]: k for k, c in enumerate(ctxs)}
    # A mode claim whose prologue BEFORE_WITH the path says pushes the mode
    # again (the frame hands it no no-op-enter class: docs/prove.md, "The
    # hand-over") is re-entered with a mode that pushes.
    again, k = set(), 0
    for st in case["counterexample"]["emitted"]:
        if st["opname"] == "BEFORE_WITH" and k < len(ctxs):
            if "pushes the mode again" in (st.get("event") or ""):
                again.add(k)
            k += 1
    objs = [Mode("mode%d" % k, k, placeholder=k not in again) if c["kind"] == "mode"
            else StandIn("ctx%d" % k, "with", k) for k, c in enumerate(ctxs)]
    run = Run(case["target"], r, case["counterexample"]["emitted"], tables[case["target"]])
    run.modes = [objs[k] for k, c in enumerate(ctxs) if c["kind"] == "mode"]
    run.next_label = len(ctxs)
    run.free_prologue = case["property"] == "matches-eager"
    args = []
    for p in r.co_varnames[:r.co_argcount]:
        m = re.fullmatch(r"___stack(\d+)", p)
        j = int(m.group(1)) if m else None
        if j is not None and j < len(slots) and slots[j] in raw:
            args.append(Factory("stack%d" % j, objs[raw[slots[j]]]))
        else:
            args.append(StandIn("stack%d" % j if m else p))
    fn = types.FunctionType(r, globals_for(r), r.co_name, None, _cells(r))
    return run, lambda: fn(*args)


def _cells(code):
    return tuple(types.CellType(StandIn(n)) for n in code.co_freevars) or None


def make_eager(case, codes, bundle, tables, start, ctxs, live):
    """The original started at `start` with the contexts `ctxs` active."""
    o = codes["original"]
    shape = stack_shape(o, start)
    if shape is None:
        raise CannotReplay("offset %d is not reached in the original" % start)
    raw = {c["stack_index"]: k for k, c in enumerate(ctxs)}
    objs, values, j = _contexts(ctxs), [], 0
    for i, m in enumerate(shape):
        if m == "N":
            values.append(None)
            continue
        values.append(object.__getattribute__(objs[raw[i]], "__exit__") if i in raw
                      else StandIn("stack%d" % j))
        j += 1
    if any(c["stack_index"] >= len(shape) or shape[c["stack_index"]] != "V" for c in ctxs):
        raise CannotReplay("a context's stack_index is not a value slot at offset %d" % start)
    dead = [k for k, n in enumerate(o.co_varnames) if n not in live]
    o2, size = trampoline(o, start, shape, values, dead)
    run = Run("original", o2, case["counterexample"]["eager"], tables["original"], shift=size)
    run.active = [[k, c["kind"], objs[k]] for k, c in enumerate(ctxs)]
    run.used, run.next_label = set(range(len(ctxs))), len(ctxs)
    run.modes = [objs[k] for k, c in enumerate(ctxs) if c["kind"] == "mode"]
    fn = types.FunctionType(o2, globals_for(o), o.co_name, None, _cells(o))
    args = [StandIn(n) if n in live else None for n in o.co_varnames]
    return run, lambda: fn(*args)


def _live(code):
    return {p for p in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
            if not p.startswith("___stack")}


def plan(case, codes, bundle, tables):
    """(emitted run and call, eager run and call or None, eager note)."""
    t, cex = case["target"], case["counterexample"]
    if t == "frame":
        emitted = make_frame(case, codes, bundle, tables)
    elif t.startswith("resume:"):
        emitted = make_resume(case, codes, bundle, tables, int(t.split(":")[1]))
    else:
        code = codes[t]
        if code.co_flags & CO_ASYNC:
            raise CannotReplay("%s is a coroutine or async generator" % t)
        # A plain file's code object is proved as an "original": its steps say so.
        label = cex["emitted"][0]["code"] if cex["emitted"] else t
        emitted = (Run(label, code, cex["emitted"], tables[t]),
                   _call_with_standins(code, globals_for(code)))
    if not cex["eager"]:
        return emitted, None, "not run: %s is a property of the emitted code alone (the " \
            "counterexample has no eager path)" % case["property"]
    res = bundle["resumes"]
    if t == "frame":
        start, ctxs = bundle["break_offset"], res[0]["contexts"] if res else []
        live = _live(codes["resume:0"]) if res else _live(codes["original"])
    else:
        r = res[int(t.split(":")[1])]
        start, ctxs, live = r["original_offset"], r["contexts"], _live(codes[t])
    eager = make_eager(case, codes, bundle, tables, start, ctxs, live)
    note = "original from offset %d with %s active" % (
        start, "[%s]" % ", ".join("%s%d" % (_prefix(c["kind"]), k) for k, c in enumerate(ctxs)))
    return emitted, eager, note


def _kinds(sig):
    return "[%s]" % ", ".join("mode" if x.startswith("mode") else "with" for x in sig)


def _counts(sig):
    return sum(x.startswith("mode") for x in sig), sum(x.startswith("ctx") for x in sig)


def divergence(case, a, b):
    """(eager index, emitted index, what differs) of the first divergence
    both runs reached faithfully, or None."""
    cex, ga, gb = case["counterexample"], a.good(), b.good()
    if cex["eager"] and "break instruction" in (cex["eager"][0].get("event") or ""):
        d = cex["divergence"]
        if ga < 1 or d >= gb:
            return None
        x, y = a.log[0].active_before, b.log[d].active_before
        if _counts(x) != _counts(y):
            return 0, d, "at the break instruction the frame holds %s, the original holds %s" % (
                _kinds(y), _kinds(x))
        return None
    for i in range(min(ga, gb)):
        x, y = a.log[i].signature(), b.log[i].signature()
        if x != y:
            what = [w for w, p, q in zip(("the operation", "the events", "the active contexts"), x, y)
                    if p != q]
            return i, i, "the runs differ in %s" % " and ".join(what)
    n = min(ga, gb)
    if ga == len(a.log) and gb == len(b.log) and len(a.log) != len(b.log) and \
            a.failure is None and b.failure is None and a.end != "path ends" and b.end != "path ends":
        return n, n, "one run ends (%s) where the other goes on" % (a.end if ga == n else b.end)
    return None


def show(title, run, mark):
    print("%s:" % title)
    for rec in run.log:
        print("%s%4d %s%s" % (">>" if rec.index == mark else "  ", rec.index, rec.text(run.label),
                              "  (not as the path says)" if rec.bad else ""))
    if run.prologue:
        print("        (prologue, not in the path, run free: %s)" % ", ".join(run.prologue))
    for off, desc in run.unscheduled[:5]:
        print("        note: %s:%d (no step) %s" % (run.label, off, desc))
    end = {"path ends": "the path ends here (the run is stopped)", None: "stopped"}.get(run.end, run.end)
    print("     -> %s%s" % (end, "" if run.failure is None else "; left the path: " + run.failure))


def report(case, emitted, eager, note):
    b, status = emitted, NOT_REPRODUCED
    if case["property"] == "matches-eager" and eager is not None:
        d = divergence(case, eager, b)
        show("eager (%s)" % note, eager, d[0] if d else -1)
        show("emitted (%s)" % b.label, b, d[1] if d else -1)
        if d:
            print("first divergence: eager step %d, emitted step %d: %s" % d)
            if d[1] != case["counterexample"]["divergence"]:
                print("  (the prover's divergence index is %d)" % case["counterexample"]["divergence"])
            return REPRODUCED, "the emitted code does not match eager execution"
        if eager.failure or b.failure:
            return CANNOT_REPLAY, "cannot replay: %s" % (eager.failure or b.failure)
        return status, "the two runs agree: the counterexample is not reproduced"
    if eager is not None:
        show("eager (%s)" % note, eager, -1)
    else:
        print("eager: %s" % note)
    bad = [v for v in b.violations if v[0] < b.good()]
    show("emitted (%s)" % b.label, b, bad[0][0] if bad else -1)
    for i, why in bad:
        print("violation at emitted step %d: %s" % (i, why))
    if bad:
        return REPRODUCED, "%s is violated" % case["property"]
    if b.failure:
        return CANNOT_REPLAY, "cannot replay: %s" % b.failure
    return status, "the run followed the path and every context was exited exactly once"


def _timeout(signum, frame):
    print("cannot replay: the run did not finish within 60 s")
    sys.stdout.flush()
    raise SystemExit(CANNOT_REPLAY)


def main(case):
    print("pyverify replay: %s [%s] %s: %s" % (case["file"], case["target"], case["property"],
                                               case["reason"]))
    if sys.version_info[:2] != (3, 11):
        print("cannot replay: this is Python %d.%d; the code objects need 3.11" % sys.version_info[:2])
        return CANNOT_REPLAY
    cex = case.get("counterexample")
    if cex is None:
        for f in case.get("findings", []):
            print("  finding: %s" % f)
        print("cannot replay: %s refutation (no path): the findings are facts about the bytecode "
              "itself, shown above" % case["property"])
        return CANNOT_REPLAY
    print("the prover's counterexample: %d eager and %d emitted step(s), first divergence at "
          "step %d: %s" % (len(cex["eager"]), len(cex["emitted"]), cex["divergence"], cex["explanation"]))
    signal.signal(signal.SIGALRM, _timeout)
    signal.alarm(60)
    try:
        codes, bundle = load_codes(case)
        tables = {n: build_table(codes[n], rows) for n, rows in case["tables"].items() if n in codes}
        emitted, eager, note = plan(case, codes, bundle, tables)
        if eager is not None:
            execute(*eager)
        execute(*emitted)
        status, why = report(case, emitted[0], eager[0] if eager else None, note)
    except CannotReplay as e:
        status, why = CANNOT_REPLAY, "cannot replay: %s" % e
    signal.alarm(0)
    print(why if status == CANNOT_REPLAY else "result: %s (exit status %d)" % (
        ("reproduced: " if status == REPRODUCED else "not reproduced: ") + why, status))
    return status


if __name__ == "__main__":
    sys.exit(main(CASE))
