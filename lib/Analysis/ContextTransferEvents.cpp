//===- ContextTransferEvents.cpp - Context events of the balance pass -----===//
//
// The micro-operations that enter and exit contexts (EnterWith, the
// Effect of an await, ExitCallStart, Call), as the context-balance pass
// applies the events of the one recogniser (pyverify/Analysis/
// ContextEvents.h) to its state.
//
//===----------------------------------------------------------------------===//

#include "ContextTransfer.h"

#include "pyverify/Analysis/ContextEvents.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace pyverify;
using namespace pyverify::balance;

/// What the recogniser needs to know of a slot this pass tracks: its role.
static SlotRole roleOf(const ContextSlot &X) {
  switch (X.T) {
  case SlotTag::Exit:
    return SlotRole::BoundExit;
  case SlotTag::Called:
    return SlotRole::CalledExit;
  case SlotTag::Mixed:
    return SlotRole::MaybeBoundExit;
  case SlotTag::EnterMethod:
    return SlotRole::EnterMethod;
  case SlotTag::ExitMethod:
    return SlotRole::ExitMethod;
  case SlotTag::LoadedExit:
    return SlotRole::LoadedExit;
  case SlotTag::WithEnter:
    return X.Id ? SlotRole::AsyncWithEnter : SlotRole::WithEnter;
  default:
    return SlotRole::Other;
  }
}

size_t ContextTransfer::calleeIndex(const ContextState &S, size_t Base,
                                    const uop::Call &C) {
  // A slot this pass tags holds an object, never NULL: the deeper call slot
  // is the callable when it holds one; otherwise it may be NULL, and the
  // callable is where the version's layout puts it then.
  bool DeeperTracked = roleOf(S.Stack[Base]) != SlotRole::Other;
  return Base + C.calleeSlot(/*DeeperIsNull=*/!DeeperTracked);
}

std::optional<uop::Call> ContextTransfer::callOf(uint32_t I) const {
  for (uint32_t K = I; K < Insts.size(); ++K) {
    llvm::ArrayRef<MicroOp> Ops = ops(K);
    if (Ops.size() != 1)
      return std::nullopt;
    if (const auto *C = std::get_if<uop::Call>(&Ops[0]))
      return *C;
    if (!std::holds_alternative<uop::CallPrepare>(Ops[0]))
      return std::nullopt;
  }
  return std::nullopt;
}

void ContextTransfer::exitFault(EventSite &At, ExitVia Via, Fault K) const {
  uint32_t I = At.I;
  ContextReport *R = At.R;
  // Outside the compiler's exit sequence, a call of a called or merged slot
  // is an ordinary call here (the slot is only dropped).
  if (K != Fault::Unbound && Via == ExitVia::Call && !At.ExitSequence)
    return;
  At.Handled = true;
  bool Handler = Via == ExitVia::ExceptStart;
  // WITH_EXCEPT_START's __exit__: below lasti, the previous exception and
  // the exception, and the exit's other slots.
  unsigned Peek = 3 + traits(Insts[I].Ver).WithExitSlots;
  switch (K) {
  case Fault::Again:
    report(R, CheckId::ContextExitedTwice, Certainty::Definite, I, At.Slot->Id,
           llvm::formatv("{0} calls the __exit__ of {1}, which was "
                         "already called",
                         describe(I), ctxName(At.Slot->Id)));
    return;
  case Fault::Maybe:
    if (Handler)
      report(R, CheckId::WithHandlerMismatch, Certainty::Possible, I, {},
             llvm::formatv("{0} finds a bound __exit__ at PEEK({1}) on some "
                           "paths to here and not on others",
                           describe(I), Peek));
    else
      report(R, CheckId::ContextExitWithoutEnter, Certainty::Possible, I, {},
             llvm::formatv("{0} calls __exit__(None, None, None) on a slot "
                           "that holds a bound __exit__ on some paths only",
                           describe(I)));
    return;
  case Fault::Unbound:
    if (Handler)
      report(R, CheckId::WithHandlerMismatch, Certainty::Definite, I, {},
             llvm::formatv("{0} finds no bound __exit__ at PEEK({1}): the "
                           "handler is entered at a depth that does not "
                           "match any active with",
                           describe(I), Peek));
    else
      report(R, CheckId::ContextExitWithoutEnter, Certainty::Definite, I, {},
             llvm::formatv("{0} is an __exit__(None, None, None) call but "
                           "its callable slot holds no bound __exit__ of an "
                           "entered context",
                           describe(I)));
    return;
  }
}

void ContextTransfer::onEvent(const ContextEvent &E, EventSite &At) const {
  ContextState &S = At.S;
  uint32_t I = At.I;
  ContextReport *R = At.R;
  std::visit(
      Overloaded{
          [&](ctxev::NoEvent) {},
          [&](ctxev::EnterWith W) {
            if (At.CallBase) {
              enterByCall(At, W.Async);
              return;
            }
            dropped(S, pop(S), I, R);
            push(S, ContextSlot{W.Async ? SlotTag::Pending : SlotTag::Exit, I});
            push(S);
            if (!W.Async)
              enter(S, I, I, R);
          },
          [&](ctxev::AsyncEnterDone) {
            // The awaited __aenter__ returned: the pending __aexit__ is live.
            // It is below the result and the exit's other slots.
            size_t M = S.Stack.size();
            size_t Below = 1 + traits(Insts[I].Ver).WithExitSlots;
            if (M >= Below && S.Stack[M - Below].T == SlotTag::Pending) {
              S.Stack[M - Below].T = SlotTag::Exit;
              enter(S, S.Stack[M - Below].Id, I, R);
            }
          },
          [&](ctxev::ExitBound X) {
            checkExitSelf(At);
            exitCtx(S, At.Slot->Id, I, R);
            At.Handled = true;
            if (X.Via == ExitVia::ExceptStart) {
              At.Slot->T = SlotTag::Called;
              return;
            }
            if (R)
              if (int32_t K = BS.siteIndexOfEnter(At.Slot->Id);
                  K >= 0 && !llvm::is_contained(R->NormalExits[K], I))
                R->NormalExits[K].push_back(I);
          },
          // Outside the compiler's exit sequence, a call of a called or
          // merged slot is an ordinary call here (the slot is only dropped).
          [&](ctxev::ExitAgain X) { exitFault(At, X.Via, Fault::Again); },
          [&](ctxev::ExitMaybe X) { exitFault(At, X.Via, Fault::Maybe); },
          [&](ctxev::ExitUnbound X) { exitFault(At, X.Via, Fault::Unbound); },
          [&](ctxev::EnterExplicit) {
            At.Handled = true;
            uint32_t Local = At.Local;
            if (ContextLocal *L = S.findLocal(Local);
                L && L->S == LocalStatus::Entered)
              report(R, CheckId::ContextNotExited, Certainty::Definite, I,
                     L->Ctx,
                     llvm::formatv("{0} enters the manager in local '{1}' "
                                   "again while {2} is still active",
                                   describe(I), D.Code->describeLocal(Local),
                                   ctxName(L->Ctx)));
            S.setLocal({Local, LocalStatus::Entered, I});
            enter(S, I, I, R);
          },
          [&](ctxev::ExitExplicit) {
            At.Handled = true;
            exitLocal(S, At.Local, I, R);
          },
          // This pass tracks no mode stack and no rewriter globals (the
          // prover does): its slots never carry the roles of these events.
          [&](ctxev::ModePush) {},
          [&](ctxev::ModePop) {},
          [&](ctxev::ModeSave) {},
          [&](ctxev::ModeRestore) {},
          [&](ctxev::ModeReplay) {},
          [&](ctxev::HandOver) {},
          [&](ctxev::GraphCall) {},
      },
      E);
}

void ContextTransfer::checkExitSelf(const EventSite &At) const {
  // 3.14: the exit calls the __exit__ function with its self, and it is the
  // self whose manager that function exits. The self of another entered
  // with pairs one with's __exit__ with another's manager (a self slot
  // moved alone); a self this pass does not follow is not judged.
  if (!At.Self || At.Self->T != SlotTag::ExitSelf || At.Self->Id == At.Slot->Id)
    return;
  if (At.Self->Id == ContextSlot::NoContext) {
    report(At.R, CheckId::ContextExitOrder, Certainty::Possible, At.I,
           At.Slot->Id,
           llvm::formatv("{0} calls the __exit__ of {1} with a self that is "
                         "another with's on some paths to here: it runs "
                         "{1}'s __exit__ on that with's manager",
                         describe(At.I), ctxName(At.Slot->Id)));
    return;
  }
  if (!At.S.findActive(At.Self->Id))
    return;
  report(At.R, CheckId::ContextExitOrder, Certainty::Definite, At.I,
         At.Slot->Id,
         llvm::formatv("{0} calls the __exit__ of {1} with the self of {2}: "
                       "it runs {1}'s __exit__ on {2}'s manager, so {2} is "
                       "exited where {1} should be",
                       describe(At.I), ctxName(At.Slot->Id),
                       ctxName(At.Self->Id)));
}

void ContextTransfer::enterByCall(EventSite &At, bool Async) const {
  // 3.14: CALL 0 of the __enter__ LOAD_SPECIAL loaded enters the with whose
  // __exit__ LOAD_SPECIAL loaded just below the call's two slots (withEnterAt:
  // the compiler's COPY 1; LOAD_SPECIAL __exit__; SWAP 2; SWAP 3;
  // LOAD_SPECIAL __enter__; CALL 0). Without it there, the context is entered
  // all the same, with no __exit__ to leave it by: an async one at the call
  // (no pending __aexit__ marks where its await completes; measured on
  // 3.14.2: __aenter__ runs, __aexit__ never does).
  ContextState &S = At.S;
  At.Handled = true;
  size_t K = traits(Insts[At.I].Ver).WithExitSlots;
  size_t Base = *At.CallBase;
  bool Loaded = Base >= K && S.Stack[Base - K].T == SlotTag::LoadedExit;
  if (Loaded) {
    uint32_t Load = S.Stack[Base - K].Id;
    S.Stack[Base - K] =
        ContextSlot{Async ? SlotTag::Pending : SlotTag::Exit, At.I};
    // Its self, where it still is: the context's too.
    if (K > 1 && S.Stack[Base - K + 1] == ContextSlot{SlotTag::ExitSelf, Load})
      S.Stack[Base - K + 1].Id = At.I;
  }
  if (!Async || !Loaded)
    enter(S, At.I, At.I, At.R);
}

void ContextTransfer::stepEnterWith(ContextState &S, uint32_t I,
                                    ContextReport *R) const {
  EventSite At{S, I, R};
  onEvent(recogniseContextEvent(Insts[I], {}), At);
}

void ContextTransfer::stepSuspending(ContextState &S, uint32_t I,
                                     const uop::Effect &E, bool Jump,
                                     ContextReport *R) const {
  // An await of an async with's __aenter__ completes where the recogniser
  // says (AsyncEnterDone: 3.11's SEND on its jump edge, 3.12's and 3.13's
  // END_SEND), with the awaited result on top. The Effect says only how
  // many values move: that END_SEND keeps the value on top and pops the
  // receiver under it is carried by no micro-operation, so END_SEND is
  // named here -- the one opcode this pass names. (SEND moves nothing else
  // this pass follows: its Effect and the recogniser's answer are all.)
  if (Insts[I].is(Opcode::END_SEND) && E.Pops >= 1 && E.Pushes == 1) {
    ContextSlot Value = pop(S);
    moveValues(S, I, uop::Effect{E.Pops - 1, 0}, R); // the receiver
    push(S, Value);
  } else {
    moveValues(S, I, E, R);
  }
  SlotFacts F;
  F.JumpEdge = Jump;
  EventSite At{S, I, R};
  onEvent(recogniseContextEvent(Insts[I], F), At);
}

void ContextTransfer::stepExitCallStart(ContextState &S, uint32_t I,
                                        uop::ExitCallStart X,
                                        ContextReport *R) const {
  size_t N = S.Stack.size();
  if (X.Depth >= 1 && N >= X.Depth) {
    SlotFacts F;
    F.Callee = roleOf(S.Stack[N - X.Depth]);
    EventSite At{S, I, R};
    At.Slot = &S.Stack[N - X.Depth];
    if (traits(Insts[I].Ver).WithExitSlots > 1 && X.Depth > 1)
      At.Self = &S.Stack[N - X.Depth + 1];
    onEvent(recogniseContextEvent(Insts[I], F), At);
  }
  moveValues(S, I, movementOf(X), R);
}

void ContextTransfer::stepCall(ContextState &S, uint32_t I, const uop::Call &C,
                               ContextReport *R) const {
  size_t N = S.Stack.size();
  // Deepest first: the two call slots, the arguments, CALL_KW's names.
  size_t Pops = size_t(movementOf(C).Pops);
  if (N < Pops) {
    S.Stack.clear();
    push(S);
    return;
  }
  size_t Base = N - Pops, CalleeAt = calleeIndex(S, Base, C);
  ContextSlot Callee = S.Stack[CalleeAt];
  SlotFacts F;
  F.Callee = roleOf(Callee);
  F.NumArgs = C.NArgs;
  F.ExitSequence = isExitCallSequence(I);
  EventSite At{S, I, R};
  At.Slot = &Callee;
  At.ExitSequence = F.ExitSequence;
  At.CallBase = Base;
  if (traits(Insts[I].Ver).WithExitSlots > 1 && CalleeAt + 1 < N)
    At.Self = &S.Stack[CalleeAt + 1];
  if (F.Callee == SlotRole::EnterMethod || F.Callee == SlotRole::ExitMethod)
    At.Local = Callee.Id;
  onEvent(recogniseContextEvent(Insts[I], F), At);
  for (size_t K = Base; K < N; ++K)
    if (!(At.Handled && K == CalleeAt))
      dropped(S, S.Stack[K], I, R);
  S.Stack.resize(Base);
  push(S);
}
