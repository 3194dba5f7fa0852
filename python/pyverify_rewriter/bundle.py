"""Bundles (.pvb): a marshalled dict tying an original code object to its
rewritten frame and resume functions, for ``pyverify check``."""

import marshal
import sys

FORMAT = "pyverify-bundle"
VERSION = 1
# A bundle holds the running interpreter's code objects and says so
# ("python_version", docs/bundle-format.md): pyverify reads them as that
# version's bytecode.
BYTECODE_VERSION = tuple(sys.version_info[:2])


def check_bundle_interpreter():
    """Bundles are written by any interpreter the tables know."""
    from ._tables import TRAITS
    if BYTECODE_VERSION not in TRAITS:
        raise ValueError("pyverify has no tables for CPython %d.%d: its "
                         "bundles would not be read" % BYTECODE_VERSION)


def to_bundle_dict(rewrite_or_dict):
    if isinstance(rewrite_or_dict, dict):
        d = rewrite_or_dict
    else:
        d = rewrite_or_dict.to_bundle_dict()
    validate_bundle_dict(d)
    return d


def validate_bundle_dict(d):
    if d.get("format") != FORMAT or d.get("version") != VERSION:
        raise ValueError("not a pyverify bundle v1: %r" % (d.get("format"),))
    for key in ("original", "frame"):
        if not hasattr(d[key], "co_code"):
            raise ValueError("bundle key %r is not a code object" % key)
    if not isinstance(d["break_offset"], int):
        raise ValueError("break_offset must be an int")
    for r in d["resumes"]:
        if not hasattr(r["code"], "co_code") or \
                not isinstance(r["original_offset"], int):
            raise ValueError("bad resume entry")
        for c in r["contexts"]:
            if c["kind"] not in ("with", "mode") or \
                    not isinstance(c["handler"], int) or \
                    not isinstance(c["stack_index"], int):
                raise ValueError("bad context %r" % (c,))
    if not isinstance(d["expect"], str):
        raise ValueError("expect must be a str")


def no_locations(code):
    """``code`` and its nested code objects with a location table that gives
    no location for any instruction ("no location" entries, code 15, up to 8
    code units each), as rewriters that do not compute positions emit them:
    every ``co_positions()`` entry is (None, None, None, None); ``dis``
    still works."""
    n = len(code.co_code) // 2
    table = bytearray()
    while n > 0:
        k = min(8, n)
        table.append(0x80 | (15 << 3) | (k - 1))
        n -= k
    consts = tuple(no_locations(c) if hasattr(c, "co_code") else c
                   for c in code.co_consts)
    return code.replace(co_linetable=bytes(table), co_consts=consts)


def strip_locations(d):
    """A copy of the bundle dict ``d`` whose original, frame and resume
    functions (and their nested code objects) have no location table."""
    d = dict(d)
    for key in ("original", "frame"):
        if d.get(key) is not None:
            d[key] = no_locations(d[key])
    d["resumes"] = [dict(r, code=no_locations(r["code"]))
                    for r in d.get("resumes", [])]
    return d


def write_bundle(path, rewrite_or_dict):
    check_bundle_interpreter()
    d = dict(to_bundle_dict(rewrite_or_dict))
    d.setdefault("python_version", "%d.%d" % BYTECODE_VERSION)
    data = marshal.dumps(d)
    with open(path, "wb") as f:
        f.write(data)
    return len(data)


def read_bundle(path):
    with open(path, "rb") as f:
        d = marshal.load(f)
    validate_bundle_dict(d)
    return d
