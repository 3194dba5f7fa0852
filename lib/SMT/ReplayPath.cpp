//===- ReplayPath.cpp - Refutations whose failure is safe to run ----------===//

#include "ReplayPath.h"

#include "pyverify/Analysis/MicroOps.h"

using namespace pyverify;
using namespace pyverify::smt;
using namespace pyverify::smt::prover;

std::optional<llvm::StringRef> prover::safeFailure(const Diagnostic &D,
                                                   const DecodedCode &Code) {
  if (D.Check != CheckId::LocalUnbound || !D.NotRun.empty())
    return std::nullopt;
  for (const Instruction &I : Code.Insts.instructions()) {
    if (!I.Valid || I.Offset != D.Offset)
      continue;
    // The read that raises when the local is unbound, from the
    // instruction's lowering (its version's table), not its name.
    for (const MicroOp &Op : lowerInstruction(I))
      if (const auto *L = std::get_if<uop::LoadLocal>(&Op);
          L && L->Read == uop::LocalRead::Checked)
        return llvm::StringRef("UnboundLocalError");
    return std::nullopt;
  }
  return std::nullopt;
}

bool prover::runsSafely(llvm::ArrayRef<Diagnostic> Findings,
                        const DecodedCode &Code) {
  bool Any = false;
  for (const Diagnostic &D : Findings) {
    if (!D.NotRun.empty())
      continue;
    if (!safeFailure(D, Code))
      return false;
    Any = true;
  }
  return Any;
}

bool prover::raisesAtFinding(const Counterexample &Cex,
                             llvm::ArrayRef<Diagnostic> Findings,
                             const DecodedCode &Code, llvm::StringRef Target) {
  for (const ProofStep &S : Cex.Emitted)
    for (const Diagnostic &D : Findings)
      if (S.Code == Target && D.Offset == S.Offset)
        if (std::optional<llvm::StringRef> E = safeFailure(D, Code);
            E && llvm::StringRef(S.Event).contains(("raises " + *E).str()))
          return true;
  return false;
}
