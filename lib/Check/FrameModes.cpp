//===- FrameModes.cpp - The modes a rewritten frame holds -----------------===//

#include "pyverify/Check/FrameModes.h"

#include "pyverify/Analysis/ContextEvents.h"
#include "pyverify/Analysis/Environment.h"
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
      if (int64_t T = D.Insts.indexAtStart(uint32_t(I.Target)); T >= 0) {
        MState J = S;
        StackIO IO = getStackIO(I.info(), I.Arg, true);
        J.pop(IO.Pops);
        J.pushOther(IO.Pushes);
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

  Tag globalTag(const Instruction &I) const {
    uint32_t Name = I.Arg >> 1;
    if (Name >= D.Code->Names.size())
      return Tag{};
    const EnvGlobal *G = lookupGlobal(D.Code->Names[Name]);
    return G ? Tag{Kind::Env, G, std::nullopt} : Tag{};
  }

  Tag attributeTag(const Tag &Obj, const Instruction &I) const {
    if (Obj.K != Kind::Env || I.Arg >= D.Code->Names.size())
      return Tag{};
    if (std::optional<ModeEffect> M =
            lookupModeOp(*Obj.Env, D.Code->Names[I.Arg]))
      return Tag{Kind::ModeOp, nullptr, M};
    return Tag{};
  }

  void transfer(uint32_t Pc, MState &S) {
    const Instruction &I = D.Insts[Pc];
    switch (I.op()) {
    case Opcode::LOAD_GLOBAL:
      if (I.Arg & 1)
        S.Stack.push_back(Tag{Kind::Null, nullptr, std::nullopt});
      S.Stack.push_back(globalTag(I));
      return;
    case Opcode::LOAD_ATTR:
      S.Stack.push_back(attributeTag(S.pop(), I));
      return;
    case Opcode::LOAD_METHOD: {
      Tag Obj = S.pop();
      S.Stack.push_back(attributeTag(Obj, I));
      S.Stack.push_back(Obj);
      return;
    }
    case Opcode::PUSH_NULL:
      S.Stack.push_back(Tag{Kind::Null, nullptr, std::nullopt});
      return;
    case Opcode::LOAD_FAST:
      S.Stack.push_back(I.Arg < S.Locals.size() ? S.Locals[I.Arg] : Tag{});
      return;
    case Opcode::STORE_FAST:
    case Opcode::DELETE_FAST: {
      Tag V = I.is(Opcode::STORE_FAST) ? S.pop() : Tag{};
      if (I.Arg < S.Locals.size())
        S.Locals[I.Arg] = V;
      return;
    }
    case Opcode::COPY:
      S.Stack.push_back(S.peek(I.Arg));
      return;
    case Opcode::SWAP:
      if (I.Arg >= 1 && I.Arg <= S.Stack.size())
        std::swap(S.Stack.back(), S.Stack[S.Stack.size() - I.Arg]);
      return;
    case Opcode::UNPACK_SEQUENCE: {
      Tag Seq = S.pop();
      Tag Each = Seq.K == Kind::GraphOut ? Seq : Tag{};
      S.Stack.insert(S.Stack.end(), I.Arg, Each);
      return;
    }
    case Opcode::BINARY_SUBSCR: { // graph_out[k]: an element of the output
      S.pop();
      Tag Seq = S.pop();
      S.Stack.push_back(Seq.K == Kind::GraphOut ? Seq : Tag{});
      return;
    }
    case Opcode::BUILD_LIST:
    case Opcode::BUILD_TUPLE: {
      Tag L{Kind::List, nullptr, std::nullopt, I.Arg, true};
      for (uint32_t K = 0; K < I.Arg; ++K)
        L.Exact &= S.pop().K == Kind::GraphOut;
      S.Stack.push_back(L);
      return;
    }
    case Opcode::CALL:
      return call(Pc, S);
    default: {
      StackIO IO = getStackIO(I.info(), I.Arg, false);
      S.pop(IO.Pops);
      S.pushOther(IO.Pushes);
      return;
    }
    }
  }

  /// CALL n: the mode-stack event of its callable, by the one recogniser.
  void call(uint32_t Pc, MState &S) {
    unsigned N = D.Insts[Pc].Arg;
    std::vector<Tag> Args(N);
    for (unsigned K = N; K-- > 0;)
      Args[K] = S.pop();
    Tag Second = S.pop(), First = S.pop();
    const Tag &Callee = First.K == Kind::Null ? Second : First;
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
