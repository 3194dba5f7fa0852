//===- FrameModes.cpp - The modes a rewritten frame holds -----------------===//

#include "pyverify/Check/FrameModes.h"

#include "pyverify/Analysis/ContextEvents.h"
#include "pyverify/Analysis/Environment.h"
#include "pyverify/Analysis/MicroOps.h"
#include "pyverify/Bytecode/Opcode.h"

#include <optional>
#include <variant>

using namespace pyverify;

namespace {

/// What a slot or local is for the mode stack.
enum class Kind : uint8_t {
  Other,
  Null,
  Env,      ///< A global of Environment.def (Env says which).
  ModeOp,   ///< An operation of a mode-stack module (Effect says which).
  Saved,    ///< What a GetStack returned.
  GraphOut, ///< A compiled graph's result, or an element of it.
  List,     ///< BUILD_LIST / BUILD_TUPLE of Len values (Exact: all GraphOut).
};

struct Tag {
  Kind K = Kind::Other;
  const EnvGlobal *Env = nullptr;
  std::optional<ModeEffect> Effect;
  uint32_t Len = 0;
  bool Exact = false;
  bool operator==(const Tag &) const = default;
};

struct MState {
  std::vector<Tag> Stack;
  std::vector<Tag> Locals;
  std::vector<uint32_t> Modes; ///< Per mode: ordinary contexts below it.
  bool ModesDiffer = false;    ///< Paths joined here hold different modes.
  bool Broken = false;         ///< Paths joined here have different depths.

  /// Joins \p From into this state; true if it changed.
  bool join(const MState &From) {
    if (Broken)
      return false;
    if (From.Broken || From.Stack.size() != Stack.size() ||
        From.Locals.size() != Locals.size()) {
      Broken = true;
      return true;
    }
    bool Changed = false;
    auto JoinSlots = [&](std::vector<Tag> &Into, const std::vector<Tag> &O) {
      for (size_t K = 0; K < Into.size(); ++K)
        if (!(Into[K] == O[K]) && Into[K].K != Kind::Other) {
          Into[K] = Tag{};
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

  Tag pop() {
    if (Stack.empty())
      return Tag{};
    Tag T = Stack.back();
    Stack.pop_back();
    return T;
  }
  void pop(int64_t N) {
    for (int64_t K = 0; K < N; ++K)
      pop();
  }
  void pushOther(int64_t N) {
    Stack.insert(Stack.end(), size_t(std::max<int64_t>(N, 0)), Tag{});
  }
  Tag peek(uint32_t N) const { // N >= 1
    return N >= 1 && N <= Stack.size() ? Stack[Stack.size() - N] : Tag{};
  }
};

class ModeInterp {
public:
  ModeInterp(const DecodedCode &D, unsigned ClaimedModes,
             llvm::function_ref<uint32_t(uint32_t)> OrdinaryBefore)
      : D(D), Claimed(ClaimedModes), OrdinaryBefore(OrdinaryBefore),
        In(D.Insts.size()), OnList(D.Insts.size()) {}

  /// Runs to the fixpoint; false when the visit cap was hit.
  bool run() {
    MState Entry;
    Entry.Locals.resize(D.Code->LocalsPlusNames.size());
    propagate(0, std::move(Entry));
    uint64_t Cap = 64 * uint64_t(D.Insts.size()) + 256, Visits = 0;
    while (!Work.empty()) {
      if (++Visits > Cap)
        return false;
      uint32_t Pc = Work.back();
      Work.pop_back();
      OnList[Pc] = false;
      flow(Pc, *In[Pc]);
    }
    return true;
  }

  const std::optional<MState> &before(uint32_t Index) const {
    return In[Index];
  }

private:
  const DecodedCode &D;
  unsigned Claimed;
  llvm::function_ref<uint32_t(uint32_t)> OrdinaryBefore;
  std::vector<std::optional<MState>> In;
  std::vector<bool> OnList;
  std::vector<uint32_t> Work;

  void propagate(size_t Pc, MState S) {
    if (Pc >= In.size())
      return;
    if (!In[Pc])
      In[Pc] = std::move(S);
    else if (!In[Pc]->join(S))
      return;
    if (!OnList[Pc]) {
      OnList[Pc] = true;
      Work.push_back(uint32_t(Pc));
    }
  }

  /// Both edges of the instruction at \p Pc.
  void flow(uint32_t Pc, const MState &S) {
    const Instruction &I = D.Insts[Pc];
    if (!I.Valid)
      return;
    const OpcodeInfo &Info = I.info();
    if (Info.isJump() && I.Target >= 0) {
      if (int64_t T = D.Insts.indexAtStart(uint64_t(I.landing())); T >= 0) {
        MState J = S;
        transfer(Pc, J, /*JumpEdge=*/true);
        propagate(size_t(T), std::move(J));
      }
      if (!Info.isConditionalJump())
        return;
    } else if (Info.Terminator) {
      return; // RETURN_VALUE, RAISE_VARARGS, RERAISE
    }
    MState N = S;
    transfer(Pc, N);
    propagate(Pc + 1, std::move(N));
  }

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
  void transfer(uint32_t Pc, MState &S, bool JumpEdge = false) {
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
  void call(uint32_t Pc, const uop::Call &C, MState &S) {
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
  if (!M.run()) {
    R.Why = "the mode-stack interpretation hit its visit cap";
    return R;
  }
  const std::optional<MState> &S = M.before(Index);
  if (!S)
    R.Why = "no normal path from the entry reaches it";
  else if (S->Broken)
    R.Why = "paths reach it with operand stacks of different depths";
  else if (S->ModesDiffer)
    R.Why = "paths reaching it hold different modes";
  else {
    R.Known = true;
    R.OrdinaryBelow = S->Modes;
  }
  return R;
}
