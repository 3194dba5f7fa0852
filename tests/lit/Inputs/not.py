"""Run a command and invert success; `--code N` expects exit status N exactly."""
import subprocess
import sys

args = sys.argv[1:]
want = None
if args[:1] == ["--code"]:
    want = int(args[1])
    args = args[2:]
rc = subprocess.call(args)
if want is None:
    sys.exit(0 if rc != 0 else 1)
if rc != want:
    print(f"not.py: expected exit {want}, got {rc}", file=sys.stderr)
    sys.exit(1)
sys.exit(0)
