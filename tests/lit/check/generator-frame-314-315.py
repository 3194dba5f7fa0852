# generator-frame on 3.14 and 3.15 (Pyodide's interpreters; see
# generator-frame.py): the compiler's generators run and check clean (3.15's
# generator expressions take their iterator before RETURN_GENERATOR: the
# stdlib's check clean); YIELD_VALUE in a frame no generator owns
# (RETURN_GENERATOR and its POP_TOP made NOPs; the generator flag dropped or
# kept) aborts, measured on 3.14.2 and 3.15.0rc1: "Fatal Python error:
# _PyEval_EvalFrameDefault: Executing a cache." pyverify called both clean
# before this check.
#
# REQUIRES: python314, python315
# RUN: rm -rf %t && %python314 %S/../Inputs/generator_frames.py build %t/314
# RUN: %python314 %S/../Inputs/generator_frames.py run %t/314/gen-control.pyc | FileCheck %s --check-prefix=GENOUT
# RUN: %pyverify check %t/314/gen-control.pyc | FileCheck %s --check-prefix=CLEAN
# RUN: %pyverify check %t/314/closure-gen-control.pyc | FileCheck %s --check-prefix=CLEAN
# RUN: %not %python314 %S/../Inputs/generator_frames.py run %t/314/yield-in-plain.pyc 2>&1 | FileCheck %s --check-prefix=ABORT
# RUN: %not --code 1 %pyverify check %t/314/yield-in-plain.pyc | FileCheck %s --check-prefix=PLAIN
# RUN: %not --code 1 %pyverify check %t/314/gen-no-return-generator.pyc | FileCheck %s --check-prefix=PLAIN
# RUN: %not --code 1 %pyverify check %t/314/return-generator-twice.pyc | FileCheck %s --check-prefix=AGAIN
#
# RUN: %python315 %S/../Inputs/generator_frames.py build %t/315
# RUN: %pyverify check %t/315/gen-control.pyc | FileCheck %s --check-prefix=CLEAN
# RUN: %pyverify check %t/315/closure-gen-control.pyc | FileCheck %s --check-prefix=CLEAN
# RUN: %not %python315 %S/../Inputs/generator_frames.py run %t/315/gen-no-return-generator.pyc 2>&1 | FileCheck %s --check-prefix=ABORT
# RUN: %not --code 1 %pyverify check %t/315/yield-in-plain.pyc | FileCheck %s --check-prefix=PLAIN
# RUN: %not --code 1 %pyverify check %t/315/gen-no-return-generator.pyc | FileCheck %s --check-prefix=PLAIN
# RUN: %not --code 1 %pyverify check %t/315/return-generator-twice.pyc | FileCheck %s --check-prefix=AGAIN
#
# GENOUT: calling
# GENOUT-NEXT: generator [arg]
# GENOUT-NEXT: finalized
# GENOUT-NEXT: finished
# CLEAN: 0 error(s), 0 warning(s)
# ABORT: calling
# ABORT: Fatal Python error: _PyEval_EvalFrameDefault: Executing a cache.
# PLAIN: error: {{[0-9]+}} YIELD_VALUE {{[0-9]+}} suspends the frame, but no path from the code's start to it ran RETURN_GENERATOR: the frame belongs to no generator;{{.*}}[generator-frame]
# PLAIN: 1 error(s)
# AGAIN: error: 2 RETURN_GENERATOR runs again in a frame a generator already owns{{.*}}[generator-frame]
