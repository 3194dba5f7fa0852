//===- ContextTransferEvents.cpp - Context events of the balance pass -----===//
//
// The instructions that enter and exit contexts (BEFORE_WITH, SEND,
// WITH_EXCEPT_START, CALL), as the context-balance pass applies the events
// of the one recogniser (pyverify/Analysis/ContextEvents.h) to its state.
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
  default:
    return SlotRole::Other;
  }
}

/// A CALL's callable role: the bound __exit__ in the method slot first, then
/// an explicit method of a manager local in either slot.
static SlotRole callableRole(const ContextSlot &M, const ContextSlot &C) {
  if (M.T == SlotTag::Exit)
    return SlotRole::BoundExit;
  if (M.T == SlotTag::ExitMethod || C.T == SlotTag::ExitMethod)
    return SlotRole::ExitMethod;
  if (M.T == SlotTag::EnterMethod || C.T == SlotTag::EnterMethod)
    return SlotRole::EnterMethod;
  return roleOf(M);
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
             llvm::formatv("{0} finds a bound __exit__ at PEEK(4) on some "
                           "paths to here and not on others",
                           describe(I)));
    else
      report(R, CheckId::ContextExitWithoutEnter, Certainty::Possible, I, {},
             llvm::formatv("{0} calls __exit__(None, None, None) on a slot "
                           "that holds a bound __exit__ on some paths only",
                           describe(I)));
    return;
  case Fault::Unbound:
    if (Handler)
      report(R, CheckId::WithHandlerMismatch, Certainty::Definite, I, {},
             llvm::formatv("{0} finds no bound __exit__ at PEEK(4): the "
                           "handler is entered at a depth that does not "
                           "match any active with",
                           describe(I)));
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
            dropped(S, pop(S), I, R);
            push(S, ContextSlot{W.Async ? SlotTag::Pending : SlotTag::Exit, I});
            push(S);
            if (!W.Async)
              enter(S, I, I, R);
          },
          [&](ctxev::AsyncEnterDone) {
            // The awaited __aenter__ returned: the pending __aexit__ is live.
            size_t M = S.Stack.size();
            if (M >= 2 && S.Stack[M - 2].T == SlotTag::Pending) {
              S.Stack[M - 2].T = SlotTag::Exit;
              enter(S, S.Stack[M - 2].Id, I, R);
            }
          },
          [&](ctxev::ExitBound X) {
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
                                   describe(I), localName(Local),
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

void ContextTransfer::stepEnterWith(ContextState &S, uint32_t I,
                                    ContextReport *R) const {
  EventSite At{S, I, R};
  onEvent(recogniseContextEvent(Insts[I], {}), At);
}

void ContextTransfer::stepSend(ContextState &S, uint32_t I, bool Jump,
                               ContextReport *R) const {
  // Unless SendJumpCompletesAwait, a returning SEND keeps the receiver and
  // jumps to END_SEND, where the await completes (stepEndSend).
  if (!Jump || !traits(Insts[I].Ver).SendJumpCompletesAwait) {
    pop(S);
    push(S);
    return;
  }
  dropped(S, pop(S), I, R);
  dropped(S, pop(S), I, R);
  push(S);
  SlotFacts F;
  F.JumpEdge = true;
  EventSite At{S, I, R};
  onEvent(recogniseContextEvent(Insts[I], F), At);
}

void ContextTransfer::stepEndSend(ContextState &S, uint32_t I,
                                  ContextReport *R) const {
  ContextSlot Value = pop(S);
  dropped(S, pop(S), I, R); // the receiver
  push(S, Value);
  EventSite At{S, I, R};
  onEvent(recogniseContextEvent(Insts[I], SlotFacts{}), At);
}

void ContextTransfer::stepWithExceptStart(ContextState &S, uint32_t I,
                                          ContextReport *R) const {
  size_t N = S.Stack.size();
  if (N >= 4) {
    SlotFacts F;
    F.Callee = roleOf(S.Stack[N - 4]);
    EventSite At{S, I, R};
    At.Slot = &S.Stack[N - 4];
    onEvent(recogniseContextEvent(Insts[I], F), At);
  }
  push(S);
}

void ContextTransfer::stepCall(ContextState &S, uint32_t I,
                               ContextReport *R) const {
  size_t N = S.Stack.size();
  size_t Need = size_t(Insts[I].Arg) + 2;
  if (N < Need) {
    S.Stack.clear();
    push(S);
    return;
  }
  size_t MethodAt = N - Need, CallableAt = N - Need + 1;
  ContextSlot M = S.Stack[MethodAt], C = S.Stack[CallableAt];
  SlotFacts F;
  F.Callee = callableRole(M, C);
  F.NumArgs = Insts[I].Arg;
  F.ExitSequence = isExitCallSequence(I);
  EventSite At{S, I, R};
  At.Slot = &M;
  At.ExitSequence = F.ExitSequence;
  if (F.Callee == SlotRole::EnterMethod)
    At.Local = M.T == SlotTag::EnterMethod ? M.Id : C.Id;
  else if (F.Callee == SlotRole::ExitMethod)
    At.Local = M.T == SlotTag::ExitMethod ? M.Id : C.Id;
  onEvent(recogniseContextEvent(Insts[I], F), At);
  for (size_t K = MethodAt; K < N; ++K)
    if (!(At.Handled && K == MethodAt))
      dropped(S, S.Stack[K], I, R);
  S.Stack.resize(MethodAt);
  push(S);
}
