#!/usr/bin/env python3.11
"""Checks that pyverify's layers point one way.

    check_layering.py [ROOT]       check the tree at ROOT (default: ../..)
    check_layering.py --self-test  check that the checker catches violations

A component is a directory right under include/pyverify/ or lib/. Reading
every .h, .cpp and .def file there, and every lib/<C>/CMakeLists.txt, the
checker reports one line per violation and exits 1 when:

  * a file of component C includes "pyverify/<D>/..." and D is not C and not
    a component C is built on (LAYERS below, followed transitively);
  * a file of C includes "pyverify/<D>/..." and D is no component at all;
  * a file includes a Z3 header (z3.h, z3++.h, z3_*.h, z3/...) anywhere but
    lib/SMT/ (include/, lib/, tools/, python/src/, tests/ and benchmarks/ are
    read for this), so no public header exposes Z3;
  * lib/<C>/CMakeLists.txt links (pyverify_add_component DEPENDS or
    target_link_libraries) a pyverify<D> library that C may not include, so
    the link dependencies and the include graph cannot drift apart;
  * a directory under include/pyverify/ or lib/ is not in LAYERS: a new
    layer is added here on purpose, with the layers it is built on.

It exits 0 when there is nothing to report and 2 on bad usage.
"""

import argparse
import io
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

# The layering, in one place. Each component names the components it is built
# on directly; it may include and link those and, transitively, everything
# they are built on (Analysis may include CFG, Bytecode, Domain, Fixpoint and
# Support). Nothing may include a component that is not below it. Keep this in
# step with docs/architecture.md and the DEPENDS of lib/*/CMakeLists.txt.
LAYERS = {
    # LLVM Support only: check ids, findings, input errors.
    "Support": [],
    # The generic worklist fixpoint engine and the abstract-domain contract.
    # Knows nothing of Python: no Bytecode, no CFG.
    "Fixpoint": ["Support"],
    # Abstract domains (stack depth, context state); Python-free too.
    "Domain": ["Fixpoint"],
    # .pyc / marshal reading, the object model, opcodes, decoding.
    "Bytecode": ["Support"],
    # Basic blocks and edges over decoded code.
    "CFG": ["Bytecode"],
    # The dataflow passes: the fixpoint engine run on the CFG with domains.
    "Analysis": ["CFG", "Domain"],
    # The checks, diagnostics and their printers.
    "Check": ["Analysis"],
    # The prover; the only layer that uses Z3 (privately, in lib/SMT).
    "SMT": ["Check"],
    # Header-only GoogleTest matchers: may use every library layer.
    "Testing": ["SMT"],
}

# The only place a Z3 header may be included.
Z3_DIR = "lib/SMT"

# Where a stray Z3 include is looked for, besides include/ and lib/.
Z3_EXTRA_ROOTS = ["tools", "python/src", "tests", "benchmarks"]

SOURCE_SUFFIXES = {".h", ".hpp", ".cpp", ".cc", ".def", ".inc"}

INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"]', re.M)
Z3_HEADER_RE = re.compile(r"z3(\+\+)?(\.h|_[A-Za-z0-9_]*\.h|/)")
LIB_TOKEN_RE = re.compile(r"\bpyverify(?:::pyverify)?([A-Z][A-Za-z0-9]*)\b")
CMAKE_CALL_RE = re.compile(
    r"\b(pyverify_add_component|target_link_libraries)\s*\(", re.I)


def closure(layers):
    """Maps each component to every component it may include, itself too."""
    result = {}

    def visit(name, seen):
        if name in result:
            return result[name]
        if name in seen:
            raise SystemExit(f"check_layering.py: LAYERS has a cycle at {name}")
        reach = {name}
        for dep in layers[name]:
            if dep not in layers:
                raise SystemExit(
                    f"check_layering.py: LAYERS: {name} is built on unknown {dep}")
            reach |= visit(dep, seen | {name})
        result[name] = reach
        return reach

    for name in layers:
        visit(name, frozenset())
    return result


@dataclass(frozen=True, order=True)
class Violation:
    path: str  # relative to the root, with '/'
    line: int  # 0 when it is about a directory
    kind: str  # "include", "unknown-include", "z3", "link", "component"
    message: str

    def __str__(self):
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


def blank_comments(text, blank_literals=False):
    """Replaces comments by spaces (newlines kept), so a commented-out
    #include is not read and line numbers stay right. String and character
    literals are skipped over, so "//" inside one is not a comment; with
    \p blank_literals their contents are blanked too (check_sizes.py: a "{"
    in a format string is not a brace)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            # An #include "..." is a string literal too, and is kept.
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + text[j - 1] if blank_literals
                       and j - i >= 2 else text[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def includes(path):
    """Yields (line, bracket, target) for every #include in the file."""
    text = blank_comments(path.read_text(encoding="utf-8", errors="replace"))
    for m in INCLUDE_RE.finditer(text):
        yield text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2).strip()


def source_files(root, top):
    base = root / top
    if not base.is_dir():
        return
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames
                             if not d.startswith(".") and not d.startswith("build"))
        for name in sorted(filenames):
            if Path(name).suffix in SOURCE_SUFFIXES:
                yield Path(dirpath) / name


def rel(root, path):
    return path.relative_to(root).as_posix()


def component_of(relpath):
    """The component of include/pyverify/<C>/... or lib/<C>/..., or None."""
    parts = relpath.split("/")
    if parts[:2] == ["include", "pyverify"] and len(parts) > 3:
        return parts[2]
    if parts[0] == "lib" and len(parts) > 2:
        return parts[1]
    return None


def allowed_text(reach, comp):
    below = sorted(reach[comp] - {comp})
    return ", ".join(below) if below else "none"


def is_z3(target):
    return Z3_HEADER_RE.match(target) is not None


def check_components(root, violations):
    for top in ("include/pyverify", "lib"):
        base = root / top
        if not base.is_dir():
            continue
        for entry in sorted(base.iterdir()):
            if entry.is_dir() and not entry.name.startswith(".") \
                    and entry.name not in LAYERS:
                violations.append(Violation(
                    rel(root, entry), 0, "component",
                    f"component {entry.name} is not in the layering map "
                    f"(add it to LAYERS in tests/layering/check_layering.py "
                    f"with the layers it is built on)"))


def check_includes(root, reach, violations):
    checked = 0
    seen = set()
    for top in ("include/pyverify", "lib"):
        for path in source_files(root, top):
            relpath = rel(root, path)
            seen.add(relpath)
            comp = component_of(relpath)
            for line, _, target in includes(path):
                checked += 1
                if is_z3(target) and not relpath.startswith(Z3_DIR + "/"):
                    violations.append(Violation(
                        relpath, line, "z3",
                        f"{comp or relpath} includes {target}: "
                        f"Z3 is used only inside {Z3_DIR}/"))
                    continue
                if not target.startswith("pyverify/"):
                    continue
                parts = target.split("/")
                other = parts[1] if len(parts) > 2 else None
                if comp is None or comp not in LAYERS:
                    # Reported as an unknown component (or a stray file).
                    if comp is None:
                        violations.append(Violation(
                            relpath, line, "unknown-include",
                            f"file outside any component includes {target}"))
                    continue
                if other not in LAYERS:
                    violations.append(Violation(
                        relpath, line, "unknown-include",
                        f"{comp} includes {target}: "
                        f"{other or target} is not a component in the layering map"))
                    continue
                if other in reach[comp]:
                    continue
                direction = "upward" if comp in reach[other] else "sideways"
                violations.append(Violation(
                    relpath, line, "include",
                    f"{comp} includes {target}: {direction} include "
                    f"(allowed: {allowed_text(reach, comp)})"))
    # Z3 stays out of the tools, the bindings, the tests and the benchmarks.
    for top in Z3_EXTRA_ROOTS:
        for path in source_files(root, top):
            relpath = rel(root, path)
            if relpath in seen:
                continue
            for line, _, target in includes(path):
                checked += 1
                if is_z3(target):
                    violations.append(Violation(
                        relpath, line, "z3",
                        f"{relpath} includes {target}: "
                        f"Z3 is used only inside {Z3_DIR}/"))
    return checked


def cmake_calls(text):
    """Yields (line, command, argument text) for each pyverify_add_component
    and target_link_libraries call, with # comments removed."""
    text = "\n".join(re.sub(r"#.*", "", line) for line in text.split("\n"))
    for m in CMAKE_CALL_RE.finditer(text):
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        yield (text.count("\n", 0, m.start()) + 1, m.group(1).lower(),
               text[m.end():j - 1])


def check_cmake(root, reach, violations):
    lib = root / "lib"
    if not lib.is_dir():
        return
    for cmake in sorted(lib.glob("*/CMakeLists.txt")):
        comp = cmake.parent.name
        if comp not in LAYERS:
            continue  # reported as an unknown component
        relpath = rel(root, cmake)
        text = cmake.read_text(encoding="utf-8", errors="replace")
        for line, command, args in cmake_calls(text):
            words = args.split()
            # The first argument names the target, not a dependency.
            for token in LIB_TOKEN_RE.finditer(" ".join(words[1:])):
                other = token.group(1)
                if other == comp:
                    continue
                if other not in LAYERS:
                    violations.append(Violation(
                        relpath, line, "link",
                        f"{comp} links pyverify{other}: not a layer in the "
                        f"layering map"))
                elif other not in reach[comp]:
                    direction = "upward" if comp in reach[other] else "sideways"
                    violations.append(Violation(
                        relpath, line, "link",
                        f"{comp} links pyverify{other}: {direction} link "
                        f"dependency (allowed: {allowed_text(reach, comp)})"))


def check(root):
    """Returns (violations, number of includes read) for the tree at root."""
    reach = closure(LAYERS)
    violations = []
    check_components(root, violations)
    checked = check_includes(root, reach, violations)
    check_cmake(root, reach, violations)
    return sorted(set(violations)), checked


def run(root, out=sys.stdout):
    violations, checked = check(root)
    for v in violations:
        print(v, file=out)
    if violations:
        print(f"layering: {len(violations)} violation(s); LAYERS in "
              f"tests/layering/check_layering.py says what may include what",
              file=out)
        return 1
    print(f"layering: {checked} includes checked, no violations", file=out)
    return 0


# --- self-test ---------------------------------------------------------------

def write(root, relpath, text):
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def self_test():
    """Builds small trees with known violations and checks that exactly those
    are reported, and that a clean tree passes."""
    failures = []
    with tempfile.TemporaryDirectory(prefix="layering-self-test-") as tmp:
        clean = Path(tmp) / "clean"
        # Allowed: same component, downward, transitive, Testing on top, Z3
        # in lib/SMT, and includes that only look like violations.
        write(clean, "include/pyverify/Support/Check.h", "#pragma once\n")
        write(clean, "include/pyverify/Fixpoint/FixpointIterator.h",
              '#include "pyverify/Support/Check.h"\n')
        write(clean, "include/pyverify/Domain/DepthValue.h",
              '#include "pyverify/Fixpoint/FixpointIterator.h"\n'
              '#include "pyverify/Support/Check.h"\n')
        write(clean, "include/pyverify/Bytecode/Opcode.h",
              '#include "pyverify/Bytecode/Opcodes311.def"\n'
              '#include "pyverify/Support/Check.h"\n')
        write(clean, "include/pyverify/Check/Verifier.h",
              '#include "pyverify/Analysis/StackDepth.h"\n')
        write(clean, "include/pyverify/SMT/Solver.h",
              "// The solver hides <z3++.h>; #include <z3++.h> is not here.\n"
              "/*\n#include \"pyverify/Testing/Matchers.h\"\n*/\n")
        write(clean, "include/pyverify/Testing/Matchers.h",
              '#include "pyverify/SMT/Solver.h"\n#include "gtest/gtest.h"\n')
        write(clean, "lib/Analysis/StackDepth.cpp",
              '#include "pyverify/Domain/DepthValue.h"\n'
              '#include "pyverify/CFG/CFG.h"\n'
              '#include "pyverify/Support/Check.h"\n'
              'const char *S = "// #include \\"pyverify/SMT/Solver.h\\"";\n')
        write(clean, "lib/SMT/Solver.cpp",
              '#include "pyverify/SMT/Solver.h"\n#include <z3++.h>\n')
        write(clean, "lib/CFG/CMakeLists.txt",
              "pyverify_add_component(CFG\n  SOURCES CFG.cpp\n"
              "  DEPENDS pyverifyBytecode)  # not pyverifyCheck\n")
        write(clean, "lib/SMT/CMakeLists.txt",
              "pyverify_add_component(SMT SOURCES Solver.cpp DEPENDS pyverifyCheck)\n"
              "target_link_libraries(pyverifySMT PRIVATE ${Z3_LIBRARY})\n")
        violations, _ = check(clean)
        if violations:
            failures.append("clean tree reported: "
                            + "; ".join(str(v) for v in violations))
        if run(clean, out=io.StringIO()) != 0:
            failures.append("clean tree: exit code is not 0")

        bad = Path(tmp) / "bad"
        write(bad, "include/pyverify/Check/Verifier.h", "#pragma once\n")
        write(bad, "include/pyverify/Support/Check.h", "#pragma once\n")
        write(bad, "lib/Bytecode/X.cpp",
              '#include "pyverify/Support/Check.h"\n'
              '#include "pyverify/Check/Verifier.h"\n')
        write(bad, "lib/Analysis/Y.cpp", "#include <vector>\n#include <z3++.h>\n")
        write(bad, "include/pyverify/Bogus/Thing.h", "#pragma once\n")
        write(bad, "include/pyverify/Fixpoint/Engine.h",
              '  #  include "pyverify/CFG/CFG.h"\n')
        write(bad, "include/pyverify/SMT/Solver.h", '#include "z3.h"\n')
        write(bad, "tools/pyverify/Tool.cpp", "#include <z3++.h>\n")
        write(bad, "lib/CFG/CMakeLists.txt",
              "pyverify_add_component(CFG\n  SOURCES CFG.cpp\n"
              "  DEPENDS pyverifyBytecode pyverifyCheck)\n")
        expected = {
            ("lib/Bytecode/X.cpp", 2, "include"),          # upward include
            ("lib/Analysis/Y.cpp", 2, "z3"),               # Z3 outside lib/SMT
            ("include/pyverify/Bogus", 0, "component"),    # unknown component
            ("include/pyverify/Fixpoint/Engine.h", 1, "include"),  # sideways
            ("include/pyverify/SMT/Solver.h", 1, "z3"),    # Z3 in a header
            ("tools/pyverify/Tool.cpp", 1, "z3"),          # Z3 in the tools
            ("lib/CFG/CMakeLists.txt", 1, "link"),         # upward link
        }
        violations, _ = check(bad)
        got = {(v.path, v.line, v.kind) for v in violations}
        for missing in sorted(expected - got):
            failures.append(f"not reported: {missing}")
        for extra in sorted(got - expected):
            failures.append(f"reported but not expected: {extra}")
        upward = [v for v in violations if v.path == "lib/Bytecode/X.cpp"]
        want = ("Bytecode includes pyverify/Check/Verifier.h: upward include "
                "(allowed: Support)")
        if not upward or upward[0].message != want:
            failures.append(f"message for lib/Bytecode/X.cpp is not '{want}'")
        if run(bad, out=io.StringIO()) != 1:
            failures.append("bad tree: exit code is not 1")

    for f in failures:
        print(f"self-test: {f}")
    if failures:
        print(f"self-test: FAILED ({len(failures)} problem(s))")
        return 1
    print(f"self-test: all {len(expected)} planted violations reported, "
          f"clean tree passes")
    return 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root", nargs="?", type=Path,
                        default=Path(__file__).resolve().parents[2],
                        help="the repository root (default: %(default)s)")
    parser.add_argument("--self-test", action="store_true",
                        help="check the checker on planted violations")
    args = parser.parse_args(argv)
    if args.self_test:
        return self_test()
    root = args.root.resolve()
    if not (root / "include" / "pyverify").is_dir() or not (root / "lib").is_dir():
        print(f"check_layering.py: {root} has no include/pyverify/ and lib/",
              file=sys.stderr)
        return 2
    return run(root)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
