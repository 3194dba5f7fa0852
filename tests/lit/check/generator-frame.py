# generator-frame: from 3.11 a generator's code makes its generator itself,
# in RETURN_GENERATOR; a YIELD_VALUE on a path that did not run it suspends
# a frame no generator owns, and CPython takes the memory before the frame
# for the generator's (3.11's YIELD_VALUE: _PyFrame_GetGenerator(frame),
# then gi_frame_state and tstate->exc_info from there). The shapes
# (Inputs/generator_frames.py), run on python3.11 with an argument only the
# frame holds: the compiler's generators (with and without a cell before
# RETURN_GENERATOR) run and check clean; YIELD_VALUE in a plain frame (the
# prefix made NOPs, the generator flag dropped or kept) leaves the
# interpreter's evaluation loop at once -- the script ends after "calling",
# exit status 0, nothing after the call run. pyverify called both clean
# before this check.
#
# The stack of generator code starts empty, as every frame's:
# RETURN_GENERATOR pushes the value the generator's first resumption sends
# (3.11's dis.stack_effect says 0; its compiler counted the value in the
# code's start depth, and so did pyverify, which made code that pops before
# RETURN_GENERATOR look fine). Generator code without RETURN_GENERATOR whose
# first POP_TOP pops the empty stack drops the reference of the slot below,
# its argument's: measured with an argument only the frame held, the
# argument was finalized during the call and the freed object returned
# (3.11.2, 3.12.1, 3.13.0; other runs crash: not run here). pyverify called
# it clean on 3.11 and 3.12. Generator code without RETURN_GENERATOR that
# never yields returns its value, not a generator: nothing is reported.
#
# RUN: rm -rf %t && %python %S/../Inputs/generator_frames.py build %t
# RUN: %python %S/../Inputs/generator_frames.py run %t/gen-control.pyc | FileCheck %s --check-prefix=GENOUT
# RUN: %python %S/../Inputs/generator_frames.py run %t/closure-gen-control.pyc | FileCheck %s --check-prefix=GENOUT
# RUN: %pyverify check %t/gen-control.pyc | FileCheck %s --check-prefix=CLEAN
# RUN: %pyverify check %t/closure-gen-control.pyc | FileCheck %s --check-prefix=CLEAN
# GENOUT: calling
# GENOUT-NEXT: generator [arg]
# GENOUT-NEXT: finalized
# GENOUT-NEXT: finished
# CLEAN: 0 error(s), 0 warning(s)
#
# RUN: %python %S/../Inputs/generator_frames.py run %t/yield-in-plain.pyc | FileCheck %s --check-prefix=LEFT
# RUN: %python %S/../Inputs/generator_frames.py run %t/gen-no-return-generator.pyc | FileCheck %s --check-prefix=LEFT
# LEFT: calling
# LEFT-NOT: {{.}}
# RUN: %not --code 1 %pyverify check %t/yield-in-plain.pyc | FileCheck %s --check-prefix=PLAIN
# RUN: %not --code 1 %pyverify check %t/gen-no-return-generator.pyc | FileCheck %s --check-prefix=PLAIN
# PLAIN: error: 8 YIELD_VALUE suspends the frame, but no path from the code's start to it ran RETURN_GENERATOR: the frame belongs to no generator; CPython does not check, and takes the memory before the frame for the generator's (3.11 leaves its evaluation loop, 3.12 writes there, 3.13+ abort) [generator-frame]
# PLAIN: 1 error(s)
#
# RUN: %python %S/../Inputs/generator_frames.py run %t/plain-with-gen-flag.pyc | FileCheck %s --check-prefix=RETURNS
# RUN: %pyverify check %t/plain-with-gen-flag.pyc | FileCheck %s --check-prefix=CLEAN
# RETURNS: calling
# RETURNS-NEXT: returned Arg
# RETURNS-NEXT: finalized
# RETURNS-NEXT: finished
#
# RUN: %python %S/../Inputs/generator_frames.py freed %t/pop-empty-generator.pyc | FileCheck %s --check-prefix=FREED
# RUN: %not --code 1 %pyverify check %t/pop-empty-generator.pyc | FileCheck %s --check-prefix=POP
# RUN: %python %S/../Inputs/generator_frames.py freed %t/gen-control.pyc | FileCheck %s --check-prefix=KEPT
# POP: error: POP_TOP needs 1 stack value(s) but only 0 are on the stack [stack-underflow]
# FREED: {{freed during the call|crashed}}
# KEPT: kept
# A RETURN_GENERATOR run again in the generator's frame (the prefix's
# POP_TOP made a second RETURN_GENERATOR) moves the running generator's
# frame into a second generator: the argument is finalized before the
# generator's items are listed (3.12 then raises "generator already
# executing" and aborts on a corrupted heap: generator-frame-312-313.py).
# RUN: %python %S/../Inputs/generator_frames.py run %t/return-generator-twice.pyc | FileCheck %s --check-prefix=TWICEOUT
# RUN: %not --code 1 %pyverify check %t/return-generator-twice.pyc | FileCheck %s --check-prefix=AGAIN
# TWICEOUT: calling
# TWICEOUT-NEXT: finalized
# TWICEOUT-NEXT: generator []
# AGAIN: error: 2 RETURN_GENERATOR runs again in a frame a generator already owns: it moves the running generator's frame into a second generator; CPython does not check (the first raises 'generator already executing' when resumed, and the heap is corrupted) [generator-frame]
# RUN: FileCheck %s --check-prefix=DOC < %S/../../../docs/checks.md
# DOC: `generator-frame`
