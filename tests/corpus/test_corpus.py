#!/usr/bin/env python3.11
"""Corpus oracle for the Bytecode layer: pyverify vs CPython on real .pyc files.

For every .pyc under PYC_DIR, runs `pyverify dis --format=json --fields` and
checks, for every code object (recursively, co_consts order):
  * fields     == marshal.loads (all 16 stored fields, consts canonically);
  * instructions == dis.get_instructions (offset, opname, opcode, arg, jump
    target, and positions == co_positions() of the opcode unit);
  * argrepr == dis's argrepr (what `python -m dis` prints in parentheses),
    but for a code object constant's address and, where dis shows a jump's
    target as a label (3.13's "to L1"), its offset;
  * exception table == dis._parse_exception_table, and pyverify's re-encoding
    of it == co_exceptiontable byte for byte;
  * no finding (CPython's own output is well-formed).
Prints the counts and exits 1 on any mismatch (listing the first ones).
"""
import argparse
import dis
import json
import marshal
import os
import re
import struct
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from json_lines import JsonLines  # noqa: E402  (same directory)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
import stack_io  # noqa: E402  (the hasjrel opcodes that never jump: NOT_TAKEN_JUMPS)

# END_ASYNC_FOR (3.14 on): a label dis shows ("from L3"), no jump pyverify follows.
NOT_TAKEN_JUMPS = {dis.opmap[n] for n in
                   stack_io.NOT_TAKEN_JUMPS.get(sys.version_info[:2], ())}
# The opcodes whose argval is a jump target (dis.hasjrel is a list: a set
# for the test run per instruction).
JUMPS_WITH_TARGET = frozenset(dis.hasjrel) - NOT_TAKEN_JUMPS


def canon(v):
    """Canonical form of a constant, as pyverify's --fields prints it."""
    if v is None:
        return ["None"]
    if v is Ellipsis:
        return ["Ellipsis"]
    if v is StopIteration:
        return ["StopIteration"]
    if isinstance(v, bool):
        return ["bool", v]
    if isinstance(v, int):
        return ["int", str(v)]
    if isinstance(v, float):
        return ["float", struct.pack("<d", v).hex()]
    if isinstance(v, complex):
        return ["complex", struct.pack("<dd", v.real, v.imag).hex()]
    if isinstance(v, bytes):
        return ["bytes", v.hex()]
    if isinstance(v, str):
        return ["str", v.encode("utf-8", "surrogatepass").hex()]
    if isinstance(v, tuple):
        return ["tuple", [canon(x) for x in v]]
    if isinstance(v, frozenset):
        return ["frozenset", sorted((canon(x) for x in v), key=json.dumps)]
    if isinstance(v, types.CodeType):
        return ["code", v.co_qualname.encode("utf-8", "surrogatepass").hex()]
    if isinstance(v, slice):  # 3.14 (marshal 5, type ':'): a folded x[a:b]
        return ["slice", [canon(v.start), canon(v.stop), canon(v.step)]]
    raise TypeError(type(v))


def norm_const(c):
    """Frozenset order is hash order in Python but stream order in pyverify."""
    if c[0] == "frozenset":
        return ["frozenset", sorted((norm_const(x) for x in c[1]), key=json.dumps)]
    if c[0] in ("tuple", "slice"):
        return [c[0], [norm_const(x) for x in c[1]]]
    return c


def hx(s):
    return s.encode("utf-8", "surrogatepass").hex()


def ref_argrepr(r):
    """dis's argrepr of instruction R, a code object's address and a jump label
    (3.13) replaced as pyverify shows them."""
    text = r.argrepr
    # Plain string tests first: this runs for every instruction of the
    # stdlib (a regular expression each made the 3.12/3.13 tests a third
    # slower).
    if text.startswith("<code object "):
        text = re.sub(r"^(<code object .+?) at 0x[0-9a-f]+, file",
                      r"\1, file", text)
    elif text.startswith("to L") and re.fullmatch(r"to L\d+", text):
        text = f"to {r.argval}"
    elif text.startswith("from L") and re.fullmatch(r"from L\d+", text):
        text = f"from {r.argval}"
    return text


def set_items(text):
    """A frozenset's repr as the sorted pieces between its commas."""
    m = re.fullmatch(r"frozenset\(\{(.*)\}\)", text or "")
    return sorted(m.group(1).split(", ")) if m else text


class Checker:
    def __init__(self):
        self.code_objects = 0
        self.ok = {"fields": 0, "instructions": 0, "argrepr": 0,
                   "exception_table": 0,
                   "reencode": 0, "positions": 0, "no_findings": 0}
        self.failures = []

    def fail(self, where, what):
        if len(self.failures) < 50:
            self.failures.append(f"{where}: {what}")
        return False

    def check_code(self, path, co, j):
        self.code_objects += 1
        where = f"{path}:{co.co_qualname}@{co.co_firstlineno}"
        f = j["fields"]
        # -- fields
        good = True
        expect = {
            "argcount": co.co_argcount, "posonlyargcount": co.co_posonlyargcount,
            "kwonlyargcount": co.co_kwonlyargcount, "stacksize": co.co_stacksize,
            "flags": co.co_flags, "code": co.co_code.hex(),
            "names": [hx(n) for n in co.co_names],
            "filename": hx(co.co_filename), "name": hx(co.co_name),
            "qualname": hx(co.co_qualname), "firstlineno": co.co_firstlineno,
            "linetable": co.co_linetable.hex(),
            "exceptiontable": co.co_exceptiontable.hex(),
            "nlocals": co.co_nlocals,
        }
        for k, v in expect.items():
            if f[k] != v:
                good = self.fail(where, f"field {k}: pyverify {f[k]!r} != {v!r}")
        consts = [canon(c) for c in co.co_consts]
        if [norm_const(c) for c in f["consts"]] != consts:
            good = self.fail(where, "field consts differ")
        # localsplusnames: varnames, then cellvars not already args, then freevars
        lp = [bytes.fromhex(n).decode("utf-8", "surrogatepass")
              for n in f["localsplusnames"]]
        kinds = bytes.fromhex(f["localspluskinds"])
        varnames = tuple(n for n, k in zip(lp, kinds) if k & 0x20)
        cellvars = tuple(n for n, k in zip(lp, kinds) if k & 0x40)
        freevars = tuple(n for n, k in zip(lp, kinds) if k & 0x80)
        if (varnames, cellvars, freevars) != (co.co_varnames, co.co_cellvars,
                                              co.co_freevars):
            good = self.fail(where, "localsplus names/kinds differ from "
                                    "co_varnames/co_cellvars/co_freevars")
        self.ok["fields"] += good

        # -- instructions and positions
        ref = list(dis.get_instructions(co))
        got = j["instructions"]
        ins_ok, pos_ok = len(ref) == len(got), len(ref) == len(got)
        if not ins_ok:
            self.fail(where, f"{len(got)} instructions, dis has {len(ref)}")
        positions = list(co.co_positions())
        text_ok = len(ref) == len(got)
        for r, g in zip(ref, got):
            want_text, have_text = ref_argrepr(r), g.get("argrepr")
            if isinstance(r.argval, frozenset):  # hash order vs stream order
                want_text, have_text = set_items(want_text), set_items(have_text)
            if have_text != want_text and text_ok:
                text_ok = self.fail(where, f"offset {r.offset} {r.opname}: argrepr "
                                           f"{have_text!r} != dis {want_text!r}")
            target = r.argval if r.opcode in JUMPS_WITH_TARGET else None
            want = (r.offset, r.opname, r.opcode, r.arg, target)
            have = (g["offset"], g["opname"], g["opcode"], g["arg"], g["target"])
            if want != have and ins_ok:
                ins_ok = self.fail(where, f"instruction {have} != dis {want}")
            p = positions[r.offset // 2]
            gp = (g["line"], g["end_line"], g["col"], g["end_col"])
            # p and r.positions are tuples (Positions a named one).
            if gp != p or gp != r.positions:
                if pos_ok:
                    pos_ok = self.fail(where, f"offset {r.offset}: positions "
                                              f"{gp} != co_positions {tuple(p)}")
        self.ok["instructions"] += ins_ok
        self.ok["argrepr"] += text_ok
        self.ok["positions"] += pos_ok

        # -- exception table
        ref_t = [(e.start, e.end, e.target, e.depth, e.lasti)
                 for e in dis._parse_exception_table(co)]
        got_t = [(e["start"], e["end"], e["target"], e["depth"], e["lasti"])
                 for e in j["exception_table"]]
        if ref_t == got_t:
            self.ok["exception_table"] += 1
        else:
            self.fail(where, f"exception table {got_t} != dis {ref_t}")
        if f["exceptiontable_reencoded"] == co.co_exceptiontable.hex():
            self.ok["reencode"] += 1
        else:
            self.fail(where, "re-encoded exception table differs: "
                             f"{f['exceptiontable_reencoded']} != "
                             f"{co.co_exceptiontable.hex()}")
        if not f["findings"]:
            self.ok["no_findings"] += 1
        else:
            self.fail(where, f"findings on CPython output: {f['findings'][:3]}")

        kids = [c for c in co.co_consts if isinstance(c, types.CodeType)]
        if len(kids) != len(j["children"]):
            self.fail(where, "children count differs")
            return
        for k, kj in zip(kids, j["children"]):
            self.check_code(path, k, kj)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pyverify", required=True)
    ap.add_argument("--name", default="corpus")
    ap.add_argument("--expect-code-objects", type=int, default=None,
                    help="report (not fail) when the count differs")
    ap.add_argument("pyc_dir")
    a = ap.parse_args()

    files = []
    for root, dirs, fs in os.walk(a.pyc_dir):
        dirs.sort()
        files += [os.path.join(root, f) for f in sorted(fs) if f.endswith(".pyc")]
    files.sort()
    if not files:
        print(f"{a.name}: no .pyc files under {a.pyc_dir}")
        return 1

    chk = Checker()
    batch = 200
    for i in range(0, len(files), batch):
        part = files[i:i + batch]
        out = JsonLines([a.pyverify, "dis", "--format=json", "--fields", *part])
        if out.returncode != 0:
            print(out.stderr)
            print(f"{a.name}: pyverify dis failed with exit {out.returncode}")
            return 1
        # One JSON line per file (split at "\n" only: json_lines.py).
        lines = out
        if len(lines) != len(part):
            print(f"{a.name}: expected {len(part)} JSON lines, got {len(lines)}")
            return 1
        for path, line in zip(part, lines):
            j = json.loads(line)
            assert j["file"] == path
            with open(path, "rb") as fh:
                co = marshal.loads(fh.read()[16:])
            chk.check_code(path, co, j["code"])

    n = chk.code_objects
    print(f"{a.name}: {len(files)} files, {n} code objects")
    for k, v in chk.ok.items():
        print(f"  {k:16s} {v} of {n} code objects agree with CPython")
    if a.expect_code_objects is not None and n != a.expect_code_objects:
        print(f"  note: expected {a.expect_code_objects} code objects, saw {n}")
    if chk.failures:
        print(f"{a.name}: MISMATCHES (first {len(chk.failures)}):")
        for f in chk.failures:
            print("  " + f)
        return 1
    print(f"{a.name}: all {n} code objects agree ({n} of {n})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
