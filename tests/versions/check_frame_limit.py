"""Measures the largest frame the running interpreter can allocate, the
MaxFrameSlots of include/pyverify/Check/StackChecks.h (stacksize-too-large,
docs/checks.md): a function of N locals with co_stacksize = LIMIT - N runs
(the call returns), one slot more hangs the call (push_chunk's int byte count
overflows and its doubling never ends). Each call runs in a child process
with a timeout; the hanging one is killed.

    python3.X tests/versions/check_frame_limit.py

Exits 0 when both hold (about 3 s: the timeout of the hanging call), 1 when
not, printing what it saw. 64-bit builds only.
"""
import subprocess
import sys

LIMIT = 2**27 - 1009  # MaxFrameSlots
TIMEOUT = 3

CHILD = """
import sys
def f(a, b, c):
    return 1
n = int(sys.argv[1])
g = type(f)(f.__code__.replace(co_stacksize=n), {})
print(g(1, 2, 3))
"""


def runs(stacksize):
    """True if the call returns, False if it hangs; the output otherwise."""
    try:
        r = subprocess.run([sys.executable, "-c", CHILD, str(stacksize)],
                           capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return False
    return True if r.stdout.strip() == "1" else (r.returncode, r.stderr[-200:])


def main():
    if sys.maxsize < 2**32:
        print("check_frame_limit: a 32-bit build; the limit is for 64-bit")
        return 0
    locals_ = 3
    at, over = runs(LIMIT - locals_), runs(LIMIT - locals_ + 1)
    print("python %d.%d: %d slots: %s; %d slots: %s" % (
        sys.version_info[0], sys.version_info[1], LIMIT,
        "runs" if at is True else at, LIMIT + 1,
        "hangs" if over is False else over))
    return 0 if at is True and over is False else 1


if __name__ == "__main__":
    sys.exit(main())
