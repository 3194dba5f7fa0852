//===- CallSlots.h - Calls whose NULL was never pushed ----------*- C++ -*-===//
//
// Contract: findCallsWithoutNull() explains stack underflows by a call that
// found no NULL below its callable. A call takes, below its arguments, two
// slots: the callable and its NULL (or a method and its self; the order is
// the version's layout, uop::Call). When neither holds NULL, CPython 3.11,
// 3.12 and 3.13 all call the deeper slot with the other as its first
// argument (measured: `y + h(x)` with its PUSH_NULL made NOP calls y(h, x)).
// That is valid when the code meant it -- the compiler's own with-exit call
// `LOAD_CONST None x3; CALL 2` calls the bound __exit__ below them, and a
// hand-built `h; y; x; CALL 1` calls h(y, x) and leaves the stack balanced --
// so a call alone is never a finding. It is the root cause of an underflow
// when the call took a value that the code after it still needs: the
// instruction that underflows takes the call's result.
//
// For each underflow (StackDepthResult::Underflows) the pass follows the
// straight-line code that leads to it (its block and the chain of blocks
// each entered by one normal edge only) from the depth the stack-depth pass
// gives at the chain's start, and knows of every slot pushed on the chain
// which instruction pushed it and whether it may be NULL (the micro-ops'
// NullOut: PUSH_NULL, a LOAD_GLOBAL's or method load's NULL, a saved
// local). The last call on the chain whose two slots are both pushed on the
// chain, neither possibly NULL, and whose result is still on the stack at
// the underflow is reported with it. Slots of unknown origin (pushed before
// the chain) are never blamed. Deterministic: in the order of the
// underflows.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_ANALYSIS_CALLSLOTS_H
#define PYVERIFY_ANALYSIS_CALLSLOTS_H

#include "pyverify/Analysis/StackDepth.h"
#include "pyverify/CFG/CFG.h"

#include <cstdint>
#include <vector>

namespace pyverify {

struct CallWithoutNull {
  uint32_t Call;      ///< The call (instruction index).
  uint32_t Callee;    ///< What pushed the callable (the shallower slot).
  uint32_t Taken;     ///< What pushed the value it calls (the deeper slot).
  uint32_t Underflow; ///< The underflowing instruction that takes its result.
};

std::vector<CallWithoutNull> findCallsWithoutNull(const CFG &G,
                                                  const StackDepthResult &R);

} // namespace pyverify

#endif
