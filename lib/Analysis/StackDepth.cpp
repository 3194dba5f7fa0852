//===- StackDepth.cpp - Operand-stack depth analysis ----------------------===//

#include "pyverify/Analysis/StackDepth.h"
#include "pyverify/Analysis/CFGFixpointGraph.h"
#include "pyverify/Fixpoint/FixpointIterator.h"

#include "llvm/Support/Compiler.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <limits>

using namespace pyverify;

int64_t pyverify::entryStackDepth(const CodeObject &) { return 0; }

namespace {

/// Opcode facts the analysis asks about every instruction (at least twice:
/// the fixpoint and the replay), read from each version's opcode table once:
/// the real stack effects (getStackIO) of opcodes whose counts do not depend
/// on the argument are cached per version and byte, both edges in one row.
class OpcodeFacts {
public:
  struct Small {
    int8_t Pops, Net, Reads;
  };
  /// One version's facts about one byte: both edges' effects when they do
  /// not depend on the argument (Const).
  struct Row {
    bool Const = false;
    Small Edge[2] = {};
    /// OpcodeInfo::isJump() and isConditionalJump(); eight bytes a row, so
    /// that indexing is a shift.
    uint8_t Jump : 1 = 0, Conditional : 1 = 0;
  };
  static_assert(sizeof(Row) == 8);

  OpcodeFacts() {
    for (unsigned V = 0; V < NumVersions; ++V)
      for (unsigned B = 0; B < 256; ++B) {
        const OpcodeInfo *Info = getVersionOpcodeInfo(PythonVersion(V), B);
        if (!Info)
          continue;
        const OpcodeInfo &I = *Info;
        Row &R = Rows[V * 256 + B];
        R.Jump = I.isJump();
        R.Conditional = I.isConditionalJump();
        R.Const = I.Pops.Formula == CountFormula::Zero &&
                  I.Pushes.Formula == CountFormula::Zero &&
                  I.JumpPops.Formula == CountFormula::Zero &&
                  I.JumpPushes.Formula == CountFormula::Zero &&
                  I.Reads.Formula == CountFormula::Zero;
        if (R.Const)
          for (bool J : {false, true}) {
            StackIO E = getStackIO(I, 0, J);
            R.Edge[J] = {int8_t(E.Pops), int8_t(E.net()), int8_t(E.Reads)};
          }
      }
  }
  static const OpcodeFacts &get() {
    static const OpcodeFacts F;
    return F;
  }
  struct Effect {
    int64_t Pops, Net, Reads;
    /// The depth after the instruction from \p D. After an underflow the
    /// missing values count as popped (the interpreter reads whatever lies
    /// below), so the code after it is analysed at a defined depth and the
    /// underflow is reported once, where it happens.
    int64_t after(int64_t D) const {
      return std::max<int64_t>(D - Pops, 0) + Pops + Net;
    }
  };
  /// Version \p V's rows, indexed by opcode byte.
  const Row *rowsOf(PythonVersion V) const {
    return Rows.data() + unsigned(V) * 256;
  }
  /// getStackIO(I.info(), I.Arg, J), as pops, net and reads; \p VerRows
  /// are I's version's.
  Effect effect(const Row *VerRows, const Instruction &I, bool J) const {
    assert(I.Valid && "well-formed code has base opcodes only");
    assert(VerRows == rowsOf(I.Ver) && "the instruction's version's rows");
    const Row &R = VerRows[I.OpByte];
    if (LLVM_LIKELY(R.Const)) {
      const Small &C = R.Edge[J];
      return {C.Pops, C.Net, C.Reads};
    }
    return slowEffect(I, J);
  }
  Effect effect(const Instruction &I, bool J) const {
    return effect(rowsOf(I.Ver), I, J);
  }

private:
  static constexpr unsigned NumVersions = std::size(AllPythonVersions);
  std::array<Row, NumVersions * 256> Rows{};

  LLVM_ATTRIBUTE_NOINLINE static Effect slowEffect(const Instruction &I,
                                                   bool J) {
    StackIO E = getStackIO(I.info(), I.Arg, J);
    return {E.Pops, E.net(), E.Reads};
  }
};

/// Which edge effect applies to an edge leaving a block.
bool usesJumpEffect(EdgeKind K) {
  return K == EdgeKind::Jump || K == EdgeKind::BranchTaken;
}

class StackDepthAnalysis {
public:
  using Domain = DepthValue;

  explicit StackDepthAnalysis(const CFG &G)
      : G(G), Insts(G.code().Insts), F(OpcodeFacts::get()) {}

  Domain bottom() const { return DepthValue::bottom(); }
  Domain entryState() const {
    return DepthValue::of(entryStackDepth(*G.code().Code));
  }

  /// The depth before the block's last instruction.
  Domain transferNode(unsigned Node, const Domain &In) const {
    if (In.isBottom())
      return In;
    const BasicBlock &B = G.block(Node);
    int64_t D = In.value();
    for (uint32_t I = B.Begin; I + 1 < B.End; ++I) {
      D = F.effect(Insts[I], false).after(D); // underflows: by the replay
    }
    return In.isConflict() ? DepthValue::conflict(D) : DepthValue::of(D);
  }

  Domain transferEdge(unsigned EdgeIdx, const Domain &In,
                      const Domain &Out) const {
    const CFGEdge &E = G.edge(EdgeIdx);
    if (E.isException())
      return DepthValue::of(int64_t(G.code().Table[E.Entry].handlerDepth()));
    if (Out.isBottom())
      return Out;
    const Instruction &Last = Insts[G.block(E.Source).last()];
    int64_t D = F.effect(Last, usesJumpEffect(E.Kind)).after(Out.value());
    return Out.isConflict() ? DepthValue::conflict(D) : DepthValue::of(D);
  }

private:
  const CFG &G;
  const InstructionStream &Insts;
  const OpcodeFacts &F;
};

} // namespace

namespace {

/// Records, block by block, each instruction's depths, the maximum and the
/// underflows and conflicts (the facts StackDepthResult holds), from a
/// block's final entry state. Blocks must be recorded in increasing order.
class DepthRecorder {
public:
  /// Records into \p Storage's buffers.
  DepthRecorder(const CFG &G, const StackDepthAnalysis &A,
                StackDepthResult &&Storage)
      : G(G), A(A), F(OpcodeFacts::get()), Insts(G.code().Insts),
        R(std::move(Storage)) {
    reset();
  }

  /// Forgets everything recorded.
  void reset() {
    R.resetKeepingBuffers(Insts.size());
    Max = NoMax;
    MaxInst = 0;
  }
  /// Records block \p Node entered with \p In; \p All holds every block's
  /// entry state (read only to name the edges of a conflict).
  void record(unsigned Node, const DepthValue &In,
              llvm::ArrayRef<DepthValue> All) {
    const BasicBlock &B = G.block(Node);
    if (In.isConflict())
      recordConflict(B, In, All);
    if (B.Begin == B.End)
      return;
    // Locals, so that the loop keeps them in registers.
    const Instruction *Ins = Insts.instructions().data();
    // One version's rows: a stream is decoded as one version's bytecode.
    const OpcodeFacts::Row *VerRows = F.rowsOf(Ins[B.Begin].Ver);
    int64_t *Before = R.Before.data();
    int64_t *After = R.After.data();
    int64_t M = Max;
    uint32_t MInst = MaxInst;
    // Instructions are recorded in increasing index, so the first one that
    // reaches the maximum is the one at the lowest offset: a later one that
    // only equals it never replaces it. Within the block an instruction's
    // depth before is the one after its predecessor, which was noted with
    // the lower index: only the block's first depth before is noted.
    auto NoteMax = [&](int64_t D, uint32_t I) {
      if (D > M) {
        M = D;
        MInst = I;
      }
    };
    int64_t D = In.value();
    uint32_t Last = B.last();
    NoteMax(D, B.Begin);
    for (uint32_t I = B.Begin; I < Last; ++I) {
      Before[I] = D;
      // Inside the block only the fall-through effect applies.
      OpcodeFacts::Effect Eff = F.effect(VerRows, Ins[I], false);
      if (LLVM_UNLIKELY(D < Eff.Reads))
        R.Underflows.push_back({I, D, Eff.Pops, Eff.Reads});
      D = Eff.after(D);
      NoteMax(D, I);
      After[I] = D;
    }
    Before[Last] = D;
    // The last instruction: jump=false, then jump=true for a jump (a
    // conditional one has both); its After is the lower of the two.
    bool Under = false;
    auto EdgeAfter = [&](bool J) {
      OpcodeFacts::Effect Eff = F.effect(VerRows, Ins[Last], J);
      if (D < Eff.Reads && !Under) {
        R.Underflows.push_back({Last, D, Eff.Pops, Eff.Reads});
        Under = true;
      }
      int64_t AfterD = Eff.after(D);
      NoteMax(AfterD, Last);
      return AfterD;
    };
    const OpcodeFacts::Row &Info = VerRows[Ins[Last].OpByte];
    int64_t MinAfter;
    if (!Info.Jump) {
      MinAfter = LastAfter[0] = EdgeAfter(false);
    } else if (Info.Conditional) {
      LastAfter[0] = EdgeAfter(false);
      LastAfter[1] = EdgeAfter(true);
      MinAfter = std::min(LastAfter[0], LastAfter[1]);
    } else {
      MinAfter = LastAfter[1] = EdgeAfter(true);
    }
    After[Last] = MinAfter;
    Max = M;
    MaxInst = MInst;
  }
  StackDepthResult take() {
    finish();
    return std::move(R);
  }
  StackDepthResult &result() { return R; }
  /// The depth the last recorded block leaves on its fall-through (\p J
  /// false) or jump edge: transferEdge()'s for that edge, for the edges the
  /// block has.
  int64_t lastAfter(bool J) const { return LastAfter[J]; }

private:
  const CFG &G;
  const StackDepthAnalysis &A;
  const OpcodeFacts &F;
  const InstructionStream &Insts;
  StackDepthResult R;
  /// The maximum so far (NoMax: none recorded; depths are never that low)
  /// and where it was first reached.
  static constexpr int64_t NoMax = std::numeric_limits<int64_t>::min();
  int64_t Max = NoMax;
  uint32_t MaxInst = 0;
  int64_t LastAfter[2] = {0, 0};

  void finish() {
    if (Max != NoMax) {
      R.MaxDepth = Max;
      R.MaxDepthInst = MaxInst;
    }
  }

  /// Names two incoming edges of \p B that bring different depths (their
  /// representatives, when they come from conflicts themselves); a block
  /// whose predecessors all agree only inherits an earlier conflict.
  LLVM_ATTRIBUTE_NOINLINE void recordConflict(const BasicBlock &B,
                                              const DepthValue &In,
                                              llvm::ArrayRef<DepthValue> All) {
    std::optional<std::pair<unsigned, int64_t>> First;
    for (unsigned EI : B.Preds) {
      const CFGEdge &E = G.edge(EI);
      const DepthValue &SrcIn = All[E.Source];
      if (SrcIn.isBottom())
        continue;
      DepthValue V = A.transferEdge(EI, SrcIn, A.transferNode(E.Source, SrcIn));
      if (V.isBottom())
        continue;
      if (!First) {
        First = {EI, V.value()};
      } else if (V.value() != First->second) {
        // Put the edge that set the representative first.
        if (V.value() == In.value())
          R.Conflicts.push_back(
              {B.Id, EI, First->first, V.value(), First->second});
        else
          R.Conflicts.push_back(
              {B.Id, First->first, EI, First->second, V.value()});
        return;
      }
    }
  }
};

/// The common case in one sweep over the blocks in code order, recording
/// each block as it is reached: when no edge to an earlier block (or to
/// itself) brings a depth its target does not have yet, and no block is
/// reached at two depths, every block's entry is final by the time the sweep
/// gets to it, and the result is the fixpoint's: the same entry states and
/// records (the flat lattice has one least fixpoint), one visit per reached
/// block. CPython's compiler sizes the stack in the same one pass. Returns
/// false, leaving \p Rec to be reset, where that does not hold; the worklist
/// engine then decides.
bool sweepOnce(const CFG &G, const StackDepthAnalysis &A, DepthRecorder &Rec) {
  // The result's own block states (reset() clears them on a false return).
  std::vector<DepthValue> &In = Rec.result().BlockIn;
  In.assign(G.size(), DepthValue::bottom());
  In[0] = A.entryState();
  uint64_t Visits = 0;
  for (unsigned Node = 0; Node < G.size(); ++Node) {
    const DepthValue &Entry = In[Node];
    if (Entry.isBottom())
      continue; // reached later through a back edge, if at all: see below
    ++Visits;
    Rec.record(Node, Entry, In);
    const BasicBlock &B = G.block(Node);
    for (unsigned EI : B.Succs) {
      // transferEdge(): Entry is a depth, and so is the one before the
      // last instruction (a block with edges is not empty); the recorder
      // has the normal edges' depths.
      const CFGEdge &E = G.edge(EI);
      DepthValue S =
          E.isException()
              ? A.transferEdge(EI, Entry, Entry)
              : DepthValue::of(Rec.lastAfter(usesJumpEffect(E.Kind)));
      unsigned T = E.Target;
      if (T <= Node) {
        DepthValue Copy = In[T];
        if (Copy.join(S))
          return false; // a back edge changes a block already swept
        continue;
      }
      In[T].join(S);
      if (In[T].isConflict())
        return false;
    }
  }
  Rec.result().Visits = Visits;
  return true;
}

} // namespace

llvm::Expected<StackDepthResult>
pyverify::computeStackDepth(const CFG &G, DepthSolver Solver,
                            StackDepthResult Storage) {
  StackDepthAnalysis A(G);
  DepthRecorder Rec(G, A, std::move(Storage));
  if (Solver == DepthSolver::Auto) {
    if (sweepOnce(G, A, Rec))
      return Rec.take();
    Rec.reset();
  }
  // The worklist engine; its post-visit hook records every reached block
  // once, in block order, from the final states.
  auto Fix = runForwardFixpoint(
      CFGFixpointGraph(G), A, {},
      [&](unsigned Node, const DepthValue &In, llvm::ArrayRef<DepthValue> All) {
        Rec.record(Node, In, All);
      },
      std::move(Rec.result().BlockIn)); // its buffer, as the sweep's
  if (!Fix)
    return Fix.takeError();
  StackDepthResult R = Rec.take();
  R.Visits = Fix->Visits;
  R.BlockIn = std::move(Fix->In);
  return R;
}
