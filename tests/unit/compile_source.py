"""Compile Python source with python3.11 and print the module's marshal bytes.

The unit tests that need real code objects (CFGTest, AnalysisTest) pass the
source hex-encoded as argv[1] -- so no shell quoting can change it -- and a
file name as argv[2]; this prints marshal.dumps(compile(...)) as hex. Run
with PYTHONHASHSEED=0 so the bytes are reproducible.
"""

import marshal
import sys


def main():
    if sys.version_info[:2] != (3, 11):
        sys.exit("compile_source.py needs python3.11, got " + sys.version)
    source = bytes.fromhex(sys.argv[1]).decode("utf-8")
    code = compile(source, sys.argv[2], "exec")
    sys.stdout.write(marshal.dumps(code).hex())


if __name__ == "__main__":
    main()
