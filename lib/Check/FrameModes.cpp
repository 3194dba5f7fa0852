//===- FrameModes.cpp - The modes a rewritten frame holds -----------------===//

#include "pyverify/Check/FrameModes.h"

#include "pyverify/Analysis/ContextEvents.h"
#include "pyverify/Analysis/Environment.h"
#include "pyverify/Analysis/MicroOps.h"
#include "pyverify/Bytecode/Opcode.h"
#include "pyverify/Fixpoint/FixpointIterator.h"

#include <optional>
#include <variant>

using namespace pyverify;

bool ModeState::join(const ModeState &From) {
  if (From.isBottom() || isBroken())
    return false;
  if (isBottom()) {
    *this = From;
    return true;
  }
  if (From.isBroken() || From.Stack.size() != Stack.size() ||
      From.Locals.size() != Locals.size()) {
    *this = broken();
    return true;
  }
  bool Changed = false;
  auto JoinSlots = [&](std::vector<ModeTag> &Into,
                       const std::vector<ModeTag> &O) {
    for (size_t K = 0; K < Into.size(); ++K)
      if (!(Into[K] == O[K]) && Into[K].K != ModeTag::Kind::Other) {
        Into[K] = ModeTag{};
        Changed = true;
      }
  };
  JoinSlots(Stack, From.Stack);
  JoinSlots(Locals, From.Locals);
  if (!ModesDiffer && (From.ModesDiffer || From.Modes != Modes)) {
    ModesDiffer = true;
    Changed = true;
  }
  return Changed;
}

bool ModeState::operator==(const ModeState &O) const {
  if (S != O.S)
    return false;
  return !isReached() ||
         (Stack == O.Stack && Locals == O.Locals &&
          ModesDiffer == O.ModesDiffer && (ModesDiffer || Modes == O.Modes));
}

llvm::SmallVector<FrameInstructionGraph::Edge, 2>
FrameInstructionGraph::successors(unsigned Node) const {
  llvm::SmallVector<Edge, 2> Out;
  const Instruction &I = D.Insts[Node];
  if (!I.Valid)
    return Out;
  const OpcodeInfo &Info = I.info();
  if (Info.isJump() && I.Target >= 0) {
    if (int64_t T = D.Insts.indexAtStart(uint64_t(I.landing())); T >= 0)
      Out.push_back({Node, uint32_t(T), /*Jump=*/true});
    if (!Info.isConditionalJump())
      return Out;
  } else if (Info.Terminator) {
    return Out; // RETURN_VALUE, RAISE_VARARGS, RERAISE
  }
  if (Node + 1 < D.Insts.size())
    Out.push_back({Node, Node + 1, /*Jump=*/false});
  return Out;
}

namespace {

using Kind = ModeTag::Kind;
using Tag = ModeTag;

/// The analysis the Fixpoint engine runs on FrameInstructionGraph: a node
/// passes its state on, an edge applies its instruction on that edge.
class ModeInterp {
public:
  using Domain = ModeState;

  ModeInterp(const DecodedCode &D, unsigned ClaimedModes,
             llvm::function_ref<uint32_t(uint32_t)> OrdinaryBefore)
      : D(D), Claimed(ClaimedModes), OrdinaryBefore(OrdinaryBefore) {}

  ModeState bottom() const { return ModeState::bottom(); }
  ModeState entryState() const {
    return ModeState::entry(D.Code->LocalsPlusNames.size());
  }
  ModeState transferNode(unsigned, const ModeState &In) const { return In; }
  ModeState transferEdge(const FrameInstructionGraph::Edge &E,
                         const ModeState &, const ModeState &Out) const {
    if (!Out.isReached())
      return Out;
    ModeState S = Out;
    transfer(E.Source, S, E.Jump);
    return S;
  }

private:
  const DecodedCode &D;
  unsigned Claimed;
  llvm::function_ref<uint32_t(uint32_t)> OrdinaryBefore;

  Tag globalTag(uint32_t Name) const {
    if (Name >= D.Code->Names.size())
      return Tag{};
    const EnvGlobal *G = lookupGlobal(D.Code->Names[Name]);
    return G ? Tag{Kind::Env, G, std::nullopt} : Tag{};
  }

  Tag attributeTag(const Tag &Obj, uint32_t Name) const {
    if (Obj.K != Kind::Env || Name >= D.Code->Names.size())
      return Tag{};
    if (std::optional<ModeEffect> M =
            lookupModeOp(*Obj.Env, D.Code->Names[Name]))
      return Tag{Kind::ModeOp, nullptr, M};
    return Tag{};
  }

  /// The instruction at \p Pc on one edge, micro-operation by
  /// micro-operation.
  void transfer(uint32_t Pc, ModeState &S, bool JumpEdge) const {
    const Tag Null{Kind::Null, nullptr, std::nullopt};
    for (const MicroOp &Op : lowerInstruction(D.Insts[Pc], JumpEdge))
      std::visit(
          Overloaded{
              [&](uop::PushNull) { S.Stack.push_back(Null); },
              [&](uop::LoadLocal L) {
                S.Stack.push_back(L.Local < S.Locals.size() ? S.Locals[L.Local]
                                                            : Tag{});
              },
              [&](uop::StoreLocal L) {
                Tag V = S.pop();
                if (L.Local < S.Locals.size())
                  S.Locals[L.Local] = V;
              },
              [&](uop::DeleteLocal L) {
                if (L.Local < S.Locals.size())
                  S.Locals[L.Local] = Tag{};
              },
              [&](uop::LoadConst) { S.pushOther(1); },
              [&](uop::MakeCell C) {
                if (C.Local < S.Locals.size())
                  S.Locals[C.Local] = Tag{};
              },
              [&](uop::CopyFreeVars C) {
                for (size_t K = 0; K < C.N && K < S.Locals.size(); ++K)
                  S.Locals[S.Locals.size() - 1 - K] = Tag{};
              },
              [&](uop::PopExcept) { S.pop(); },
              [&](uop::LoadGlobal G) { S.Stack.push_back(globalTag(G.Name)); },
              [&](uop::LoadAttr A) {
                S.Stack.push_back(attributeTag(S.pop(), A.Name));
              },
              [&](uop::LoadMethod M) {
                Tag Obj = S.pop();
                S.Stack.push_back(attributeTag(Obj, M.Name));
                S.Stack.push_back(Obj);
              },
              [&](uop::LoadSpecial) { // a with's method: no mode operation
                S.pop();
                S.pushOther(2);
              },
              [&](uop::CallPrepare) {},
              [&](const uop::Call &C) { call(Pc, C, S); },
              [&](uop::Copy C) { S.Stack.push_back(S.peek(C.N)); },
              [&](uop::Swap W) {
                if (W.N >= 1 && W.N <= S.Stack.size())
                  std::swap(S.Stack.back(), S.Stack[S.Stack.size() - W.N]);
              },
              [&](uop::UnpackSequence U) {
                Tag Seq = S.pop();
                Tag Each = Seq.K == Kind::GraphOut ? Seq : Tag{};
                S.Stack.insert(S.Stack.end(), U.N, Each);
              },
              [&](uop::Subscript) { // graph_out[k]: an element of the output
                S.pop();
                Tag Seq = S.pop();
                S.Stack.push_back(Seq.K == Kind::GraphOut ? Seq : Tag{});
              },
              [&](uop::BuildSequence B) {
                Tag L{Kind::List, nullptr, std::nullopt, B.N, true};
                for (uint32_t K = 0; K < B.N; ++K)
                  L.Exact &= S.pop().K == Kind::GraphOut;
                S.Stack.push_back(L);
              },
              [&](const OneOf<uop::Test, uop::Next, uop::Return, uop::Raise,
                              uop::EnterWith, uop::ExitCallStart,
                              uop::PushExcInfo, uop::ExcMatch, uop::Not,
                              uop::ToBool, uop::LoadCell, uop::StoreCell,
                              uop::Nop> auto &O) {
                uop::Effect E = movementOf(O);
                S.pop(E.Pops);
                S.pushOther(E.Pushes);
              },
              [&](uop::Effect E) {
                S.pop(E.Pops);
                S.pushOther(E.Pushes);
              }},
          Op);
  }

  /// A call: the mode-stack event of its callable, by the one recogniser.
  void call(uint32_t Pc, const uop::Call &C, ModeState &S) const {
    if (C.KwNamesOnTop)
      S.pop();
    unsigned N = C.NArgs;
    std::vector<Tag> Args(N);
    for (unsigned K = N; K-- > 0;)
      Args[K] = S.pop();
    Tag Upper = S.pop(), Deeper = S.pop();
    const Tag &Callee =
        C.calleeSlot(Deeper.K == Kind::Null) == 0 ? Deeper : Upper;
    SlotFacts F;
    if (Callee.K == Kind::ModeOp) {
      F.Callee = SlotRole::ModeOp;
      F.Mode = Callee.Effect;
    } else if (Callee.K == Kind::Env) {
      F.Callee = SlotRole::EnvGlobal;
      F.Global = Callee.Env;
    }
    F.NumArgs = N;
    if (N >= 1) {
      F.FirstArg = Args[0].K == Kind::Saved      ? ArgRole::SavedModes
                   : Args[0].K == Kind::GraphOut ? ArgRole::GraphOutput
                   : Args[0].K == Kind::List     ? ArgRole::ModeList
                                                 : ArgRole::Other;
      F.ListLength = Args[0].Len;
      F.ListExact = Args[0].Exact;
    }
    Tag Result;
    auto Push = [&] { S.Modes.push_back(OrdinaryBefore(Pc)); };
    std::visit(
        Overloaded{[&](ctxev::ModePush) { Push(); },
                   [&](ctxev::ModePop) {
                     if (!S.Modes.empty())
                       S.Modes.pop_back();
                   },
                   [&](ctxev::ModeSave) { Result.K = Kind::Saved; },
                   // Restoring the saved stack pops every mode pushed since.
                   [&](ctxev::ModeRestore) { S.Modes.clear(); },
                   // The side-effect replay: one push per mode of a built
                   // list, else one per claimed mode.
                   [&](ctxev::ModeReplay R) {
                     for (unsigned K = 0; K < R.Count.value_or(Claimed); ++K)
                       Push();
                   },
                   [&](ctxev::GraphCall) { Result.K = Kind::GraphOut; },
                   // Ordinary contexts are the context-balance pass's; the
                   // resume call comes after the break instruction.
                   [&](ctxev::NoEvent) {}, [&](ctxev::EnterWith) {},
                   [&](ctxev::AsyncEnterDone) {}, [&](ctxev::ExitBound) {},
                   [&](ctxev::ExitAgain) {}, [&](ctxev::ExitMaybe) {},
                   [&](ctxev::ExitUnbound) {}, [&](ctxev::EnterExplicit) {},
                   [&](ctxev::ExitExplicit) {}, [&](ctxev::HandOver) {}},
        recogniseContextEvent(D.Insts[Pc], F));
    S.Stack.push_back(Result);
  }
};

} // namespace

FrameModes pyverify::frameModesBefore(
    const DecodedCode &Frame, uint32_t Index, unsigned ClaimedModes,
    llvm::function_ref<uint32_t(uint32_t)> OrdinaryBefore) {
  assert(Index < Frame.Insts.size() && "not an instruction index");
  ModeInterp M(Frame, ClaimedModes, OrdinaryBefore);
  FrameModes R;
  auto Fix = runForwardFixpoint(FrameInstructionGraph(Frame), M);
  if (!Fix) {
    R.Why = "the mode-stack interpretation gave up: " +
            llvm::toString(Fix.takeError());
    return R;
  }
  const ModeState &S = Fix->In[Index];
  if (S.isBottom())
    R.Why = "no normal path from the entry reaches it";
  else if (S.isBroken())
    R.Why = "paths reach it with operand stacks of different depths";
  else if (S.ModesDiffer)
    R.Why = "paths reaching it hold different modes";
  else {
    R.Known = true;
    R.OrdinaryBelow = S.Modes;
  }
  return R;
}
