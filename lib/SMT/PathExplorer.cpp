//===- PathExplorer.cpp - What every path exploration shares
//--------------------===//

#include "PathExplorer.h"

#include "llvm/ADT/StringExtras.h"

using namespace pyverify;
using namespace pyverify::smt;
using namespace pyverify::smt::prover;

bool Feasibility::check(std::vector<Lit> &PC, const Lit &L) {
  for (const Lit &X : PC)
    if (X.K == L.K && X.T == L.T)
      return X.Positive == L.Positive;
  PC.push_back(L);
  std::string Name = Prefix + ":" + std::to_string(Count++);
  SatResult R = S.check(PC, Name);
  // The first unknown query names the result's reason: which query, and
  // Z3's own words for why (its reason_unknown()).
  if (R == SatResult::Unknown && !Unknown) {
    Unknown = true;
    llvm::StringRef Why =
        S.queries().empty() ? "" : llvm::StringRef(S.queries().back().Reason);
    UnknownWhy = "query " + Name + " (" + std::to_string(PC.size()) +
                 " path literals): Z3 gave up: " +
                 (Why.empty() ? std::string("no reason given") : Why.str());
  }
  if (R == SatResult::Sat)
    return true;
  PC.pop_back();
  return false;
}

ProofStep prover::toProofStep(const Step &S) {
  return {S.Code, S.Offset, S.OpName.str(), llvm::join(S.Events, "; "), S.Line};
}

Counterexample prover::singleCex(const Side &S,
                                 const std::vector<ProofStep> &Eager) {
  Counterexample C;
  C.Eager = Eager;
  for (const Step &St : S.Steps.toVector())
    C.Emitted.push_back(toProofStep(St));
  C.Divergence =
      int32_t(S.BadStep >= 0 ? S.BadStep : int64_t(S.Steps.size()) - 1);
  if (C.Divergence < 0)
    C.Divergence = 0;
  C.Explanation = S.Bad ? S.Bad->Explanation : "";
  return C;
}
