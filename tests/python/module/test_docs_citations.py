"""docs/emitted-code.md (issue 27: cited by the rewriter, python.md,
prove.md and rewriter.md, but missing): every section the sources and docs
cite exists, and every version-specific fact it states about its running
example is what 3.11, 3.12 and 3.13 compile (tests/python/emitted_code_facts.py
under each interpreter found)."""
import glob
import os
import re
import subprocess
import sys

from conftest import ROOT

DOC = os.path.join(ROOT, "docs", "emitted-code.md")
CITE = re.compile(
    r"emitted-code(?:\.md)?`?\)?\s+(?:sections?\s+)?"
    r"(\d+(?:\.\d+)?(?:\s*(?:-|,|and)\s*\d+(?:\.\d+)?)*)")


def _headings():
    with open(DOC) as f:
        return set(re.findall(r"^#+ (\d+(?:\.\d+)?)\.? ", f.read(), re.M))


def _cited(text):
    """The section numbers cited in text ("sections 4-8" is 4, 5, 6, 7,
    8)."""
    out = set()
    for m in CITE.finditer(text):
        for part in re.split(r"\s*(?:,|and)\s*", m.group(1)):
            lo, _, hi = part.partition("-")
            if hi:
                out |= {str(n) for n in range(int(lo), int(hi) + 1)}
            else:
                out.add(part.strip())
    return out


def _sources():
    for top in ("python", "docs", "tests", "README.md"):
        path = os.path.join(ROOT, top)
        if os.path.isfile(path):
            yield path
            continue
        for d, dirs, files in os.walk(path):
            dirs[:] = [x for x in dirs if x not in ("__pycache__", "Output")]
            for name in files:
                if name.endswith((".py", ".md")):
                    yield os.path.join(d, name)


def test_every_cited_section_exists():
    assert os.path.exists(DOC), "docs/emitted-code.md is cited but missing"
    have = _headings()
    cited = {}
    for path in _sources():
        with open(path, encoding="utf-8", errors="replace") as f:
            for n in _cited(f.read()):
                cited.setdefault(n, os.path.relpath(path, ROOT))
    assert len(cited) >= 10, cited
    missing = {n: where for n, where in cited.items() if n not in have}
    assert not missing, "cited, no such section: %s" % missing


def _interpreters():
    yield sys.executable
    for v in ("3.12", "3.13"):
        found = sorted(glob.glob(os.path.expanduser(
            "~/.pyenv/versions/%s.*/bin/python%s" % (v, v))))
        if found:
            yield found[-1]


def test_measured_facts_are_the_interpreters():
    with open(DOC) as f:
        doc = f.read()
    script = os.path.join(ROOT, "tests", "python", "emitted_code_facts.py")
    versions = set()
    for exe in _interpreters():
        out = subprocess.run([exe, script], capture_output=True, text=True,
                             check=True).stdout.splitlines()
        assert out
        for line in out:
            assert line in doc, "%s: not in docs/emitted-code.md" % line
        versions.add(out[0].split(":")[0])
    assert "3.11" in versions
