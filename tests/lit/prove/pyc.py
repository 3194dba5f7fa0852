# pyverify prove on a plain .pyc: exactly-once for every code object
# (targets "original" and "code:<index>" for nested ones); a directory walk
# picks the .pyc up too.
# RUN: rm -rf %t && mkdir -p %t
# RUN: %mkcode pyc %s %t/pyc.pyc
# RUN: %pyverify prove %t/pyc.pyc | FileCheck %s
# RUN: %pyverify prove %t | FileCheck %s
# CHECK:      pyc.pyc: [original] proved
# CHECK:      pyc.pyc: [code:1] proved
# CHECK:      pyc.pyc: [code:2] proved
# CHECK:      pyverify: 1 file(s), 3 result(s): 3 proved, 0 refuted, 0 unknown

def one(cm, g):
    with cm:
        g()
    return 1


def two(cm1, cm2, g):
    with cm1, cm2:
        for x in g():
            g(x)
