//===- WithBodyChecks.h - Every with-body instruction is covered -*- C++
//-*-===//
//
// Contract: checkWithBodyCoverage() reports with-body-uncovered: an
// instruction that runs while a with statement's context is entered (the
// context-balance pass's active contexts, entered by BEFORE_WITH or
// BEFORE_ASYNC_WITH), inside what CPython's compiler treats as the with's
// body (isOutsideCompiledWithBody), at which a trace function can raise
// (tracingRaiseOffsets: the tracing tier of the raise model), and whose
// exception-table lookup there either finds no entry or an entry that
// unwinds below the context's bound __exit__. Such an exception leaves the
// context entered. Instructions that raise by themselves are
// context-not-exited's, and the first instruction of a body is
// with-handler-mismatch's (a finding of either at the same offset is not
// repeated); this
// check adds the ones only a trace function (pdb, coverage tools) or the
// eval breaker makes raise. Consecutive instructions losing the same context
// through the same entry are one finding. Pure and deterministic.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_CHECK_WITHBODYCHECKS_H
#define PYVERIFY_CHECK_WITHBODYCHECKS_H

#include "pyverify/Analysis/ContextBalance.h"
#include "pyverify/Analysis/StackDepth.h"
#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Support/Finding.h"

#include <vector>

namespace pyverify {

void checkWithBodyCoverage(const DecodedCode &D, const StackDepthResult &Depth,
                           const ContextBalanceResult &R,
                           std::vector<Finding> &Out);

} // namespace pyverify

#endif
