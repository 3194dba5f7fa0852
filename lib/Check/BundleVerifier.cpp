//===- BundleVerifier.cpp - Checking a bundle of emitted code -------------===//

#include "pyverify/Check/BundleVerifier.h"
#include "pyverify/Check/BreakLocation.h"
#include "pyverify/Check/CheckInputs.h"
#include "pyverify/Check/FrameModes.h"

#include "llvm/ADT/STLExtras.h"

#include "llvm/Support/FormatVariadic.h"

#include <optional>

using namespace pyverify;

llvm::Expected<std::vector<BundleContext>>
pyverify::activeWithContexts(const CodeObject &Original, uint32_t Offset) {
  return activeWithContexts(CodeAnalysis(Original), Offset);
}

llvm::Expected<std::vector<BundleContext>>
pyverify::activeWithContexts(const CodeAnalysis &Original, uint32_t Offset) {
  if (!Original.cfg())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the original is not well-formed");
  int64_t I = Original.decoded().Insts.indexAtStart(Offset);
  if (I < 0)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "offset %u is not an instruction start of the original", Offset);
  // The contexts whose bound __exit__ is live before the instruction: after
  // `return f(x)` inside a with, execution resumes at the inlined exit
  // sequence, outside the with's table range but with its __exit__ still on
  // the stack, so the table's block stack alone would say "no context".
  auto BS = Original.blockStack();
  if (!BS)
    return BS.takeError();
  auto Balance = Original.contexts();
  if (!Balance)
    return Balance.takeError();
  std::vector<BundleContext> Out;
  for (uint32_t Ctx : Balance->activeBefore(I))
    if (int32_t K = BS->siteIndexOfEnter(Ctx); K >= 0)
      if (const WithSite &W = BS->withSites()[K]; W.Handler)
        Out.push_back({ContextKind::With, *W.Handler,
                       W.ExitSlot >= 0 ? uint32_t(W.ExitSlot) : UINT32_MAX});
  return Out;
}

static std::string describeContexts(llvm::ArrayRef<BundleContext> Cs) {
  std::string S = "[";
  for (size_t I = 0; I < Cs.size(); ++I)
    S += llvm::formatv("{0}{1} handler {2} slot {3}", I ? ", " : "",
                       Cs[I].Kind == ContextKind::Mode ? "mode" : "with",
                       Cs[I].Handler, Cs[I].StackIndex)
             .str();
  return S + "]";
}

static std::string kindsText(llvm::ArrayRef<ContextKind> Ks) {
  std::string S = "[";
  for (size_t I = 0; I < Ks.size(); ++I)
    S += std::string(I ? ", " : "") +
         (Ks[I] == ContextKind::Mode ? "mode" : "with");
  return S + "]";
}

/// The frame's contexts in entry order: \p Ordinary ordinary ones, and the
/// modes of \p M each after the ordinary contexts held when it was pushed.
static std::vector<ContextKind> frameKinds(const FrameModes &M,
                                           uint32_t Ordinary) {
  std::vector<ContextKind> Ks;
  for (uint32_t W = 0; W <= Ordinary; ++W) {
    if (M.Known)
      for (uint32_t Below : M.OrdinaryBelow)
        if (std::min(Below, Ordinary) == W)
          Ks.push_back(ContextKind::Mode);
    if (W < Ordinary)
      Ks.push_back(ContextKind::With);
  }
  return Ks;
}

/// frame-contexts-mismatch: at its break instruction (BreakLocation.h) the
/// frame holds, kind by kind, the contexts the original holds at
/// break_offset (kinds as resume 0 claims them): as many ordinary contexts
/// (the context-balance pass) and as many torch-function modes
/// (FrameModes.h). Modes and ordinary contexts live on different stacks,
/// so their interleaving is not observable and not compared -- the rule of
/// prove's matches-eager at the frame's break, which refutes the same
/// bundles.
/// Adds to \p R the checks-not-run diagnostic of the enabled ones of
/// \p Checks, about code object \p Index of \p A (the bundle's \p Target).
static void bundleNotRun(const CheckOptions &O, llvm::ArrayRef<CheckId> Checks,
                         llvm::StringRef Why, const CodeAnalysis &A,
                         uint32_t Index, llvm::StringRef Target,
                         FileReport &R) {
  if (std::optional<Finding> F = notRunFinding(O, Checks, Why)) {
    Diagnostic G = makeDiagnostic(*F, A.decoded(), R.Path, Index);
    G.Target = Target.str();
    R.Diags.push_back(std::move(G));
  }
}

static void checkFrameAtBreak(const Bundle &B, const CheckOptions &O,
                              const CodeAnalysis &Original,
                              const CodeAnalysis &Frame, uint32_t FrameIndex,
                              FileReport &R) {
  if (!O.isEnabled(CheckId::FrameContextsMismatch))
    return;
  auto NotRun = [&](const llvm::Twine &Why) {
    bundleNotRun(O, CheckId::FrameContextsMismatch, Why.str(), Frame,
                 FrameIndex, "frame", R);
  };
  const DecodedCode &D = Original.decoded();
  int64_t OI = D.Insts.indexAtStart(B.BreakOffset);
  if (OI < 0)
    return NotRun(llvm::formatv("break_offset {0} is not an instruction start "
                                "of the original (bundle-offset-invalid)",
                                B.BreakOffset));
  if (!D.isWellFormed())
    return NotRun("the original is not well-formed");
  if (!Frame.decoded().isWellFormed())
    return NotRun("the frame is not well-formed");
  auto Active = activeWithContexts(Original, B.BreakOffset);
  if (!Active)
    return NotRun("the original's contexts at break_offset are unknown: " +
                  llvm::toString(Active.takeError()));
  llvm::ArrayRef<BundleContext> Claims;
  if (!B.Resumes.empty())
    Claims = B.Resumes[0].Contexts;
  std::vector<ContextKind> Want;
  for (size_t K = 0; K < Active->size(); ++K)
    Want.push_back(Claims.size() == Active->size() ? Claims[K].Kind
                                                   : ContextKind::With);
  BreakLocation L =
      locateFrameBreak(Frame.decoded(), D, OI, B.FrameBreakOffset);
  if (!L.found())
    return NotRun("the frame's break instruction was not found: " + L.Why);
  auto Bal = Frame.contexts();
  if (!Bal)
    return NotRun("the frame's contexts are unknown: " +
                  llvm::toString(Bal.takeError()));
  auto Ordinary = [&](uint32_t I) {
    return uint32_t(Bal->activeBefore(I).size());
  };
  unsigned ClaimedModes =
      unsigned(llvm::count_if(Claims, [](const BundleContext &C) {
        return C.Kind == ContextKind::Mode;
      }));
  uint32_t Index = uint32_t(L.Index);
  FrameModes M =
      frameModesBefore(Frame.decoded(), Index, ClaimedModes, Ordinary);
  uint32_t Have = Ordinary(Index);
  if (Have == size_t(llvm::count(Want, ContextKind::With))) {
    // The ordinary contexts agree; the modes decide -- and where they are
    // not counted, the check did not run (never "no findings").
    if (!M.Known)
      return NotRun("the frame's modes are not counted: " + M.Why);
    if (M.OrdinaryBelow.size() == size_t(llvm::count(Want, ContextKind::Mode)))
      return;
  }
  const Instruction &I = Frame.decoded().Insts[Index];
  std::string Msg = llvm::formatv(
      "the frame holds {0} at its break instruction ({1} at offset {2}) where "
      "the original holds {3} at break_offset {4}",
      kindsText(frameKinds(M, Have)), I.name(), I.Offset, kindsText(Want),
      B.BreakOffset);
  if (!M.Known)
    Msg += " (the frame's modes are not counted: " + M.Why + ")";
  Finding F(CheckId::FrameContextsMismatch, I.Offset, std::move(Msg));
  Diagnostic G = makeDiagnostic(F, Frame.decoded(), R.Path, FrameIndex);
  G.Target = "frame";
  R.Diags.push_back(std::move(G));
}

/// bundle-offset-invalid and resume-contexts-mismatch: each offset is an
/// instruction of the original, and each resume function claims the
/// contexts active in the original at its original_offset.
static void checkResumeClaims(const Bundle &B, const CheckOptions &O,
                              const CodeAnalysis &Original, FileReport &R) {
  const DecodedCode &D = Original.decoded();
  auto Claim = [&](CheckId Id, uint32_t At, std::string Msg,
                   llvm::StringRef Target) {
    if (!O.isEnabled(Id))
      return;
    Finding F(Id, At, std::move(Msg));
    Diagnostic G = makeDiagnostic(F, D, R.Path, 0);
    G.Target = Target.str();
    R.Diags.push_back(std::move(G));
  };
  if (D.Insts.indexAtStart(B.BreakOffset) < 0)
    Claim(CheckId::BundleOffsetInvalid, 0,
          llvm::formatv("break_offset {0} is not an instruction start of the "
                        "original",
                        B.BreakOffset),
          "original");
  for (size_t I = 0; I < B.Resumes.size(); ++I) {
    const BundleResume &Res = B.Resumes[I];
    std::string Target = "resume:" + std::to_string(I);
    if (D.Insts.indexAtStart(Res.OriginalOffset) < 0) {
      Claim(CheckId::BundleOffsetInvalid, 0,
            llvm::formatv("original_offset {0} of {1} is not an instruction "
                          "start of the original",
                          Res.OriginalOffset, Target),
            Target);
      bundleNotRun(O, CheckId::ResumeContextsMismatch,
                   llvm::formatv("{0}'s original_offset {1} is not an "
                                 "instruction start of the original "
                                 "(bundle-offset-invalid)",
                                 Target, Res.OriginalOffset)
                       .str(),
                   Original, 0, Target, R);
      continue;
    }
    auto Actual = activeWithContexts(Original, Res.OriginalOffset);
    if (!Actual) {
      bundleNotRun(O, CheckId::ResumeContextsMismatch,
                   llvm::formatv("the original's contexts at {0}'s "
                                 "original_offset {1} are unknown: {2}",
                                 Target, Res.OriginalOffset,
                                 llvm::toString(Actual.takeError()))
                       .str(),
                   Original, 0, Target, R);
      continue;
    }
    bool Same = Actual->size() == Res.Contexts.size();
    for (size_t K = 0; Same && K < Actual->size(); ++K)
      Same = (*Actual)[K].Handler == Res.Contexts[K].Handler &&
             (*Actual)[K].StackIndex == Res.Contexts[K].StackIndex;
    if (!Same)
      Claim(
          CheckId::ResumeContextsMismatch, Res.OriginalOffset,
          llvm::formatv("{0} claims contexts {1} at original offset {2}, "
                        "but the contexts active in the original there are {3}",
                        Target, describeContexts(Res.Contexts),
                        Res.OriginalOffset, describeContexts(*Actual)),
          Target);
  }
}

FileReport pyverify::verifyBundle(const Bundle &B, const CheckOptions &O) {
  FileReport R;
  R.Path = B.Path;
  // The original is analysed once, for its own checks and for the claims.
  CodeAnalysis Original(*B.Original, O.Balance);
  // The frame and the resume functions are emitted code: they neither
  // delegate nor forward explicit enters and exits (their nested code
  // objects are the original's own).
  ContextBalanceOptions EmittedBalance = O.Balance;
  EmittedBalance.Role = CodeRole::Emitted;
  CheckOptions EmittedOpts = O;
  EmittedOpts.Balance = EmittedBalance;
  // The frame's analysis also serves the check at its break instruction.
  std::optional<CodeAnalysis> Frame;
  uint32_t FrameIndex = 0;
  if (B.Frame)
    Frame.emplace(*B.Frame, EmittedBalance);
  auto Add = [&](const CodeObject &Root, llvm::StringRef Target) {
    bool Emitted = &Root != B.Original.get();
    forEachCodeObject(Root, [&](const CodeObject &C, unsigned) {
      uint32_t Index = R.CodeObjects++;
      std::optional<CodeAnalysis> Own;
      const CodeAnalysis &A =
          &C == B.Original.get() ? Original
          : &C == B.Frame.get()
              ? *Frame
              : Own.emplace(C, Emitted && &C == &Root ? EmittedBalance
                                                      : O.Balance);
      if (&C == B.Frame.get())
        FrameIndex = Index;
      const CheckOptions &Opts =
          A.contextOptions() == O.Balance ? O : EmittedOpts;
      for (const Finding &F : verifyCode(A, Opts)) {
        Diagnostic G = makeDiagnostic(F, A.decoded(), R.Path, Index);
        G.Target = Target.str();
        R.Diags.push_back(std::move(G));
      }
    });
  };
  Add(*B.Original, "original");
  if (B.Frame)
    Add(*B.Frame, "frame");
  for (size_t I = 0; I < B.Resumes.size(); ++I)
    Add(*B.Resumes[I].Code, "resume:" + std::to_string(I));

  checkResumeClaims(B, O, Original, R);
  if (Frame)
    checkFrameAtBreak(B, O, Original, *Frame, FrameIndex, R);
  resolveSourceFiles(R);
  sortDiagnostics(R.Diags);
  return R;
}
