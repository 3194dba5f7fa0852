# The environment is data (include/pyverify/SMT/Environment.def): only the
# exact names a rewriter installs are trusted to exist and not to raise. A
# global that merely contains "torch" -- or any other unknown global -- is an
# arbitrary value: loading it, reading an attribute of it and calling it may
# raise, and then the explicitly entered context is never exited. All three
# were treated differently before (torch.relu and my_torch_helpers.load as
# mode-stack operations that cannot raise: proved; numpy.relu refuted).
# RUN: rm -rf %t && mkdir -p %t
# RUN: %mkcode pyc %s %t/environment.pyc
# RUN: %not --code 1 %pyverify prove %t/environment.pyc | FileCheck %s
# CHECK:      environment.pyc: [code:1] refuted: exactly-once: original raises out with ctx#0 still active: never exited on this path
# CHECK:      environment.pyc: [code:2] refuted: exactly-once: original raises out with ctx#0 still active: never exited on this path
# CHECK:      environment.pyc: [code:3] refuted: exactly-once: original raises out with ctx#0 still active: never exited on this path
# The rewriter's own mode-stack module is in the table: its push and pop
# are mode events that succeed, so the balanced function is proved.
# CHECK:      environment.pyc: [code:4] proved
# CHECK-NEXT:   in rewriter_modes (line {{[0-9]+}})
# CHECK-NEXT:   assuming: {{(\[[0-9]+\] )*}}[8]
# CHECK-NEXT:   [8] the mode-stack module __import_pyverify_rewriter_dot_modestack exists
# CHECK:      pyverify: 1 file(s), 5 result(s): 2 proved, 3 refuted, 0 unknown
#
# `check` reports the same three as errors (an exception in the call leaves
# the context entered).
# RUN: %not --code 1 %pyverify check %t/environment.pyc | FileCheck %s --check-prefix=CHECK-CMD
# CHECK-CMD: in torch_relu
# CHECK-CMD: pyverify: 1 file(s), 5 code object(s): {{[1-9][0-9]*}} error(s)


def torch_relu(cm):
    cm.__enter__()
    torch.relu(1)
    cm.__exit__(None, None, None)


def helpers_load(cm):
    cm.__enter__()
    my_torch_helpers.load(1)
    cm.__exit__(None, None, None)


def numpy_relu(cm):
    cm.__enter__()
    numpy.relu(1)
    cm.__exit__(None, None, None)


def rewriter_modes(x):
    __import_pyverify_rewriter_dot_modestack.push(x)
    __import_pyverify_rewriter_dot_modestack.pop()
    return x
