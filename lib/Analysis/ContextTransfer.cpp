//===- ContextTransfer.cpp - What instructions do to contexts -------------===//
//
// The abstract state is the real operand stack (getStackIO: CALL n pops
// n + 2) with a tag per slot, the context state of locals that hold an
// entered context manager, and the contexts active in entry order (the
// domain, pyverify/Domain/ContextDomain.h). Each event reports at the
// instruction where it happens, through the ContextReport of the replay.
//
//===----------------------------------------------------------------------===//

#include "ContextTransfer.h"

#include "pyverify/Analysis/ContextEvents.h"

#include "pyverify/Analysis/StackDepth.h"
#include "pyverify/Bytecode/Opcode.h"
#include "pyverify/Bytecode/RaiseModel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace pyverify;
using namespace pyverify::balance;

ContextTransfer::ContextTransfer(const CFG &G, const BlockStack &BS,
                                 CodeRole Role)
    : G(G), D(G.code()), Insts(D.Insts), BS(BS), Role(Role) {
  findManagerLocals();
}

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
    ContextState Acc = ContextState::bottom();
    ContextState S = In;
    for (uint32_t I = B.Begin; I < B.End; ++I) {
      if (raisesHere(S, I))
        Acc.join(unwind(S, I, E, nullptr));
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

void ContextTransfer::step(ContextState &S, uint32_t I, bool Jump,
                           ContextReport *R) const {
  const Instruction &In = Insts[I];
  switch (In.op()) {
  case Opcode::BEFORE_WITH:
  case Opcode::BEFORE_ASYNC_WITH:
    return stepEnterWith(S, I, R);
  case Opcode::SEND:
    return stepSend(S, I, Jump, R);
  case Opcode::END_SEND:
    return stepEndSend(S, I, R);
  case Opcode::WITH_EXCEPT_START:
    return stepWithExceptStart(S, I, R);
  case Opcode::CALL:
    return stepCall(S, I, R);
  case Opcode::LOAD_FAST:
  case Opcode::LOAD_FAST_CHECK:
  case Opcode::LOAD_FAST_AND_CLEAR:
    push(S, ContextSlot{SlotTag::LocalRef, In.Arg});
    return;
  case Opcode::LOAD_FAST_LOAD_FAST: // 3.13: locals arg >> 4, then arg & 15
    push(S, ContextSlot{SlotTag::LocalRef, In.Arg >> 4});
    push(S, ContextSlot{SlotTag::LocalRef, In.Arg & 15});
    return;
  case Opcode::STORE_FAST_LOAD_FAST:
  case Opcode::STORE_FAST_STORE_FAST:
    return stepStoreLocalPair(S, I, R);
  case Opcode::LOAD_METHOD:
  case Opcode::LOAD_ATTR:
    return stepLoadAttr(S, I, R);
  case Opcode::STORE_FAST:
  case Opcode::DELETE_FAST:
    return stepStoreLocal(S, I, R);
  case Opcode::COPY:
    return stepCopy(S, I);
  case Opcode::SWAP: {
    size_t N = S.Stack.size();
    if (In.Arg >= 2 && In.Arg <= N)
      std::swap(S.Stack[N - 1], S.Stack[N - In.Arg]);
    return;
  }
  case Opcode::RETURN_VALUE:
    dropped(S, pop(S), I, R);
    leaving(S, I, /*ByException=*/false, R);
    return;
  case Opcode::RETURN_CONST:
    leaving(S, I, /*ByException=*/false, R);
    return;
  default:
    return stepOther(S, I, Jump, R);
  }
}

void ContextTransfer::stepLoadAttr(ContextState &S, uint32_t I,
                                   ContextReport *R) const {
  ContextSlot T = pop(S);
  dropped(S, T, I, R);
  llvm::StringRef Name = nameArg(I);
  ContextSlot Result;
  bool Manager = T.T == SlotTag::LocalRef &&
                 llvm::is_contained(ManagerLocals, T.Id) &&
                 isTrackedManagerAttribute(D, I, Role);
  // The synchronous protocol only: m.__aenter__() enters after an await.
  if (Manager && Name == "__enter__")
    Result = ContextSlot{SlotTag::EnterMethod, T.Id};
  else if (Manager && Name == "__exit__")
    Result = ContextSlot{SlotTag::ExitMethod, T.Id};
  // The method (or attribute) is the deeper of two pushed values in every
  // version: 3.11's LOAD_METHOD and 3.12's method LOAD_ATTR push [meth,
  // self] or [NULL, attr]; 3.13's [attr, self-or-NULL].
  push(S, Result);
  if (getStackIO(Insts[I].info(), Insts[I].Arg, false).Pushes == 2)
    push(S);
}

void ContextTransfer::stepStoreLocal(ContextState &S, uint32_t I,
                                     ContextReport *R) const {
  const Instruction &In = Insts[I];
  if (In.is(Opcode::STORE_FAST))
    dropped(S, pop(S), I, R);
  overwriteLocal(S, I, In.Arg, R);
}

/// 3.13's STORE_FAST_STORE_FAST (TOS to local arg >> 4, the next to arg &
/// 15) and STORE_FAST_LOAD_FAST (TOS to arg >> 4, then push local arg & 15).
void ContextTransfer::stepStoreLocalPair(ContextState &S, uint32_t I,
                                         ContextReport *R) const {
  const Instruction &In = Insts[I];
  dropped(S, pop(S), I, R);
  overwriteLocal(S, I, In.Arg >> 4, R);
  if (In.is(Opcode::STORE_FAST_STORE_FAST)) {
    dropped(S, pop(S), I, R);
    overwriteLocal(S, I, In.Arg & 15, R);
  } else {
    push(S, ContextSlot{SlotTag::LocalRef, In.Arg & 15});
  }
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
                           describe(I), localName(Local), ctxName(L->Ctx)));
    S.removeActive(L->Ctx);
    S.eraseLocal(Local);
  }
}

void ContextTransfer::stepCopy(ContextState &S, uint32_t I) const {
  const Instruction &In = Insts[I];
  size_t N = S.Stack.size();
  if (In.Arg == 0 || In.Arg > N) {
    push(S);
    return;
  }
  ContextSlot X = S.Stack[N - In.Arg];
  // Only one slot owns an __exit__: a copy is just a value (a copy of a
  // Mixed slot may be one, but names no context).
  if (X.T == SlotTag::Mixed)
    X = ContextSlot::mixed();
  else if (X.context() != ContextSlot::NoContext)
    X = ContextSlot{};
  push(S, X);
}

void ContextTransfer::stepOther(ContextState &S, uint32_t I, bool Jump,
                                ContextReport *R) const {
  const Instruction &In = Insts[I];
  StackIO E = getStackIO(In.info(), In.Arg, Jump);
  for (int64_t K = 0; K < E.Pops; ++K)
    dropped(S, pop(S), I, R);
  for (int64_t K = 0; K < E.Pushes && K < (1 << 20); ++K)
    push(S);
}

// --- Raising and leaving ----------------------------------------------------

bool ContextTransfer::raisesHere(const ContextState &S, uint32_t I) const {
  const Instruction &In = Insts[I];
  size_t N = S.Stack.size();
  RaiseFacts F;
  F.BackEdgeSeparately = true; // raises only at the back edge's target - 1
  // Assumption: a local holding a context is bound.
  F.LocalBound = (In.is(Opcode::LOAD_FAST) || In.is(Opcode::LOAD_FAST_CHECK)) &&
                 tracked(S, In.Arg);
  // Assumption: an entered manager has __enter__ and __exit__.
  F.ProtocolAttribute =
      (In.is(Opcode::LOAD_METHOD) || In.is(Opcode::LOAD_ATTR)) && N &&
      S.Stack.back().T == SlotTag::LocalRef && tracked(S, S.Stack.back().Id) &&
      (nameArg(I) == "__exit__" || nameArg(I) == "__enter__");
  return mayRaiseGiven(In, F);
}

void ContextTransfer::applyRaisingExitEvents(ContextState &S,
                                             uint32_t I) const {
  const Instruction &In = Insts[I];
  size_t N = S.Stack.size();
  if (In.is(Opcode::WITH_EXCEPT_START)) {
    if (N >= 4 && S.Stack[N - 4].T == SlotTag::Exit) {
      S.removeActive(S.Stack[N - 4].Id);
      S.Stack[N - 4].T = SlotTag::Called;
    }
    return;
  }
  if (!In.is(Opcode::CALL) && !In.is(Opcode::PRECALL))
    return;
  size_t Need = size_t(In.Arg) + 2;
  if (N < Need)
    return;
  ContextSlot &M = S.Stack[N - Need];
  ContextSlot &C = S.Stack[N - Need + 1];
  if (M.T == SlotTag::Exit) {
    S.removeActive(M.Id);
    M.T = SlotTag::Called;
  } else if (M.T == SlotTag::ExitMethod || C.T == SlotTag::ExitMethod) {
    uint32_t Local = M.T == SlotTag::ExitMethod ? M.Id : C.Id;
    if (ContextLocal *L = S.findLocal(Local)) {
      S.removeActive(L->Ctx);
      L->S = LocalStatus::Exited;
    }
  }
}

ContextState ContextTransfer::unwind(const ContextState &Pre, uint32_t I,
                                     const CFGEdge &E, ContextReport *R) const {
  ContextState S = Pre;
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
             /*Raises=*/true);
      S.removeActive(X.Id);
    }
  }
  S.Stack.resize(T.Depth);
  if (T.Lasti)
    push(S);
  push(S);
  return S;
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

void ContextTransfer::dropped(ContextState &S, ContextSlot X, uint32_t I,
                              ContextReport *R) const {
  if (X.T != SlotTag::Exit)
    return;
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
  std::string Name = localName(Local);
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

bool ContextTransfer::involvesContexts() const {
  if (!ManagerLocals.empty() || !BS.withSites().empty())
    return true;
  for (uint32_t I = 0; I < Insts.size(); ++I) {
    switch (Insts[I].op()) {
    case Opcode::BEFORE_WITH:
    case Opcode::BEFORE_ASYNC_WITH:
    case Opcode::WITH_EXCEPT_START:
      return true;
    case Opcode::CALL:
      if (isExitCallSequence(I))
        return true;
      break;
    default:
      break;
    }
  }
  return false;
}

void ContextTransfer::findManagerLocals() {
  if (Role == CodeRole::Plain) {
    ManagerLocals = pairedManagerLocals(D);
    return;
  }
  for (uint32_t I = 0; I + 1 < Insts.size(); ++I) {
    const Instruction &A = Insts[I], &B = Insts[I + 1];
    if (A.is(Opcode::LOAD_FAST) &&
        (B.is(Opcode::LOAD_METHOD) || B.is(Opcode::LOAD_ATTR)) &&
        isTrackedManagerAttribute(D, I + 1, Role) &&
        !llvm::is_contained(ManagerLocals, A.Arg))
      ManagerLocals.push_back(A.Arg);
  }
}

bool ContextTransfer::isExitCallSequence(uint32_t I) const {
  return pyverify::isExitCallSequence(D, I);
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
  if (In.is(Opcode::BEFORE_WITH) || In.is(Opcode::BEFORE_ASYNC_WITH))
    return llvm::formatv("the context entered at {0} {1}", In.Offset, In.name())
        .str();
  return llvm::formatv("the context entered at {0} (__enter__ call)", In.Offset)
      .str();
}

std::string ContextTransfer::localName(uint32_t L) const {
  return L < D.Code->LocalsPlusNames.size() ? D.Code->LocalsPlusNames[L]
                                            : "#" + std::to_string(L);
}

llvm::StringRef ContextTransfer::nameArg(uint32_t I) const {
  uint32_t A = Insts[I].nameIndex();
  return A < D.Code->Names.size() ? llvm::StringRef(D.Code->Names[A]) : "";
}
