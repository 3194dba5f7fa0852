# check --format=json and --format=sarif write their output one diagnostic
# at a time: a module of 25,000 assignments whose 50,000 LOAD_NAMEs each
# name a name past co_names (operand-out-of-range) took 2.11 GB for the
# SARIF log and 304 MB for the JSON (each built as one llvm::json tree,
# then printed); now 94 MB each, the diagnostics themselves, checked below
# against 200 MB.

# RUN: %python -P %s %t.pyc
# RUN: %python -P %s %t.pyc %pyverify check --format=sarif | FileCheck %s --check-prefix=SARIF
# RUN: %python -P %s %t.pyc %pyverify check --format=json | FileCheck %s --check-prefix=JSON
# SARIF: 50000 results, peak memory under 200 MB
# JSON: 50000 diagnostics, peak memory under 200 MB

import importlib.util
import json
import marshal
import resource
import subprocess
import sys

LOAD_NAME = 101  # 3.11


def main(path, pyverify=None, *args):
    if pyverify is None:
        co = compile("a = b + c\n" * 25000, "many.py", "exec")
        code = bytearray(co.co_code)
        for i in range(0, len(code), 2):
            if code[i] == LOAD_NAME:
                code[i + 1] = 200  # co_names has 3 names
        co = co.replace(co_code=bytes(code))
        with open(path, "wb") as f:
            f.write(importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps(co))
        return
    r = subprocess.run([pyverify, *args, path], capture_output=True,
                       timeout=300)
    assert r.returncode == 1, r.returncode  # findings
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    out = json.loads(r.stdout)
    if "runs" in out:
        n, what = len(out["runs"][0]["results"]), "results"
    else:
        n, what = len(out["diagnostics"]), "diagnostics"
    print(f"{n} {what}, peak memory "
          f"{'under' if peak_mb < 200 else 'over'} 200 MB ({peak_mb:.0f} MB)")


if __name__ == "__main__" and len(sys.argv) > 1:
    main(*sys.argv[1:])
