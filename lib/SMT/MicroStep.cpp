//===- MicroStep.cpp - A symbolic frame steps micro-operations ------------===//
//
// Side::exec: an instruction's micro-operations (MicroOps.h), each visited
// by MicroStepper (one method per alternative; a new micro-operation does
// not compile until it is stepped here), then the instruction's successor.
//
//===----------------------------------------------------------------------===//

#include "SymbolicFrame.h"

#include "pyverify/Bytecode/OperandRules.h"

using namespace pyverify;
using namespace pyverify::smt;
using namespace pyverify::smt::prover;

void Side::exec(const Instruction &I, bool Sync) {
  for (const MicroOp &Op : lowerInstruction(I))
    if (!execOp(I, Op) || Unsupported)
      return; // raised, returned, or cut
  if (Sync)
    ++Ordinal;
  const OpcodeInfo &Info = I.info();
  if (Info.isJump())
    jumpTo(I.landing(), CurrentUnroll, Info.isBackwardJump());
  else if (Info.Terminator)
    Unsupported = ("opcode " + I.name()).str();
  else
    ++Pc;
}

std::string Side::localName(uint32_t Local) const {
  return Local < C->Code->LocalsPlusNames.size()
             ? C->Code->LocalsPlusNames[Local].str()
             : std::string("?");
}

namespace pyverify::smt::prover {

/// One micro-operation of instruction I on side S; false when the path
/// left I (raised, returned, or cannot go on: S.Unsupported).
struct MicroStepper {
  Side &S;
  const Instruction &I;

  bool bound(uint32_t Local) const {
    return Local < S.Locals.size() && S.Locals[Local];
  }
  bool unbound(uint32_t Local) {
    S.pushStep();
    S.raise("raises UnboundLocalError: '" + S.localName(Local) +
            "' is never assigned here");
    return false;
  }
  bool push(SVal V) {
    S.Stack.push_back(std::move(V));
    return true;
  }

  // Locals and cells.
  bool operator()(uop::LoadLocal L) {
    if (bound(L.Local))
      return push(*S.Locals[L.Local]);
    switch (L.Read) {
    case uop::LocalRead::Checked:
      return unbound(L.Local);
    case uop::LocalRead::Saved:
      return push(S.null());
    case uop::LocalRead::Unchecked:
      break;
    }
    S.Unsupported = "an unchecked read of '" + S.localName(L.Local) +
                    "', which is not bound here (the interpreter would push "
                    "NULL)";
    return false;
  }
  bool operator()(uop::StoreLocal L) {
    SVal V = S.pop();
    if (L.Local < S.Locals.size())
      S.Locals[L.Local] =
          L.NullOk && V.K == Tag::Null ? std::nullopt : std::optional<SVal>(V);
    return true;
  }
  bool operator()(uop::DeleteLocal L) {
    if (L.Checked && !bound(L.Local))
      return unbound(L.Local);
    if (L.Local < S.Locals.size())
      S.Locals[L.Local] = std::nullopt;
    return true;
  }
  // A cell variable's slot holds its cell (3.13 loads it for a closure with
  // LOAD_FAST); its contents live in Cells, by name.
  bool operator()(uop::MakeCell M) {
    if (M.Local >= S.Locals.size())
      return true;
    std::string Name = S.localName(M.Local);
    if (S.Locals[M.Local]) // a parameter: its value moves in
      S.Cells.try_emplace(Name, *S.Locals[M.Local]);
    S.Locals[M.Local] = S.sym("cellobj:" + Name);
    return true;
  }
  bool operator()(uop::CopyFreeVars F) {
    for (size_t K = 0; K < F.N && K < S.Locals.size(); ++K) {
      size_t L = S.Locals.size() - 1 - K;
      S.Locals[L] = S.sym("cellobj:" + S.localName(uint32_t(L)));
    }
    return true;
  }
  bool operator()(uop::LoadCell C) {
    std::string Name = S.localName(C.Local);
    auto It = S.Cells.find(Name);
    return push(It != S.Cells.end() ? It->second : S.sym("cell:" + Name));
  }
  bool operator()(uop::StoreCell C) {
    S.Cells[S.localName(C.Local)] = S.pop();
    return true;
  }

  // Stack moves.
  bool operator()(uop::PushNull) { return push(S.null()); }
  bool operator()(uop::LoadConst K) {
    const auto &Consts = S.C->Code->Consts;
    return push(S.sym("const:" + (K.Index < Consts.size()
                                      ? Consts[K.Index].repr(S.C->Code->Version)
                                      : "?")));
  }
  bool operator()(uop::Copy Cp) {
    if (Cp.N == 0 || Cp.N > S.Stack.size()) {
      S.Unsupported = "COPY beyond the stack";
      return false;
    }
    return push(S.Stack[S.Stack.size() - Cp.N]);
  }
  bool operator()(uop::Swap W) {
    if (W.N < 2 || W.N > S.Stack.size()) {
      S.Unsupported = "SWAP beyond the stack";
      return false;
    }
    std::swap(S.Stack.back(), S.Stack[S.Stack.size() - W.N]);
    return true;
  }
  bool operator()(const OneOf<uop::CallPrepare, uop::Nop> auto &) {
    return true;
  }

  // Values, attributes, calls, contexts.
  bool operator()(
      const OneOf<uop::UnpackSequence, uop::Subscript, uop::BuildSequence,
                  uop::Not, uop::ToBool, uop::Effect> auto &V) {
    S.execValue(I, MicroOp(V));
    return true;
  }
  bool operator()(uop::LoadGlobal G) {
    S.loadGlobal(G.Name);
    return true;
  }
  bool operator()(uop::LoadAttr A) {
    S.loadAttribute(A.Name, /*Method=*/false);
    return true;
  }
  bool operator()(uop::LoadMethod M) {
    S.loadAttribute(M.Name, /*Method=*/true);
    return true;
  }
  bool operator()(uop::LoadSpecial M) {
    S.loadSpecial(M.Method);
    return true;
  }
  bool operator()(const uop::Call &Cl) {
    S.call(Cl);
    return true;
  }
  bool operator()(uop::EnterWith) {
    S.enterWith(I);
    return true;
  }
  bool operator()(uop::ExitCallStart X) {
    S.exitCallStart(I, X.Depth);
    return true;
  }

  // Control and exception handling.
  bool operator()(uop::Test T) {
    if (T.Pops)
      S.pop();
    return true;
  }
  bool operator()(uop::Next) {
    return push(S.app("next", {S.Stack.back()}, true));
  }
  bool operator()(uop::Return) {
    S.pop();
    S.End = EndKind::Return;
    S.event("returns");
    return false;
  }
  bool operator()(uop::Raise) {
    S.pushStep();
    S.raise("raises");
    return false;
  }
  bool operator()(uop::PushExcInfo) {
    SVal Exc = S.pop();
    S.Stack.push_back(S.sym("prev_exc"));
    return push(Exc);
  }
  bool operator()(uop::PopExcept) {
    S.pop();
    return true;
  }
  bool operator()(uop::ExcMatch) {
    SVal T = S.pop();
    SVal X = S.Stack.empty() ? S.sym("?") : S.Stack.back();
    return push(S.app("exc_match", {X, T}, true));
  }
};

} // namespace pyverify::smt::prover

bool Side::execOp(const Instruction &I, const MicroOp &Op) {
  return std::visit(MicroStepper{*this, I}, Op);
}

/// The micro-operations that make values of their inputs: a term of the
/// operation (operationKey) applied to them, followed where the code does
/// something a property depends on.
void Side::execValue(const Instruction &I, const MicroOp &Op) {
  uop::Effect E = movementOf(Op);
  if (const auto *X = std::get_if<uop::Effect>(&Op);
      X && X->Scope != uop::EffectScope::Values) {
    Unsupported = ("opcode " + I.name()).str();
    return;
  }
  std::vector<SVal> In(size_t(std::max<int64_t>(E.Pops, 0)));
  for (size_t K = In.size(); K-- > 0;)
    In[K] = pop();
  // `not x` is the negation of x's truth (the solver's background fact);
  // bool(x) has x's truth, and testing it was x's truth test.
  if (std::holds_alternative<uop::Not>(Op)) {
    Stack.push_back(plain(Terms->apply("not", {In[0].T})));
    return;
  }
  if (std::holds_alternative<uop::ToBool>(Op)) {
    if (!llvm::is_contained(TruthTested, In[0].T))
      TruthTested.push_back(In[0].T);
    Stack.push_back(plain(In[0].T));
    return;
  }
  std::string OpName = operationKey(*C->Code, I);
  // Values followed through what the code does to them: an element of the
  // graph's output (unpacked or subscripted) is the graph's output; a list
  // or tuple built of values is a list of that many (a replay of n modes).
  bool FromGraph = (std::holds_alternative<uop::UnpackSequence>(Op) ||
                    std::holds_alternative<uop::Subscript>(Op)) &&
                   In[0].K == Tag::GraphOutput;
  if (std::holds_alternative<uop::BuildSequence>(Op)) {
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
