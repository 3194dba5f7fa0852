# JSON Lines outputs (dis, analyze --format=json) stay one record per line
# for every line splitter: a string holding U+0085, U+2028 or U+2029 (here a
# global's name, which dis's argrepr shows as it is and the fields carry; a
# str constant's repr() escapes these characters, as CPython's does) is
# written as a \u escape, never raw -- Python's str.splitlines() breaks a
# line there (the stdlib's encodings/cp037.py has U+0085 in its tables).
# (-P: this directory holds a json.py.)
# RUN: %python -P %s --make %t.pyc
# RUN: cp %t.pyc %t.2.pyc
# RUN: %pyverify dis --format=json --fields %t.pyc %t.2.pyc > %t.dis
# RUN: %python -P %s %t.dis | FileCheck --check-prefix=DIS %s
# RUN: %pyverify analyze --print=stack-depth --format=json %t.pyc %t.2.pyc > %t.an
# RUN: %python -P %s %t.an | FileCheck %s
# DIS: 2 records, 2 lines, text present
# CHECK: 2 records, 2 lines

import importlib.util
import json
import marshal
import sys

TEXT = "a\x85b\u2028c\u2029d"


def make(path):
    co = compile("x = y\n", "separators.py", "exec")
    co = co.replace(co_names=tuple(TEXT if n == "y" else n for n in co.co_names))
    with open(path, "wb") as f:
        f.write(importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps(co))


def main(path):
    with open(path, encoding="utf-8") as f:
        data = f.read()
    lines = data.splitlines()
    records = [json.loads(line) for line in lines]
    present = any(TEXT in json.dumps(r, ensure_ascii=False) for r in records)
    print(f"{len(records)} records, {len(lines)} lines, "
          f"text {'present' if present else 'absent'}")


if __name__ == "__main__" and len(sys.argv) > 1:
    if sys.argv[1] == "--make":
        make(sys.argv[2])
    else:
        main(sys.argv[1])
