# docs/checks.md documents every check id of --list-checks --format=json
# under its anchor, each with an *Example* and a *Fix*; every example
# diagnostic quoted there ("`error: MESSAGE [check-id]`") is true: it matches
# the expectation of a lit test that produces it (a CHECK line of
# tests/lit), so the examples are run with the suite.
#
# RUN: %pyverify check --list-checks --format=json > %t.json
# RUN: %python %s %t.json | FileCheck %s
# CHECK: checks.md: {{[0-9]+}} check(s), each with an example run by a lit test and a fix
# CHECK-NOT: missing
import json
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                    "..")
SEVERITY = r"(?:error|warning|remark): "


def sections(text):
    """{check id: its section's text, lines joined by spaces}."""
    out = {}
    for part in re.split(r"^### ", text, flags=re.M)[1:]:
        m = re.match(r"`([a-z0-9-]+)`", part)
        if m:
            body = part.split("\n## ")[0]
            out[m.group(1)] = re.sub(r"\s*\n\s*", " ", body)
    return out


def filecheck_regex(pattern):
    """A FileCheck pattern as a Python regex ({{re}}, [[V:re]], [[V]])."""
    out, pos = "", 0
    for m in re.finditer(r"\{\{(.*?)\}\}|\[\[(\w+):(.*?)\]\]|\[\[(\w+)\]\]",
                         pattern):
        out += re.escape(pattern[pos:m.start()])
        out += "(?:%s)" % (m.group(1) or m.group(3) or ".*")
        pos = m.end()
    return out + re.escape(pattern[pos:])


def expectations():
    """Every CHECK-like pattern of tests/lit that names a check id."""
    pats = []
    lit = os.path.join(ROOT, "tests", "lit")
    for d, _, files in os.walk(lit):
        for f in files:
            if not f.endswith((".py", ".test")):
                continue
            for line in open(os.path.join(d, f), encoding="utf-8"):
                m = re.match(r"\s*[#;]+\s*[A-Z0-9-]+(?:-NEXT|-SAME)?:\s*(.*)$",
                             line)
                if not m:
                    continue
                s = re.search(SEVERITY, m.group(1))
                if s and re.search(r"\[[a-z0-9-]+\]\s*$", m.group(1)):
                    pats.append(m.group(1)[s.start():].strip())
    return pats


def norm(s):
    return re.sub(r"\s+", " ", s).strip()


def specific(pattern):
    """Whether a pattern says enough of the message to vouch for an
    example: 20 literal characters besides the severity and the check id
    ("error: {{.*}} [id]" matches anything)."""
    literal = re.sub(r"\{\{.*?\}\}|\[\[.*?\]\]", "", pattern)
    literal = re.sub(r"^" + SEVERITY + r"|\[[a-z0-9-]+\]$", "", literal)
    return len(literal.strip()) >= 20


def main():
    ids = [c["id"] for c in json.load(open(sys.argv[1]))["checks"]]
    docs = open(os.path.join(ROOT, "docs", "checks.md"), encoding="utf-8").read()
    secs = sections(docs)
    regexes = [re.compile(filecheck_regex(norm(p))) for p in expectations()
               if specific(norm(p))]
    bad = []
    for cid in ids:
        s = secs.get(cid)
        if s is None or '<a id="%s"></a>' % cid not in docs:
            bad.append("%s: missing section or anchor" % cid)
            continue
        for word in ("*Example*", "*Fix*"):
            if word not in s:
                bad.append("%s: missing %s" % (cid, word))
        quoted = [q for q in re.findall(r"`([^`]+)`", s)
                  if re.match(SEVERITY, q) and q.endswith("[%s]" % cid)]
        if not quoted:
            bad.append("%s: missing a quoted example diagnostic" % cid)
        for q in quoted:
            if not any(r.fullmatch(norm(q)) for r in regexes):
                bad.append("%s: example not produced by any lit test: %s"
                           % (cid, q))
    for b in bad:
        print(b)
    if not bad:
        print("checks.md: %d check(s), each with an example run by a lit "
              "test and a fix" % len(ids))


if __name__ == "__main__":
    main()
