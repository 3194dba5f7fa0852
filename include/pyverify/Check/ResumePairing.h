//===- ResumePairing.h - A bundle from code objects alone -------*- C++ -*-===//
//
// Contract: pairResumes() builds the claims of a bundle (Bundle.h) for a
// rewritten frame from the code objects alone, for a hook that sees code
// objects but not the rewriter's own record of the break (a TorchDynamo
// bytecode hook, python/pyverify/dynamo.py):
//
//   * the resume functions are the globals the frame loads whose name is a
//     ResumeFunction of Environment.def (__resume_at_<offset>_<n>); each
//     resumes the original at <offset> (resumeGlobalOffset);
//   * the break is the instruction just before a resume offset -- both
//     rewriters resume at the instruction after the break (Dynamo's
//     create_call_resume_at(next_instruction)). With several resume
//     functions (a break on a conditional jump: one resumes after it, one
//     at its target) the break is the conditional jump before one resume
//     offset whose target is another's; any other shape is an Error;
//   * each resume's claimed contexts are the with contexts active in the
//     original at its offset (activeWithContexts), every one of kind With.
//
// So the claims are what the original says, not what the rewriter believed:
// resume-contexts-mismatch cannot fire on a derived bundle, and the bundle's
// value is the frame-contexts-mismatch check and prove (which compares each
// resume's behaviour with the original's). A frame that loads a
// torch-function mode stack (a ModeStackModule global) is an Error: which of
// the contexts are modes is not in the code, and a wrong kind would make
// the claims, not the code, wrong. A frame with no resume global is an
// Error too ("no resume function"). Pure and deterministic.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_CHECK_RESUMEPAIRING_H
#define PYVERIFY_CHECK_RESUMEPAIRING_H

#include "pyverify/Bytecode/Bundle.h"
#include "pyverify/Bytecode/CodeObject.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace pyverify {

struct PairedResume {
  std::string Global; ///< The frame's global naming it (__resume_at_...).
  uint32_t OriginalOffset;
  std::vector<BundleContext> Contexts;
};

struct PairedBundle {
  uint32_t BreakOffset;
  std::vector<PairedResume> Resumes; ///< In the frame's co_names order.
};

/// The names of \p Frame's co_names that are resume-function globals, in
/// co_names order.
std::vector<std::string> resumeGlobalsOf(const CodeObject &Frame);

llvm::Expected<PairedBundle> pairResumes(const CodeObject &Original,
                                         const CodeObject &Frame);

/// The same claims for resume offsets a rewriter reported instead of the
/// frame's globals (TorchDynamo's ContinueExecutionCache.generate, seen by
/// python/pyverify/dynamo.py): each of \p Resumes gives OriginalOffset (and
/// Global, a label for messages, may be empty); the break and the contexts
/// are derived as above, every context of kind With -- which of them are
/// modes is the caller's claim, checked by verifyBundle.
llvm::Expected<PairedBundle>
pairResumeOffsets(const CodeObject &Original,
                  std::vector<PairedResume> Resumes);

} // namespace pyverify

#endif
