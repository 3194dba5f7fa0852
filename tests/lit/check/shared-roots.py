# A marshal stream whose list of code objects shares one chain through
# back-references: root i is the parent of root i+1, so every root reaches
# all the later ones. Each distinct code object is checked, listed and
# written out once per file (CodeObjectWalk): before, every root walked its
# whole chain again, quadratic in the input (901 roots here: 406,351 code
# objects checked, a 186 MB dis --format=json; a 2.3 MB input of 20,000
# roots, built without marshal's depth limit, ran for minutes).
#
# RUN: %python %s %t.marshal
# RUN: %pyverify check %t.marshal | FileCheck %s --check-prefix=CHECK
# CHECK: pyverify: 1 file(s), 901 code object(s): 0 error(s)
# RUN: %pyverify stats %t.marshal | FileCheck %s --check-prefix=STATS
# STATS: code objects:       901
# RUN: %pyverify prove %t.marshal | FileCheck %s --check-prefix=PROVE
# PROVE: pyverify: 1 file(s), 901 result(s)
# The text listing names each code object once.
# RUN: %pyverify dis %t.marshal | grep -c " RESUME " | FileCheck %s --check-prefix=DIS
# DIS: {{^}}901{{$}}
# Every root still has its JSON line; one already written out inside an
# earlier root is a stub ("duplicate": true), so the output stays linear.
# RUN: %pyverify dis --format=json %t.marshal > %t.json
# RUN: %python -c "import sys; L=open(sys.argv[1]).read().splitlines(); print(len(L), sum(l.count('\"duplicate\":true') for l in L), sum(map(len, L)) < 2000000)" %t.json | FileCheck %s --check-prefix=JSON
# JSON: 901 900 True
import marshal
import sys


def f():
    return None


if __name__ == "__main__":
    c = f.__code__
    chain = [c]
    for _ in range(900):  # 2 marshal levels per code object: under 2000
        c = f.__code__.replace(co_consts=(None, c))
        chain.append(c)
    chain.reverse()
    with open(sys.argv[1], "wb") as out:
        out.write(marshal.dumps(chain))
