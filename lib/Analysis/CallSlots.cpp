//===- CallSlots.cpp - Calls whose NULL was never pushed ------------------===//

#include "pyverify/Analysis/CallSlots.h"
#include "pyverify/Analysis/MicroOps.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <optional>

using namespace pyverify;

namespace {

constexpr uint32_t NoInst = ~uint32_t(0);

/// A slot of the simulated stack: who pushed it (NoInst: before the
/// chain), whether it may be NULL, and an identity for the call results.
struct Slot {
  uint32_t From = NoInst;
  bool MaybeNull = true;
  uint32_t Id = 0;
};

/// One instruction of the chain and the edge it leaves by.
struct Step {
  uint32_t Inst;
  bool JumpEdge;
};

/// The straight-line code before instruction \p U, oldest first: \p U's
/// block up to it and the blocks before it, each entered by one normal edge
/// only (at most \p Cap instructions).
llvm::SmallVector<Step, 32> chainTo(const CFG &G, uint32_t U, size_t Cap) {
  llvm::SmallVector<Step, 32> Rev;
  unsigned B = G.blockOf(U);
  for (uint32_t I = U; I > G.block(B).Begin;)
    Rev.push_back({--I, false});
  llvm::BitVector Seen(G.size());
  Seen.set(B);
  while (Rev.size() < Cap && G.block(B).Preds.size() == 1) {
    const CFGEdge &E = G.edge(G.block(B).Preds.front());
    if (E.isException() || Seen.test(E.Source))
      break;
    B = E.Source;
    Seen.set(B);
    bool Jump = E.Kind == EdgeKind::Jump || E.Kind == EdgeKind::BranchTaken;
    const BasicBlock &P = G.block(B);
    Rev.push_back({P.last(), Jump});
    for (uint32_t I = P.last(); I > P.Begin;)
      Rev.push_back({--I, false});
  }
  return llvm::SmallVector<Step, 32>(Rev.rbegin(), Rev.rend());
}

/// The simulation of one chain; Stop when a micro-op would pop below it.
struct Simulation {
  llvm::SmallVector<Slot, 32> S;
  uint32_t NextId = 1;
  bool Stop = false;
  /// The last call that found no NULL, and its result's identity.
  std::optional<CallWithoutNull> Cand;
  uint32_t CandResult = 0;

  void push(uint32_t From, bool MaybeNull) {
    S.push_back({From, MaybeNull, NextId++});
  }
  bool pop(int64_t N) {
    if (int64_t(S.size()) < N)
      return Stop = true, false;
    S.resize(S.size() - N);
    return true;
  }

  void call(uint32_t I, const uop::Call &C) {
    size_t N = C.NArgs + (C.KwNamesOnTop ? 1 : 0);
    if (S.size() < N + 2) {
      Stop = true;
      return;
    }
    Slot Deep = S[S.size() - N - 2], Shallow = S[S.size() - N - 1];
    bool Found = Deep.From != NoInst && Shallow.From != NoInst &&
                 !Deep.MaybeNull && !Shallow.MaybeNull;
    pop(N + 2);
    push(I, false);
    if (Found) {
      Cand = CallWithoutNull{I, Shallow.From, Deep.From, NoInst};
      CandResult = S.back().Id;
    }
  }

  void step(uint32_t I, const MicroOp &Op) {
    if (const auto *C = std::get_if<uop::Call>(&Op))
      return call(I, *C);
    // COPY 0 and SWAP 0 (operand-out-of-range: CPython reads above the
    // top) name no slot of the simulation: it stops there.
    if (const auto *C = std::get_if<uop::Copy>(&Op)) {
      if (C->N == 0 || S.size() < C->N)
        return void(Stop = true);
      return S.push_back(S[S.size() - C->N]);
    }
    if (const auto *W = std::get_if<uop::Swap>(&Op)) {
      if (W->N == 0 || S.size() < W->N)
        return void(Stop = true);
      return std::swap(S.back(), S[S.size() - W->N]);
    }
    uop::Effect E = movementOf(Op);
    if (!pop(E.Pops))
      return;
    for (int64_t K = 0; K < E.Pushes; ++K)
      push(I, (E.NullOut >> K) & 1);
  }

  bool resultLive() const {
    for (const Slot &X : S)
      if (X.Id == CandResult)
        return true;
    return false;
  }
};

} // namespace

std::vector<CallWithoutNull>
pyverify::findCallsWithoutNull(const CFG &G, const StackDepthResult &R) {
  const InstructionStream &Insts = G.code().Insts;
  std::vector<CallWithoutNull> Out;
  for (const StackUnderflow &U : R.Underflows) {
    llvm::SmallVector<Step, 32> Chain = chainTo(G, U.Inst, 256);
    uint32_t First = Chain.empty() ? U.Inst : Chain.front().Inst;
    if (!R.Before[First])
      continue;
    Simulation Sim;
    // The slots below the chain are alike (unknown, never blamed): keep at
    // most MaxBase of them (an absurd handler depth is not allocated); a
    // chain that pops past them stops without a finding.
    constexpr int64_t MaxBase = 1 << 16;
    Sim.S.assign(size_t(std::clamp<int64_t>(*R.Before[First], 0, MaxBase)),
                 Slot());
    for (const Step &X : Chain) {
      for (const MicroOp &Op : lowerInstruction(Insts[X.Inst], X.JumpEdge))
        if (!Sim.Stop)
          Sim.step(X.Inst, Op);
      if (Sim.Stop)
        break;
    }
    if (Sim.Stop || !Sim.Cand || !Sim.resultLive())
      continue;
    Sim.Cand->Underflow = U.Inst;
    Out.push_back(*Sim.Cand);
  }
  return Out;
}
