#!/usr/bin/env python3
"""ctest version-names: outside the version tables and the traits file, no C++ source
names a CPython version.

A pass that needs a shape fact reads a column of VersionTraits.def through traits(V)
(PythonVersion.h); an opcode fact is a row of the version's Opcodes3NN.def. A test
`V == PythonVersion::V3_13` in a pass would give a new version an old one's rule without a
word; this check fails on any enumerator of PythonVersion (V3_11, PythonVersion::V3_12,
...) or version bit (V311 ...) in lib/, include/, tools/ and python/src/, except in the
files that are the tables:

    include/pyverify/Bytecode/PythonVersion.h     the enum and the traits rows' reader
    include/pyverify/Bytecode/VersionTraits.def   the traits
    include/pyverify/Bytecode/Opcodes3NN.def      the opcode tables
    lib/Bytecode/VersionOpcodes.cpp               builds one table per version
    include/pyverify/Bytecode/OperandRules.def    per-version operand rules
    include/pyverify/Analysis/SlotKinds.def       per-version slot rules
    include/pyverify/Bytecode/UnicodeUnprintable.def  what each version's repr() escapes

    python3 tests/layering/check_version_names.py SRC      (exit 1 and the list)
    python3 tests/layering/check_version_names.py --self-test
"""
import os
import re
import sys
import tempfile

ROOTS = ("lib", "include", "tools", os.path.join("python", "src"))
TABLES = {
    "include/pyverify/Bytecode/PythonVersion.h",
    "include/pyverify/Bytecode/VersionTraits.def",
    "lib/Bytecode/VersionOpcodes.cpp",
    "include/pyverify/Bytecode/OperandRules.def",
    "include/pyverify/Analysis/SlotKinds.def",
    "include/pyverify/Bytecode/UnicodeUnprintable.def",
}
TABLE_RE = re.compile(r"include/pyverify/Bytecode/Opcodes3\d+\.def$")
NAME_RE = re.compile(r"\bV3_\d+\b|\bV3\d\d\b")


def findings(src):
    out = []
    for root in ROOTS:
        for dirpath, _, files in os.walk(os.path.join(src, root)):
            for name in sorted(files):
                if not name.endswith((".cpp", ".h", ".def")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, src).replace(os.sep, "/")
                if rel in TABLES or TABLE_RE.search(rel):
                    continue
                with open(path, encoding="utf-8") as f:
                    for n, line in enumerate(f, 1):
                        code = line.split("//", 1)[0]
                        m = NAME_RE.search(code)
                        if m:
                            out.append("%s:%d: names version %s: %s"
                                       % (rel, n, m.group(0), line.strip()))
    return sorted(out)


def self_test():
    with tempfile.TemporaryDirectory() as d:
        def write(rel, text):
            p = os.path.join(d, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)
        write("lib/Analysis/Pass.cpp",
              "bool f(I) { return I.Ver == PythonVersion::V3_13; }\n"
              "// a comment about V3_11 is documentation\n")
        write("include/pyverify/Analysis/Bits.h", "enum { V312 = 2 };\n")
        write("include/pyverify/Bytecode/Opcodes314.def", "PYV(V3_14)\n")
        write("lib/Bytecode/VersionOpcodes.cpp", "makeTable(V3_11);\n")
        got = findings(d)
        want = ["include/pyverify/Analysis/Bits.h:1", "lib/Analysis/Pass.cpp:1"]
        if [g.split(": ")[0] for g in got] != want:
            print("self-test: expected %s, got %s" % (want, got))
            return 1
    print("self-test OK")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    src = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    out = findings(src)
    for line in out:
        print(line)
    if out:
        print("%d place(s) name a version outside the tables and traits: read a "
              "traits(V) column (VersionTraits.def) or the version's opcode table "
              "instead" % len(out))
        return 1
    print("no version named outside the tables and the traits file")
    return 0


if __name__ == "__main__":
    sys.exit(main())
