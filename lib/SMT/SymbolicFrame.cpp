//===- SymbolicFrame.cpp - Stepping one code object
//-----------------------------===//

#include "SymbolicFrame.h"

#include "pyverify/Bytecode/OperandRules.h"
#include "pyverify/Bytecode/RaiseModel.h"

using namespace pyverify;
using namespace pyverify::smt;
using namespace pyverify::smt::prover;

std::string prover::operationKey(const CodeObject &Code, const Instruction &I) {
  std::string K = I.name().str();
  std::string Ops = resolvedOperands(Code, I);
  return Ops.empty() ? K : K + "(" + Ops + ")";
}

bool Side::isBranch() const {
  const Instruction &I = inst();
  if (!I.Valid)
    return false;
  return I.info().isConditionalJump();
}

/// Whether \p Op may raise through code the interpreter runs for it (a
/// call, an attribute, a truth test, an operator ...): what makes an
/// instruction that may raise a sync point. A local's read or deletion
/// (UnboundLocalError), RERAISE and RAISE_VARARGS raise where the side
/// steps them; the stack and handler moves and line markers cannot raise.
static bool raisesThroughCode(const MicroOp &Op) {
  return std::visit(
      Overloaded{
          [](const OneOf<uop::PushNull, uop::LoadLocal, uop::StoreLocal,
                         uop::DeleteLocal, uop::LoadConst, uop::MakeCell,
                         uop::CopyFreeVars, uop::PopExcept, uop::CallPrepare,
                         uop::Copy, uop::Swap, uop::Raise, uop::PushExcInfo,
                         uop::ExcMatch, uop::Nop> auto &) { return false; },
          [](const OneOf<uop::LoadGlobal, uop::LoadAttr, uop::LoadMethod,
                         uop::LoadSpecial, uop::Call, uop::UnpackSequence,
                         uop::Subscript, uop::BuildSequence, uop::Test,
                         uop::Next, uop::Return, uop::EnterWith,
                         uop::ExitCallStart, uop::Not, uop::ToBool,
                         uop::LoadCell, uop::StoreCell, uop::Effect> auto &) {
            return true;
          },
      },
      Op);
}

template <class T> static bool lowersTo(const Instruction &I) {
  if (!I.Valid)
    return false;
  MicroOps Ops = lowerInstruction(I);
  return llvm::any_of(
      Ops, [](const MicroOp &O) { return std::holds_alternative<T>(O); });
}

bool prover::returns(const Instruction &I) { return lowersTo<uop::Return>(I); }

bool prover::raisesAlways(const Instruction &I) {
  return lowersTo<uop::Raise>(I);
}

bool prover::isSyncInstruction(const Instruction &I) {
  if (!I.Valid)
    return false;
  if (I.info().isConditionalJump())
    return true;
  MicroOps Ops = lowerInstruction(I);
  if (llvm::any_of(Ops, [](const MicroOp &O) {
        return std::holds_alternative<uop::Return>(O);
      }))
    return true;
  return llvm::any_of(Ops, raisesThroughCode) && mayRaiseGiven(I, RaiseFacts{});
}

bool Side::atSync() const { return isSyncInstruction(inst()); }

/// A with-body instruction at which a tier raises (docs/prove.md, "Raise
/// tiers"): a trace function at every instruction that gets an event, the
/// eval breaker at a back edge (looked up at the target - 1 on 3.11 and
/// 3.12). Only where some with statement's context is entered and the
/// instruction is in its body as CPython compiles it; the contexts for which
/// it is not (their own exit sequence, handler start; a mode or explicit
/// context, which no compiler guards) a raise leaves entered, as CPython
/// does, and are not held against the path. An instruction that may raise by
/// itself raises at its sync point.
bool Side::tierPoint() {
  const Instruction &I = inst();
  TierOffsets.clear();
  TierAbandon.clear();
  if (Active.empty() || !I.Valid)
    return false;
  if (TierTracing)
    TierOffsets = tracingRaiseOffsets(I);
  if (TierEvalBreaker && checksEvalBreaker(I) && I.info().isBackwardJump()) {
    uint32_t At = breakerRaisesAtTarget(I) ? uint32_t(I.Target - 2) : I.Start;
    if (!llvm::is_contained(TierOffsets, At))
      TierOffsets.push_back(At);
  }
  if (TierOffsets.empty())
    return false;
  // Raises by itself: explored at its sync point, looked up at the same
  // unit -- unless an EXTENDED_ARG prefix gets the trace event (3.11: only
  // the prefix does).
  if (atSync() && mayRaiseHere() && I.Start == I.Offset)
    return false;
  bool InBody = false, Innermost = true;
  for (size_t K = Active.size(); K-- > 0;) {
    int32_t L = Active[K];
    const CtxRec *R = ctx(L);
    if (llvm::is_contained(Abandoned, L))
      continue;
    bool Held = llvm::any_of(Stack, [&](const SVal &V) {
      return V.K == Tag::ExitSlot && V.Ctx == L;
    });
    bool Inner = Innermost;
    if (R && R->Statement)
      Innermost = false;
    // The slot the compiler's shapes are stated in: where the bound
    // __exit__ was pushed (a return value's SWAP 2 moves it later).
    if (!R || !R->Statement || !Held ||
        isOutsideCompiledWithBody(C->D(), Pc, int64_t(Stack.size()),
                                  R->EnterSlot, Inner))
      TierAbandon.push_back(L);
    else
      InBody = true;
  }
  if (!InBody)
    return false;
  return true;
}

uint64_t Side::raisedStateKey(llvm::ArrayRef<Lit> PC) const {
  llvm::hash_code H =
      llvm::hash_combine(Pc, int(End), CurrentSuppress, Stack.size());
  for (size_t J = 0; J < Stack.size(); ++J) {
    const SVal &V = Stack[J];
    // The exception just pushed and the lasti below it: fresh per raise.
    bool Fresh = J + 2 >= Stack.size() && End == EndKind::None;
    H = llvm::hash_combine(H, Fresh ? TermId(0) : V.T, int(V.K), V.Ctx, V.Aux,
                           V.Handed);
  }
  for (const auto &L : Locals)
    H = llvm::hash_combine(H, L ? int64_t(L->T) : -1, L ? int(L->K) : -1);
  for (const auto &[Name, V] : Cells)
    H = llvm::hash_combine(H, llvm::StringRef(Name), V.T);
  H = llvm::hash_combine(
      H, llvm::hash_combine_range(Active.begin(), Active.end()));
  H = llvm::hash_combine(
      H, llvm::hash_combine_range(Abandoned.begin(), Abandoned.end()));
  H = llvm::hash_combine(
      H, llvm::hash_combine_range(TruthTested.begin(), TruthTested.end()));
  for (const auto &[Head, N] : BackEdges)
    H = llvm::hash_combine(H, Head, N);
  for (const Lit &L : PC)
    H = llvm::hash_combine(H, int(L.K), L.T, L.Positive);
  return uint64_t(size_t(H));
}

void Side::raiseTier(uint32_t Offset) {
  for (int32_t L : TierAbandon)
    if (!llvm::is_contained(Abandoned, L)) {
      Abandoned.push_back(L);
      event("leaves " + describe(L) +
            " entered, as CPython does here (outside its with body)");
    }
  ++Ordinal;
  raise(Offset == inst().Start && inst().Start == inst().Offset
            ? "raises (a trace function or the eval breaker)"
            : ("raises (a trace function or the eval breaker; looked up at " +
               llvm::Twine(Offset) + ")")
                  .str(),
        Offset);
}

const SVal *Side::calleeOf(const uop::Call &Cl) const {
  size_t Below = Cl.NArgs + (Cl.KwNamesOnTop ? 1 : 0);
  if (Stack.size() < Below + 2)
    return nullptr;
  const SVal &First = Stack[Stack.size() - Below - 2];
  const SVal &Second = Stack[Stack.size() - Below - 1];
  return Cl.calleeSlot(First.K == Tag::Null) == 0 ? &First : &Second;
}

bool Side::mayRaiseHere() const {
  const Instruction &I = inst();
  const auto &Names = C->Code->Names;
  auto NameAt = [&](uint32_t N) {
    return N < Names.size() ? llvm::StringRef(Names[N]) : llvm::StringRef();
  };
  // Facts about the stack as the instruction finds it.
  auto TruthFacts = [&](RaiseFacts &F) {
    if (Stack.empty())
      return;
    F.BuiltinTruthValue = isBuiltinTruthValue(Stack.back().T);
    F.TestedBefore = llvm::is_contained(TruthTested, Stack.back().T);
  };
  RaiseFacts F;
  for (const MicroOp &Op : lowerInstruction(I))
    std::visit(
        Overloaded{
            // The globals a rewriter installs (Environment.def) are there.
            [&](uop::LoadGlobal G) {
              F.EnvironmentGlobal = bool(lookupGlobal(NameAt(G.Name)));
            },
            // A manager has __enter__/__exit__; a mode-stack module has the
            // operations Environment.def lists.
            [&](const OneOf<uop::LoadAttr, uop::LoadMethod> auto &A) {
              llvm::StringRef Name = NameAt(A.Name);
              F.ProtocolAttribute = isContextProtocolName(Name);
              F.ModeStackOperation = !Stack.empty() &&
                                     Stack.back().K == Tag::Global &&
                                     Stack.back().Env &&
                                     (lookupModeOp(*Stack.back().Env, Name) ||
                                      lookupEnvClass(*Stack.back().Env, Name));
            },
            [&](uop::LoadSpecial L) {
              F.ProtocolAttribute = L.Method != uop::SpecialMethod::Other;
            },
            [&](const uop::Call &Cl) {
              // The frame's wrapper setup between the mode replay and the
              // break instruction (context constructors, __enter__) does
              // not raise.
              F.ReplayedWrapper = C->IsFrame && ModesReplayed && BreakStep < 0;
              const SVal *Callee = calleeOf(Cl);
              if (!Callee)
                return;
              F.ModeStackOperation = Callee->K == Tag::ModeOp;
              // While the frame holds replayed modes, its wrapper's
              // __enter__ and __exit__ calls succeed (else the mode would
              // leak: no handler covers them in the shape rewriters emit).
              F.ReplayedWrapper |= C->IsFrame && ModesReplayed &&
                                   (Callee->K == Tag::EnterMethod ||
                                    Callee->K == Tag::ExitMethod);
            },
            // A truth test of a constant or of a bool an instruction made
            // runs no user code.
            [&](uop::Test T) {
              if (T.Kind != uop::TestKind::Exhausted)
                TruthFacts(F);
            },
            [&](uop::ToBool) { TruthFacts(F); },
            [&](const OneOf<uop::PushNull, uop::LoadLocal, uop::StoreLocal,
                            uop::DeleteLocal, uop::LoadConst, uop::MakeCell,
                            uop::CopyFreeVars, uop::PopExcept, uop::CallPrepare,
                            uop::Copy, uop::Swap, uop::UnpackSequence,
                            uop::Subscript, uop::BuildSequence, uop::Next,
                            uop::Return, uop::Raise, uop::EnterWith,
                            uop::ExitCallStart, uop::PushExcInfo, uop::ExcMatch,
                            uop::Not, uop::LoadCell, uop::StoreCell, uop::Nop,
                            uop::Effect> auto &) {},
        },
        Op);
  return mayRaiseGiven(I, F);
}

bool Side::isBuiltinTruthValue(TermId T) const {
  llvm::StringRef Op = Terms->node(T).Op;
  // Marshal constants are of builtin types; these operations make bools.
  return Op.startswith("const:") || Op.startswith("IS_OP(") ||
         Op.startswith("CONTAINS_OP(") || Op == "not" || Op == "exc_match";
}

std::string Side::syncDesc() const {
  const Instruction &I = inst();
  if (!I.Valid)
    return "<invalid>";
  return operationKey(*C->Code, I);
}

Lit Side::branchLit() {
  const Instruction &I = inst();
  const SVal &Top = Stack.empty() ? SVal{} : Stack.back();
  std::optional<uop::Test> T = branchTest(I, /*JumpEdge=*/true);
  if (!T) {
    Unsupported = ("branch " + I.name()).str();
    return {Lit::Truthy, Top.T, true};
  }
  switch (T->Kind) {
  case uop::TestKind::Truth:
    return {Lit::Truthy, Top.T, T->Holds};
  case uop::TestKind::IsNone:
    return {Lit::IsNone, Top.T, T->Holds};
  case uop::TestKind::Exhausted: {
    TermId E = Terms->apply(
        "exhausted", {Top.T, Terms->symbol("t" + std::to_string(Ordinal))});
    return {Lit::Truthy, E, T->Holds};
  }
  }
  llvm_unreachable("unknown test kind");
}

void Side::raise(llvm::StringRef Why, std::optional<uint32_t> At) {
  event(Why.str());
  const Instruction &I = inst();
  const ExceptionTableEntry *E =
      lookupHandler(C->D().Table, At.value_or(I.Offset));
  if (!E) {
    End = EndKind::RaiseOut;
    event("raises out of " + C->Name);
    return;
  }
  // Unwinding drops the slots above the entry's depth: a bound __exit__
  // dropped this way is lost (its context stays active, found at the end).
  if (Stack.size() < E->Depth) {
    Unsupported = "handler depth above the stack";
    End = EndKind::Cut;
    return;
  }
  Stack.resize(E->Depth);
  if (E->Lasti)
    Stack.push_back(sym("lasti:" + std::to_string(I.Offset)));
  Stack.push_back(app("exception", {}, /*Timed=*/true));
  int64_t T = C->D().Insts.indexAtStart(E->Target);
  if (T < 0) {
    Unsupported = "handler is not an instruction";
    End = EndKind::Cut;
    return;
  }
  Pc = uint32_t(T);
}

void Side::raiseAtSync() {
  const Instruction &I = inst();
  uint32_t At = Pc;
  bool ExitFirst = false;
  for (const MicroOp &Op : lowerInstruction(I)) {
    if (std::holds_alternative<uop::ExitCallStart>(Op))
      ExitFirst = true;
    const auto *Cl = std::get_if<uop::Call>(&Op);
    const SVal *Callee = Cl ? calleeOf(*Cl) : nullptr;
    // An exit that raises has exited; a resume call that raises has taken
    // over the modes (the resume function pops them on its own paths).
    if (Callee)
      ExitFirst = Callee->K == Tag::ExitSlot || Callee->K == Tag::ExitMethod ||
                  (Callee->K == Tag::Global && C->IsFrame && Callee->Env &&
                   Callee->Env->Role == GlobalRole::ResumeFunction);
  }
  if (ExitFirst) {
    execSync(false);
    if (End != EndKind::None)
      return;
    Pc = At;
  } else {
    ++Ordinal;
  }
  raise("raises");
}

bool Side::advance(unsigned Unroll) {
  CurrentUnroll = Unroll;
  while (End == EndKind::None) {
    if (!Bud->step()) {
      End = EndKind::Cut;
      CutWhy = Bud->Exceeded;
      return false;
    }
    if (Unsupported) {
      End = EndKind::Cut;
      CutWhy = "unsupported: " + *Unsupported;
      return false;
    }
    if (Pc >= C->D().Insts.size()) {
      End = EndKind::Cut;
      CutWhy = "falls off the end";
      return false;
    }
    const Instruction &I = inst();
    if (!I.Valid) {
      End = EndKind::Cut;
      CutWhy = "invalid instruction";
      return false;
    }
    if (C->IsFrame && int64_t(Pc) == BreakIndex && !ActiveAtBreak) {
      std::vector<CtxKind> Ks;
      for (int32_t L : Active)
        Ks.push_back(ctx(L)->Kind);
      ActiveAtBreak = Ks;
      BreakStep = int64_t(Steps.size());
    }
    if (StopAtForwardJump && I.info().Jump == JumpKind::Forward)
      return true;
    bool TierDone = Pc == TierDonePc;
    TierDonePc = UINT32_MAX;
    if ((TierTracing || TierEvalBreaker) && !TierDone && tierPoint()) {
      AtTier = true;
      return true;
    }
    if (atSync())
      return true;
    exec(I, /*Sync=*/false);
  }
  return false;
}
