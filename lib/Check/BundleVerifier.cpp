//===- BundleVerifier.cpp - Checking a bundle of emitted code -------------===//

#include "pyverify/Check/BundleVerifier.h"

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
  for (uint32_t Ctx : Balance->ActiveBefore[I])
    for (const WithSite &W : BS->withSites())
      if (W.EnterInst == Ctx && W.Handler)
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
  auto Add = [&](const CodeObject &Root, llvm::StringRef Target) {
    bool Emitted = &Root != B.Original.get();
    forEachCodeObject(Root, [&](const CodeObject &C, unsigned) {
      uint32_t Index = R.CodeObjects++;
      std::optional<CodeAnalysis> Own;
      const CodeAnalysis &A =
          &C == B.Original.get()
              ? Original
              : Own.emplace(C, Emitted && &C == &Root ? EmittedBalance
                                                      : O.Balance);
      for (const Finding &F : verifyCode(A, O)) {
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

  // Claims about the original.
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
      continue;
    }
    auto Actual = activeWithContexts(Original, Res.OriginalOffset);
    if (!Actual) {
      llvm::consumeError(
          Actual.takeError()); // the original's own findings say why
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
  sortDiagnostics(R.Diags);
  return R;
}
