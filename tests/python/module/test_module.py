"""The `import pyverify` API: broken code objects (CodeType.replace) are
reported with the right check id, the module agrees with the CLI, threads
agree, install() and the bundle helpers."""
import marshal
import os
import re
import subprocess
import threading
import types

import pytest

import breakcode as bc
import pyverify


def add(a, b):
    return a + b * 2


def with_body(cm, body):
    with cm as x:
        body(x)


def looping(xs):
    total = 0
    for x in xs:
        if x:
            total += x
    return total


def twice(m, body):
    m.__enter__()
    try:
        body()
    finally:
        m.__exit__(None, None, None)
        m.__exit__(None, None, None)


def first_jump(code):
    for name in ("JUMP_FORWARD", "POP_JUMP_FORWARD_IF_FALSE",
                 "POP_JUMP_FORWARD_IF_TRUE"):
        offs = bc.offsets(code, name)
        if offs:
            return offs[0]
    raise AssertionError("no forward jump")


# (name, broken code, expected check id). Each breaks one thing, the way a
# rewriter's bug would.
def broken_cases():
    wb = with_body.__code__
    calls = bc.offsets(wb, "CALL")
    exit_call = calls[1]  # __exit__(None, None, None) on the normal path
    exit_start = exit_call - 10  # the three LOAD_CONST None and PRECALL
    cases = [
        ("stacksize", bc.set_stacksize(add.__code__, 1),
         "stacksize-too-small"),
        ("table-varint", add.__code__.replace(co_exceptiontable=b"\x80"),
         "exception-table-decode"),
        ("table-bounds", bc.with_entries(
            add.__code__, [bc.Entry(0, 400, 2, 0, False)]),
         "exception-table-bounds"),
        ("jump", bc.patch(looping.__code__, first_jump(looping.__code__),
                          arg=250), "jump-target-invalid"),
        ("opcode", add.__code__.replace(
            co_code=b"\xff\x00" + add.__code__.co_code[2:]),
         "bytecode-decode"),
        ("underflow", bc.patch(add.__code__, 2, opname="POP_TOP", arg=0),
         "stack-underflow"),
        ("no-exit", bc.replace_bytes(
            wb, exit_start, bc.unit("POP_TOP") + bc.unit("NOP") * 10),
         "context-not-exited"),
        ("exited-twice", twice.__code__, "context-exited-twice"),
        ("linetable", add.__code__.replace(co_linetable=b"\x80"),
         "location-table-decode"),
    ]
    return cases


CASES = broken_cases()


@pytest.mark.parametrize("name,code,check_id", CASES,
                         ids=[c[0] for c in CASES])
def test_broken_code_reports_its_check(name, code, check_id):
    report = pyverify.verify(code)
    assert not report.ok
    assert check_id in {d.check for d in report.errors}, str(report)
    with pytest.raises(pyverify.VerificationError) as info:
        pyverify.check(code)
    assert "[%s]" % check_id in str(info.value)
    assert info.value.report.errors


def test_clean_functions_are_clean():
    for f in (add, with_body, looping):
        report = pyverify.verify(f)
        assert report.ok and len(report) == 0, str(report)
        assert pyverify.check(f.__code__).ok


def test_diagnostic_fields():
    wb = with_body.__code__
    exit_call = bc.offsets(wb, "CALL")[1]
    code = bc.replace_bytes(wb, exit_call - 10,
                            bc.unit("POP_TOP") + bc.unit("NOP") * 10)
    (d,) = pyverify.verify(code).errors
    assert d.check == "context-not-exited"
    assert d.severity == "error"
    assert d.offset == exit_call - 10
    assert d.code == "with_body"
    assert d.file == wb.co_filename
    assert d.firstlineno == wb.co_firstlineno
    # line/col from co_positions(), 0-based column as CPython reports it
    pos = {i.offset: i.positions for i in __import__("dis").get_instructions(code)}
    assert (d.line, d.col) == (pos[d.offset].lineno, pos[d.offset].col_offset)
    assert d.instruction == "POP_TOP"
    assert any("entered here" in n.message and n.offset == bc.offset_of(
        wb, "BEFORE_WITH") for n in d.notes)
    assert any(n.message.startswith("witness path:") for n in d.notes)
    assert str(d).startswith("%s:%d:%d: error: " % (d.file, d.line, d.col + 1))
    assert d.to_json().startswith("{")


def test_checks_option_filters():
    code = bc.set_stacksize(add.__code__, 1)
    assert not pyverify.verify(code).ok
    assert pyverify.verify(code, checks="-stack*,-exception-table-*").ok
    assert pyverify.verify(code, checks=["-*", "stacksize-too-small"]).errors
    with pytest.raises(ValueError, match="no-such-check"):
        pyverify.verify(code, checks="no-such-check")


def test_recursive_flag():
    src = "def outer():\n    def inner(a, b):\n        return a + b\n    return inner\n"
    mod = compile(src, "<nested>", "exec")
    outer = next(c for c in mod.co_consts if hasattr(c, "co_code"))
    inner = next(c for c in outer.co_consts if hasattr(c, "co_code"))
    bad_inner = bc.set_stacksize(inner, 0)
    consts = tuple(bad_inner if c is inner else c for c in outer.co_consts)
    bad_outer = outer.replace(co_consts=consts)
    deep = pyverify.verify(bad_outer)
    assert deep.code_objects == 2 and not deep.ok
    assert {d.code for d in deep.errors} == {"outer.<locals>.inner"}
    assert {d.code_index for d in deep.errors} == {1}
    shallow = pyverify.verify(bad_outer, recursive=False)
    assert shallow.code_objects == 1 and shallow.ok


def test_report_protocol():
    report = pyverify.verify(bc.set_stacksize(add.__code__, 1))
    assert len(report) == len(list(report)) >= 1
    assert report[0].check == list(report)[0].check
    assert report[-1].check == list(report)[-1].check
    with pytest.raises(IndexError):
        report[len(report)]
    with pytest.raises(TypeError, match="ambiguous"):
        bool(report)
    assert re.search(r"pyverify: 1 code object\(s\): \d+ error\(s\)",
                     str(report))
    assert "error" in repr(report)


def test_opaque_constants_are_accepted():
    # A live code object may hold constants marshal cannot (CodeType.replace
    # takes any tuple); they are kept by repr and do not disturb the checks.
    code = add.__code__.replace(co_consts=add.__code__.co_consts
                                + ([1, 2], object(), 10 ** 40, -(2 ** 70)))
    assert pyverify.verify(code).ok


def test_deep_constants_are_an_error_not_a_crash():
    t = ()
    for _ in range(5000):
        t = (t,)
    code = add.__code__.replace(co_consts=add.__code__.co_consts + (t,))
    with pytest.raises(ValueError, match="nested deeper"):
        pyverify.verify(code)


def run_on_small_stack(fn, size=64 * 1024):
    """fn() on a thread whose C stack is `size` bytes (threading.stack_size
    allows 32 KiB): the reader must not recurse once per nesting level."""
    result = {}

    def target():
        try:
            result["value"] = fn()
        except BaseException as e:  # handed to the caller
            result["error"] = e

    old = threading.stack_size(size)
    try:
        thread = threading.Thread(target=target)
        thread.start()
    finally:
        threading.stack_size(old)
    thread.join()
    if "error" in result:
        raise result["error"]
    return result["value"]


def test_deep_constants_on_a_small_thread_stack():
    t = ()
    for i in range(1970):  # 1990 levels: the innermost is at depth 1991
        t = (frozenset({t}),) if i % 100 == 0 else (t,)
    code = add.__code__.replace(co_consts=add.__code__.co_consts + (t,))
    assert run_on_small_stack(lambda: pyverify.verify(code).ok)
    deeper = add.__code__.replace(co_consts=(t, t, t, t, t, t))
    for _ in range(20):
        deeper = deeper.replace(co_consts=((deeper.co_consts[0],),))
    with pytest.raises(ValueError, match="nested deeper"):
        run_on_small_stack(lambda: pyverify.verify(deeper))


def test_deep_code_objects_on_a_small_thread_stack():
    # Each nested code object is two levels (itself, its constants).
    code = add.__code__
    for _ in range(990):
        code = add.__code__.replace(co_consts=add.__code__.co_consts + (code,))
    report = run_on_small_stack(lambda: pyverify.verify(code))
    assert report.ok


def test_type_errors():
    with pytest.raises(TypeError, match="code object or a function"):
        pyverify.verify(42)
    with pytest.raises(TypeError):
        pyverify.verify(add, True)  # options are keyword-only


def test_install():
    def target(a, b):
        return a - b

    good = add.__code__
    broken = bc.set_stacksize(add.__code__, 1)
    with pytest.raises(pyverify.VerificationError):
        pyverify.install(target, broken)
    assert target(5, 3) == 2  # unchanged
    assert pyverify.install(target, good) is target
    assert target(5, 3) == 11


def test_module_text_matches_cli(cli, tmp_path):
    # For each broken code object, the module's diagnostics are the CLI's
    # on the same code object marshalled to a file (file name aside).
    for name, code, _ in CASES:
        path = tmp_path / (name + ".marshal")
        try:
            data = marshal.dumps(code)
        except ValueError:
            continue
        path.write_bytes(data)
        # marshal de-specialises co_code exactly as PyCode_GetCode does, so
        # both sides see the same bytes.
        out = subprocess.run([cli, "check", str(path)],
                             capture_output=True, text=True)
        assert out.returncode in (0, 1), out.stderr
        # The CLI names the existing source with the file as the artifact.
        suffix = ", read from " + str(path)
        cli_lines = [l[:-len(suffix)] if l.endswith(suffix) else
                     l.replace(str(path), code.co_filename)
                     for l in out.stdout.splitlines()[:-1]]
        mod_lines = str(pyverify.verify(code)).splitlines()[:-1]
        assert mod_lines == cli_lines, name


def test_threads_agree():
    codes = [c for _, c, _ in CASES] + [add.__code__, with_body.__code__,
                                        looping.__code__]
    codes += [f.__code__ for f in vars(subprocess).values()
              if isinstance(f, types.FunctionType)]
    expected = [str(pyverify.verify(c)) for c in codes]
    results = {}
    errors = []

    def worker(k):
        try:
            out = []
            for _ in range(5):
                out.append([str(pyverify.verify(c)) for c in codes])
            results[k] = out
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 8
    for out in results.values():
        for run in out:
            assert run == expected


def test_check_ids():
    ids = pyverify.check_ids()
    names = [i[0] for i in ids]
    assert "stack-underflow" in names and "context-not-exited" in names
    assert len(names) == len(set(names))
