//===- ContextEvents.cpp - The one recogniser of context events -----------===//

#include "pyverify/Analysis/ContextEvents.h"

using namespace pyverify;

bool pyverify::isEnterName(llvm::StringRef Name) {
  return Name == "__enter__" || Name == "__aenter__";
}

bool pyverify::isExitName(llvm::StringRef Name) {
  return Name == "__exit__" || Name == "__aexit__";
}

bool pyverify::isContextProtocolName(llvm::StringRef Name) {
  return isEnterName(Name) || isExitName(Name);
}

/// The event of calling the slot \p F describes (CALL, WITH_EXCEPT_START).
static ContextEvent callEvent(const SlotFacts &F, ExitVia Via) {
  switch (F.Callee) {
  case SlotRole::BoundExit:
    return ctxev::ExitBound{Via};
  case SlotRole::CalledExit:
    return ctxev::ExitAgain{Via};
  case SlotRole::MaybeBoundExit:
    return ctxev::ExitMaybe{Via};
  case SlotRole::EnterMethod:
    return Via == ExitVia::Call ? ContextEvent(ctxev::EnterExplicit{})
                                : ContextEvent(ctxev::ExitUnbound{Via});
  case SlotRole::ExitMethod:
    return Via == ExitVia::Call ? ContextEvent(ctxev::ExitExplicit{})
                                : ContextEvent(ctxev::ExitUnbound{Via});
  case SlotRole::ModeOp:
    if (Via == ExitVia::ExceptStart || !F.Mode)
      break;
    switch (*F.Mode) {
    case ModeEffect::Push:
      return ctxev::ModePush{};
    case ModeEffect::Pop:
      return ctxev::ModePop{};
    case ModeEffect::GetStack:
      return ctxev::ModeSave{};
    case ModeEffect::SetStack:
      if (F.NumArgs == 1 && F.FirstArg == ArgRole::SavedModes)
        return ctxev::ModeRestore{};
      return ctxev::ModeReplay{F.NumArgs == 1 &&
                               F.FirstArg == ArgRole::GraphOutput};
    }
    break;
  case SlotRole::EnvGlobal:
    if (Via == ExitVia::ExceptStart || !F.Global)
      break;
    switch (F.Global->Role) {
    case GlobalRole::ResumeFunction:
      return ctxev::HandOver{};
    case GlobalRole::CompiledGraph:
      return ctxev::GraphCall{};
    case GlobalRole::Helper:
    case GlobalRole::ModeStackModule:
      return ctxev::NoEvent{};
    }
    break;
  case SlotRole::Other:
    break;
  }
  // WITH_EXCEPT_START and the compiler's exit sequence always call an
  // __exit__: with none in the slot, that is the fault.
  if (Via == ExitVia::ExceptStart || F.ExitSequence)
    return ctxev::ExitUnbound{Via};
  return ctxev::NoEvent{};
}

ContextEvent pyverify::recogniseContextEvent(const Instruction &I,
                                             const SlotFacts &F) {
  if (!I.Valid)
    return ctxev::NoEvent{};
  switch (I.op()) {
  case Opcode::BEFORE_WITH:
    return ctxev::EnterWith{false};
  case Opcode::BEFORE_ASYNC_WITH:
    return ctxev::EnterWith{true};
  case Opcode::SEND:
    return F.JumpEdge ? ContextEvent(ctxev::AsyncEnterDone{})
                      : ContextEvent(ctxev::NoEvent{});
  case Opcode::WITH_EXCEPT_START:
    return callEvent(F, ExitVia::ExceptStart);
  case Opcode::CALL:
    return callEvent(F, ExitVia::Call);
  default:
    return ctxev::NoEvent{};
  }
}
