//===- MatchesEager.cpp - The resume function against eager
//---------------------===//

#include "MatchesEager.h"

#include "llvm/ADT/StringExtras.h"

using namespace pyverify;
using namespace pyverify::smt;
using namespace pyverify::smt::prover;

std::vector<std::string> PairExplorer::contextEvents(const Step &S) {
  std::vector<std::string> Out;
  for (const std::string &E : S.Events)
    if (llvm::StringRef(E).startswith("enter ") ||
        llvm::StringRef(E).startswith("exit ") ||
        llvm::StringRef(E).startswith("calls a value"))
      Out.push_back(E);
  return Out;
}

ProofStep PairExplorer::fold(const Side &S, size_t From) {
  if (From >= S.Steps.size())
    return {S.C->Name, S.Steps.empty() ? 0 : S.Steps.back().Offset,
            S.Steps.empty() ? "" : S.Steps.back().OpName.str(), ""};
  std::vector<std::string> Ev;
  for (size_t K = From; K < S.Steps.size(); ++K)
    for (const std::string &E : S.Steps[K].Events)
      Ev.push_back(E);
  const Step &Last = S.Steps[From];
  return {S.C->Name, Last.Offset, Last.OpName.str(), llvm::join(Ev, "; ")};
}

void PairExplorer::diverge(Item &It, std::string Why) {
  ++Stats.Paths;
  Counterexample C;
  C.Eager = It.EA.toVector();
  C.Emitted = It.EB.toVector();
  C.Divergence = int32_t(It.EA.size()) - 1;
  if (C.Divergence < 0)
    C.Divergence = 0;
  C.Explanation = std::move(Why);
  std::vector<std::string> Approx = It.A.Approximations;
  Approx.insert(Approx.end(), It.B.Approximations.begin(),
                It.B.Approximations.end());
  std::optional<Counterexample> &Keep = Approx.empty() ? Best : BestApprox;
  if (!Keep || C.Eager.size() < Keep->Eager.size()) {
    if (!Approx.empty())
      ApproxWhy = Approx.front();
    Keep = std::move(C);
  }
}

bool PairExplorer::reachSync(Item &It, bool &SyncA, bool &SyncB) {
  SyncA = It.A.advance(O.Unroll);
  SyncB = It.B.advance(O.Unroll);
  // A side whose loop repeated its state waits for the other: resume it
  // (at its loop head) while the other still settles.
  for (int Round = 0; Round < 4; ++Round) {
    bool CutA = It.A.End == EndKind::Cut, CutB = It.B.End == EndKind::Cut;
    if (CutA == CutB)
      break;
    Side &Waiting = CutA ? It.A : It.B;
    if (!Waiting.Subsumed)
      break;
    Waiting.End = EndKind::None;
    Waiting.Subsumed = false;
    (CutA ? SyncA : SyncB) = Waiting.advance(O.Unroll);
  }
  if (It.A.End == EndKind::Cut && It.B.End == EndKind::Cut && It.A.Subsumed &&
      It.B.Subsumed) {
    ++Stats.Paths; // both loops repeat their context state: covered
    return false;
  }
  if (It.A.End == EndKind::Cut || It.B.End == EndKind::Cut) {
    ++Stats.Paths;
    if (!Stats.Cut) {
      Stats.Cut = true;
      Stats.CutWhy = It.A.End == EndKind::Cut ? It.A.CutWhy : It.B.CutWhy;
    }
    return false;
  }
  return true;
}

void PairExplorer::endPair(Item &It, bool SyncA, bool SyncB) {
  auto EndText = [](const Side &S) -> std::string {
    switch (S.End) {
    case EndKind::Return:
      return "returns";
    case EndKind::RaiseOut:
      return "raises out";
    default:
      return ("continues at " + llvm::Twine(S.inst().Offset) + " " +
              S.inst().name())
          .str();
    }
  };
  if (SyncA != SyncB || It.A.End != It.B.End)
    return diverge(It, "the original " + EndText(It.A) +
                           " where the resume function " + EndText(It.B));
  if (It.A.Active != It.B.Active)
    return diverge(It, "at the end the original holds " + It.A.activeText() +
                           ", the resume function " + It.B.activeText());
  ++Stats.Paths;
}

bool PairExplorer::sameEvents(Item &N, size_t FromA, size_t FromB,
                              const std::string &Desc) {
  // The context events of this step must be the same.
  auto EA = contextEvents(N.A.Steps.back()),
       EB = contextEvents(N.B.Steps.back());
  N.EA.back() = fold(N.A, FromA);
  N.EB.back() = fold(N.B, FromB);
  if (EA == EB)
    return true;
  diverge(N, "at " + Desc + " the original's context events are [" +
                 llvm::join(EA, ", ") + "] and the resume function's are [" +
                 llvm::join(EB, ", ") + "]");
  return false;
}

void PairExplorer::branchPair(Item &It, std::vector<Item> &Work, size_t FromA,
                              size_t FromB, const std::string &Desc) {
  Lit LA = It.A.branchLit(), LB = It.B.branchLit();
  bool SameValue = LA.K == LB.K && LA.T == LB.T;
  // Explored in this order: not taken, taken, then the mixed ones.
  const std::pair<bool, bool> Order[] = {
      {true, false}, {false, true}, {true, true}, {false, false}};
  for (size_t K = 0; K < std::size(Order); ++K) {
    auto [TA, TB] = Order[K];
    std::vector<Lit> PC = It.PC;
    Lit XA = LA, XB = LB;
    XA.Positive = TA ? LA.Positive : !LA.Positive;
    XB.Positive = TB ? LB.Positive : !LB.Positive;
    if (!F.check(PC, XA) || !F.check(PC, XB))
      continue;
    // The last outcome takes the pair itself.
    Item N = K + 1 == std::size(Order) ? std::move(It) : Item(It);
    N.PC = std::move(PC);
    N.A.execSync(TA);
    N.B.execSync(TB);
    if (TA != TB) {
      N.EA.back() = fold(N.A, FromA);
      N.EB.back() = fold(N.B, FromB);
      diverge(N, "at " + Desc + " the original's branch is " +
                     (TA ? "taken" : "not taken") +
                     " and the resume function's is " +
                     (TB ? "taken" : "not taken") +
                     (SameValue ? " on the same value"
                                : " (the two sides test different values)"));
      continue;
    }
    if (sameEvents(N, FromA, FromB, Desc))
      Work.push_back(std::move(N));
  }
}

void PairExplorer::run(Side A, Side B) {
  Budget &Bud = *A.Bud;
  std::vector<Item> Work;
  Work.push_back({std::move(A), std::move(B), {}, {}, {}});
  while (!Work.empty()) {
    if (Bud.exceeded() || !Bud.hold(Work.size()))
      break;
    if (Stats.Paths >= O.MaxPaths) {
      Stats.Limit = true;
      return;
    }
    Item It = std::move(Work.back());
    Work.pop_back();
    size_t FromA = It.A.Steps.size(), FromB = It.B.Steps.size();
    bool SyncA, SyncB;
    if (!reachSync(It, SyncA, SyncB))
      continue;
    if (SyncA)
      It.A.pushStep();
    if (SyncB)
      It.B.pushStep();
    It.EA.push_back(fold(It.A, FromA));
    It.EB.push_back(fold(It.B, FromB));
    if (!SyncA || !SyncB) {
      endPair(It, SyncA, SyncB);
      continue;
    }
    std::string DA = It.A.syncDesc(), DB = It.B.syncDesc();
    if (DA != DB) {
      diverge(It, "the original executes " + DA +
                      " where the resume function executes " + DB);
      continue;
    }
    if (It.A.Active != It.B.Active) {
      diverge(It, "before " + DA + " the original holds " + It.A.activeText() +
                      ", the resume function " + It.B.activeText());
      continue;
    }
    // Both raise here (a call, a truth test, FOR_ITER's next...): explored
    // last. RETURN_VALUE cannot raise.
    if (It.A.mayRaiseHere() && It.B.mayRaiseHere()) {
      Item R = It;
      R.A.Steps.back().Events.clear();
      R.B.Steps.back().Events.clear();
      R.A.raiseAtSync();
      R.B.raiseAtSync();
      if (sameEvents(R, FromA, FromB, DA))
        Work.push_back(std::move(R));
    }
    if (It.A.isBranch()) {
      branchPair(It, Work, FromA, FromB, DA);
      continue;
    }
    if (returns(It.A.inst())) {
      It.A.execSync(false);
      It.B.execSync(false);
      if (sameEvents(It, FromA, FromB, DA))
        Work.push_back(std::move(It));
      continue;
    }
    // Both continue.
    It.A.execSync(false);
    It.B.execSync(false);
    if (sameEvents(It, FromA, FromB, DA))
      Work.push_back(std::move(It));
  }
  Stats.OverBudget = Bud.Exceeded;
}
