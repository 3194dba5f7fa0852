//===- CFG.cpp - Control-flow graph of a 3.11 code object -----------------===//

#include "pyverify/CFG/CFG.h"

#include "llvm/ADT/SmallVector.h"

#include <cassert>

using namespace pyverify;

llvm::StringRef pyverify::getEdgeKindName(EdgeKind K) {
  switch (K) {
  case EdgeKind::FallThrough:
    return "fallthrough";
  case EdgeKind::Jump:
    return "jump";
  case EdgeKind::BranchTaken:
    return "taken";
  case EdgeKind::BranchNotTaken:
    return "not-taken";
  case EdgeKind::Exception:
    return "exception";
  }
  llvm_unreachable("unknown edge kind");
}

/// For each instruction, the index of the table entry covering its opcode
/// unit (CPython's lookup key), or -1. The table is sorted and
/// non-overlapping (DecodedCode is well-formed), so one sweep suffices.
static std::vector<int32_t> computeCover(const DecodedCode &D) {
  std::vector<int32_t> Cover(D.Insts.size(), -1);
  size_t E = 0;
  for (size_t I = 0; I < D.Insts.size(); ++I) {
    uint32_t Key = D.Insts[I].Offset;
    while (E < D.Table.size() && D.Table[E].End <= Key)
      ++E;
    if (E < D.Table.size() && D.Table[E].covers(Key))
      Cover[I] = int32_t(E);
  }
  return Cover;
}

CFG CFG::build(const DecodedCode &D) {
  assert(D.isWellFormed() && "CFG needs a well-formed code object");
  CFG G;
  G.D = &D;
  const InstructionStream &Insts = D.Insts;
  size_t N = Insts.size();
  if (N == 0) {
    // Empty co_code: a single empty block keeps every invariant simple.
    G.S->Blocks.push_back(BasicBlock{G.S.get(), 0, 0, 0, {}, {}});
    G.Reachable.resize(1, true);
    return G;
  }
  G.Cover = computeCover(D);
  const std::vector<int32_t> &Cover = G.Cover;

  llvm::BitVector Leader(N + 1);
  Leader.set(0);
  auto MarkAt = [&](uint64_t ByteOffset) {
    int64_t I = Insts.indexAtStart(ByteOffset);
    if (I >= 0)
      Leader.set(I);
  };
  for (const ExceptionTableEntry &E : D.Table) {
    MarkAt(E.Start);
    MarkAt(E.End);
    MarkAt(E.Target);
  }
  for (size_t I = 0; I < N; ++I) {
    const Instruction &In = Insts[I];
    const OpcodeInfo &Info = In.info();
    if (Info.isJump()) {
      MarkAt(uint64_t(In.Target));
      Leader.set(I + 1);
    } else if (Info.Terminator) {
      Leader.set(I + 1);
    } else if (Cover[I] >= 0 && mayRaise(In.op(), In.Arg)) {
      Leader.set(I + 1);
    }
  }

  G.InstToBlock.resize(N);
  for (uint32_t I = 0; I < N;) {
    uint32_t J = I + 1;
    while (J < N && !Leader.test(J))
      ++J;
    unsigned Id = G.S->Blocks.size();
    G.S->Blocks.push_back(BasicBlock{G.S.get(), Id, I, J, {}, {}});
    for (uint32_t K = I; K < J; ++K)
      G.InstToBlock[K] = Id;
    I = J;
  }

  auto AddEdge = [&](CFGEdge E) {
    unsigned Idx = G.S->Edges.size();
    G.S->Edges.push_back(E);
    G.S->Blocks[E.Source].Succs.push_back(Idx);
    G.S->Blocks[E.Target].Preds.push_back(Idx);
  };
  auto BlockAt = [&](int64_t ByteOffset) {
    int64_t I = Insts.indexAtStart(uint64_t(ByteOffset));
    assert(I >= 0 && "well-formed code has valid targets");
    return G.InstToBlock[I];
  };

  for (BasicBlock &B : G.S->Blocks) {
    const Instruction &Last = Insts[B.last()];
    const OpcodeInfo &Info = Last.info();
    bool HasNext = B.Id + 1 < G.S->Blocks.size();
    if (Info.isJump()) {
      if (Info.isConditionalJump()) {
        AddEdge({EdgeKind::BranchTaken, B.Id, BlockAt(Last.Target)});
        if (HasNext)
          AddEdge({EdgeKind::BranchNotTaken, B.Id, B.Id + 1});
      } else {
        AddEdge({EdgeKind::Jump, B.Id, BlockAt(Last.Target)});
      }
    } else if (!Info.Terminator && HasNext) {
      AddEdge({EdgeKind::FallThrough, B.Id, B.Id + 1});
    }

    // Exception edges. All instructions of a block share one cover.
    int32_t Own = Cover[B.Begin];
    bool OwnRaises = false;
    for (uint32_t K = B.Begin; K < B.End; ++K) {
      const Instruction &In = Insts[K];
      // An unconditional JUMP_BACKWARD raises only from the eval breaker,
      // which looks the handler up at target - 1 (below), not at the jump.
      if (In.is(Opcode::JUMP_BACKWARD))
        continue;
      OwnRaises |= mayRaise(In.op(), In.Arg);
    }
    int32_t BackEntry = -1;
    if (Last.is(Opcode::JUMP_BACKWARD) ||
        (Info.isBackwardJump() && Info.isConditionalJump())) {
      if (const ExceptionTableEntry *E =
              lookupHandler(D.Table, Last.Target - 2))
        BackEntry = int32_t(E - D.Table.data());
    }
    if (Own >= 0) {
      CFGEdge E{EdgeKind::Exception, B.Id, BlockAt(D.Table[Own].Target)};
      E.Entry = Own;
      E.MayRaise = OwnRaises || BackEntry == Own;
      AddEdge(E);
    }
    if (BackEntry >= 0 && BackEntry != Own) {
      CFGEdge E{EdgeKind::Exception, B.Id, BlockAt(D.Table[BackEntry].Target)};
      E.Entry = BackEntry;
      E.MayRaise = true;
      E.FromBackEdge = true;
      AddEdge(E);
    }
  }
  G.Reachable = G.reachableFollowing(/*OnlyRaisingExceptionEdges=*/false);
  return G;
}

llvm::BitVector CFG::reachableFollowing(bool OnlyRaising) const {
  llvm::BitVector Seen(size());
  llvm::SmallVector<unsigned, 32> Work{0};
  Seen.set(0);
  while (!Work.empty()) {
    unsigned B = Work.pop_back_val();
    for (unsigned EI : S->Blocks[B].Succs) {
      const CFGEdge &E = S->Edges[EI];
      if (OnlyRaising && E.isException() && !E.MayRaise)
        continue;
      if (!Seen.test(E.Target)) {
        Seen.set(E.Target);
        Work.push_back(E.Target);
      }
    }
  }
  return Seen;
}
