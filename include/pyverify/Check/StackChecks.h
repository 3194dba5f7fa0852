//===- StackChecks.h - Findings from the stack-depth analysis ---*- C++ -*-===//
//
// Contract: checkStack() turns the facts of computeStackDepth() on a CFG
// into findings, each naming the violated condition and pointing at the
// related instruction with a note:
//
//   stack-underflow              an instruction pops below 0
//   stack-depth-conflict         a block is reached at two depths (both
//                                predecessors named)
//   stacksize-too-small          maximum depth > co_stacksize (where it is
//                                reached; the segfault class)
//   handler-depth-exceeds-stack  a covered reachable instruction's live depth
//                                (the lower of before/after) < entry depth
//   stacksize-larger-than-needed remark: maximum depth < co_stacksize
//
// checkReachability() needs only the CFG (it runs when the depths cannot be
// computed):
//
//   unreachable-code             remark: one finding per dead range
//   falls-off-end                a reachable last block falls through, or
//                                co_code is empty (the interpreter's first
//                                fetch is past the end)
//
// Only reachable code is judged. Findings come out in offset order.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_CHECK_STACKCHECKS_H
#define PYVERIFY_CHECK_STACKCHECKS_H

#include "pyverify/Analysis/StackDepth.h"
#include "pyverify/CFG/CFG.h"
#include "pyverify/Support/Finding.h"

#include <vector>

namespace pyverify {

void checkStack(const CFG &G, const StackDepthResult &R,
                std::vector<Finding> &Out);
void checkReachability(const CFG &G, std::vector<Finding> &Out);

/// Text of instruction \p I for messages: "CALL 2", "RETURN_VALUE".
std::string describeInstruction(const Instruction &I);

} // namespace pyverify

#endif
