//===- WithHandlerChecks.h - Findings from the block structure --*- C++ -*-===//
//
// Contract: the checks that rest on the block structure the exception table
// encodes (BlockStack) rather than on the context-balance interpretation,
// each finding naming the violated condition:
//
// checkWithHandlers(), with-handler-mismatch, in this order:
//   * with bodies: the first protected instruction after each enter must be
//     covered by an entry whose depth keeps the bound __exit__ (slot + 1),
//     with lasti, and whose handler starts PUSH_EXC_INFO; WITH_EXCEPT_START
//     (notes: the enter, and the witness path when no entry covers it);
//   * shared handlers: two with sites whose bodies lead to one handler but
//     that are different withs: they exit at different places (the
//     context-balance result's normal exits), or one never exits normally
//     and its context does not become the other's along normal edges (a
//     resume prologue's context flowing into the original body does);
//     unless the handler's suppress path raises (the resume shape);
//   * handler-entry depths: any other entry that covers reachable code and
//     leads to a with's handler must have that depth too.
//
// checkBlockNesting(), block-nesting: the block stack's problems (cyclic or
// depth-increasing handler nesting), in the block stack's order.
//
// appendContextFindings() appends everything verifyCode() reports once the
// context-balance pass succeeded: its findings, then checkWithHandlers()',
// then checkBlockNesting()'s, ordered by offset (stably) with repeated
// (check, offset, message) findings dropped.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_CHECK_WITHHANDLERCHECKS_H
#define PYVERIFY_CHECK_WITHHANDLERCHECKS_H

#include "pyverify/Analysis/BlockStack.h"
#include "pyverify/Analysis/ContextBalance.h"
#include "pyverify/CFG/CFG.h"
#include "pyverify/Support/Finding.h"

#include <vector>

namespace pyverify {

void checkWithHandlers(const CFG &G, const BlockStack &BS,
                       const ContextBalanceResult &R,
                       std::vector<Finding> &Out);

void checkBlockNesting(const BlockStack &BS, std::vector<Finding> &Out);

void appendContextFindings(const CFG &G, const BlockStack &BS,
                           const ContextBalanceResult &R,
                           std::vector<Finding> &Out);

} // namespace pyverify

#endif
