//===- CFG.cpp - Control-flow graph of a 3.11 code object -----------------===//

#include "pyverify/CFG/CFG.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <array>
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

/// The opcode table as an array, built once: Instruction::info() and
/// mayRaise() each look the opcode up through two out-of-line calls and a
/// static guard, and build() asks about every instruction.
static const std::array<const OpcodeInfo *, 256> &opcodeInfos() {
  static const std::array<const OpcodeInfo *, 256> Table = [] {
    std::array<const OpcodeInfo *, 256> T{};
    for (unsigned B = 0; B < 256; ++B)
      T[B] = getOpcodeInfo(uint8_t(B));
    return T;
  }();
  return Table;
}

/// mayRaise(In.op(), In.Arg), asking mayRaise() only when the answer depends
/// on the argument.
static bool mayRaiseAt(const Instruction &In, const OpcodeInfo &Info) {
  switch (Info.Raises) {
  case RaiseKind::Never:
    return false;
  case RaiseKind::Always:
    return true;
  case RaiseKind::ArgDependent:
    return mayRaise(In.op(), In.Arg);
  }
  llvm_unreachable("unknown raise kind");
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

  // One sweep over the instructions: for each, the index of the table entry
  // covering its opcode unit (CPython's lookup key; the table is sorted and
  // non-overlapping, D being well-formed), whether it may raise, and the
  // block boundaries it makes. Raises excludes an unconditional
  // JUMP_BACKWARD, which raises only from the eval breaker, looked up at
  // target - 1 (below), not at the jump.
  const auto &Infos = opcodeInfos();
  auto InfoOf = [&](const Instruction &In) -> const OpcodeInfo & {
    assert(In.Valid && "well-formed code has base opcodes only");
    return *Infos[In.OpByte];
  };
  G.Cover.assign(N, -1);
  std::vector<int32_t> &Cover = G.Cover;
  llvm::SmallVector<uint8_t, 256> Raises(N);
  size_t E = 0;
  for (size_t I = 0; I < N; ++I) {
    const Instruction &In = Insts[I];
    uint32_t Key = In.Offset;
    while (E < D.Table.size() && D.Table[E].End <= Key)
      ++E;
    if (E < D.Table.size() && D.Table[E].covers(Key))
      Cover[I] = int32_t(E);
    const OpcodeInfo &Info = InfoOf(In);
    bool R = !In.is(Opcode::JUMP_BACKWARD) && mayRaiseAt(In, Info);
    Raises[I] = R;
    if (Info.isJump()) {
      MarkAt(uint64_t(In.Target));
      Leader.set(I + 1);
    } else if (Info.Terminator) {
      Leader.set(I + 1);
    } else if (Cover[I] >= 0 && R) {
      Leader.set(I + 1);
    }
  }

  std::vector<BasicBlock> &Blocks = G.S->Blocks;
  Blocks.reserve(Leader.count());
  G.InstToBlock.resize(N);
  for (uint32_t I = 0; I < N;) {
    int J = Leader.find_next(I);
    uint32_t End = J < 0 || uint32_t(J) > N ? uint32_t(N) : uint32_t(J);
    unsigned Id = Blocks.size();
    Blocks.push_back(BasicBlock{G.S.get(), Id, I, End, {}, {}});
    std::fill(G.InstToBlock.begin() + I, G.InstToBlock.begin() + End, Id);
    I = End;
  }

  G.S->Edges.reserve(2 * Blocks.size());
  auto AddEdge = [&](CFGEdge E) {
    unsigned Idx = G.S->Edges.size();
    G.S->Edges.push_back(E);
    Blocks[E.Source].Succs.push_back(Idx);
    Blocks[E.Target].Preds.push_back(Idx);
  };
  auto BlockAt = [&](int64_t ByteOffset) {
    int64_t I = Insts.indexAtStart(uint64_t(ByteOffset));
    assert(I >= 0 && "well-formed code has valid targets");
    return G.InstToBlock[I];
  };

  for (BasicBlock &B : Blocks) {
    const Instruction &Last = Insts[B.last()];
    const OpcodeInfo &Info = InfoOf(Last);
    bool HasNext = B.Id + 1 < Blocks.size();
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
    int32_t BackEntry = -1;
    if (Last.is(Opcode::JUMP_BACKWARD) ||
        (Info.isBackwardJump() && Info.isConditionalJump())) {
      if (const ExceptionTableEntry *E =
              lookupHandler(D.Table, Last.Target - 2))
        BackEntry = int32_t(E - D.Table.data());
    }
    if (Own >= 0) {
      bool OwnRaises = false;
      for (uint32_t K = B.Begin; K < B.End && !OwnRaises; ++K)
        OwnRaises = Raises[K];
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
