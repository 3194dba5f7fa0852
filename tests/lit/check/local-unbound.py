# A handler that reads a local no path to it assigns: the shape of a real
# TorchDynamo mode-stack leak (the saved stack is read in the cleanup of a
# try the save was moved after), in any version's bytecode. Here compiled by
# python3.11, whose LOAD_FAST raises UnboundLocalError inside the handler, so
# the mode stack is never restored. The save before the try is clean.
# (3.12+'s unchecked LOAD_FAST and NULL in the stack: unit ValueKindsTest.)
#
# RUN: %not --code 1 %pyverify check %s 2>&1 | FileCheck %s
# CHECK: local-unbound.py:[[@LINE+12]]:{{[0-9]+}}: error: 70 LOAD_FAST 1 in an exception handler reads local 'saved', which no path to here assigns: the handler raises UnboundLocalError instead of doing its work [local-unbound]
# CHECK-NEXT: in leaks_modes
# CHECK-NOT: restores_modes
# CHECK: 1 error(s)
# RUN: %not --code 1 %pyverify check --format=json %s | %python -c "import json,sys; d=json.load(sys.stdin)['diagnostics']; print([(x['code'], x['check'], x['certainty']) for x in d])" | FileCheck %s --check-prefix=JSON
# JSON: [('leaks_modes', 'local-unbound', 'definite')]


def leaks_modes(fn):
    try:
        fn()
    finally:
        set_mode_stack(saved)
    saved = get_mode_stack()


def restores_modes(fn):
    saved = get_mode_stack()
    try:
        fn()
    finally:
        set_mode_stack(saved)
