"""Must-show 1: every code object of the stdlib verifies clean through the
module, and the live reader sees exactly the fields marshal writes."""
import marshal

import pyverify
from pyverify import _pyverify

from conftest import walk


def test_stdlib_compiles(stdlib_codes):
    # The corpus is the whole stdlib, not a sample (18,755 code objects on
    # Debian's 3.11.2; the count moves with the installed patch release).
    assert len(stdlib_codes) > 600
    assert sum(1 for root in stdlib_codes for _ in walk(root)) > 15000


def test_every_stdlib_code_object_verifies_clean(stdlib_codes):
    total = 0
    dirty = []
    for root in stdlib_codes:
        report = pyverify.verify(root)
        total += report.code_objects
        if len(report):
            dirty.append(str(report))
    assert total == sum(1 for root in stdlib_codes for _ in walk(root))
    assert not dirty, "\n".join(dirty[:5])


def test_non_recursive_matches_recursive(stdlib_codes):
    # verify(recursive=False) on each code object finds what the recursive
    # call finds for it (nothing on the stdlib), one object at a time.
    n = 0
    for root in stdlib_codes[:300]:
        for code in walk(root):
            r = pyverify.verify(code, recursive=False)
            assert r.code_objects == 1 and r.ok and len(r) == 0
            n += 1
    assert n > 3000


def test_live_reader_matches_marshal(stdlib_codes):
    # The live reader (CPython API, no marshal) and the marshal reader build
    # the same CodeObject tree, field by field, constant by constant.
    diffs = []
    for root in stdlib_codes:
        d = _pyverify._compare_with_marshal(root, marshal.dumps(root))
        if d is not None:
            diffs.append((root.co_filename, d))
    assert not diffs, diffs[:5]
