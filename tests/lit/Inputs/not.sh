# Run a command and invert success; `--code N` expects exit status N exactly
# (a command killed by a signal exits 128 + N here, never a code a test
# expects). A shell script: lit runs it 383 times, and a Python start each
# cost 45 ms of the suite's time.
want=
if [ "$1" = "--code" ]; then
  want=$2
  shift 2
fi
"$@"
rc=$?
if [ -z "$want" ]; then
  [ "$rc" -ne 0 ]
  exit
fi
if [ "$rc" -ne "$want" ]; then
  echo "not.sh: expected exit $want, got $rc" >&2
  exit 1
fi
exit 0
