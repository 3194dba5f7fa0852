//===- StackDepth.cpp - Operand-stack depth analysis ----------------------===//

#include "pyverify/Analysis/StackDepth.h"
#include "pyverify/Analysis/CFGFixpointGraph.h"
#include "pyverify/Fixpoint/FixpointIterator.h"

#include <algorithm>
#include <array>
#include <cassert>

using namespace pyverify;

int64_t pyverify::entryStackDepth(const CodeObject &C) {
  return C.isGeneratorLike() ? 1 : 0;
}

namespace {

/// Opcode facts the analysis asks about every instruction (at least twice:
/// the fixpoint and the replay), read from the opcode table once: the real
/// stack effects (getStackIO) of opcodes whose counts do not depend on the
/// argument are cached per byte.
class OpcodeFacts {
public:
  OpcodeFacts() {
    for (unsigned B = 0; B < 256; ++B) {
      Infos[B] = getOpcodeInfo(uint8_t(B));
      if (!Infos[B])
        continue;
      const OpcodeInfo &I = *Infos[B];
      Const[B] = I.Pops.Formula == CountFormula::Zero &&
                 I.Pushes.Formula == CountFormula::Zero &&
                 I.JumpPops.Formula == CountFormula::Zero &&
                 I.JumpPushes.Formula == CountFormula::Zero &&
                 I.Reads.Formula == CountFormula::Zero;
      if (Const[B])
        for (bool J : {false, true}) {
          StackIO E = getStackIO(Opcode(B), 0, J);
          Cached[J][B] = {int8_t(E.Pops), int8_t(E.net()), int8_t(E.Reads)};
        }
    }
  }
  static const OpcodeFacts &get() {
    static const OpcodeFacts F;
    return F;
  }
  const OpcodeInfo &info(const Instruction &I) const {
    assert(I.Valid && "well-formed code has base opcodes only");
    return *Infos[I.OpByte];
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
  /// getStackIO(I.op(), I.Arg, J), as pops, net and reads.
  Effect effect(const Instruction &I, bool J) const {
    if (Const[I.OpByte]) {
      const Small &C = Cached[J][I.OpByte];
      return {C.Pops, C.Net, C.Reads};
    }
    StackIO E = getStackIO(I.op(), I.Arg, J);
    return {E.Pops, E.net(), E.Reads};
  }

private:
  struct Small {
    int8_t Pops, Net, Reads;
  };
  std::array<const OpcodeInfo *, 256> Infos{};
  std::array<bool, 256> Const{};
  std::array<std::array<Small, 256>, 2> Cached{};
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

llvm::Expected<StackDepthResult> pyverify::computeStackDepth(const CFG &G) {
  StackDepthAnalysis A(G);
  const OpcodeFacts &F = OpcodeFacts::get();
  CFGFixpointGraph FG(G);
  const InstructionStream &Insts = G.code().Insts;
  StackDepthResult R;
  R.Before.assign(Insts.size(), std::nullopt);
  R.After.assign(Insts.size(), std::nullopt);
  R.MaxDepth = 0;
  bool HaveMax = false;
  auto NoteMax = [&](int64_t D, uint32_t Inst) {
    if (!HaveMax || D > R.MaxDepth ||
        (D == R.MaxDepth &&
         Insts[Inst].Offset < Insts[R.MaxDepthInst].Offset)) {
      R.MaxDepth = D;
      R.MaxDepthInst = Inst;
      HaveMax = true;
    }
  };

  // The replay over the final states (the engine's post-visit hook: every
  // reached block once, in block order) records depths and findings.
  auto Replay = [&](unsigned Node, const DepthValue &In,
                    llvm::ArrayRef<DepthValue> All) {
    const BasicBlock &B = G.block(Node);
    if (In.isConflict()) {
      // Name two incoming edges that bring different depths (their
      // representatives, when they come from conflicts themselves); a block
      // whose predecessors all agree only inherits an earlier conflict.
      std::optional<std::pair<unsigned, int64_t>> First;
      for (unsigned EI : B.Preds) {
        const CFGEdge &E = G.edge(EI);
        const DepthValue &SrcIn = All[E.Source];
        if (SrcIn.isBottom())
          continue;
        DepthValue V =
            A.transferEdge(EI, SrcIn, A.transferNode(E.Source, SrcIn));
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
          break;
        }
      }
    }
    int64_t D = In.value();
    for (uint32_t I = B.Begin; I < B.End; ++I) {
      const Instruction &In_ = Insts[I];
      R.Before[I] = D;
      NoteMax(D, I);
      if (I + 1 < B.End) {
        // Inside the block only the fall-through effect applies.
        OpcodeFacts::Effect Eff = F.effect(In_, false);
        if (D < Eff.Reads)
          R.Underflows.push_back({I, D, Eff.Pops, Eff.Reads});
        int64_t After = Eff.after(D);
        NoteMax(After, I);
        R.After[I] = After;
        D = After;
        continue;
      }
      // The block's last instruction: jump=false, then jump=true for a jump
      // (a conditional one has both).
      const OpcodeInfo &Info = F.info(In_);
      bool JumpEffect = Info.isJump();
      bool FallEffect = !JumpEffect || Info.isConditionalJump();
      std::optional<int64_t> MinAfter;
      bool Under = false;
      for (bool J : {false, true}) {
        if (J ? !JumpEffect : !FallEffect)
          continue;
        OpcodeFacts::Effect Eff = F.effect(In_, J);
        if (D < Eff.Reads && !Under) {
          R.Underflows.push_back({I, D, Eff.Pops, Eff.Reads});
          Under = true;
        }
        int64_t After = Eff.after(D);
        NoteMax(After, I);
        MinAfter = MinAfter ? std::min(*MinAfter, After) : After;
      }
      R.After[I] = MinAfter;
    }
  };
  auto Fix = runForwardFixpoint(FG, A, {}, Replay);
  if (!Fix)
    return Fix.takeError();
  R.Visits = Fix->Visits;
  R.BlockIn = std::move(Fix->In);
  return R;
}
