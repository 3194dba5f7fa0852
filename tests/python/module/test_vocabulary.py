"""One vocabulary (issue 27, section 5): a Diagnostic's attributes are the
keys of its `pyverify check --format=json` item, both documented under those
names (docs/json.md, docs/python.md); the CLI's JSON carries what the Python
Diagnostic has (instruction, code_index, a note's col); a bad `checks=`
argument is explained in the API's words, not the CLI's."""
import json
import marshal
import os
import re
import subprocess
import warnings

import pytest

import breakcode as bc
import pyverify
import pyverify_rewriter
from conftest import ROOT


def pick(x):
    if x:
        y = 1
    else:
        y = 2
    return y


def with_body(cm, body):
    with cm as x:
        body(x)


def _properties(cls):
    return {n for n in dir(cls) if not n.startswith("_")
            and isinstance(getattr(cls, n), property)}


DEPRECATED = {"qualname": "code", "first_lineno": "firstlineno"}
FIELDS = _properties(pyverify.Diagnostic) - set(DEPRECATED)
NOTE_FIELDS = _properties(pyverify.Note)


def _doc(name):
    with open(os.path.join(ROOT, "docs", name)) as f:
        return f.read()


def json_md_fields():
    """The keys of a diagnostic and of a note in docs/json.md's schema of
    `pyverify check --format=json`."""
    doc = _doc("json.md")
    section = doc[doc.index("## `pyverify check --format=json PATH...`"):]
    item = section[section.index('{"diagnostics": [{') + 16:
                   section.index('"input_errors"')]
    notes = re.search(r'"notes": \[\{(.*?)\}\]', item, re.S)
    assert notes, "docs/json.md documents a diagnostic's notes"
    note_keys = set(re.findall(r'"(\w+)":', notes.group(1)))
    diag_keys = set(re.findall(r'"(\w+)":',
                               item[:notes.start()] + item[notes.end():]))
    return diag_keys | {"notes"}, note_keys


def python_md_fields(table):
    """The attribute names in the first column of a docs/python.md table,
    the one after the line `<!-- TABLE -->`."""
    doc = _doc("python.md")
    m = re.search(r"<!-- %s -->\n\n?((?:\|.*\n)+)" % re.escape(table), doc)
    assert m, "docs/python.md has the %s table" % table
    names = set()
    for row in m.group(1).splitlines()[2:]:
        names |= set(re.findall(r"`(\w+)`", row.split("|")[1]))
    return names


def broken_with():
    """with_body with the __exit__ call dropped: a diagnostic with an
    instruction and notes that have lines."""
    wb = with_body.__code__
    exit_call = bc.offsets(wb, "CALL")[1]
    return bc.replace_bytes(wb, exit_call - 10,
                            bc.unit("POP_TOP") + bc.unit("NOP") * 10)


def test_diagnostic_attributes_are_its_json_keys():
    report = pyverify.verify(broken_with())
    assert len(report) >= 1
    for d in report:
        item = json.loads(d.to_json())
        assert d.to_dict() == item
        assert set(item) <= FIELDS, set(item) - FIELDS
        for key in FIELDS:
            want = item.get(key, [] if key == "not_run" else None)
            if key == "notes":
                assert [n.to_dict() for n in d.notes] == want
                assert all(set(n.to_dict()) == NOTE_FIELDS for n in d.notes)
            else:
                assert getattr(d, key) == want, key
    d = report[0]
    assert d.certainty == "definite" and d.code == "with_body"
    assert d.firstlineno == with_body.__code__.co_firstlineno
    assert d.instruction == "POP_TOP" and d.code_index == 0
    assert d.target is None and d.source is None and d.not_run == []


def test_the_same_names_are_documented():
    diag_keys, note_keys = json_md_fields()
    assert diag_keys == FIELDS
    assert note_keys == NOTE_FIELDS
    assert python_md_fields("diagnostic-attributes") == FIELDS
    assert python_md_fields("note-attributes") == NOTE_FIELDS


def test_deprecated_names_still_work_and_warn():
    d = pyverify.verify(broken_with())[0]
    for old, new in DEPRECATED.items():
        with pytest.warns(DeprecationWarning, match=new):
            assert getattr(d, old) == getattr(d, new)


def _cli_json(cli, path, *args):
    out = subprocess.run([cli, "check", "--format=json", *args, str(path)],
                         capture_output=True, text=True)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)["diagnostics"]


def test_cli_json_items_equal_the_python_diagnostics(cli, tmp_path):
    """The CLI on the marshalled code object gives the module's items, but
    for `file` (the .bin; the module: co_filename) and `source` (the CLI
    names co_filename, which exists, as the source)."""
    codes = [broken_with(), bc.patch(pick.__code__, 8, "NOP", 0)]
    seen = set()
    for i, code in enumerate(codes):
        path = tmp_path / ("c%d.bin" % i)
        path.write_bytes(marshal.dumps(code))
        items = _cli_json(cli, path)
        assert items, "the broken code object has findings"
        mine = [d.to_dict() for d in pyverify.verify(code)]
        for item in items:
            assert item["file"] == str(path)
            assert item["source"] == code.co_filename
            seen |= set(item)
            del item["file"], item["source"]
        for item in mine:
            assert item["file"] == code.co_filename and "source" not in item
            del item["file"]
        assert items == mine
    assert "instruction" in seen and "not_run" in seen


def test_bundle_diagnostics_have_every_key(cli, tmp_path):
    """Over a bundle (target) and the files above, the CLI's keys are the
    Diagnostic's attributes, no more, no fewer."""
    bp = next(b for b in pyverify_rewriter.break_points(with_body)
              if b.reason is None)
    rw = pyverify_rewriter.rewrite(with_body, bp.offset,
                                   variant="stacksize-no-exc-edges")
    report = pyverify.verify_bundle(rw.to_bundle_dict())
    assert {d.target for d in report} >= {"frame"}
    path = tmp_path / "b.pvb"
    pyverify.dump_bundle(str(path), rw.to_bundle_dict())
    keys = set()
    for item in _cli_json(cli, path):
        keys |= set(item)
    bin_path = tmp_path / "pick.bin"
    bin_path.write_bytes(marshal.dumps(bc.patch(pick.__code__, 8, "NOP", 0)))
    for item in _cli_json(cli, bin_path):
        keys |= set(item)
    assert keys == FIELDS


def test_bad_checks_speak_the_apis_words():
    for call in (lambda: pyverify.verify(pick, checks="no-such-check"),
                 lambda: pyverify.verify(pick, checks=["-*", "nope"]),
                 lambda: pyverify.verify_bundle(original=pick.__code__,
                                                checks="nope")):
        with pytest.raises(ValueError) as info:
            call()
        msg = str(info.value)
        assert msg.startswith("checks: '"), msg
        assert "names no check" in msg and "pyverify.check_ids()" in msg
        assert "--checks" not in msg and "--list-checks" not in msg, msg
