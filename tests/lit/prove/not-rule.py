# `not x` is the negation of x's truth (docs/prove.md, background facts):
# a flag and its negation kept in a local are correlated. Before, UNARY_NOT
# made a term of its own, so the path that enters with `flag` true and
# skips the exit because `skip` is true looked feasible: `negated` was
# refuted (measured: "original raises out with ctx#0 still active"), though
# it is balanced on every path. `negated_flipped` enters
# and exits on the same truth of `flag`, through `not`, the wrong way round.
# RUN: rm -rf %t && mkdir -p %t
# RUN: %mkcode pyc %s %t/not.pyc
# RUN: %not --code 1 %pyverify prove %t/not.pyc | FileCheck %s
# CHECK: not.pyc: [code:1] proved
# CHECK: not.pyc: [code:2] refuted: exactly-once:
# CHECK: pyverify: 1 file(s), 3 result(s): 2 proved, 1 refuted, 0 unknown


def negated(cm, flag, work):
    skip = not flag
    if flag:
        cm.__enter__()
    try:
        work()
    finally:
        if skip:
            pass
        else:
            cm.__exit__(None, None, None)


def negated_flipped(cm, flag, work):
    skip = not flag
    if flag:
        cm.__enter__()
    try:
        work()
    finally:
        if skip:
            cm.__exit__(None, None, None)
