#!/usr/bin/env python3.11
"""AST oracle for block-stack reconstruction.

For every code object of every .py file under SRC whose function contains a
`with`, `async with` or `try` statement, every reachable instruction whose
source position (co_positions) lies inside a statement of a `with` body must
have that `with` block -- identified by the offset of its BEFORE_WITH /
BEFORE_ASYNC_WITH -- on pyverify's reconstructed block stack, and the with
blocks on that stack must be exactly the enclosing with items in the AST's
nesting order (outermost first).

BEFORE_WITH carries the position of its whole `with` statement (3.13: of
its item's context expression), and a statement with several items compiles
one BEFORE_WITH per item in order, so a With node maps to the BEFORE_WITH
offsets sharing its span (3.13: its items' spans). 3.14 has no BEFORE_WITH:
its items' enter sequences (COPY 1 .. LOAD_SPECIAL __enter__; CALL 0) carry
the item's span as 3.13's does, and with_enter.py names each by its CALL.

Prints the agreement count; exits 1 when any instruction disagrees (listing
the first ones).

Under python3.12 or python3.13 (their stdlib, CMake passes --exempt): those
compilers leave some instructions of a with body outside the with's
exception-table entry, where the table -- and so pyverify's block stack --
has no with. --exempt names the opcodes whose disagreement is counted apart:
those the interpreter never looks an exception up at -- NOP; 3.13's
conditional jumps (they take a bool) and JUMP_BACKWARD_NO_INTERRUPT; 3.12's
JUMP_BACKWARD (its eval-breaker exception is looked up at its target - 1:
tests/versions/check_back_edge.py) -- and 3.13's JUMP_BACKWARD, which does
raise at its own offset: there the table is the compiler's bug, the block
stack follows the table as it must, and `check` reports each such with as
context-not-exited (docs/versions.md). 3.14 also leaves the NOT_TAKEN after
a conditional jump outside the entry (CMake's 3.14 list). The counts are
printed per opcode.
"""
import argparse
import ast
import json
import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from json_lines import JsonLines  # noqa: E402  (same directory)
from with_enter import ENTER_ROW_KEYS, enter_sites  # noqa: E402


# The instruction-row keys this oracle reads (`pyverify analyze --keys=`),
# with_enter.py's among them.
ROW_KEYS = tuple(dict.fromkeys(("offset", "opname", "line", "col", "end_line",
                                 "end_col", "blocks") + ENTER_ROW_KEYS))


def span(node):
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


def stmt_span(node):
    """A statement's span, a decorated definition's from its first decorator
    (the decorators' code runs in the enclosing body)."""
    decorators = getattr(node, "decorator_list", None)
    if decorators:
        first = min(decorators, key=lambda d: (d.lineno, d.col_offset))
        return (first.lineno, first.col_offset, node.end_lineno, node.end_col_offset)
    return span(node)


def inside(pos, s):
    """Position (line, end_line, col, end_col) lies inside statement span s."""
    line, end_line, col, end_col = pos
    if line is None or end_line is None or col is None or end_col is None:
        return False
    return (line, col) >= (s[0], s[1]) and (end_line, end_col) <= (s[2], s[3])


class Scope:
    """The with statements of one function body (not nested functions)."""

    def __init__(self, node):
        self.node = node
        self.withs = []      # (With node, [body stmt spans], enclosing withs)
        self.all_withs = []
        self.has_block = False
        self._walk(node.body if not isinstance(node, ast.Lambda) else [], [])

    def _walk(self, stmts, enclosing):
        for st in stmts:
            self._visit(st, enclosing)

    def _visit(self, st, enclosing):
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return
        if isinstance(st, (ast.With, ast.AsyncWith)):
            self.has_block = True
            entry = (st, [stmt_span(b) for b in st.body], list(enclosing))
            self.withs.append(entry)
            self.all_withs.append(st)
            self._walk(st.body, enclosing + [st])
            return
        if isinstance(st, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            self.has_block = True
        for field in ("body", "orelse", "finalbody"):
            self._walk(getattr(st, field, []) or [], enclosing)
        for h in getattr(st, "handlers", []) or []:
            self._walk(h.body, enclosing)
        if isinstance(st, ast.Match):
            for c in st.cases:
                self._walk(c.body, enclosing)


def statements(tree):
    """Every statement node of tree, nested ones included. A statement never
    sits inside an expression (a lambda's body is one), so this finds every
    def that ast.walk finds without visiting the expressions, nine in ten
    of a module's nodes: ast.walk was a fifth of this test's time."""
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.stmt):
            yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.expr):
                todo.append(child)


def scopes_by_key(tree):
    out = {}
    for node in statements(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # co_firstlineno of a decorated function is the first decorator.
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            out.setdefault((node.name, first), []).append(Scope(node))
    return out


def copy_for(w, enters, offset):
    """BEFORE_WITH offsets of With w for the copy of the code that holds
    `offset`: a with in a `finally` is compiled once per exit path, so its
    span appears once per copy (k items each); take the copy that starts
    nearest before the instruction."""
    if sys.version_info >= (3, 13):
        # 3.13's BEFORE_WITH carries its item's context expression.
        per_item = [enters.get(span(it.context_expr), []) for it in w.items]
        copies = [list(c) for c in zip(*per_item)]
        if not copies:
            return ["?%d" % w.lineno]
    else:
        offs = enters.get(span(w))
        if not offs:
            return ["?%d" % w.lineno]
        k = len(w.items)
        copies = [offs[i:i + k] for i in range(0, len(offs), k)]
    best = copies[0]
    for c in copies:
        if c[0] <= offset:
            best = c
    return best


def code_objects(j):
    yield j
    for k in j["children"]:
        yield from code_objects(k)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pyverify", required=True)
    ap.add_argument("--pyc-dir", required=True,
                    help="compiled mirror of SRC (compile_corpus.py)")
    ap.add_argument("--exempt", default="",
                    help="comma-separated opcodes whose disagreement is only "
                         "counted (see above)")
    ap.add_argument("src")
    a = ap.parse_args()
    exempt_ops = set(filter(None, a.exempt.split(",")))
    exempted = {}

    sources = sorted(os.path.join(r, f) for r, ds, fs in os.walk(a.src)
                     for f in fs if f.endswith(".py")
                     if "site-packages" not in r and "dist-packages" not in r)
    functions = checked = agree = with_sites = 0
    failures = []
    batch = []

    def flush():
        nonlocal functions, checked, agree, with_sites, exempted
        if not batch:
            return
        pycs = [p for _, p, _ in batch]
        # Only the row keys read here and in with_enter.py: the whole
        # rows were 628 MB of JSON on the 3.13 stdlib.
        out = JsonLines([a.pyverify, "analyze", "--print=block-stack",
                         "--format=json", "--keys=" + ",".join(ROW_KEYS),
                         *pycs])
        if out.returncode != 0:
            print(out.stderr)
            sys.exit(1)
        for (src, pyc, scopes), line in zip(batch, out):
            j = json.loads(line)
            for cj in code_objects(j["code"]):
                cands = scopes.get((cj["name"], cj["firstlineno"]), [])
                if len(cands) != 1 or not cands[0].has_block:
                    continue
                sc = cands[0]
                functions += 1
                insts = cj["instructions"]
                # With node -> its items' enter offsets by span, in order
                # (with_enter.py: BEFORE_WITH, or 3.14's CALL of __enter__).
                enters, alias, after = enter_sites(insts)
                with_sites += sum(len(v) for v in enters.values())
                for ins in insts:
                    if ins["blocks"] is None or ins["opname"] == "EXTENDED_ARG":
                        continue
                    pos = (ins["line"], ins["end_line"], ins["col"], ins["end_col"])
                    # The withs whose body holds this instruction, outermost first.
                    holders = [w for w, bodies, _ in sc.withs
                               if any(inside(pos, b) for b in bodies)]
                    if not holders:
                        continue
                    checked += 1
                    expected = []
                    for w in holders:
                        expected += copy_for(w, enters, ins["offset"])
                    # Inside a with statement's items: item j's `as` target is
                    # protected by items 0..j, item j's expression by 0..j-1.
                    for w in sc.all_withs:
                        if any(inside(pos, b) for b in (span(x) for x in w.body)):
                            continue
                        if not inside(pos, span(w)):
                            continue
                        offs = copy_for(w, enters, ins["offset"])
                        for j, item in enumerate(w.items):
                            if item.optional_vars is not None and \
                                    inside(pos, span(item.optional_vars)):
                                expected += offs[:j + 1]
                            elif sys.version_info >= (3, 13) and \
                                    inside(pos, span(item.context_expr)) and \
                                    isinstance(offs[j], int) and \
                                    ins["offset"] == after.get(offs[j]) and \
                                    ins["opname"] != "GET_AWAITABLE":
                                # 3.13: the POP_TOP (or STORE) of the enter
                                # result right after the item's BEFORE_WITH
                                # carries the item's span and is protected
                                # by it; its exit sequence carries it too
                                # and is not (nor is an async with's await
                                # of __aenter__).
                                expected += offs[:j + 1]
                            elif j and inside(pos, span(item.context_expr)):
                                expected += offs[:j]
                    actual = [alias.get(b["enter"], b["enter"]) for b in ins["blocks"]
                              if b["kind"] in ("with", "async with")]
                    # An instruction carrying a nested with statement's own
                    # span is that statement's machinery (BEFORE_WITH, the
                    # POP_TOP of an unnamed enter result, exit calls): the
                    # POP_TOP is protected by the nested with, the others
                    # are not, so both answers are right.
                    alternatives = [expected]
                    for w in sc.all_withs:
                        own = [span(w)] + [span(it.context_expr) for it in w.items]
                        if w not in holders and pos[0] is not None and \
                                (pos[0], pos[2], pos[1], pos[3]) in own:
                            # A statement of k items: its machinery sits
                            # under the first j of them, 0 <= j <= k.
                            offs = copy_for(w, enters, ins["offset"])
                            alternatives += [expected + offs[:j]
                                             for j in range(len(offs) + 1)]
                    if actual in alternatives:
                        agree += 1
                    elif ins["opname"] in exempt_ops:
                        checked -= 1
                        exempted[ins["opname"]] = exempted.get(ins["opname"], 0) + 1
                    elif len(failures) < 40:
                        failures.append(f"{src}:{ins['line']}: {cj['qualname']} "
                                        f"offset {ins['offset']} {ins['opname']}: "
                                        f"with blocks {actual}, AST says {expected}")
        batch.clear()

    for src in sources:
        rel = os.path.relpath(src, a.src)
        pyc = os.path.join(a.pyc_dir, rel + "c")
        if not os.path.exists(pyc):
            continue
        with open(src, "rb") as f:
            scopes = scopes_by_key(ast.parse(f.read()))
        # Only a function with a with or try statement is compared: a file
        # without one adds nothing to any count, so pyverify is not asked.
        if any(sc.has_block for cands in scopes.values() for sc in cands):
            batch.append((src, pyc, scopes))
        if len(batch) == 100:
            flush()
    flush()
    pct = 100.0 * agree / checked if checked else 100.0
    print(f"block-stack AST oracle: {functions} functions with with/try, "
          f"{with_sites} with sites; {agree} of {checked} instructions inside "
          f"with bodies agree ({pct:.3f}%)"
          + (f"; not compared, outside their with's table entry: "
             f"{sorted(exempted.items())}" if exempt_ops else ""))
    for f in failures:
        print("  " + f)
    return 0 if agree == checked else 1


if __name__ == "__main__":
    sys.exit(main())
