# The one raise model (RaiseModel.h): a conditional branch's truth test may
# raise (__bool__ / __len__), so a context entered before `if obj:` and
# exited after it leaks when the test raises. The prover used to treat every
# branch as non-raising and proved it, while `check` (which asks the same
# table) reported it. `x is None` compiles to POP_JUMP_FORWARD_IF_NOT_NONE,
# which cannot raise: that one is proved.
# RUN: rm -rf %t && mkdir -p %t
# RUN: %mkcode pyc %s %t/branch.pyc
# RUN: %not --code 1 %pyverify prove %t/branch.pyc | FileCheck %s
# CHECK:      branch.pyc: [code:1] refuted: exactly-once: original raises out with ctx#0 still active: never exited on this path
# CHECK:      {{^>> +[0-9]+}} POP_JUMP_FORWARD_IF_FALSE [raises; raises out of original]
# CHECK:      branch.pyc: [code:2] proved
# CHECK:      pyverify: 1 file(s), 3 result(s): 2 proved, 1 refuted, 0 unknown
# RUN: %not --code 1 %pyverify check %t/branch.pyc | FileCheck %s --check-prefix=CHECKCMD
# One context lost at every instruction that raises out: one error (at the
# first), the others -- the branch's truth test among them -- as notes.
# CHECKCMD: error: an exception raised by {{[0-9]+}} LOAD_FAST 1 propagates out of the code object while the context entered at {{[0-9]+}} (__enter__ call) is still active (the same cause at 1 more place, in the notes) [context-not-exited]
# CHECKCMD: note: also: an exception raised by {{[0-9]+}} POP_JUMP_FORWARD_IF_FALSE {{.*}} propagates out of the code object while the context entered at {{[0-9]+}} (__enter__ call) is still active


def truth_test(cm, obj):
    cm.__enter__()
    if obj:
        pass
    cm.__exit__(None, None, None)


def none_test(cm, x):
    cm.__enter__()
    if x is None:
        pass
    cm.__exit__(None, None, None)
