#!/usr/bin/env python3.11
"""File and function sizes under lib/ (issue 11: one idea per unit).

Fails (exit 1) when a .cpp/.h under lib/ or include/pyverify/ has more than
MAX_FILE_LINES lines, or a function body more than MAX_FUNCTION_LINES lines.
A function is found as a line at brace depth 0 or inside a class/namespace
that ends in '{' and looks like a definition (has '(' before the brace and
is not a control statement); its length runs to the matching '}'. With
--report, prints every file over 300 lines and the 15 longest functions.

Usage: check_sizes.py [ROOT] [--report] | --self-test
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_layering import blank_comments  # noqa: E402

MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 100
CONTROL = re.compile(r"^\s*(if|for|while|switch|else|do|catch|case|default|return|try)\b")
DEF_START = re.compile(r"^\s*[\w:<>,~*&\s\[\]]*\b[\w:~]+\s*\([^;]*$")


def strip(text):
    """Comments and string/char literals blanked (lines kept)."""
    return blank_comments(text, blank_literals=True)


def functions(path):
    """(name, first line, length) of each function definition in path."""
    lines = strip(open(path, encoding="utf-8").read()).split("\n")
    found = []
    depth = 0
    stack = []          # (kind, start line, name, depth at open)
    sig = []            # pending signature lines
    for no, line in enumerate(lines, 1):
        if line.strip() and not stack or (stack and stack[-1][0] != "fn"):
            sig.append(line)
            sig = sig[-6:]
        for ch in line:
            if ch == "{":
                if not stack or stack[-1][0] != "fn":
                    text = " ".join(s.strip() for s in sig)
                    head = text[: text.rfind("{")] if "{" in text else text
                    is_fn = ("(" in head and not CONTROL.match(line)
                             and not re.search(r"\b(class|struct|namespace|enum|union)\b[^()]*$", head)
                             and not head.rstrip().endswith("="))
                    name = re.findall(r"([\w:~]+)\s*\(", head)
                    kind = "fn" if is_fn and name else "scope"
                    stack.append((kind, no, name[-1] if name else "", depth))
                    sig = []
                else:
                    stack.append(("inner", no, "", depth))
                depth += 1
            elif ch == "}":
                depth -= 1
                if stack:
                    kind, start, name, _ = stack.pop()
                    if kind == "fn":
                        found.append((name, start, no - start + 1))
                if not stack or stack[-1][0] != "fn":
                    sig = []
    return found


def sources(root):
    for top in ("lib", "include/pyverify"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith((".cpp", ".h")):
                    yield os.path.join(d, f)


def check(root, report=False):
    bad, allfns, big = [], [], []
    for p in sorted(sources(root)):
        rel = os.path.relpath(p, root)
        n = sum(1 for _ in open(p, encoding="utf-8"))
        if n > 300:
            big.append((n, rel))
        if n > MAX_FILE_LINES:
            bad.append("%s: %d lines (at most %d)" % (rel, n, MAX_FILE_LINES))
        for name, start, length in functions(p):
            allfns.append((length, "%s:%d %s" % (rel, start, name)))
            if length > MAX_FUNCTION_LINES:
                bad.append("%s:%d: function %s is %d lines (at most %d)"
                           % (rel, start, name, length, MAX_FUNCTION_LINES))
    if report:
        print("files over 300 lines:")
        for n, rel in sorted(big, reverse=True):
            print("  %5d  %s" % (n, rel))
        print("longest functions:")
        for length, where in sorted(allfns, reverse=True)[:15]:
            print("  %5d  %s" % (length, where))
    for b in bad:
        print(b)
    print("sizes: %d files, %d functions; %d over the limits"
          % (len(list(sources(root))), len(allfns), len(bad)))
    return 1 if bad else 0


def self_test():
    with tempfile.TemporaryDirectory() as t:
        os.makedirs(os.path.join(t, "lib", "X"))
        body = "\n".join("  x += %d;" % i for i in range(120))
        with open(os.path.join(t, "lib", "X", "a.cpp"), "w") as f:
            f.write("namespace {\nstruct S {\n  int f() {\n    return 1;\n  }\n};\n}\n"
                    "int big(int x) {\n" + body + "\n  if (x) {\n    x = 0;\n  }\n"
                    "  return x;\n}\n")
        fns = {n: l for n, _, l in functions(os.path.join(t, "lib", "X", "a.cpp"))}
        ok = fns.get("f") == 3 and fns.get("big", 0) > 120 and "if" not in fns
        rc = check(t)
        ok = ok and rc == 1
        print("self-test: %s (%s)" % ("ok" if ok else "FAILED", fns))
        return 0 if ok else 1


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--self-test" in args:
        sys.exit(self_test())
    root = next((a for a in args if not a.startswith("--")),
                os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    sys.exit(check(root, "--report" in args))
