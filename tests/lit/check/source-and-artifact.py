# A diagnostic names the source its line numbers are of: when the code's
# co_filename exists, it is the location, and the file the code was read
# from (.pyc, marshal) is the artifact -- ", read from X" in text,
# "source" in JSON (beside "file", the input, as before), the location and
# "analysisTarget" in SARIF. When co_filename does not
# exist, the input file is the location (as before: x.pyc:6:5) and there is
# no artifact. Before, every diagnostic pointed at the input file with the
# source's line numbers.
import sys

def k(x):
    with x:
        return x + 1

if __name__ == "mkcode":
    import types
    CODE = k.__code__.replace(co_stacksize=1)
    GONE = k.__code__.replace(co_stacksize=1,
                              co_filename="/nonexistent/dir/k.py")

# RUN: %mkcode marshal %s %t.bin
# RUN: %not --code 1 %pyverify check %t.bin | FileCheck %s
# CHECK:      {{.*}}check/source-and-artifact.py:12:5: error: {{.*}} [exception-table-depth-exceeds-stacksize]
# CHECK-NEXT:   in k (line 11) at offset {{[0-9]+}}: {{.*}}, read from {{.*}}source-and-artifact.py.tmp.bin{{$}}
# CHECK-NEXT: {{.*}}check/source-and-artifact.py:{{.*}} note: the handler;

# RUN: %not --code 1 %pyverify check --format=json %t.bin | FileCheck %s --check-prefix=JSON
# JSON: "file": "{{.*}}source-and-artifact.py.tmp.bin"
# JSON: "source": "{{.*}}check/source-and-artifact.py"

# RUN: %mkcode marshal %s %t.gone --object GONE
# RUN: %not --code 1 %pyverify check %t.gone | FileCheck %s --check-prefix=GONE
# RUN: %not --code 1 %pyverify check --format=json %t.gone | FileCheck %s --check-prefix=GONE-JSON
# GONE:      {{.*}}source-and-artifact.py.tmp.gone:12:5: error: {{.*}} [exception-table-depth-exceeds-stacksize]
# GONE-NEXT:   in k (line 11) at offset {{[0-9]+}}: {{[A-Z_]+( [0-9]+)?}}{{$}}
# GONE-JSON-NOT: "source"
