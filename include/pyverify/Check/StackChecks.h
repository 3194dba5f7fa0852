//===- StackChecks.h - Findings from the stack-depth analysis ---*- C++ -*-===//
//
// Contract: checkStack() turns the facts of computeStackDepth() on a CFG
// into findings, each naming the violated condition and pointing at the
// related instruction with a note:
//
//   stack-underflow              an instruction pops below 0 (a note names
//                                the call-without-null that caused it)
//   call-without-null            the call an underflow takes the result of
//                                found no NULL below its callable
//                                (CallSlots.h), reported first
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
// checkFrameSize() needs only the code object's header:
//
//   stacksize-too-large          co_stacksize + nlocalsplus above
//                                MaxFrameSlots, the largest frame CPython's
//                                data stack can allocate
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

/// The largest co_stacksize + nlocalsplus a call can allocate: push_chunk
/// (Python/pystate.c) doubles an int byte count from 16 KiB until it holds
/// 8 * (slots + MINIMUM_OVERHEAD 1000 + FRAME_SPECIALS_SIZE 9), which
/// overflows past 2**30 bytes. The same on every supported version
/// (64-bit), measured by tests/versions/check_frame_limit.py.
constexpr int64_t MaxFrameSlots = (int64_t(1) << 27) - 1009;

/// stacksize-too-large on \p C (at offset 0).
void checkFrameSize(const CodeObject &C, std::vector<Finding> &Out);

/// Text of instruction \p I for messages: "CALL 2", "RETURN_VALUE".
std::string describeInstruction(const Instruction &I);

} // namespace pyverify

#endif
