# Deeply nested symbolic terms (issue 24 section 2: bounded on hostile input,
# whatever the caller's stack). f() below, with its middle line repeated N
# times, makes x a term N levels deep (binop:+(binop:+(...), const:1)); the
# branch hands it to the solver. The prover builds Z3's form of a term without
# recursion and never hands Z3 a term deeper than it can take on the smallest
# supported stack (docs/prove-cli.md: Stack). Before, --solver=z3 recursed once
# per level: 19,000 levels (the most the default --max-states lets through)
# died with SIGSEGV on a 1 MiB stack, 100,000 levels on the default 8 MiB.
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t/deep.py 19000
#
# The default budget: 19,003 held paths, so the path limit ends it, after the
# branch was decided.
# RUN: %not --code 3 sh -c 'ulimit -s 1024 && exec %pyverify prove --solver=z3 --format=json %t/deep.py' | FileCheck %s --check-prefix=SMALL
# SMALL:      "queries": 2
# SMALL-NEXT: "reason": "path limit (5000 paths): not every path was explored (--max-paths)"
# SMALL:      "target": "code:1"
# SMALL-NEXT: "verdict": "unknown"
#
# Room for every path: proved, as with the literal rule.
# RUN: sh -c 'ulimit -s 1024 && exec %pyverify prove --solver=z3 --max-paths=40000 %t/deep.py' | FileCheck %s --check-prefix=PROVED
# RUN: %pyverify prove --max-paths=40000 %t/deep.py | FileCheck %s --check-prefix=PROVED
# PROVED:     deep.py: [code:1] proved
# PROVED:     pyverify: 1 file(s), 2 result(s): 2 proved, 0 refuted, 0 unknown
import sys


def f(x):
    x = x + 1  # repeated
    if x:
        return 1
    return x


if __name__ == "__main__":
    with open(sys.argv[1], "w") as out:
        out.write("def f(x):\n" + "    x = x + 1\n" * int(sys.argv[2]) +
                  "    if x:\n        return 1\n    return x\n")
