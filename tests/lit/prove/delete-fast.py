# DELETE_FAST unbinds its local, and raises only when the local is not
# bound (bytecodes.c: `if (v == NULL) goto unbound_local_error`). Before
# issue 26 the prover stepped DELETE_FAST as an instruction that may raise
# and otherwise does nothing: the local stayed bound, so the read after
# `del x` below succeeded and the leak was "proved"; at run time the read
# raises UnboundLocalError and the context is never exited. Now the read
# raises on every path (refuted), and a deletion of a bound local raises
# nowhere (deleted_then_rebound is proved with no raise at the `del`).
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %mkcode pyc %s %t/delete-fast.pyc
# RUN: %not --code 1 %pyverify prove %t/delete-fast.pyc | FileCheck %s
# CHECK:      delete-fast.pyc: [code:1] refuted: exactly-once: original raises out with ctx#0 still active: never exited on this path
# CHECK:      delete-fast.pyc: [code:2] proved
#
# The runtime oracle: the leak is real.
# RUN: %python %s | FileCheck %s --check-prefix=ORACLE
# ORACLE: entered 1 exited 0 UnboundLocalError


def leaks_after_del(cm):
    x = 1
    del x
    cm.__enter__()
    y = x
    cm.__exit__(None, None, None)
    return y


def deleted_then_rebound(cm):
    x = 1
    del x
    x = 2
    cm.__enter__()
    y = x
    cm.__exit__(None, None, None)
    return y


if __name__ == "__main__":
    class CM:
        entered = exited = 0

        def __enter__(self):
            CM.entered += 1

        def __exit__(self, *exc):
            CM.exited += 1

    try:
        leaks_after_del(CM())
        what = "no exception"
    except UnboundLocalError:
        what = "UnboundLocalError"
    print("entered", CM.entered, "exited", CM.exited, what)
