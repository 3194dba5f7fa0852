//===- CFG.cpp - Control-flow graph of a 3.11 code object -----------------===//

#include "pyverify/CFG/CFG.h"
#include "pyverify/Bytecode/RaiseModel.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>

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

namespace {

/// What findLeaders() asks of every instruction, per version and opcode
/// byte, read once from the opcode table and the raise model: whether it
/// may raise (mayRaiseGiven with BackEdgeSeparately; an opcode whose answer
/// depends on its argument is asked per instruction), jumps, or ends its
/// block.
struct LeaderFacts {
  enum : uint8_t {
    Raises = 1,
    ArgDependent = 2, ///< Ask mayRaiseGiven() per instruction.
    Jump = 4,
    Terminator = 8,
    BreakerAtTarget = 16, ///< breakerRaisesAtTarget().
  };
  std::array<uint8_t, NumPythonVersions * 256> Flags{};

  LeaderFacts() {
    for (PythonVersion V : AllPythonVersions)
      for (unsigned B = 0; B < 256; ++B) {
        const OpcodeInfo *Info = getVersionOpcodeInfo(V, uint8_t(B));
        if (!Info)
          continue;
        uint8_t &F = Flags[unsigned(V) * 256 + B];
        if (Info->Raises == RaiseKind::ArgDependent) {
          F |= ArgDependent;
        } else {
          Instruction I{};
          I.Ver = V;
          I.OpByte = uint8_t(B);
          I.Op = Info->Op;
          if (mayRaiseGiven(I, *Info, backEdgeSeparately()))
            F |= Raises;
        }
        Instruction I{};
        I.Ver = V;
        I.OpByte = uint8_t(B);
        I.Op = Info->Op;
        if (breakerRaisesAtTarget(I))
          F |= BreakerAtTarget;
        if (Info->isJump())
          F |= Jump;
        else if (Info->Terminator)
          F |= Terminator;
      }
  }
  /// \p I's flags (\p I valid).
  uint8_t of(const Instruction &I) const {
    return Flags[unsigned(I.Ver) * 256 + I.OpByte];
  }
  static const LeaderFacts &get() {
    static const LeaderFacts F;
    return F;
  }
  /// The facts the CFG asks the raise model with: a back edge's eval-breaker
  /// exception is an edge of its own (added below), not a raise of the jump.
  static RaiseFacts backEdgeSeparately() {
    RaiseFacts F;
    F.BackEdgeSeparately = true;
    return F;
  }
};

/// The block leaders of \p D's N > 0 instructions (bit N marks the end), in
/// one sweep that also fills, per instruction, the index of the table entry
/// covering its opcode unit (CPython's lookup key; the table is sorted and
/// non-overlapping, D being well-formed) and whether it may raise. Raises
/// excludes a JUMP_BACKWARD whose eval-breaker exception is looked up at its
/// target - 1 (breakerRaisesAtTarget: 3.11, 3.12; addExceptionEdges adds
/// that edge); 3.13's raises at the jump.
/// A raising instruction does not end its block: the block's one exception
/// edge per handler stands for every raise in it (CFG.h).
llvm::BitVector findLeaders(const DecodedCode &D,
                            llvm::MutableArrayRef<int32_t> Cover,
                            llvm::BitVector &Raises) {
  const InstructionStream &Insts = D.Insts;
  size_t N = Insts.size();
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
  // One version's row: a stream is decoded as one version's bytecode.
  const uint8_t *Facts =
      LeaderFacts::get().Flags.data() + unsigned(Insts[0].Ver) * 256;
  const ExceptionTableEntry *Table = D.Table.data();
  size_t E = 0, NumEntries = D.Table.size();
  // The entry the scan is at: instructions before its start are uncovered.
  uint32_t EntryStart = NumEntries ? Table[0].Start : UINT32_MAX;
  uint32_t EntryEnd = NumEntries ? Table[0].End : UINT32_MAX;
  int32_t *CoverOut = Cover.data();
  const Instruction *Ins = Insts.instructions().data();
  for (size_t I = 0; I < N; ++I) {
    const Instruction &In = Ins[I];
    uint32_t Key = In.Offset;
    if (LLVM_UNLIKELY(Key >= EntryEnd)) {
      while (E < NumEntries && Table[E].End <= Key)
        ++E;
      EntryStart = E < NumEntries ? Table[E].Start : UINT32_MAX;
      EntryEnd = E < NumEntries ? Table[E].End : UINT32_MAX;
    }
    if (Key >= EntryStart) // and below EntryEnd: ExceptionTableEntry::covers
      CoverOut[I] = int32_t(E);
    assert(In.Ver == Insts[0].Ver && "one version per stream");
    uint8_t F = Facts[In.OpByte];
    bool R = F & LeaderFacts::Raises;
    if (LLVM_UNLIKELY(F & LeaderFacts::ArgDependent))
      R = mayRaiseGiven(In, In.info(), LeaderFacts::backEdgeSeparately());
    if (R)
      Raises.set(I);
    if (F & LeaderFacts::Jump) {
      MarkAt(uint64_t(In.landing()));
      Leader.set(I + 1);
    } else if (F & LeaderFacts::Terminator) {
      Leader.set(I + 1);
    }
  }
  return Leader;
}

/// Cuts the \p N instructions into blocks at \p Leader, filling
/// \p S.InstToBlock.
void makeBlocks(const llvm::BitVector &Leader, size_t N, CFGStorage &S) {
  auto &Blocks = S.Blocks;
  auto &InstToBlock = S.InstToBlock;
  Blocks.reserve(Leader.count());
  InstToBlock.resize(N);
  for (uint32_t I = 0; I < N;) {
    int J = Leader.find_next(I);
    uint32_t End = J < 0 || uint32_t(J) > N ? uint32_t(N) : uint32_t(J);
    unsigned Id = Blocks.size();
    Blocks.push_back(BasicBlock{&S, Id, I, End, {}, {}});
    std::fill(InstToBlock.begin() + I, InstToBlock.begin() + End, Id);
    I = End;
  }
}

/// Appends \p E to \p S and to its blocks' successor and predecessor lists.
/// A free function, so that the EdgeBuilder calling it stays in registers.
void addEdge(CFGStorage &S, CFGEdge E) { S.Edges.push_back(E); }

/// Fills every block's Succs and Preds from the edges, each in edge order
/// (the order the edges were added): a count, a prefix sum and a fill into
/// two arrays for the whole graph.
void linkEdges(CFGStorage &S) {
  size_t NB = S.Blocks.size();
  // On the stack for the common small graph: no allocation.
  llvm::SmallVector<unsigned, 32> SuccStart(NB + 1, 0), PredStart(NB + 1, 0);
  for (const CFGEdge &E : S.Edges) {
    ++SuccStart[E.Source + 1];
    ++PredStart[E.Target + 1];
  }
  for (size_t B = 0; B < NB; ++B) {
    SuccStart[B + 1] += SuccStart[B];
    PredStart[B + 1] += PredStart[B];
  }
  S.SuccIndex.resize(S.Edges.size());
  S.PredIndex.resize(S.Edges.size());
  llvm::SmallVector<unsigned, 32> SuccAt(SuccStart.begin(),
                                         SuccStart.end() - 1),
      PredAt(PredStart.begin(), PredStart.end() - 1);
  for (unsigned EI = 0; EI < S.Edges.size(); ++EI) {
    S.SuccIndex[SuccAt[S.Edges[EI].Source]++] = EI;
    S.PredIndex[PredAt[S.Edges[EI].Target]++] = EI;
  }
  for (size_t B = 0; B < NB; ++B) {
    S.Blocks[B].Succs =
        llvm::ArrayRef<unsigned>(S.SuccIndex)
            .slice(SuccStart[B], SuccStart[B + 1] - SuccStart[B]);
    S.Blocks[B].Preds =
        llvm::ArrayRef<unsigned>(S.PredIndex)
            .slice(PredStart[B], PredStart[B + 1] - PredStart[B]);
  }
}

/// Adds the edges of the blocks in S: per block, its normal edges, then its
/// exception edges (the order CFG.h promises).
class EdgeBuilder {
public:
  EdgeBuilder(const DecodedCode &D, CFGStorage &S,
              llvm::ArrayRef<unsigned> InstToBlock,
              llvm::ArrayRef<int32_t> Cover, const llvm::BitVector &Raises)
      : D(D), Insts(D.Insts), S(S), InstToBlock(InstToBlock), Cover(Cover),
        Raises(Raises) {}

  void addEdges(const BasicBlock &B) {
    const Instruction &Last = Insts[B.last()];
    const OpcodeInfo &Info = Last.info();
    addNormalEdges(B, Last, Info);
    addExceptionEdges(B, Last);
  }

private:
  const DecodedCode &D;
  const InstructionStream &Insts;
  CFGStorage &S;
  llvm::ArrayRef<unsigned> InstToBlock;
  llvm::ArrayRef<int32_t> Cover;
  const llvm::BitVector &Raises;

  unsigned blockAt(int64_t ByteOffset) const {
    int64_t I = Insts.indexAtStart(uint64_t(ByteOffset));
    assert(I >= 0 && "well-formed code has valid targets");
    return InstToBlock[I];
  }
  void addNormalEdges(const BasicBlock &B, const Instruction &Last,
                      const OpcodeInfo &Info);
  void addExceptionEdges(const BasicBlock &B, const Instruction &Last);
};

} // namespace

/// The fall-through, jump or branch edges of \p B, which ends in \p Last.
void EdgeBuilder::addNormalEdges(const BasicBlock &B, const Instruction &Last,
                                 const OpcodeInfo &Info) {
  bool HasNext = B.Id + 1 < S.Blocks.size();
  if (Info.isJump()) {
    if (Info.isConditionalJump()) {
      addEdge(S, {EdgeKind::BranchTaken, B.Id, blockAt(Last.landing())});
      if (HasNext)
        addEdge(S, {EdgeKind::BranchNotTaken, B.Id, B.Id + 1});
    } else {
      addEdge(S, {EdgeKind::Jump, B.Id, blockAt(Last.landing())});
    }
  } else if (!Info.Terminator && HasNext) {
    addEdge(S, {EdgeKind::FallThrough, B.Id, B.Id + 1});
  }
}

/// The edge to the handler of the entry covering \p B (all instructions of
/// a block share one cover), and a backward jump's edge to the handler
/// covering its target - 1.
void EdgeBuilder::addExceptionEdges(const BasicBlock &B,
                                    const Instruction &Last) {
  int32_t Own = Cover[B.Begin];
  int32_t BackEntry = -1;
  if (LeaderFacts::get().of(Last) & LeaderFacts::BreakerAtTarget) {
    if (const ExceptionTableEntry *E = lookupHandler(D.Table, Last.Target - 2))
      BackEntry = int32_t(E - D.Table.data());
  }
  if (Own >= 0) {
    bool OwnRaises = Raises.find_first_in(B.Begin, B.End) >= 0;
    CFGEdge E{EdgeKind::Exception, B.Id, blockAt(D.Table[Own].Target)};
    E.Entry = Own;
    E.MayRaise = OwnRaises || BackEntry == Own;
    addEdge(S, E);
  }
  if (BackEntry >= 0 && BackEntry != Own) {
    CFGEdge E{EdgeKind::Exception, B.Id, blockAt(D.Table[BackEntry].Target)};
    E.Entry = BackEntry;
    E.MayRaise = true;
    E.FromBackEdge = true;
    addEdge(S, E);
  }
}

CFG CFG::build(const DecodedCode &D) {
  return build(D, std::make_unique<CFGStorage>());
}

CFG CFG::build(const DecodedCode &D, std::unique_ptr<CFGStorage> Storage) {
  assert(D.isWellFormed() && "CFG needs a well-formed code object");
  if (!Storage)
    Storage = std::make_unique<CFGStorage>();
  Storage->clear();
  CFG G(std::move(Storage));
  G.D = &D;
  size_t N = D.Insts.size();
  if (N == 0) {
    // Empty co_code: a single empty block keeps every invariant simple.
    G.S->Blocks.push_back(BasicBlock{G.S.get(), 0, 0, 0, {}, {}});
    G.Reachable.resize(1, true);
    G.Raises.resize(0);
    return G;
  }
  G.S->Cover.assign(N, -1);
  G.Raises.resize(N);
  llvm::BitVector Leader = findLeaders(D, G.S->Cover, G.Raises);
  makeBlocks(Leader, N, *G.S);

  G.S->Edges.reserve(2 * G.S->Blocks.size());
  EdgeBuilder Edges(D, *G.S, G.S->InstToBlock, G.S->Cover, G.Raises);
  for (const BasicBlock &B : G.S->Blocks)
    Edges.addEdges(B);
  linkEdges(*G.S);
  G.Reachable = G.reachableFollowing(/*OnlyRaisingExceptionEdges=*/false);
  return G;
}

uint32_t CFG::raisePointOf(const CFGEdge &E) const {
  const BasicBlock &B = block(E.Source);
  if (!E.isException() || E.FromBackEdge || B.size() == 0)
    return B.size() ? B.last() : B.Begin;
  for (uint32_t I = B.End; I > B.Begin; --I)
    if (Raises.test(I - 1))
      return I - 1;
  return B.last();
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
