//===- ResumeEntry.h - Where the resume function takes over -----*- C++ -*-===//
//
// Contract (private to lib/SMT): how matches-eager starts. The resume
// function R runs its prologue (the re-entered contexts, up to its jump into
// the original body: runResumePrologue); the original O is set up at
// original_offset with what R received (startOriginalAt): the contexts
// active there, the stack values R was passed (a bound __exit__ of R's
// prologue stands for O's of the same slot), and O's locals -- bound where
// every path to the offset assigns them (assignedBefore), unbound where
// none does, as R receives them where only some do.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_LIB_SMT_RESUMEENTRY_H
#define PYVERIFY_LIB_SMT_RESUMEENTRY_H

#include "SymbolicFrame.h"

#include "pyverify/CFG/CFG.h"

#include "llvm/ADT/BitVector.h"

namespace pyverify::smt::prover {

/// Which locals of \p Code are assigned on every path (Must) and on some
/// path (May) to instruction \p At: forward dataflow over the CFG on the
/// fixpoint engine (MustMayDomain.h; exception edges carry the raising
/// block's entry state for Must, everything the block may store for May);
/// an error when the engine's visit cap is hit.
struct Assigned {
  llvm::BitVector Must, May;
};
llvm::Expected<Assigned> assignedBefore(const CFG &G, const CodeObject &Code,
                                        uint32_t At);

/// Runs \p R's prologue up to its jump into the body, recording its steps;
/// empty, or why the prologue cannot be followed.
std::string runResumePrologue(Side &R, unsigned Unroll);

/// Sets \p A (a Side of the original \p B.Original) at instruction \p OI,
/// original_offset, with what the resume function \p R received after its
/// prologue and the kinds \p Claimed of the contexts it claims; empty, or
/// why the original cannot be started there.
std::string startOriginalAt(Side &A, const Bundle &B, int64_t OI, const Side &R,
                            llvm::ArrayRef<ContextKind> Claimed);

} // namespace pyverify::smt::prover

#endif
