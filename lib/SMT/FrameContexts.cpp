//===- FrameContexts.cpp - Context events of a symbolic frame
//-------------------===//

#include "SymbolicFrame.h"

#include "pyverify/Analysis/ContextEvents.h"

using namespace pyverify;
using namespace pyverify::smt;
using namespace pyverify::smt::prover;

// The instructions with context meaning -- enter, exit, mode-stack
// operations, the resume call -- as a Side executes them.

/// What the prover knows about the callable slot \p V, for the recogniser.
static SlotFacts slotFacts(const SVal &V) {
  SlotFacts F;
  switch (V.K) {
  case Tag::ExitSlot:
    F.Callee = SlotRole::BoundExit;
    break;
  case Tag::EnterMethod:
    F.Callee = SlotRole::EnterMethod;
    break;
  case Tag::WithEnter:
    F.Callee =
        V.Name == "__aenter__" ? SlotRole::AsyncWithEnter : SlotRole::WithEnter;
    break;
  case Tag::LoadedExit:
    F.Callee = SlotRole::LoadedExit;
    break;
  case Tag::ExitMethod:
    F.Callee = SlotRole::ExitMethod;
    break;
  case Tag::ModeOp:
    F.Callee = SlotRole::ModeOp;
    F.Mode = V.Mode;
    break;
  case Tag::Global:
    if (V.Env) {
      F.Callee = SlotRole::EnvGlobal;
      F.Global = V.Env;
    }
    break;
  case Tag::Plain:
  case Tag::Null:
  case Tag::SavedModes:
  case Tag::GraphOutput:
  case Tag::ModeList:
  case Tag::NoEnterClass:
    break;
  }
  return F;
}

static ArgRole argRole(const SVal &V) {
  switch (V.K) {
  case Tag::SavedModes:
    return ArgRole::SavedModes;
  case Tag::GraphOutput:
    return ArgRole::GraphOutput;
  case Tag::ModeList:
    return ArgRole::ModeList;
  default:
    return ArgRole::Other;
  }
}

std::string Side::describeValue(const SVal &V) const {
  switch (V.K) {
  case Tag::NoEnterClass:
    return "the no-op-enter mode class";
  case Tag::Global:
    return ("the global " + V.Name).str();
  case Tag::GraphOutput:
    return "a value of the compiled graph's output";
  case Tag::Null:
    return "NULL";
  default:
    break;
  }
  llvm::StringRef Op = Terms->node(V.T).Op;
  if (Op.consume_front("attr:"))
    return ("an attribute " + Op).str();
  if (Op.consume_front("local:"))
    return ("its parameter " + Op).str();
  if (Op.startswith("const:"))
    return ("the constant " + Op.drop_front(6)).str();
  return "a value computed by " + C->Name;
}

/// The frame's call of the resume function: what it passes, per argument.
void Side::recordHandOff(const SVal &Callee, llvm::ArrayRef<SVal> Args) {
  HandOff H;
  for (const SVal &A : Args) {
    H.Bits.push_back(A.K == Tag::NoEnterClass ? HandedNoEnter : HandedEnters);
    H.Text.push_back(describeValue(A));
  }
  uint32_t Off = resumeGlobalOffset(Callee.Name).value_or(UINT32_MAX);
  Handed = std::make_pair(Off, std::move(H));
}

/// BEFORE_WITH of the n-th context a resume function claims: what the
/// frame passed for its class decides what it does (docs/prove.md, "The
/// hand-over"). A no-op-enter mode class enters nothing -- the mode the
/// frame replayed is taken over -- and any other value enters (for a mode:
/// pushes it a second time).
void Side::reenter(const SVal &Manager, CtxKind Claimed) {
  uint8_t Bits = Manager.K == Tag::NoEnterClass ? uint8_t(HandedNoEnter)
                 : Manager.Handed               ? Manager.Handed
                                                : uint8_t(HandedEnters);
  std::string Param =
      Manager.Param >= 0 &&
              size_t(Manager.Param) < C->Code->LocalsPlusNames.size()
          ? C->Code->LocalsPlusNames[size_t(Manager.Param)].str()
          : std::string();
  auto Passed = [&]() -> std::string {
    if (Manager.Param >= 0 &&
        size_t(Manager.Param) < C->ParamHandedText.size() &&
        !C->ParamHandedText[size_t(Manager.Param)].empty())
      return " (the frame passes " + C->ParamHandedText[size_t(Manager.Param)] +
             " for " + Param + ")";
    return Param.empty() ? std::string(" (" + describeValue(Manager) + ")")
                         : " (" + Param + ")";
  };
  if (Bits & HandedUntraced) {
    std::string Why =
        "the value the frame passes for " +
        (Param.empty() ? std::string("the re-entered context") : Param) +
        " cannot be traced: " + C->HandedWhy;
    approximate(Why);
    if (Unsettled.empty())
      Unsettled = std::move(Why);
  }
  std::string Claim = "context " + std::to_string(NextLabel);
  if (Claimed == CtxKind::Mode && (Bits & HandedEnters)) {
    event("pushes the mode again"); // the replay re-enters a pushing mode
    violate("exactly-once",
            llvm::formatv("the resume prologue re-enters {0}, claimed a "
                          "torch-function mode, with a value that is no "
                          "no-op-enter mode class{1}: its BEFORE_WITH pushes "
                          "the mode a second time, over the one the frame "
                          "replayed and handed over",
                          Claim, Passed()));
  }
  if (Claimed == CtxKind::With && (Bits & HandedNoEnter))
    violate("exactly-once",
            llvm::formatv("the resume prologue re-enters {0}, claimed a with "
                          "context, with the no-op-enter mode class{1}: its "
                          "BEFORE_WITH enters nothing and its __exit__ pops "
                          "a torch-function mode",
                          Claim, Passed()));
}

void Side::modePop() {
  int32_t Top = -1;
  for (auto It = Active.rbegin(); It != Active.rend(); ++It)
    if (const CtxRec *R = ctx(*It); R && R->Kind == CtxKind::Mode) {
      Top = *It;
      break;
    }
  if (Top < 0) {
    event("pop of an empty mode stack");
    violate("exactly-once", "a torch-function mode is popped that this "
                            "code object does not hold");
    return;
  }
  exit(Top, "the mode-stack pop");
}

void Side::explicitEnter(TermId Manager) {
  // A second __enter__ of the same manager while active: entered twice.
  for (int32_t L : Active)
    if (const CtxRec *R = ctx(L); R && R->Manager == Manager)
      violate("exactly-once",
              llvm::formatv("__enter__ of the manager of {0} again while "
                            "it is active",
                            describe(L)));
  enter(CtxKind::With, Manager, false);
}

void Side::explicitExit(TermId Manager) {
  for (auto It = Active.rbegin(); It != Active.rend(); ++It)
    if (const CtxRec *R = ctx(*It); R && R->Manager == Manager)
      return exit(*It, "the explicit __exit__ call");
  event("exit of a manager that is not active");
  violate("exactly-once", "an explicit __exit__ call on a manager that "
                          "holds no active context (exit without enter, "
                          "or exited twice)");
}

void Side::handOver() {
  if (!C->IsFrame)
    return;
  event("calls the resume function");
  ResumeCalled = true;
  // Only modes may be handed to the resume function, each once.
  for (int32_t L : Active)
    if (const CtxRec *R = ctx(L);
        R && R->Kind == CtxKind::With && !llvm::is_contained(Abandoned, L))
      violate("exactly-once",
              llvm::formatv("{0} is still active when the frame calls "
                            "the resume function",
                            describe(L)));
}

/// Handles one context event; \p Slot is the slot the event uses (the
/// callable, PEEK(4), the manager of BEFORE_WITH), \p Result the value the
/// instruction pushes last. Every alternative is handled: a new event kind
/// does not compile until it is.
void Side::applyContextEvent(const ContextEvent &E, const SVal &Slot,
                             SVal &Result, std::optional<size_t> ExitAt) {
  auto Unbound = [&](ExitVia Via) {
    event("calls a value that is no bound __exit__");
    violate("exactly-once",
            Via == ExitVia::ExceptStart
                ? "WITH_EXCEPT_START finds no bound __exit__ at PEEK(4): the "
                  "handler calls something else and the context is not exited"
                : "the compiler's __exit__(None, None, None) sequence calls a "
                  "value that is no bound __exit__");
  };
  std::visit(
      Overloaded{
          [&](ctxev::NoEvent) {},
          [&](ctxev::EnterWith W) {
            if (W.Async) {
              Unsupported = "an async with statement";
              return;
            }
            CtxKind K = CtxKind::With;
            // In a resume prologue, the n-th re-entered context is the n-th
            // claim; what it does follows from the value re-entered.
            if (C->IsResume && size_t(NextLabel) < C->ClaimedKinds.size()) {
              if (C->ClaimedKinds[NextLabel] == ContextKind::Mode)
                K = CtxKind::Mode;
              reenter(Slot, K);
            }
            int32_t L = enter(K, std::nullopt, false, /*Statement=*/true);
            Result = app("entered", {Slot}, true);
            if (!ExitAt) { // BEFORE_WITH pushes the bound __exit__
              SVal X = app("exit_of", {Slot}, false);
              X.K = Tag::ExitSlot;
              X.Ctx = L;
              Stack.push_back(X);
              return;
            }
            // 3.14: the __exit__ LOAD_SPECIAL loaded below the call's slots
            // becomes the context's; without it there the context is
            // entered all the same, with no __exit__ to leave it by.
            Ctxs.back().EnterSlot = int64_t(*ExitAt);
            if (*ExitAt < Stack.size() && Stack[*ExitAt].K == Tag::LoadedExit) {
              Stack[*ExitAt].K = Tag::ExitSlot;
              Stack[*ExitAt].Ctx = L;
            }
          },
          [&](ctxev::AsyncEnterDone) { Unsupported = "opcode SEND"; },
          [&](ctxev::ExitBound X) {
            exit(Slot.Ctx, X.Via == ExitVia::Call ? "the __exit__ call"
                                                  : "WITH_EXCEPT_START");
          },
          // The prover's slots are exact: no called or merged exit slots.
          [&](ctxev::ExitAgain X) { Unbound(X.Via); },
          [&](ctxev::ExitMaybe X) { Unbound(X.Via); },
          [&](ctxev::ExitUnbound X) { Unbound(X.Via); },
          [&](ctxev::EnterExplicit) { explicitEnter(Slot.Aux); },
          [&](ctxev::ExitExplicit) { explicitExit(Slot.Aux); },
          [&](ctxev::ModePush) { enter(CtxKind::Mode, std::nullopt, false); },
          [&](ctxev::ModePop) { modePop(); },
          // The stack as it is now: a later SetStack of it restores it.
          [&](ctxev::ModeSave) { Result.K = Tag::SavedModes; },
          [&](ctxev::ModeRestore) {
            // Restoring the saved stack pops every mode pushed since.
            for (auto It = Active.rbegin(); It != Active.rend();) {
              const CtxRec *R = ctx(*It);
              ++It;
              if (R && R->Kind == CtxKind::Mode)
                exit(R->Label, "the mode-stack restore");
            }
          },
          [&](ctxev::ModeReplay R) {
            if (!R.Exact)
              approximate("a mode-stack set_stack of a value that is "
                          "neither a saved stack nor the compiled graph's "
                          "output (or a list of its elements) is read as the "
                          "side-effect replay");
            // The side-effect replay: one push per element of a built list,
            // else one per claimed mode.
            ModesReplayed = true;
            if (R.Count) {
              for (unsigned K = 0; K < *R.Count; ++K)
                enter(CtxKind::Mode, std::nullopt, true);
              return;
            }
            for (ContextKind K : C->ClaimedKinds)
              if (K == ContextKind::Mode)
                enter(CtxKind::Mode, std::nullopt, true);
          },
          [&](ctxev::HandOver) { handOver(); },
          [&](ctxev::GraphCall) { Result.K = Tag::GraphOutput; },
      },
      E);
}

void Side::call(const uop::Call &Cl) {
  std::optional<SVal> KwNames;
  if (Cl.KwNamesOnTop)
    KwNames = pop();
  std::vector<SVal> Args(Cl.NArgs);
  for (unsigned K = Cl.NArgs; K-- > 0;)
    Args[K] = pop();
  SVal Second = pop(); // 3.11, 3.12: callable or self; 3.13: self or NULL
  SVal First = pop();  // NULL or method; 3.13: the callable
  const SVal &Callee =
      Cl.calleeSlot(First.K == Tag::Null) == 0 ? First : Second;
  std::vector<SVal> All{First, Second};
  All.insert(All.end(), Args.begin(), Args.end());
  if (KwNames)
    All.push_back(*KwNames);
  SlotFacts F = slotFacts(Callee);
  F.NumArgs = Cl.NArgs;
  F.ExitSequence = isExitCallSequence(C->D(), Pc);
  if (Cl.NArgs >= 1) {
    F.FirstArg = argRole(Args[0]);
    F.ListLength = Args[0].Len;
    F.ListExact = Args[0].Exact;
  }
  SVal Result = app("call", All, /*Timed=*/true);
  // Calling a class gives an instance that enters as the class says: the
  // no-op-enter class's instance, or a handed-over class's.
  if (Callee.K == Tag::NoEnterClass)
    Result.K = Tag::NoEnterClass;
  Result.Handed = Callee.Handed;
  Result.Param = Callee.Param;
  ContextEvent E = recogniseContextEvent(inst(), F);
  if (C->IsFrame && std::holds_alternative<ctxev::HandOver>(E))
    recordHandOff(Callee, Args);
  // 3.14's with enter, CALL 0 of the __enter__ LOAD_SPECIAL loaded: its
  // manager is the self below the call's arguments, its __exit__ the value
  // WithExitSlots below the call (withEnterAt, ContextEvents.h).
  if (Callee.K == Tag::WithEnter) {
    size_t K = traits(inst().Ver).WithExitSlots;
    applyContextEvent(E, Second, Result,
                      Stack.size() >= K
                          ? std::optional<size_t>(Stack.size() - K)
                          : std::nullopt);
  } else {
    applyContextEvent(E, Callee, Result);
  }
  Stack.push_back(Result);
}

void Side::execBranch(bool Taken) {
  const Instruction &I = inst();
  event(Taken ? "branch taken" : "branch not taken");
  for (const MicroOp &Op : lowerInstruction(I, Taken)) {
    const auto *T = std::get_if<uop::Test>(&Op);
    if (!T) {
      if (std::holds_alternative<uop::Next>(Op))
        execOp(I, Op);
      else
        Unsupported = ("branch " + I.name()).str();
      continue;
    }
    if (T->Kind != uop::TestKind::Exhausted && !Stack.empty() &&
        !llvm::is_contained(TruthTested, Stack.back().T))
      TruthTested.push_back(Stack.back().T);
    execOp(I, Op);
  }
  ++Ordinal;
  if (Taken)
    jumpTo(I.landing(), CurrentUnroll, I.info().isBackwardJump());
  else
    ++Pc;
}

void Side::execSync(bool Taken) {
  if (isBranch())
    return execBranch(Taken);
  exec(inst(), /*Sync=*/true);
}

void Side::enterWith(const Instruction &I) {
  SVal M = pop();
  SVal Result;
  applyContextEvent(recogniseContextEvent(I, {}), M, Result);
  Stack.push_back(Result);
}

void Side::exitCallStart(const Instruction &I, uint32_t Depth) {
  if (Depth == 0 || Stack.size() < Depth) {
    Unsupported = ("the exit call of " + I.name() + " on a short stack").str();
    return;
  }
  const SVal X = Stack[Stack.size() - Depth];
  SVal Unused;
  applyContextEvent(recogniseContextEvent(I, slotFacts(X)), X, Unused);
  // Whether the context's __exit__ suppresses: the same choice for the
  // same context (by label) at the same step on both sides.
  Stack.push_back(
      CurrentSuppress
          ? app("suppress",
                {X.K == Tag::ExitSlot ? sym("ctx:" + std::to_string(X.Ctx))
                                      : X},
                true)
          : sym("const:False"));
}

void Side::loadGlobal(uint32_t NameIdx) {
  llvm::StringRef Name = NameIdx < C->Code->Names.size()
                             ? llvm::StringRef(C->Code->Names[NameIdx])
                             : "?";
  SVal V = app(("global:" + Name).str(), {}, true);
  V.K = Tag::Global;
  V.Name = Name;
  V.Env = lookupGlobal(Name);
  Stack.push_back(V);
}

/// 3.14's LOAD_SPECIAL: the special method of the value on top, then its
/// self. The with statement's __enter__ and __exit__ are tagged for the
/// enter (CALL 0 of the __enter__) and the exits (the exit sequence and
/// WITH_EXCEPT_START call the __exit__ slot once the enter made it a
/// context's).
void Side::loadSpecial(uop::SpecialMethod Method) {
  SVal Obj = pop();
  llvm::StringRef Name;
  Tag K = Tag::Plain;
  switch (Method) {
  case uop::SpecialMethod::Enter:
    Name = "__enter__", K = Tag::WithEnter;
    break;
  case uop::SpecialMethod::Exit:
    Name = "__exit__", K = Tag::LoadedExit;
    break;
  case uop::SpecialMethod::AEnter:
    Name = "__aenter__", K = Tag::WithEnter;
    break;
  case uop::SpecialMethod::AExit:
    Name = "__aexit__", K = Tag::LoadedExit;
    break;
  case uop::SpecialMethod::Other:
    Name = "?";
    break;
  }
  SVal V = app(("special:" + Name).str(), {Obj}, true);
  V.K = K;
  V.Aux = Obj.T;
  V.Name = Name;
  Stack.push_back(V);
  Stack.push_back(Obj);
}

void Side::loadAttribute(uint32_t NameIdx, bool Method) {
  SVal Obj = pop();
  llvm::StringRef Name = NameIdx < C->Code->Names.size()
                             ? llvm::StringRef(C->Code->Names[NameIdx])
                             : "?";
  SVal V = app(("attr:" + Name).str(), {Obj}, true);
  bool Tracked = isTrackedManagerAttribute(C->D(), Pc, C->Role);
  if (Tracked && isEnterName(Name)) {
    V.K = Tag::EnterMethod;
    V.Aux = Obj.T;
  } else if (Tracked && isExitName(Name)) {
    V.K = Tag::ExitMethod;
    V.Aux = Obj.T;
  } else if (Obj.K == Tag::Global && Obj.Env) {
    if (std::optional<ModeEffect> M = lookupModeOp(*Obj.Env, Name)) {
      V.K = Tag::ModeOp;
      V.Name = Name;
      V.Mode = M;
    } else if (lookupEnvClass(*Obj.Env, Name)) {
      V.K = Tag::NoEnterClass;
      V.Name = Name;
    }
  }
  // A method load pushes the method, then its self (in every version's
  // layout: 3.13's [method, self] is 3.11's [method, self]).
  Stack.push_back(V);
  if (Method)
    Stack.push_back(Obj);
}
