"""docs/python.md's worked example runs as written and prints what the
document says it prints."""

import contextlib
import io
import os
import re

from conftest import ROOT


def test_worked_example_runs():
    with open(os.path.join(ROOT, "docs", "python.md")) as f:
        doc = f.read()
    m = re.search(r"<!-- worked-example -->\n```python\n(.*?)\n```\n\n"
                  r"It prints (.*?)\.\n", doc, re.S)
    assert m, "the worked example (and what it prints) is in docs/python.md"
    source, prints = m.group(1), m.group(2)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "docs/python.md", "exec"), {"__name__": "doc"})
    want = re.findall(r"`([^`]*)`", prints)
    assert out.getvalue().splitlines() == want
