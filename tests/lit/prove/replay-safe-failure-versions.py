# replay-safe-failure.py's bundle written by 3.12 and 3.13 (whose handler
# reads the local with LOAD_FAST_CHECK: 3.12's LOAD_FAST does not check), its
# path, and its replay script run by that interpreter: the read raises
# UnboundLocalError on each.
#
# REQUIRES: python312, python313
# RUN: rm -rf %t && mkdir -p %t/12 %t/13
# RUN: env PYTHONDONTWRITEBYTECODE=1 %python312 %S/replay-safe-failure.py %t/12
# RUN: env PYTHONDONTWRITEBYTECODE=1 %python313 %S/replay-safe-failure.py %t/13
# RUN: cd %t/12 && %not --code 1 %pyverify prove --replay=replay handler.pvb | FileCheck %s --check-prefix=TEXT
# RUN: cd %t/13 && %not --code 1 %pyverify prove --replay=replay handler.pvb | FileCheck %s --check-prefix=TEXT
# TEXT: handler.pvb: [resume:0] refuted: well-formed: 1 dataflow error(s), first: {{[0-9]+}} LOAD_FAST_CHECK {{[0-9]+}} in an exception handler reads local '___prev_torch_function_mode_stack'{{.*}}[local-unbound]
# TEXT: LOAD_FAST_CHECK [raises UnboundLocalError: '___prev_torch_function_mode_stack' is never assigned here]
#
# RUN: cd %t/12/replay && %not --code 1 %python312 -I handler.resume_0.py | FileCheck %s --check-prefix=REPLAY
# RUN: cd %t/13/replay && %not --code 1 %python313 -I handler.resume_0.py | FileCheck %s --check-prefix=REPLAY
# REPLAY:      >> {{ *}}[[STEP:[0-9]+]] resume:0:[[OFF:[0-9]+]] LOAD_FAST_CHECK(___prev_torch_function_mode_stack) [raises] (UnboundLocalError: {{.*}})
# REPLAY:      dataflow error at resume:0:[[OFF]]: {{.*}} [local-unbound]
# REPLAY-NEXT:   expected: step [[STEP]] raises UnboundLocalError (the path the prover gives)
# REPLAY-NEXT:   observed: step [[STEP]] raised UnboundLocalError: {{.*}}
# REPLAY:      result: reproduced: the dataflow error happens on this interpreter: resume:0:[[OFF]] raises UnboundLocalError (exit status 1)
