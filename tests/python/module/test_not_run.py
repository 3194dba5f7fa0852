"""Issue 24: `verify()` never calls code clean that it did not look at.
Empty code (it segfaults the interpreter when called) is an error, and a
check that could not run is an error naming it (Diagnostic.not_run)."""
import pyverify


def k(x):
    return x + 1


def test_empty_code_is_not_ok():
    code = k.__code__.replace(co_code=b"", co_linetable=b"",
                              co_exceptiontable=b"")
    report = pyverify.verify(code)
    assert not report.ok
    assert [d.check for d in report] == ["falls-off-end"]
    assert "co_code is empty" in report[0].message


def test_broken_location_table_hides_nothing():
    ret = k.__code__.co_code.rindex(bytes([83, 0]))  # RETURN_VALUE
    co_code = bytearray(k.__code__.co_code)
    co_code[ret] = 1  # POP_TOP: falls off the end
    code = k.__code__.replace(co_code=bytes(co_code),
                              co_linetable=k.__code__.co_linetable[:-1])
    checks = sorted(d.check for d in pyverify.verify(code))
    assert checks == ["falls-off-end", "location-table-decode"]
    report = pyverify.verify(code, checks="-location-table-decode")
    assert [d.check for d in report] == ["falls-off-end"]


def test_checks_not_run_are_named():
    code = k.__code__.replace(co_exceptiontable=b"\x88")
    report = pyverify.verify(code, checks="-exception-table-decode")
    assert not report.ok
    [d] = report
    assert d.check == "checks-not-run"
    assert "falls-off-end" in d.not_run and "stack-underflow" in d.not_run
    assert "exception-table-decode" not in d.not_run
    assert '"not_run"' in d.to_json()
    # Nothing asked for: nothing left out.
    assert len(pyverify.verify(code, checks="-*")) == 0
