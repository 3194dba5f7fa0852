"""Run a pyverify command that prints one JSON document per line.

The corpus oracles run `pyverify dis/analyze --format=json` over a few
hundred files at a time: hundreds of megabytes of JSON over a whole standard
library. Decoding all of a batch's output as one str (subprocess's
text=True), then stripping and splitting it, copied it three times, in four
bytes a character as soon as one line held a character above U+FFFF: 10-20 s
of CPU per test on the 3.13 stdlib. Here the output stays bytes, is split at b"\\n"
only (a constant's text may hold U+2028 or U+0085, which str.splitlines()
would split at), and each line is decoded (UTF-8, strict, as text=True
did) when it is used.
"""
import subprocess


class JsonLines:
    """The completed command: returncode, stderr (str), and its stdout's
    lines, which iterate as str (the text before the final newline: the
    empty output is one empty line)."""

    def __init__(self, cmd):
        proc = subprocess.run(cmd, capture_output=True)
        self.returncode = proc.returncode
        self.stderr = proc.stderr.decode(errors="replace")
        self._lines = proc.stdout.split(b"\n")
        # As str.rstrip("\n").split("\n"): drop the trailing empty pieces,
        # keep one when nothing else is left.
        while len(self._lines) > 1 and not self._lines[-1]:
            self._lines.pop()

    def __len__(self):
        return len(self._lines)

    def __iter__(self):
        for raw in self._lines:
            yield raw.decode("utf-8")
