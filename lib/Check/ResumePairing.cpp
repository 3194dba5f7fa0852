//===- ResumePairing.cpp - A bundle from code objects alone ---------------===//

#include "pyverify/Check/ResumePairing.h"
#include "pyverify/Analysis/CodeAnalysis.h"
#include "pyverify/Analysis/Environment.h"
#include "pyverify/Check/BundleVerifier.h"

#include "llvm/Support/FormatVariadic.h"

using namespace pyverify;

static llvm::Error failure(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

std::vector<std::string> pyverify::resumeGlobalsOf(const CodeObject &Frame) {
  std::vector<std::string> Out;
  for (llvm::StringRef N : Frame.Names)
    if (resumeGlobalOffset(N))
      Out.push_back(N.str());
  return Out;
}

llvm::Expected<PairedBundle> pyverify::pairResumes(const CodeObject &Original,
                                                   const CodeObject &Frame) {
  for (llvm::StringRef N : Frame.Names)
    if (const EnvGlobal *G = lookupGlobal(N);
        G && G->Role == GlobalRole::ModeStackModule)
      return failure("the frame uses a torch-function mode stack (" + N +
                     "): which contexts are modes is not in the code");
  std::vector<PairedResume> Resumes;
  for (std::string &G : resumeGlobalsOf(Frame)) {
    uint32_t Off = *resumeGlobalOffset(G);
    Resumes.push_back({std::move(G), Off, {}});
  }
  if (Resumes.empty())
    return failure("the frame loads no resume function (__resume_at_*)");
  return pairResumeOffsets(Original, std::move(Resumes));
}

llvm::Expected<PairedBundle>
pyverify::pairResumeOffsets(const CodeObject &Original,
                            std::vector<PairedResume> Resumes) {
  if (Resumes.empty())
    return failure("no resume offset");
  CodeAnalysis A(Original);
  if (!A.cfg())
    return failure("the original is not well-formed");
  const InstructionStream &Insts = A.decoded().Insts;
  PairedBundle P;
  std::vector<int64_t> Index;
  for (PairedResume &R : Resumes) {
    uint32_t Off = R.OriginalOffset;
    int64_t I = Insts.indexAtStart(Off);
    if (I <= 0)
      return failure(
          llvm::formatv("{0} names offset {1}, which is {2}",
                        R.Global.empty() ? "the resume" : R.Global, Off,
                        I == 0 ? "the original's first instruction"
                               : "not an instruction start of the original"));
    auto Ctxs = activeWithContexts(A, Off);
    if (!Ctxs)
      return Ctxs.takeError();
    R.Contexts = std::move(*Ctxs);
    P.Resumes.push_back(std::move(R));
    Index.push_back(I);
  }
  if (P.Resumes.size() == 1) {
    P.BreakOffset = Insts[Index[0] - 1].Start;
    return P;
  }
  // A break on a conditional jump: it is the instruction before one resume
  // offset, and jumps to another.
  std::optional<uint32_t> Break;
  for (int64_t I : Index) {
    const Instruction &J = Insts[I - 1];
    if (!J.Valid || !J.info().isConditionalJump() || J.Target < 0)
      continue;
    bool ToOther = llvm::any_of(P.Resumes, [&](const PairedResume &R) {
      return int64_t(R.OriginalOffset) == J.Target;
    });
    if (ToOther && (!Break || *Break == J.Start))
      Break = J.Start;
    else if (ToOther)
      return failure("two conditional jumps could be the break");
  }
  if (!Break)
    return failure(llvm::formatv("the frame loads {0} resume functions but no "
                                 "conditional jump of the original leads to "
                                 "them",
                                 P.Resumes.size()));
  P.BreakOffset = *Break;
  return P;
}
