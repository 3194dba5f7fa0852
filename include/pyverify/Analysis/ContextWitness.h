//===- ContextWitness.h - The path that shows a context fault ---*- C++ -*-===//
//
// Contract: contextWitnessPath() names a path from the enter of context
// \p Ctx (an enter instruction) to the instruction \p Fault, given the final
// block entry states \p In of the context-balance pass (one per CFG block):
//
//   "ENTER -> B1 -> X (raises) -> B2 -> ... -> FAULT[ (raises)]"
//
// ENTER and FAULT are the two instructions' offsets, each Bi the offset of
// a block entered on the way, and "X (raises)" the last instruction of a
// block the path leaves along an exception edge. It is a shortest path
// (breadth first, successors in CFG edge order, exception edges only where
// the block may raise) through blocks reached with Ctx active; when there is
// none -- the context was already exited, as for an exit called twice --
// through any reached block; and when there is none either, just
// "ENTER -> FAULT". FAULT is not appended when the text already ends in it
// (a block that starts at the fault); " (raises)" is, when \p FaultRaises.
//
// addContextNotes() adds the two notes every context finding carries: "the
// context is entered here" at the enter, and "witness path: ..." at the
// fault. The with-handler checks (pyverify/Check/WithHandlerChecks.h) use it
// too, so every finding names its path the same way.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_ANALYSIS_CONTEXTWITNESS_H
#define PYVERIFY_ANALYSIS_CONTEXTWITNESS_H

#include "pyverify/CFG/CFG.h"
#include "pyverify/Domain/ContextDomain.h"
#include "pyverify/Support/Finding.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>

namespace pyverify {

std::string contextWitnessPath(const CFG &G, llvm::ArrayRef<ContextState> In,
                               uint32_t Ctx, uint32_t Fault, bool FaultRaises);

void addContextNotes(Finding &F, const CFG &G, llvm::ArrayRef<ContextState> In,
                     uint32_t Ctx, uint32_t Fault, bool FaultRaises);

} // namespace pyverify

#endif
