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

bool prover::isSyncInstruction(const Instruction &I) {
  if (!I.Valid)
    return false;
  if (I.info().isConditionalJump())
    return true;
  switch (I.op()) {
  case Opcode::RETURN_VALUE:
    return true;
  case Opcode::JUMP_BACKWARD: // no asynchronous exception at back edges
  case Opcode::PRECALL:
  case Opcode::LOAD_FAST:
  case Opcode::RERAISE:
  case Opcode::RAISE_VARARGS:
  case Opcode::KW_NAMES:
  case Opcode::PUSH_EXC_INFO:
  case Opcode::POP_EXCEPT:
  case Opcode::CHECK_EXC_MATCH:
  case Opcode::RESUME:
  case Opcode::COPY_FREE_VARS:
  case Opcode::MAKE_CELL:
    return false;
  default:
    return mayRaiseGiven(I, RaiseFacts{});
  }
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

bool Side::mayRaiseHere() const {
  const Instruction &I = inst();
  RaiseFacts F;
  switch (I.op()) {
  case Opcode::LOAD_GLOBAL: {
    // The globals a rewriter installs (Environment.def) are there.
    uint32_t N = I.Arg >> 1;
    F.EnvironmentGlobal =
        N < C->Code->Names.size() && lookupGlobal(C->Code->Names[N]);
    break;
  }
  case Opcode::LOAD_ATTR:
  case Opcode::LOAD_METHOD: {
    // A manager has __enter__/__exit__; a mode-stack module has the
    // operations Environment.def lists.
    llvm::StringRef Name = I.Arg < C->Code->Names.size()
                               ? llvm::StringRef(C->Code->Names[I.Arg])
                               : "";
    F.ProtocolAttribute = isContextProtocolName(Name);
    F.ModeStackOperation = !Stack.empty() && Stack.back().K == Tag::Global &&
                           Stack.back().Env &&
                           (lookupModeOp(*Stack.back().Env, Name) ||
                            lookupEnvClass(*Stack.back().Env, Name));
    break;
  }
  case Opcode::CALL: {
    // The frame's wrapper setup between the mode replay and the break
    // instruction (context constructors, __enter__) does not raise.
    F.ReplayedWrapper = C->IsFrame && ModesReplayed && BreakStep < 0;
    if (Stack.size() < I.Arg + 2)
      break;
    const SVal &First = Stack[Stack.size() - I.Arg - 2];
    const SVal &Second = Stack[Stack.size() - I.Arg - 1];
    const SVal &Callee = First.K == Tag::Null ? Second : First;
    F.ModeStackOperation = Callee.K == Tag::ModeOp;
    // While the frame holds replayed modes, its wrapper's __enter__ and
    // __exit__ calls succeed (else the mode would leak: no handler covers
    // them in the shape rewriters emit).
    F.ReplayedWrapper |=
        C->IsFrame && ModesReplayed &&
        (Callee.K == Tag::EnterMethod || Callee.K == Tag::ExitMethod);
    break;
  }
  default:
    // A branch on a constant or on a bool an instruction made: the truth
    // test runs no user code.
    if (isBranch() && !I.is(Opcode::FOR_ITER) && !Stack.empty()) {
      F.BuiltinTruthValue = isBuiltinTruthValue(Stack.back().T);
      F.TestedBefore = llvm::is_contained(TruthTested, Stack.back().T);
    }
    break;
  }
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
  switch (I.op()) {
  case Opcode::POP_JUMP_FORWARD_IF_TRUE:
  case Opcode::POP_JUMP_BACKWARD_IF_TRUE:
  case Opcode::JUMP_IF_TRUE_OR_POP:
    return {Lit::Truthy, Top.T, true};
  case Opcode::POP_JUMP_FORWARD_IF_FALSE:
  case Opcode::POP_JUMP_BACKWARD_IF_FALSE:
  case Opcode::JUMP_IF_FALSE_OR_POP:
    return {Lit::Truthy, Top.T, false};
  case Opcode::POP_JUMP_FORWARD_IF_NONE:
  case Opcode::POP_JUMP_BACKWARD_IF_NONE:
    return {Lit::IsNone, Top.T, true};
  case Opcode::POP_JUMP_FORWARD_IF_NOT_NONE:
  case Opcode::POP_JUMP_BACKWARD_IF_NOT_NONE:
    return {Lit::IsNone, Top.T, false};
  case Opcode::FOR_ITER: {
    // Taken = the iterator is exhausted.
    TermId E = Terms->apply(
        "exhausted", {Top.T, Terms->symbol("t" + std::to_string(Ordinal))});
    return {Lit::Truthy, E, true};
  }
  default:
    Unsupported = ("branch " + I.name()).str();
    return {Lit::Truthy, Top.T, true};
  }
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
  bool ExitFirst = I.is(Opcode::WITH_EXCEPT_START);
  if (I.is(Opcode::CALL) && Stack.size() >= I.Arg + 2) {
    const SVal &First = Stack[Stack.size() - I.Arg - 2];
    const SVal &Second = Stack[Stack.size() - I.Arg - 1];
    const SVal &Callee = First.K == Tag::Null ? Second : First;
    // An exit that raises has exited; a resume call that raises has taken
    // over the modes (the resume function pops them on its own paths).
    ExitFirst = Callee.K == Tag::ExitSlot || Callee.K == Tag::ExitMethod ||
                (Callee.K == Tag::Global && C->IsFrame && Callee.Env &&
                 Callee.Env->Role == GlobalRole::ResumeFunction);
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

void Side::execPlain(const Instruction &I) {
  Opcode Op = I.op();
  StackIO E = getStackIO(I.info(), I.Arg, false);
  if (I.info().isJump() || I.info().Terminator) {
    Unsupported = ("opcode " + I.name()).str();
    return;
  }
  switch (Op) {
  case Opcode::GET_AWAITABLE:
  case Opcode::SEND:
  case Opcode::YIELD_VALUE:
  case Opcode::RETURN_GENERATOR:
  case Opcode::BEFORE_ASYNC_WITH:
  case Opcode::GET_AITER:
  case Opcode::GET_ANEXT:
  case Opcode::ASYNC_GEN_WRAP:
  case Opcode::SETUP_ANNOTATIONS:
  case Opcode::IMPORT_STAR:
    Unsupported = ("opcode " + I.name()).str();
    return;
  default:
    break;
  }
  std::vector<SVal> In(size_t(std::max<int64_t>(E.Pops, 0)));
  for (size_t K = In.size(); K-- > 0;)
    In[K] = pop();
  std::string OpName = operationKey(*C->Code, I);
  // `not x` is the negation of x's truth (the solver's background fact).
  if (Op == Opcode::UNARY_NOT && In.size() == 1 && E.Pushes == 1) {
    Stack.push_back(plain(Terms->apply("not", {In[0].T})));
    return;
  }
  // Values followed through what the code does to them: an element of the
  // graph's output (unpacked or subscripted) is the graph's output; a list
  // or tuple built of values is a list of that many (a replay of n modes).
  bool FromGraph = (Op == Opcode::UNPACK_SEQUENCE && In.size() == 1 &&
                    In[0].K == Tag::GraphOutput) ||
                   (Op == Opcode::BINARY_SUBSCR && In.size() == 2 &&
                    In[0].K == Tag::GraphOutput);
  if ((Op == Opcode::BUILD_LIST || Op == Opcode::BUILD_TUPLE) &&
      E.Pushes == 1) {
    SVal L = app(OpName, In, /*Timed=*/true);
    L.K = Tag::ModeList;
    L.Len = uint32_t(In.size());
    L.Exact =
        llvm::all_of(In, [](const SVal &V) { return V.K == Tag::GraphOutput; });
    Stack.push_back(L);
    return;
  }
  // The instruction was one step; each further value it makes is one more.
  if (E.Pushes > 1)
    Bud->step(uint64_t(E.Pushes - 1));
  for (int64_t K = 0; K < E.Pushes; ++K) {
    std::vector<SVal> A = In;
    A.push_back(sym(std::to_string(K)));
    SVal V = app(OpName, A, /*Timed=*/true);
    if (FromGraph)
      V.K = Tag::GraphOutput;
    Stack.push_back(V);
  }
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
    if (StopAtForwardJump && I.is(Opcode::JUMP_FORWARD))
      return true;
    bool TierDone = Pc == TierDonePc;
    TierDonePc = UINT32_MAX;
    if ((TierTracing || TierEvalBreaker) && !TierDone && tierPoint()) {
      AtTier = true;
      return true;
    }
    if (atSync())
      return true;
    stepFree(I, Unroll);
  }
  return false;
}

/// Executes \p I, an instruction that is not a sync point: it runs no user
/// code (or raises only as the engine decides here: an unbound LOAD_FAST,
/// RERAISE, RAISE_VARARGS).
void Side::stepFree(const Instruction &I, unsigned Unroll) {
  Opcode Op = I.op();
  if (stepVariable(I) || stepStack(I))
    return;
  switch (Op) {
  case Opcode::NOP:
  case Opcode::RESUME:
  case Opcode::PRECALL:
  case Opcode::KW_NAMES:
  case Opcode::COPY_FREE_VARS:
  case Opcode::MAKE_CELL:
  case Opcode::EXTENDED_ARG:
    ++Pc;
    break;
  case Opcode::JUMP_FORWARD:
    jumpTo(I.Target, Unroll, false);
    break;
  case Opcode::JUMP_BACKWARD:
  case Opcode::JUMP_BACKWARD_NO_INTERRUPT:
    jumpTo(I.Target, Unroll, true);
    break;
  case Opcode::RERAISE:
  case Opcode::RAISE_VARARGS:
    pushStep();
    raise("raises");
    break;
  default:
    // Cannot raise and is not a jump: by its stack effect.
    execPlain(I);
    if (!Unsupported)
      ++Pc;
    break;
  }
}

/// LOAD_FAST, STORE_FAST, DELETE_FAST and the cell operations; false for
/// any other instruction.
bool Side::stepVariable(const Instruction &I) {
  switch (I.op()) {
  case Opcode::LOAD_FAST: {
    if (I.Arg >= Locals.size() || !Locals[I.Arg]) {
      pushStep();
      std::string Name = I.Arg < C->Code->LocalsPlusNames.size()
                             ? C->Code->LocalsPlusNames[I.Arg]
                             : std::string("?");
      raise("raises UnboundLocalError: '" + Name + "' is never assigned here");
      break;
    }
    Stack.push_back(*Locals[I.Arg]);
    ++Pc;
    break;
  }
  case Opcode::STORE_FAST:
    if (I.Arg < Locals.size())
      Locals[I.Arg] = pop();
    else
      pop();
    ++Pc;
    break;
  case Opcode::DELETE_FAST:
    if (I.Arg < Locals.size())
      Locals[I.Arg] = std::nullopt;
    ++Pc;
    break;
  case Opcode::LOAD_DEREF:
  case Opcode::LOAD_CLOSURE:
  case Opcode::LOAD_CLASSDEREF: {
    std::string Name = I.Arg < C->Code->LocalsPlusNames.size()
                           ? C->Code->LocalsPlusNames[I.Arg]
                           : std::string("?");
    auto It = Cells.find(Name);
    Stack.push_back(It != Cells.end() ? It->second : sym("cell:" + Name));
    ++Pc;
    break;
  }
  case Opcode::STORE_DEREF: {
    std::string Name = I.Arg < C->Code->LocalsPlusNames.size()
                           ? C->Code->LocalsPlusNames[I.Arg]
                           : std::string("?");
    Cells[Name] = pop();
    ++Pc;
    break;
  }
  default:
    return false;
  }
  return true;
}

/// Constants and the stack operations that cannot raise; false for any
/// other instruction.
bool Side::stepStack(const Instruction &I) {
  switch (I.op()) {
  case Opcode::LOAD_CONST: {
    std::string Repr = I.Arg < C->Code->Consts.size()
                           ? C->Code->Consts[I.Arg].repr()
                           : std::string("?");
    Stack.push_back(sym("const:" + Repr));
    ++Pc;
    break;
  }
  case Opcode::POP_TOP:
    pop();
    ++Pc;
    break;
  case Opcode::PUSH_NULL:
    Stack.push_back(null());
    ++Pc;
    break;
  case Opcode::COPY:
    if (I.Arg == 0 || I.Arg > Stack.size()) {
      Unsupported = "COPY beyond the stack";
      break;
    }
    Stack.push_back(Stack[Stack.size() - I.Arg]);
    ++Pc;
    break;
  case Opcode::SWAP:
    if (I.Arg < 2 || I.Arg > Stack.size()) {
      Unsupported = "SWAP beyond the stack";
      break;
    }
    std::swap(Stack.back(), Stack[Stack.size() - I.Arg]);
    ++Pc;
    break;
  case Opcode::PUSH_EXC_INFO: {
    SVal Exc = pop();
    Stack.push_back(sym("prev_exc"));
    Stack.push_back(Exc);
    ++Pc;
    break;
  }
  case Opcode::POP_EXCEPT:
    pop();
    ++Pc;
    break;
  case Opcode::CHECK_EXC_MATCH: {
    SVal T = pop();
    SVal X = Stack.empty() ? sym("?") : Stack.back();
    Stack.push_back(app("exc_match", {X, T}, true));
    ++Pc;
    break;
  }
  default:
    return false;
  }
  return true;
}
