//===- ExactlyOnce.cpp - Every path of one code object
//--------------------------===//

#include "ExactlyOnce.h"

using namespace pyverify;
using namespace pyverify::smt;
using namespace pyverify::smt::prover;

void SingleExplorer::run(Side Start) {
  struct Item {
    Side S;
    std::vector<Lit> PC;
  };
  Budget &Bud = *Start.Bud;
  std::vector<Item> Work;
  Work.push_back({std::move(Start), {}});
  while (!Work.empty()) {
    if (Bud.exceeded() || !Bud.hold(Work.size()))
      break;
    if (Stats.Paths >= O.MaxPaths) {
      Stats.Limit = true;
      return;
    }
    Item It = std::move(Work.back());
    Work.pop_back();
    Side &S = It.S;
    if (!S.advance(O.Unroll)) {
      finish(S);
      continue;
    }
    // A with-body instruction a trace function or the eval breaker can
    // raise at (Side::tierPoint): raises explored last, then it runs.
    if (S.AtTier) {
      S.AtTier = false;
      S.TierDonePc = S.Pc;
      for (uint32_t Off : S.TierOffsets) {
        Side R = S;
        R.pushStep();
        R.raiseTier(Off);
        // A raise that goes on exactly as one explored already: covered.
        if (!TierSeen.insert(R.raisedStateKey(It.PC)).second)
          continue;
        Work.push_back({std::move(R), It.PC});
      }
      Work.push_back({std::move(S), std::move(It.PC)});
      continue;
    }
    S.pushStep();
    // May raise (a call, a truth test, FOR_ITER's next...): explored last.
    // RETURN_VALUE cannot raise. An exit call that raises has still exited
    // (docs/prove.md).
    if (S.mayRaiseHere()) {
      Side R = S;
      R.Steps.back().Events.clear();
      R.raiseAtSync();
      Work.push_back({std::move(R), It.PC});
    }
    if (S.isBranch()) {
      Lit L = S.branchLit();
      // Not taken first (explored first: pushed last).
      for (bool Taken : {true, false}) {
        std::vector<Lit> PC = It.PC;
        Lit X = L;
        X.Positive = Taken ? L.Positive : !L.Positive;
        if (!F.check(PC, X))
          continue;
        // The last outcome (not taken) takes the path itself.
        Side N = Taken ? Side(S) : std::move(S);
        N.execSync(Taken);
        Work.push_back({std::move(N), std::move(PC)});
      }
      continue;
    }
    if (returns(S.inst())) {
      S.execSync(false);
      finish(S);
      continue;
    }
    S.execSync(false);
    Work.push_back({std::move(S), std::move(It.PC)});
  }
  Stats.OverBudget = Bud.Exceeded;
}

void SingleExplorer::finish(Side &S) {
  ++Stats.Paths;
  if (!S.Unsettled.empty() && Stats.Unsettled.empty())
    Stats.Unsettled = S.Unsettled;
  if (S.Handed) {
    HandOff &H = HandOffs[S.Handed->first];
    const HandOff &P = S.Handed->second;
    if (H.Bits.size() < P.Bits.size()) {
      H.Bits.resize(P.Bits.size(), 0);
      H.Text.resize(P.Bits.size());
    }
    for (size_t K = 0; K < P.Bits.size(); ++K) {
      // The first description of a value that enters is the one printed.
      if (H.Text[K].empty() ||
          ((P.Bits[K] & HandedEnters) && !(H.Bits[K] & HandedEnters)))
        H.Text[K] = P.Text[K];
      H.Bits[K] |= P.Bits[K];
    }
  }
  if (S.End == EndKind::Cut && S.Subsumed && !S.Bad)
    return;
  if (S.End == EndKind::Cut) {
    if (!Stats.Cut) {
      Stats.Cut = true;
      Stats.CutWhy = S.CutWhy;
    }
    return;
  }
  // Modes and ordinary contexts live on different stacks: each sequence
  // must match, their interleaving is not observable.
  auto Count = [](const std::vector<CtxKind> &Ks, CtxKind K) {
    return llvm::count(Ks, K);
  };
  if (!S.Bad && S.C->IsFrame && S.ActiveAtBreak && S.C->ExpectedAtBreak &&
      (Count(*S.ActiveAtBreak, CtxKind::Mode) !=
           Count(*S.C->ExpectedAtBreak, CtxKind::Mode) ||
       Count(*S.ActiveAtBreak, CtxKind::With) !=
           Count(*S.C->ExpectedAtBreak, CtxKind::With))) {
    auto Text = [](const std::vector<CtxKind> &Ks) {
      std::string T;
      for (CtxKind K : Ks)
        T += (T.empty() ? "" : ", ") +
             std::string(K == CtxKind::Mode ? "mode" : "with");
      return "[" + T + "]";
    };
    S.Bad = Violation{
        "matches-eager",
        llvm::formatv("at the break instruction the frame holds {0}, but "
                      "the original holds {1} at break_offset",
                      Text(*S.ActiveAtBreak), Text(*S.C->ExpectedAtBreak))};
    S.BadStep = S.BreakStep;
  }
  if (!S.Bad) {
    // At a frame exit, no context may remain (the frame may hand its
    // modes to the resume function on the normal path).
    std::vector<int32_t> Left;
    for (int32_t L : S.Active) {
      const CtxRec *R = S.ctx(L);
      if (S.C->IsFrame && S.ResumeCalled && R->Kind == CtxKind::Mode)
        continue;
      if (llvm::is_contained(S.Abandoned, L))
        continue; // a tier raise left it entered where CPython does too
      Left.push_back(L);
    }
    if (!Left.empty()) {
      std::string Names;
      for (int32_t L : Left)
        Names += (Names.empty() ? "" : ", ") + S.describe(L);
      S.violate(
          "exactly-once",
          llvm::formatv("{0} {1} with {2} still active: never "
                        "exited on this path",
                        S.C->Name,
                        S.End == EndKind::Return ? "returns" : "raises out",
                        Names));
    }
  }
  if (S.Bad && S.Approximations.empty() && !S.Steps.empty()) {
    int64_t At = S.BadStep >= 0 ? S.BadStep : int64_t(S.Steps.size()) - 1;
    const Step &St =
        S.Steps[size_t(std::min<int64_t>(At, int64_t(S.Steps.size()) - 1))];
    if (St.Code == S.C->Name && !llvm::is_contained(ViolationAt, St.Offset))
      ViolationAt.push_back(St.Offset);
  }
  std::optional<Side> &Keep = S.Approximations.empty() ? Worst : WorstApprox;
  if (S.Bad && (!Keep || S.Steps.size() < Keep->Steps.size()))
    Keep = S;
}
