//===- GeneratorChecks.h - Frames no generator owns -------------*- C++ -*-===//
//
// Contract: checkGeneratorFrame() reports generator-frame on a CFG's code,
// the frame a YIELD_VALUE suspends being no generator's. From 3.11 a call of
// generator code (co_flags CO_GENERATOR, CO_COROUTINE or CO_ASYNC_GENERATOR)
// runs it in a plain frame, and its RETURN_GENERATOR makes the generator and
// moves the frame into it; YIELD_VALUE takes the frame as a generator's
// without checking (it reads and writes the generator fields in the memory
// before the frame). Measured on 3.11-3.15 (lit check/generator-frame*.py):
// YIELD_VALUE in a plain frame leaves 3.11's evaluation loop (the calling
// script stops there, exit status 0), returns on 3.12 after writing before
// the frame, and aborts 3.13-3.15 ("Executing a cache").
//
// Findings, each definite when every path to it has the fact, possible when
// some path has:
//   - a reachable YIELD_VALUE that a path from the code's start reaches
//     without running RETURN_GENERATOR, in any code (plain code that runs
//     it first gets a coroutine's frame: measured, it runs; generator code
//     may run instructions before it, as 3.15's generator expressions take
//     their iterator first);
//   - a reachable RETURN_GENERATOR that a path reaches after running one:
//     it moves the running generator's frame into a second generator
//     (measured: "generator already executing" when the first is dropped,
//     then 3.12 aborts on a corrupted heap; the differential sweep's
//     generator programs, a RETURN_GENERATOR duplicated).
// Generator code without RETURN_GENERATOR that never yields returns its
// value instead of a generator and is not reported (nothing runs outside its
// frame); its stack is counted from empty, as every frame's (StackDepth.h).
//
// Exception edges carry what held at every raising instruction of their
// block: RETURN_GENERATOR run on every path to the block's start, on some
// path to its end. Findings come out in offset order. Code that runs its
// one RETURN_GENERATOR first (the compiler's generators) or holds neither
// opcode costs a scan of co_code's bytes (memchr of the opcodes' bytes)
// and no walk.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_CHECK_GENERATORCHECKS_H
#define PYVERIFY_CHECK_GENERATORCHECKS_H

#include "pyverify/CFG/CFG.h"
#include "pyverify/Support/Finding.h"

#include <vector>

namespace pyverify {

void checkGeneratorFrame(const CFG &G, std::vector<Finding> &Out);

} // namespace pyverify

#endif
