//===- BundleVerifier.h - Checking a bundle of emitted code -----*- C++ -*-===//
//
// Contract: verifyBundle() checks every code object of a bundle (the
// original, the rewritten frame, each resume function, and their nested code
// objects) with every enabled pass, exactly as verifyCode() does, and
// validates the bundle's claims against the original:
//
//   * break_offset and each original_offset are instruction starts of the
//     original (bundle-offset-invalid);
//   * each resume's contexts equal the contexts active in the original
//     before original_offset (the context-balance pass: withs whose bound
//     __exit__ is live there, in entry order) -- same number, same order
//     (outermost first), same handler offsets, same __exit__ stack slots
//     (resume-contexts-mismatch). Live __exit__ slots rather than the table's
//     block stack, because a resume point after `return f(x)` in a with lies
//     in the inlined exit sequence, outside the with's table range.
//   * at the frame's break instruction (BreakLocation.h, as prove locates
//     it) the frame holds as many torch-function modes (FrameModes.h) and
//     as many ordinary contexts (the context-balance pass) as the original
//     holds at break_offset, kinds as resume 0 claims them
//     (frame-contexts-mismatch). The interleaving of the two is not
//     compared: modes and other contexts live on two stacks (prove's rule).
//
// Each code object is analysed once (CodeAnalysis): the original's and the
// frame's analyses serve both their own checks and the claims. Diagnostics
// carry the bundle path and a Target ("original", "frame", "resume:<i>").
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_CHECK_BUNDLEVERIFIER_H
#define PYVERIFY_CHECK_BUNDLEVERIFIER_H

#include "pyverify/Analysis/CodeAnalysis.h"
#include "pyverify/Bytecode/Bundle.h"
#include "pyverify/Check/Verifier.h"

namespace pyverify {

FileReport verifyBundle(const Bundle &B, const CheckOptions &O);

/// The with contexts active before byte \p Offset of \p Original,
/// outermost first, as a bundle would claim them; an Error if the original is
/// not well-formed, \p Offset is not an instruction start, or an analysis
/// fails.
llvm::Expected<std::vector<BundleContext>>
activeWithContexts(const CodeAnalysis &Original, uint32_t Offset);
/// The same on a fresh analysis of \p Original.
llvm::Expected<std::vector<BundleContext>>
activeWithContexts(const CodeObject &Original, uint32_t Offset);

} // namespace pyverify

#endif
