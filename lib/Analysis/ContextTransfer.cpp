//===- ContextTransfer.cpp - What instructions do to contexts -------------===//
//
// The abstract state is the real operand stack with a tag per slot, the
// context state of locals that hold an entered context manager, and the
// contexts active in entry order (the domain, pyverify/Domain/
// ContextDomain.h). An instruction is stepped as its micro-operations
// (pyverify/Analysis/MicroOps.h), each visited by its alternative: locals,
// attribute and method loads, calls in the version's layout, a with's
// enter and its handler's exit call, stack shuffles; any other moves values
// by movementOf(). Each event reports at the instruction where it happens,
// through the ContextReport of the replay.
//
//===----------------------------------------------------------------------===//

#include "ContextTransfer.h"

#include "pyverify/Analysis/ContextEvents.h"

#include "pyverify/Analysis/StackDepth.h"
#include "pyverify/Bytecode/Opcode.h"
#include "pyverify/Bytecode/RaiseModel.h"
#include "pyverify/Bytecode/VersionOpcodes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace pyverify;
using namespace pyverify::balance;

ContextTransfer::ContextTransfer(const CFG &G, const BlockStack &BS,
                                 CodeRole Role)
    : G(G), D(G.code()), Insts(D.Insts), BS(BS), Role(Role),
      ManagerLocals(managerLocals(D, Role)) {}

ContextState ContextTransfer::entryState() const {
  return ContextState::entry(unsigned(entryStackDepth(*D.Code)));
}

ContextState ContextTransfer::transferNode(unsigned Node,
                                           const ContextState &In) const {
  if (In.isBottom())
    return In;
  ContextState S = In;
  const BasicBlock &B = G.block(Node);
  for (uint32_t I = B.Begin; I + 1 < B.End; ++I)
    step(S, I, /*Jump=*/false, nullptr);
  return S;
}

ContextState ContextTransfer::transferEdge(unsigned EdgeIdx,
                                           const ContextState &In,
                                           const ContextState &Out) const {
  if (Out.isBottom())
    return Out;
  const CFGEdge &E = G.edge(EdgeIdx);
  const BasicBlock &B = G.block(E.Source);
  uint32_t Last = B.last();
  if (E.isException()) {
    if (E.FromBackEdge)
      return unwind(Out, Last, E, nullptr);
    // A block is a straight-line region (CFG.h): the handler sees the join
    // of the states of every instruction of it that may raise.
    ContextState Acc = ContextState::bottom(), U = ContextState::bottom();
    ContextState S = In;
    for (uint32_t I = B.Begin; I < B.End; ++I) {
      if (raisesHere(S, I)) {
        unwindInto(U, S, I, E, nullptr);
        Acc.join(U);
      }
      if (I + 1 < B.End)
        step(S, I, /*Jump=*/false, nullptr);
    }
    return Acc;
  }
  ContextState S = Out;
  step(S, Last, E.Kind == EdgeKind::Jump || E.Kind == EdgeKind::BranchTaken,
       nullptr);
  return S;
}

// --- The events -------------------------------------------------------------

void ContextTransfer::lowerAll() const {
  LoweredAt.reserve(Insts.size() + 1);
  Lowered.reserve(Insts.size() + Insts.size() / 4);
  for (uint32_t K = 0; K < Insts.size(); ++K) {
    LoweredAt.push_back(uint32_t(Lowered.size()));
    if (Insts[K].Valid) { // a CFG has only valid instructions
      MicroOps L = lowerInstruction(Insts[K]);
      Lowered.append(L.begin(), L.end());
    }
  }
  LoweredAt.push_back(uint32_t(Lowered.size()));
}

/// What one instruction's micro-operations do to a state, one operator()
/// per alternative (or per group handled alike), so that a new alternative
/// does not compile until it is handled here.
struct ContextTransfer::Stepper {
  const ContextTransfer &T;
  ContextState &S;
  uint32_t I;
  bool Jump;
  ContextReport *R;
  /// The micro-operation being visited, and the one before it of this
  /// instruction.
  const MicroOp *Cur = nullptr, *Prev = nullptr;

  void operator()(uop::LoadLocal L) {
    T.push(S, ContextSlot{SlotTag::LocalRef, L.Local});
  }
  void operator()(uop::StoreLocal L) {
    T.dropped(S, T.pop(S), I, R);
    T.overwriteLocal(S, I, L.Local, R);
  }
  void operator()(uop::DeleteLocal L) {
    // LOAD_FAST_AND_CLEAR's clearing: the value lives on in the slot its
    // LoadLocal just pushed (and is stored back later), so the local's
    // context stays with it.
    const auto *Load = Prev ? std::get_if<uop::LoadLocal>(Prev) : nullptr;
    if (!Load || Load->Local != L.Local)
      T.overwriteLocal(S, I, L.Local, R);
  }
  void operator()(uop::LoadAttr A) {
    T.stepLoadAttr(S, I, A.Name, /*Method=*/false, R);
  }
  void operator()(uop::LoadMethod M) {
    T.stepLoadAttr(S, I, M.Name, /*Method=*/true, R);
  }
  void operator()(uop::LoadSpecial M) { T.stepLoadSpecial(S, I, M, R); }
  void operator()(const uop::Call &C) { T.stepCall(S, I, C, R); }
  void operator()(uop::Copy C) { T.stepCopy(S, C.N); }
  void operator()(uop::Swap W) {
    size_t N = S.Stack.size();
    if (W.N >= 2 && W.N <= N)
      std::swap(S.Stack[N - 1], S.Stack[N - W.N]);
  }
  void operator()(uop::Return) {
    T.dropped(S, T.pop(S), I, R);
    T.leaving(S, I, /*ByException=*/false, R);
  }
  void operator()(uop::EnterWith) { T.stepEnterWith(S, I, R); }
  void operator()(uop::ExitCallStart X) { T.stepExitCallStart(S, I, X, R); }
  void operator()(const uop::Effect &E) {
    if (E.Scope == uop::EffectScope::Suspends)
      T.stepSuspending(S, I, E, Jump, R);
    else
      T.moveValues(S, I, E, R);
  }
  /// Values no event concerns: what they move.
  void
  operator()(const OneOf<uop::PushNull, uop::LoadConst, uop::MakeCell,
                         uop::CopyFreeVars, uop::PopExcept, uop::LoadGlobal,
                         uop::CallPrepare, uop::UnpackSequence, uop::Subscript,
                         uop::BuildSequence, uop::Test, uop::Next, uop::Raise,
                         uop::PushExcInfo, uop::ExcMatch, uop::Not, uop::ToBool,
                         uop::LoadCell, uop::StoreCell, uop::Nop> auto &) {
    T.moveValues(S, I, movementOf(*Cur), R);
  }

  void run(llvm::ArrayRef<MicroOp> Ops) {
    for (const MicroOp &Op : Ops) {
      Cur = &Op;
      std::visit(*this, Op);
      Prev = &Op;
    }
  }
};

void ContextTransfer::step(ContextState &S, uint32_t I, bool Jump,
                           ContextReport *R) const {
  Stepper St{*this, S, I, Jump, R};
  if (!Jump)
    St.run(ops(I));
  else if (Insts[I].Valid)
    St.run(lowerInstruction(Insts[I], /*JumpEdge=*/true));
}

void ContextTransfer::stepLoadSpecial(ContextState &S, uint32_t I,
                                      uop::LoadSpecial M,
                                      ContextReport *R) const {
  dropped(S, pop(S), I, R);
  switch (M.Method) {
  case uop::SpecialMethod::Exit:
  case uop::SpecialMethod::AExit:
    push(S, ContextSlot{SlotTag::LoadedExit, I});
    push(S, ContextSlot{SlotTag::ExitSelf, I});
    return;
  case uop::SpecialMethod::Enter:
  case uop::SpecialMethod::AEnter:
    push(S, ContextSlot{SlotTag::WithEnter,
                        M.Method == uop::SpecialMethod::AEnter ? 1u : 0u});
    break;
  case uop::SpecialMethod::Other:
    push(S);
    break;
  }
  push(S); // its self, or NULL
}

void ContextTransfer::stepLoadAttr(ContextState &S, uint32_t I, uint32_t Name,
                                   bool Method, ContextReport *R) const {
  ContextSlot T = pop(S);
  dropped(S, T, I, R);
  llvm::StringRef N = nameAt(Name);
  ContextSlot Result;
  bool Manager = T.T == SlotTag::LocalRef &&
                 llvm::is_contained(ManagerLocals, T.Id) &&
                 isTrackedManagerAttribute(D, I, Role);
  // The synchronous protocol only: m.__aenter__() enters after an await.
  if (Manager && N == "__enter__")
    Result = ContextSlot{SlotTag::EnterMethod, T.Id};
  else if (Manager && N == "__exit__")
    Result = ContextSlot{SlotTag::ExitMethod, T.Id};
  // A method load pushes two slots; the deeper is the method whenever the
  // attribute is one (a manager's __enter__ and __exit__ are), in every
  // layout: [method, self] (NULL or self after the callable in 3.13's
  // [attribute, self-or-NULL]). Only [NULL, attribute] of 3.11 and 3.12
  // puts it above, which calleeIndex() reads as such.
  push(S, Result);
  if (Method)
    push(S);
}

void ContextTransfer::overwriteLocal(ContextState &S, uint32_t I,
                                     uint32_t Local, ContextReport *R) const {
  if (ContextLocal *L = S.findLocal(Local)) {
    if (L->S != LocalStatus::Exited)
      report(R, CheckId::ContextNotExited,
             L->S == LocalStatus::Entered ? Certainty::Definite
                                          : Certainty::Possible,
             I, L->Ctx,
             llvm::formatv("{0} overwrites local '{1}', which holds {2}, "
                           "before its __exit__ is called",
                           describe(I), D.Code->describeLocal(Local),
                           ctxName(L->Ctx)));
    S.removeActive(L->Ctx);
    S.eraseLocal(Local);
  }
}

void ContextTransfer::stepCopy(ContextState &S, uint32_t N) const {
  size_t Size = S.Stack.size();
  if (N == 0 || N > Size) {
    push(S);
    return;
  }
  ContextSlot X = S.Stack[Size - N];
  // Only one slot owns an __exit__: a copy is just a value (a copy of a
  // Mixed slot may be one, but names no context).
  if (X.T == SlotTag::Mixed)
    X = ContextSlot::mixed();
  else if (X.context() != ContextSlot::NoContext)
    X = ContextSlot{};
  push(S, X);
}

void ContextTransfer::moveValues(ContextState &S, uint32_t I,
                                 const uop::Effect &E, ContextReport *R) const {
  for (int64_t K = 0; K < E.Pops; ++K)
    dropped(S, pop(S), I, R);
  for (int64_t K = 0; K < E.Pushes && K < (1 << 20); ++K)
    push(S);
}

// --- Raising and leaving ----------------------------------------------------

bool ContextTransfer::raisesHere(const ContextState &S, uint32_t I) const {
  const Instruction &In = Insts[I];
  RaiseFacts F;
  F.BackEdgeSeparately = true; // raises only at the back edge's target - 1
  if (!mayRaiseGiven(In, F))
    return false; // no fact below makes it raise
  llvm::ArrayRef<MicroOp> Ops = ops(I);
  if (Ops.size() != 1)
    return true;
  // Assumption: a local holding a context is bound.
  if (const auto *L = std::get_if<uop::LoadLocal>(&Ops[0]))
    F.LocalBound = tracked(S, L->Local);
  // Assumption: an entered manager has __enter__ and __exit__.
  std::optional<uint32_t> Name;
  if (const auto *A = std::get_if<uop::LoadAttr>(&Ops[0]))
    Name = A->Name;
  else if (const auto *M = std::get_if<uop::LoadMethod>(&Ops[0]))
    Name = M->Name;
  size_t N = S.Stack.size();
  F.ProtocolAttribute =
      Name && N && S.Stack.back().T == SlotTag::LocalRef &&
      tracked(S, S.Stack.back().Id) &&
      (nameAt(*Name) == "__exit__" || nameAt(*Name) == "__enter__");
  return !(F.LocalBound || F.ProtocolAttribute) || mayRaiseGiven(In, F);
}

void ContextTransfer::applyRaisingExitEvents(ContextState &S,
                                             uint32_t I) const {
  size_t N = S.Stack.size();
  llvm::ArrayRef<MicroOp> Ops = ops(I);
  if (Ops.size() != 1)
    return;
  if (const auto *X = std::get_if<uop::ExitCallStart>(&Ops[0])) {
    if (X->Depth >= 1 && N >= X->Depth &&
        S.Stack[N - X->Depth].T == SlotTag::Exit) {
      S.removeActive(S.Stack[N - X->Depth].Id);
      S.Stack[N - X->Depth].T = SlotTag::Called;
    }
    return;
  }
  std::optional<uop::Call> C;
  if (const auto *Call = std::get_if<uop::Call>(&Ops[0]))
    C = *Call;
  else if (std::holds_alternative<uop::CallPrepare>(Ops[0]))
    C = callOf(I + 1);
  if (!C)
    return;
  size_t Pops = size_t(movementOf(*C).Pops);
  if (N < Pops)
    return;
  ContextSlot &Callee = S.Stack[calleeIndex(S, N - Pops, *C)];
  if (Callee.T == SlotTag::Exit) {
    S.removeActive(Callee.Id);
    Callee.T = SlotTag::Called;
  } else if (Callee.T == SlotTag::ExitMethod) {
    if (ContextLocal *L = S.findLocal(Callee.Id)) {
      S.removeActive(L->Ctx);
      L->S = LocalStatus::Exited;
    }
  }
}

void ContextTransfer::unwindInto(ContextState &S, const ContextState &Pre,
                                 uint32_t I, const CFGEdge &E,
                                 ContextReport *R) const {
  S.assign(Pre);
  if (E.FromBackEdge)
    step(S, I, /*Jump=*/true, nullptr); // the eval breaker runs after the jump
  else
    applyRaisingExitEvents(S, I);
  const ExceptionTableEntry &T = D.Table[E.Entry];
  for (size_t K = T.Depth; K < S.Stack.size(); ++K) {
    const ContextSlot &X = S.Stack[K];
    if (X.T == SlotTag::Exit) {
      report(R, CheckId::ContextNotExited, Certainty::Definite, I, X.Id,
             llvm::formatv("an exception raised by {0} unwinds to depth {1} "
                           "(entry {2} to {3} -> {4}) and drops the bound "
                           "__exit__ of {5} in slot {6} without calling it",
                           describe(I), T.Depth, T.Start, T.End - 2, T.Target,
                           ctxName(X.Id), K),
             /*Raises=*/true,
             // One entry too shallow for one context: the same cause at
             // every raising instruction the entry covers.
             "context " + std::to_string(X.Id) + " dropped by entry " +
                 std::to_string(E.Entry));
      S.removeActive(X.Id);
    }
  }
  S.Stack.resize(T.Depth);
  if (T.Lasti)
    push(S);
  push(S);
}

void ContextTransfer::escapesAtBackEdge(const ContextState &S, uint32_t I,
                                        ContextReport *R) const {
  const Instruction &In = Insts[I];
  if (In.Target < 2 || lookupHandler(D.Table, uint64_t(In.Target - 2)))
    return;
  ContextState T = S;
  step(T, I, /*Jump=*/true, nullptr);
  leaving(T, I, /*ByException=*/true, R);
}

void ContextTransfer::leaving(const ContextState &S, uint32_t I,
                              bool ByException, ContextReport *R) const {
  for (const ActiveContext &A : S.active()) {
    std::string How =
        ByException
            ? llvm::formatv("an exception raised by {0} propagates out of the "
                            "code object",
                            describe(I))
                  .str()
            : llvm::formatv("{0} returns", describe(I)).str();
    report(
        R, CheckId::ContextNotExited,
        A.Maybe ? Certainty::Possible : Certainty::Definite, I, A.Ctx,
        llvm::formatv("{0} while {1} is still active{2}", How, ctxName(A.Ctx),
                      A.Maybe ? " on some of the paths to here" : ""),
        ByException,
        // One context never exited, seen at each instruction whose
        // exception propagates out with it (each of a call sequence).
        ByException ? "context " + std::to_string(A.Ctx) + " raised out" : "");
  }
}

// --- Contexts entered and exited --------------------------------------------

ContextSlot ContextTransfer::pop(ContextState &S) const {
  if (S.Stack.empty())
    return ContextSlot{}; // underflow: reported by the stack-depth pass
  ContextSlot X = S.Stack.back();
  S.Stack.pop_back();
  return X;
}

void ContextTransfer::droppedExit(ContextState &S, ContextSlot X, uint32_t I,
                                  ContextReport *R) const {
  report(R, CheckId::ContextNotExited, Certainty::Definite, I, X.Id,
         llvm::formatv("{0} consumes the bound __exit__ of {1} without "
                       "calling it: the context is never exited",
                       describe(I), ctxName(X.Id)));
  S.removeActive(X.Id);
}

void ContextTransfer::enter(ContextState &S, uint32_t Ctx, uint32_t I,
                            ContextReport *R) const {
  if (const ActiveContext *A = S.findActive(Ctx); A && !A->Maybe)
    report(R, CheckId::ContextNotExited, Certainty::Definite, I, Ctx,
           llvm::formatv("{0} is entered again at {1} while still active "
                         "from an earlier pass: that entry is never exited",
                         ctxName(Ctx), describe(I)));
  S.enterActive(Ctx);
}

/// A context entered after \p Ctx on some path is still active: definitely
/// if it is active on every path and entered before it on none.
void ContextTransfer::exitCtx(ContextState &S, uint32_t Ctx, uint32_t I,
                              ContextReport *R) const {
  if (S.findActive(Ctx))
    for (const ActiveContext &Later : S.active()) {
      if (!S.enteredBefore(Ctx, Later.Ctx))
        continue;
      bool Possible = Later.Maybe || S.enteredBefore(Later.Ctx, Ctx);
      report(R, CheckId::ContextExitOrder,
             Possible ? Certainty::Possible : Certainty::Definite, I, Ctx,
             llvm::formatv("{0} exits {1} while {2}, entered after it, is "
                           "still active: contexts must exit in LIFO order",
                           describe(I), ctxName(Ctx), ctxName(Later.Ctx)));
    }
  S.removeActive(Ctx);
}

void ContextTransfer::exitLocal(ContextState &S, uint32_t Local, uint32_t I,
                                ContextReport *R) const {
  ContextLocal *L = S.findLocal(Local);
  std::string Name = D.Code->describeLocal(Local);
  if (!L) {
    report(R, CheckId::ContextExitWithoutEnter, Certainty::Definite, I, {},
           llvm::formatv("{0} calls __exit__ of the manager in local '{1}', "
                         "which was not entered on this path",
                         describe(I), Name));
    return;
  }
  switch (L->S) {
  case LocalStatus::Entered:
    exitCtx(S, L->Ctx, I, R);
    L->S = LocalStatus::Exited;
    return;
  case LocalStatus::Exited:
    report(R, CheckId::ContextExitedTwice, Certainty::Definite, I, L->Ctx,
           llvm::formatv("{0} calls __exit__ of {1} (local '{2}') a second "
                         "time",
                         describe(I), ctxName(L->Ctx), Name));
    return;
  case LocalStatus::Maybe:
    report(R, CheckId::ContextExitWithoutEnter, Certainty::Possible, I, L->Ctx,
           llvm::formatv("{0} calls __exit__ of the manager in local '{1}', "
                         "which is entered on some paths to here but not "
                         "on others",
                         describe(I), Name));
    S.removeActive(L->Ctx);
    L->S = LocalStatus::Exited;
    return;
  }
}

// --- What the code holds ----------------------------------------------------

/// Whether the recogniser answers an event.
static bool isEvent(const ContextEvent &E) {
  return std::visit(
      Overloaded{
          // An await's completion alone enters nothing.
          [](const OneOf<ctxev::NoEvent, ctxev::AsyncEnterDone> auto &) {
            return false;
          },
          [](const OneOf<ctxev::EnterWith, ctxev::ExitBound, ctxev::ExitAgain,
                         ctxev::ExitMaybe, ctxev::ExitUnbound,
                         ctxev::EnterExplicit, ctxev::ExitExplicit,
                         ctxev::ModePush, ctxev::ModePop, ctxev::ModeSave,
                         ctxev::ModeRestore, ctxev::ModeReplay, ctxev::HandOver,
                         ctxev::GraphCall> auto &) { return true; },
      },
      E);
}

namespace {
/// Per version and opcode, what the recogniser answers knowing nothing of
/// the slots: an event whatever they hold (a with's enter, a handler's exit
/// call), or one only when the instruction ends the compiler's exit
/// sequence (a call). The recogniser reads an instruction's opcode and
/// version, never its argument, so it is asked once per opcode: this runs
/// over every code object, most of which hold no context, where a call per
/// instruction would cost more than the whole scan did.
struct EventOpcodes {
  enum : uint8_t { Always = 1, InExitSequence = 2 };
  uint8_t Kind[NumPythonVersions][256] = {}; ///< By opcode byte.

  EventOpcodes() {
    SlotFacts InSequence;
    InSequence.ExitSequence = true;
    for (PythonVersion V : AllPythonVersions)
      for (unsigned B = 0; B < 256; ++B) {
        std::optional<Instruction> In = Instruction::probe(V, uint8_t(B));
        if (!In)
          continue;
        uint8_t &K = Kind[unsigned(V)][B];
        if (isEvent(recogniseContextEvent(*In, {})))
          K |= Always;
        if (isEvent(recogniseContextEvent(*In, InSequence)))
          K |= InExitSequence;
      }
  }
};
} // namespace

bool ContextTransfer::involvesContexts(const CFG &G, const BlockStack &BS,
                                       CodeRole Role) {
  if (!BS.withSites().empty())
    return true;
  const DecodedCode &D = G.code();
  const InstructionStream &Insts = D.Insts;
  static const EventOpcodes Events;
  // By opcode byte in the code's version: a byte that is no base opcode
  // (an invalid instruction) is no event.
  const uint8_t *Kind = Events.Kind[unsigned(D.Code->Version)];
  // The exit sequence's call takes the exit's slots and self: its argument,
  // tested first, rules out almost every call.
  const uint32_t SequenceArg = 1u + traits(D.Code->Version).WithExitSlots;
  llvm::ArrayRef<Instruction> All = Insts.instructions();
  for (size_t I = 0, N = All.size(); I < N; ++I)
    if (uint8_t K = Kind[All[I].OpByte];
        K && ((K & EventOpcodes::Always) ||
              (All[I].Arg == SequenceArg &&
               pyverify::isExitCallSequence(D, uint32_t(I)))))
      return true;
  // Last, as the scan above answers most code that holds a context.
  return !managerLocals(D, Role).empty();
}

llvm::SmallVector<uint32_t, 2>
ContextTransfer::managerLocals(const DecodedCode &D, CodeRole Role) {
  if (Role == CodeRole::Plain)
    return pairedManagerLocals(D);
  const InstructionStream &Insts = D.Insts;
  llvm::SmallVector<uint32_t, 2> Locals;
  // Emitted code: the local whose method the recogniser tracks, which the
  // instruction before the load pushed last (LOAD_FAST, LOAD_FAST_CHECK,
  // LOAD_FAST_LOAD_FAST's second).
  for (uint32_t I = 1; I < Insts.size(); ++I) {
    if (!Insts[I - 1].Valid || !isTrackedManagerAttribute(D, I, Role))
      continue;
    MicroOps Obj = lowerInstruction(Insts[I - 1]);
    const auto *L =
        Obj.empty() ? nullptr : std::get_if<uop::LoadLocal>(&Obj.back());
    if (L && !llvm::is_contained(Locals, L->Local))
      Locals.push_back(L->Local);
  }
  return Locals;
}

// --- Names for messages -----------------------------------------------------

std::string ContextTransfer::describe(uint32_t I) const {
  const Instruction &In = Insts[I];
  std::string S = std::to_string(In.Offset) + " " + In.name().str();
  if (In.Valid && In.info().hasArg())
    S += " " + std::to_string(In.Arg);
  return S;
}

std::string ContextTransfer::ctxName(uint32_t Ctx) const {
  const Instruction &In = Insts[Ctx];
  if (withEnterAt(Insts, Ctx))
    return llvm::formatv("the context entered at {0} {1}", In.Offset, In.name())
        .str();
  return llvm::formatv("the context entered at {0} (__enter__ call)", In.Offset)
      .str();
}

llvm::StringRef ContextTransfer::nameAt(uint32_t Name) const {
  return Name < D.Code->Names.size() ? llvm::StringRef(D.Code->Names[Name])
                                     : "";
}
