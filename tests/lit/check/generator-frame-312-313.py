# generator-frame and the generator's empty start stack on 3.12 and 3.13
# (see generator-frame.py): the compiler's generators run and check clean;
# YIELD_VALUE in a frame no generator owns (RETURN_GENERATOR and its POP_TOP
# made NOPs; the generator flag dropped or kept), measured: 3.12.1 returns
# from the call after writing the generator state into the memory before the
# frame -- the argument, which only the frame held, is never finalized (its
# reference went with the corrupted frame state); 3.13.0 aborts, "Fatal
# Python error: _PyEval_EvalFrameDefault: Executing a cache." (the caller
# resumes past a SEND it never ran). pyverify called both clean before this
# check. Generator code without RETURN_GENERATOR whose POP_TOP pops the empty
# stack frees its argument during the call and returns it (generator-
# frame.py): pyverify called it clean on 3.12 (its start depth counted
# RETURN_GENERATOR's value), not on 3.13, whose table counts the push at
# RETURN_GENERATOR. A second RETURN_GENERATOR in the generator's frame (the
# prefix's POP_TOP made one): "ValueError: generator already executing" when
# the first generator is dropped, then 3.12.1 aborts ("malloc(): unsorted
# double linked list corrupted"); 3.13.0 goes on, or dies of SIGSEGV.
#
# REQUIRES: python312, python313
# RUN: rm -rf %t && %python312 %S/../Inputs/generator_frames.py build %t/312
# RUN: %python312 %S/../Inputs/generator_frames.py run %t/312/gen-control.pyc | FileCheck %s --check-prefix=GENOUT
# RUN: %pyverify check %t/312/gen-control.pyc | FileCheck %s --check-prefix=CLEAN
# RUN: %pyverify check %t/312/closure-gen-control.pyc | FileCheck %s --check-prefix=CLEAN
# RUN: %python312 %S/../Inputs/generator_frames.py run %t/312/yield-in-plain.pyc | FileCheck %s --check-prefix=LEAKED
# RUN: %not --code 1 %pyverify check %t/312/yield-in-plain.pyc | FileCheck %s --check-prefix=PLAIN
# RUN: %not --code 1 %pyverify check %t/312/gen-no-return-generator.pyc | FileCheck %s --check-prefix=PLAIN
# RUN: %pyverify check %t/312/plain-with-gen-flag.pyc | FileCheck %s --check-prefix=CLEAN
# RUN: %python312 %S/../Inputs/generator_frames.py freed %t/312/pop-empty-generator.pyc | FileCheck %s --check-prefix=FREED
# RUN: %not --code 1 %pyverify check %t/312/pop-empty-generator.pyc | FileCheck %s --check-prefix=POP
# RUN: %python312 %S/../Inputs/generator_frames.py freed %t/312/gen-control.pyc | FileCheck %s --check-prefix=KEPT
# RUN: %python312 %S/../Inputs/generator_frames.py child %t/312/return-generator-twice.pyc | FileCheck %s --check-prefix=TWICE
# RUN: %not --code 1 %pyverify check %t/312/return-generator-twice.pyc | FileCheck %s --check-prefix=AGAIN
#
# RUN: %python313 %S/../Inputs/generator_frames.py build %t/313
# RUN: %python313 %S/../Inputs/generator_frames.py run %t/313/gen-control.pyc | FileCheck %s --check-prefix=GENOUT
# RUN: %pyverify check %t/313/gen-control.pyc | FileCheck %s --check-prefix=CLEAN
# RUN: %pyverify check %t/313/closure-gen-control.pyc | FileCheck %s --check-prefix=CLEAN
# RUN: %not --code 134 %python313 %S/../Inputs/generator_frames.py run %t/313/yield-in-plain.pyc 2>&1 | FileCheck %s --check-prefix=ABORT
# RUN: %not --code 134 %python313 %S/../Inputs/generator_frames.py run %t/313/gen-no-return-generator.pyc 2>&1 | FileCheck %s --check-prefix=ABORT
# RUN: %not --code 1 %pyverify check %t/313/yield-in-plain.pyc | FileCheck %s --check-prefix=PLAIN
# RUN: %not --code 1 %pyverify check %t/313/gen-no-return-generator.pyc | FileCheck %s --check-prefix=PLAIN
# RUN: %pyverify check %t/313/plain-with-gen-flag.pyc | FileCheck %s --check-prefix=CLEAN
# RUN: %python313 %S/../Inputs/generator_frames.py freed %t/313/pop-empty-generator.pyc | FileCheck %s --check-prefix=FREED
# RUN: %not --code 1 %pyverify check %t/313/pop-empty-generator.pyc | FileCheck %s --check-prefix=POP
# RUN: %python313 %S/../Inputs/generator_frames.py child %t/313/return-generator-twice.pyc | FileCheck %s --check-prefix=TWICE
# RUN: %not --code 1 %pyverify check %t/313/return-generator-twice.pyc | FileCheck %s --check-prefix=AGAIN
#
# GENOUT: calling
# GENOUT-NEXT: generator [arg]
# GENOUT-NEXT: finalized
# GENOUT-NEXT: finished
# CLEAN: 0 error(s), 0 warning(s)
# LEAKED: calling
# LEAKED-NEXT: returned Arg
# LEAKED-NEXT: finished
# ABORT: calling
# ABORT: Fatal Python error: _PyEval_EvalFrameDefault: Executing a cache.
# PLAIN: error: {{[0-9]+}} YIELD_VALUE {{[0-9]+}} suspends the frame, but no path from the code's start to it ran RETURN_GENERATOR: the frame belongs to no generator;{{.*}}[generator-frame]
# PLAIN: 1 error(s)
# POP: error: POP_TOP needs 1 stack value(s) but only 0 are on the stack [stack-underflow]
# FREED: {{freed during the call|crashed}}
# KEPT: kept
# TWICE: {{generator already executing|crashed}}
# AGAIN: error: 2 RETURN_GENERATOR runs again in a frame a generator already owns{{.*}}[generator-frame]
