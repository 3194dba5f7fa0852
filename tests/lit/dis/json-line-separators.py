# JSON Lines outputs (dis, analyze --format=json) stay one record per line
# for every line splitter: a string holding U+0085, U+2028 or U+2029 (here a
# constant, which dis's argrepr and the fields carry) is written as a \u
# escape, never raw -- Python's str.splitlines() breaks a line there
# (the stdlib's encodings/cp037.py has U+0085 in its tables).
# (-P: this directory holds a json.py.)
# RUN: %mkcode pyc %s %t.pyc
# RUN: cp %t.pyc %t.2.pyc
# RUN: %pyverify dis --format=json --fields %t.pyc %t.2.pyc > %t.dis
# RUN: %python -P %s %t.dis | FileCheck --check-prefix=DIS %s
# RUN: %pyverify analyze --print=stack-depth --format=json %t.pyc %t.2.pyc > %t.an
# RUN: %python -P %s %t.an | FileCheck %s
# DIS: 2 records, 2 lines, text present
# CHECK: 2 records, 2 lines

import json
import sys

TEXT = "a\x85b\u2028c\u2029d"


def main(path):
    with open(path, encoding="utf-8") as f:
        data = f.read()
    lines = data.splitlines()
    records = [json.loads(line) for line in lines]
    present = any(TEXT in json.dumps(r, ensure_ascii=False) for r in records)
    print(f"{len(records)} records, {len(lines)} lines, "
          f"text {'present' if present else 'absent'}")


if __name__ == "__main__" and len(sys.argv) > 1:
    main(sys.argv[1])
