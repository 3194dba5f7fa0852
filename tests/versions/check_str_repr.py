"""pyverify's repr() of str constants against the running interpreter's, for
every code point: what `pyverify dis` shows as a LOAD_CONST's argrepr must be
repr() of the constant, as this version's `dis` shows it.

    python3.12 tests/versions/check_str_repr.py build/tools/pyverify/pyverify

Which non-ASCII characters repr() escapes is the version's Unicode database
(UnicodeUnprintable.def, one table per version). One code object holds, as
constants, every code point from 0x80 to 0x10ffff (lone surrogates
included, which marshal writes with "surrogatepass"), 4,096 to a string,
plus strings that mix in quotes, backslashes and ASCII controls; pyverify
dis --format=json --python-version=X.Y reads its marshal and each
LOAD_CONST's argrepr is compared with repr() of its constant. Exits 1 with
the first differences (the code points where the two disagree); prints the
counts otherwise.
"""
import json
import marshal
import os
import subprocess
import sys
import tempfile

VERSION = "%d.%d" % sys.version_info[:2]
CHUNK = 4096


def constants():
    out = []
    for start in range(0x80, 0x110000, CHUNK):
        out.append("".join(map(chr, range(start, min(start + CHUNK, 0x110000)))))
    # The quoting and the ASCII escapes beside non-ASCII ones.
    out += ["it's \x85", "a\"b'\u2028\\", "\t\n\r\x00\x7f\xa0\xe9\ud800",
            "\U0001f600 \ufeff", ""]
    return out


def code_with(consts):
    """A module code object with one LOAD_CONST per constant."""
    placeholders = [f"<{i}>" for i in range(len(consts))]
    src = "".join(f"x{i} = {p!r}\n" for i, p in enumerate(placeholders))
    code = compile(src, "str_repr.py", "exec")
    index = {p: i for i, p in enumerate(placeholders)}
    new = tuple(consts[index[c]] if isinstance(c, str) and c in index else c
                for c in code.co_consts)
    assert sum(1 for c in code.co_consts if isinstance(c, str) and c in index) == \
        len(consts), "every placeholder is a constant of its own"
    return code.replace(co_consts=new)


def first_difference(want, got):
    n = min(len(want), len(got))
    i = next((k for k in range(n) if want[k] != got[k]), n)
    return f"at character {i}: repr {want[max(0, i - 20):i + 20]!r}, " \
           f"pyverify {got[max(0, i - 20):i + 20]!r}"


def main():
    pyverify = sys.argv[1]
    consts = constants()
    code = code_with(consts)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "str_repr.marshal")
        with open(path, "wb") as f:
            f.write(marshal.dumps(code))
        out = subprocess.run([pyverify, "dis", "--format=json",
                              "--python-version=" + VERSION, path],
                             capture_output=True, text=True)
    if out.returncode != 0:
        print(out.stderr)
        print(f"{VERSION}: pyverify dis failed with exit {out.returncode}")
        return 1
    listing = json.loads(out.stdout.split("\n")[0])["code"]
    loads = [row for row in listing["instructions"] if row["opname"] == "LOAD_CONST"]
    compared, errors = 0, []
    for row in loads:
        const = code.co_consts[row["arg"]]
        if not isinstance(const, str):
            continue
        compared += 1
        want = repr(const)
        if row["argrepr"] != want:
            errors.append(f"constant {row['arg']}: " +
                          first_difference(want, row["argrepr"]))
    if compared != len(consts):
        errors.append(f"compared {compared} str constants, expected {len(consts)}")
    escaped = sum(1 for c in range(0x80, 0x110000)
                  if repr(chr(c)) != "'" + chr(c) + "'")
    for e in errors[:20]:
        print("FAIL:", e)
    if errors:
        print(f"{VERSION}: {len(errors)} str constants differ from repr()")
        return 1
    print(f"{VERSION}: {compared} str constants ({0x110000 - 0x80} non-ASCII code "
          f"points, {escaped} of them escaped by repr()): every argrepr is repr()")
    return 0


if __name__ == "__main__":
    sys.exit(main())
