# A JSON listing is written as it is built, one instruction row at a time:
# memory does not grow with the code object. A module of 30,000
# assignments (a 300 KB co_code, 120,003 rows) took 538 MB to list with
# dis --format=json --fields and 544 MB with analyze --format=json (the
# whole tree of rows built first, then printed); now 24 and 27 MB, checked
# below against 200 MB.
# (-P: this directory holds a json.py.)
# RUN: %python -P %s %t.pyc
# RUN: %python -P %s %t.pyc %pyverify dis --format=json --fields | FileCheck %s
# RUN: %python -P %s %t.pyc %pyverify analyze --print=contexts --format=json | FileCheck %s
# CHECK: 1 record, 120003 rows, peak memory under 200 MB

import importlib.util
import json
import marshal
import resource
import subprocess
import sys


def main(path, pyverify=None, *args):
    if pyverify is None:
        co = compile("a = b + c\n" * 30000, "memory.py", "exec")
        with open(path, "wb") as f:
            f.write(importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps(co))
        return
    out = subprocess.run([pyverify, *args, path], capture_output=True,
                         check=True, timeout=120).stdout
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    lines = out.decode("utf-8").splitlines()
    rows = sum(len(json.loads(line)["code"]["instructions"]) for line in lines)
    print(f"{len(lines)} record, {rows} rows, peak memory "
          f"{'under' if peak_mb < 200 else 'over'} 200 MB ({peak_mb:.0f} MB)")


if __name__ == "__main__" and len(sys.argv) > 1:
    main(*sys.argv[1:])
