//===- Verdicts.cpp - How a proof result is concluded ---------------------===//

#include "Verdicts.h"

#include "pyverify/Check/Verifier.h"

using namespace pyverify;
using namespace pyverify::smt;
using namespace pyverify::smt::prover;

std::string prover::kindsText(llvm::ArrayRef<ContextKind> Ks) {
  std::string T;
  for (ContextKind K : Ks)
    T += (T.empty() ? "" : ", ") +
         std::string(K == ContextKind::Mode ? "mode" : "with");
  return "[" + T + "]";
}

bool prover::isContextCheck(CheckId Id) {
  switch (Id) {
  case CheckId::ContextNotExited:
  case CheckId::ContextExitedTwice:
  case CheckId::ContextExitOrder:
  case CheckId::ContextExitWithoutEnter:
  case CheckId::WithHandlerMismatch:
  case CheckId::WithBodyEnteredWithoutEnter:
  case CheckId::WithBodyUncovered:
    return true;
  default:
    return false;
  }
}

/// well-formed: the dataflow errors other than the context checks.
std::vector<Diagnostic>
prover::wellFormedErrors(const CodeInfo &C, llvm::StringRef File,
                         std::vector<CheckedFinding> *Context) {
  std::vector<Diagnostic> Out;
  CheckOptions Opts;
  Opts.Balance = C.Analysis->contextOptions();
  Opts.MergeRootCauses = false; // each context finding is decided alone
  for (const Finding &F : verifyCode(*C.Analysis, Opts)) {
    bool Ctx = isContextCheck(F.Check);
    if (Ctx && !Context)
      continue;
    if (!Ctx && F.Sev != Severity::Error)
      continue;
    Diagnostic D = makeDiagnostic(F, C.D(), File, 0);
    D.Target = C.Name;
    if (Ctx)
      Context->push_back({std::move(D), FindingStatus::Undecided});
    else
      Out.push_back(std::move(D));
  }
  return Out;
}

void prover::settleContextFindings(ProofResult &R) {
  // Confirmed ones were confirmed by a violating path at their offset. The
  // rest are discharged only when exactly-once was proved outright (a
  // refutation elsewhere says nothing of this offset: undecided).
  bool Proved = llvm::is_contained(R.ProvedProperties, "exactly-once");
  for (CheckedFinding &F : R.ContextFindings)
    if (F.Status != FindingStatus::Confirmed)
      F.Status = Proved ? FindingStatus::Discharged : FindingStatus::Undecided;
}

/// The assumptions a result rests on. The environment's come from
/// Environment.def: one line per rewriter global that \p Codes load.
std::vector<std::string>
prover::assumptions(const ProveOptions &O, bool Pair,
                    std::initializer_list<const DecodedCode *> Codes) {
  std::vector<std::string> A;
  if (O.AssumeNoSuppress)
    A.push_back("__exit__ never suppresses an exception (the split contexts "
                "are re-entrant and non-suppressing)");
  A.push_back("an exception raised by an exit call means the exit was called");
  A.push_back("a context manager has __enter__ and __exit__");
  // The raise tiers (RaiseModel.h): what exactly-once explores besides the
  // instructions that raise by themselves.
  if (O.TierTracing || O.TierEvalBreaker)
    A.push_back(llvm::formatv(
        "an exception can be raised in a with body not only by the "
        "instructions that raise by themselves: {0}; where CPython's compiler "
        "leaves an instruction outside its with (NOPs, the exit sequence, the "
        "handler's start) such a raise leaves that context entered, as in "
        "CPython",
        O.TierTracing && O.TierEvalBreaker
            ? "at every instruction by a trace function (line and opcode "
              "events), and at back edges by the eval breaker (signals, "
              "asynchronous exceptions)"
        : O.TierTracing ? "at every instruction by a trace function (line "
                          "and opcode events)"
                        : "at back edges by the eval breaker (signals, "
                          "asynchronous exceptions)"));
  if (!O.TierTracing)
    A.push_back("no trace function raises (--no-assume=tracing)");
  if (!O.TierEvalBreaker)
    A.push_back("no signal handler or asynchronous exception raises at a back "
                "edge (--no-assume=eval-breaker)");
  A.push_back("a truth test may raise, but not again on a value whose truth "
              "test already succeeded on the path");
  std::vector<bool> Used(environmentGlobals().size());
  for (const DecodedCode *DC : Codes) {
    const DecodedCode &D = *DC;
    const CodeObject *C = D.Code;
    for (size_t K = 0; K < D.Insts.size(); ++K) {
      const Instruction &I = D.Insts[K];
      if (!I.Valid)
        continue;
      for (const MicroOp &Op : lowerInstruction(I))
        if (const auto *LG = std::get_if<uop::LoadGlobal>(&Op);
            LG && LG->Name < C->Names.size())
          if (const EnvGlobal *G = lookupGlobal(C->Names[LG->Name]))
            Used[size_t(G - environmentGlobals().data())] = true;
    }
  }
  for (size_t K = 0; K < Used.size(); ++K)
    if (Used[K])
      A.push_back(environmentGlobals()[K].Assumption);
  A.push_back("any other global or attribute is an arbitrary value: loading, "
              "reading or calling it may raise, and it does not enter or exit "
              "the contexts this code holds");
  if (Pair) {
    A.push_back("the resume function receives the original's stack values "
                "and live locals at original_offset");
    A.push_back("the resume prologue does not raise (its context "
                "constructors and re-entries succeed), by itself or through a "
                "trace function or the eval breaker: a mode the frame handed "
                "over is not yet taken over there and would stay pushed");
    A.push_back("matches-eager pairs the raises of instructions that raise by "
                "themselves; a trace function's or the eval breaker's raise is "
                "checked by exactly-once on each code object");
  }
  A.push_back(llvm::formatv("loops unrolled {0} time(s)", O.Unroll));
  return A;
}

/// Fills V/Reason/Property/Cex from one exploration of \p Property; a
/// refuted result's reason is its counterexample's explanation. A violation
/// found only on paths that rest on an approximation (\p ApproxCex, with
/// \p ApproxWhy) makes the property unknown: it could not be proved, and
/// the counterexample may be the approximation's. Only an exploration that
/// covered every path with no violation, no limit, no cut and no solver
/// unknown concludes that \p Property is proved.
void prover::conclude(ProofResult &R, const ExploreStats &St,
                      const Feasibility &F, std::optional<Counterexample> Cex,
                      llvm::StringRef Property,
                      std::optional<Counterexample> ApproxCex,
                      llvm::StringRef ApproxWhy) {
  if (Cex) {
    R.V = Verdict::Refuted;
    R.Property = Property.str();
    R.Reason = Cex->Explanation;
    R.Cex = std::move(Cex);
    return;
  }
  if (!St.OverBudget.empty()) {
    R.V = Verdict::Unknown;
    R.Reason = St.OverBudget;
    R.Property = Property.str();
    return;
  }
  if (St.Limit) {
    R.V = Verdict::Unknown;
    R.Reason = llvm::formatv("path limit ({0} paths): not every path was "
                             "explored (--max-paths)",
                             St.Paths);
    R.Property = Property.str();
    return;
  }
  if (F.Unknown) {
    R.V = Verdict::Unknown;
    R.Reason = "solver: " + F.UnknownWhy;
    R.Property = Property.str();
    return;
  }
  if (St.Cut) {
    R.V = Verdict::Unknown;
    R.Reason = St.CutWhy;
    R.Property = Property.str();
    return;
  }
  if (ApproxCex) {
    R.V = Verdict::Unknown;
    R.Reason = ("couldn't prove: the only violation rests on an "
                "approximation (" +
                ApproxWhy + "): " + ApproxCex->Explanation)
                   .str();
    R.Property = Property.str();
    return;
  }
  if (!St.Unsettled.empty()) {
    R.V = Verdict::Unknown;
    R.Reason = "couldn't prove: " + St.Unsettled;
    R.Property = Property.str();
    return;
  }
  R.ProvedProperties.push_back(Property.str());
}

/// The verdict: Proved only when every property in \p Required was
/// concluded proved (conclude()); Refuted and Unknown results keep their
/// own. A result that reaches here with neither is unknown, with a reason.
void prover::decide(ProofResult &R,
                    std::initializer_list<llvm::StringRef> Required) {
  if (R.V != Verdict::Unknown || !R.Reason.empty())
    return;
  for (llvm::StringRef P : Required)
    if (!llvm::is_contained(R.ProvedProperties, P)) {
      R.Property = P.str();
      R.Reason = "no conclusion was reached for " + P.str();
      return;
    }
  R.V = Verdict::Proved;
}
