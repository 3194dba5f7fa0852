//===- ContextBalance.cpp - Every context entered and exited once ---------===//
//
// The abstract state is the real operand stack (getStackIO: CALL n
// pops n + 2) with a tag per slot, the context state of locals that hold an
// entered context manager, and the contexts active in entry order (the
// domain, pyverify/Domain/ContextDomain.h). The fixpoint runs without
// reporting; its post-visit hook then walks each reached block once from
// its final entry state and reports each problem once, at the instruction
// where it happens.
//
//===----------------------------------------------------------------------===//

#include "pyverify/Analysis/ContextBalance.h"
#include "pyverify/Analysis/CFGFixpointGraph.h"
#include "pyverify/Bytecode/Opcode.h"
#include "pyverify/Domain/ContextDomain.h"
#include "pyverify/Fixpoint/FixpointIterator.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <deque>
#include <optional>

using namespace pyverify;

namespace {

/// How an event is reported: Definite findings are errors, Possible ones
/// (a merged Mixed / Maybe state) warnings.
enum class Certainty { Definite, Possible };

class Balance;

/// Collects findings during the replay; absent during the fixpoint.
struct Reporter {
  Balance &B;
  std::vector<Finding> &Out;
};

class Balance {
public:
  using Domain = ContextState;

  Balance(const CFG &G, BlockStack &BS)
      : G(G), D(G.code()), Insts(D.Insts), BS(BS) {
    findManagerLocals();
  }

  Domain bottom() const { return ContextState::bottom(); }
  Domain entryState() const {
    return ContextState::entry(unsigned(entryStackDepth(*D.Code)));
  }

  Domain transferNode(unsigned Node, const Domain &In) const {
    if (In.isBottom())
      return In;
    ContextState S = In;
    const BasicBlock &B = G.block(Node);
    for (uint32_t I = B.Begin; I + 1 < B.End; ++I)
      step(S, I, /*Jump=*/false, nullptr);
    return S;
  }

  Domain transferEdge(unsigned EdgeIdx, const Domain &In,
                      const Domain &Out) const {
    if (Out.isBottom())
      return Out;
    const CFGEdge &E = G.edge(EdgeIdx);
    uint32_t Last = G.block(E.Source).last();
    if (E.isException()) {
      if (!E.FromBackEdge && !raisesHere(Out, Last))
        return ContextState::bottom();
      return unwind(Out, Last, E, nullptr);
    }
    ContextState S = Out;
    step(S, Last, E.Kind == EdgeKind::Jump || E.Kind == EdgeKind::BranchTaken,
         nullptr);
    return S;
  }

  /// Runs the fixpoint, reporting from every reached block's final state
  /// in the engine's post-visit hook, then the structural checks.
  llvm::Expected<ContextBalanceResult> run(bool SkipWithoutContexts);
  /// Reports the problems of block \p Node from its final entry state
  /// \p Entry and records the contexts active before each instruction.
  void reportBlock(unsigned Node, const ContextState &Entry,
                   ContextBalanceResult &Res, Reporter &R) const;
  /// The with-body checks that rest on the exception table alone.
  void reportWithBodies(Reporter &R) const;
  void reportSharedHandlers(Reporter &R) const;
  void reportHandlerEntryDepths(Reporter &R) const;
  /// Whether anything in the code can enter or exit a context.
  bool involvesContexts() const;

  // --- Transfer ------------------------------------------------------------

  /// Applies instruction \p I's normal semantics on the fall-through
  /// (\p Jump false) or jump edge.
  void step(ContextState &S, uint32_t I, bool Jump, Reporter *R) const;

  /// The state a handler sees when instruction \p I raises along \p E.
  ContextState unwind(const ContextState &Pre, uint32_t I, const CFGEdge &E,
                      Reporter *R) const;

  /// Whether \p I may raise in state \p S (the bytecode notes' rules, less
  /// the documented assumptions about entered context managers).
  bool raisesHere(const ContextState &S, uint32_t I) const;

  /// Exit events of \p I that happen even when \p I raises: the exit was
  /// called (CALL, a specialised PRECALL, WITH_EXCEPT_START).
  void applyRaisingExitEvents(ContextState &S, uint32_t I) const;

  /// A taken backward jump runs the eval breaker, which looks a handler up
  /// at its target - 1 (bytecode notes 3.1): with no entry there, an
  /// interrupt leaves the frame with the state after the jump.
  void escapesAtBackEdge(const ContextState &S, uint32_t I, Reporter *R) const {
    const Instruction &In = Insts[I];
    if (In.Target < 2 || lookupHandler(D.Table, uint64_t(In.Target - 2)))
      return;
    ContextState T = S;
    step(T, I, /*Jump=*/true, nullptr);
    leaving(T, I, /*ByException=*/true, R);
  }

  /// At a join whose paths disagree on the stack's shape (Top), a context
  /// active on an incoming path but not on the representative one is lost
  /// there: typically entered in a loop body and not exited before the back
  /// edge, once per iteration.
  void reportRejoins(const BasicBlock &B, Reporter &R) const {
    const ContextState &Rep = In[B.Id];
    for (unsigned EI : B.Preds) {
      const CFGEdge &E = G.edge(EI);
      const ContextState &Src = In[E.Source];
      if (Src.isBottom())
        continue;
      ContextState Arriving =
          transferEdge(EI, Src, transferNode(E.Source, Src));
      if (Arriving.isBottom())
        continue;
      uint32_t Last = G.block(E.Source).last();
      for (const ActiveContext &A : Arriving.active())
        if (!A.Maybe && !Rep.findActive(A.Ctx))
          report(&R, CheckId::ContextNotExited, Certainty::Definite, Last,
                 A.Ctx,
                 llvm::formatv("{0} reaches {1} with {2} still active, but "
                               "the other paths into {1} have a different "
                               "stack: the context is never exited on this "
                               "path",
                               describe(Last), Insts[B.Begin].Offset,
                               ctxName(A.Ctx)));
    }
  }

  /// Whether the suppress branch of the with handler at \p Offset ends in a
  /// raise instead of continuing after a with: the resume-function shape
  /// ("raise None" after the prologue's handlers), which does not claim to
  /// continue after any particular with (rewriters assume contexts never
  /// suppress).
  bool suppressPathRaises(uint32_t Offset) const {
    int64_t H = Insts.indexAtStart(Offset);
    if (H < 0)
      return false;
    int64_t I = -1;
    for (int64_t K = H; K < H + 4 && K < int64_t(Insts.size()); ++K)
      if (Insts[K].is(Opcode::POP_JUMP_FORWARD_IF_TRUE)) {
        I = Insts.indexAtStart(uint64_t(Insts[K].Target));
        break;
      }
    for (unsigned Steps = 0; I >= 0 && Steps < 16; ++Steps) {
      const Instruction &In = Insts[I];
      if (In.is(Opcode::RAISE_VARARGS))
        return true;
      if (In.is(Opcode::JUMP_FORWARD))
        I = Insts.indexAtStart(uint64_t(In.Target));
      else if (In.is(Opcode::POP_TOP) || In.is(Opcode::POP_EXCEPT) ||
               In.is(Opcode::NOP) || In.is(Opcode::LOAD_CONST))
        I = I + 1 < int64_t(Insts.size()) ? I + 1 : -1;
      else
        return false;
    }
    return false;
  }

  /// A path leaves the code object at \p I with \p S's active contexts.
  void leaving(const ContextState &S, uint32_t I, bool ByException,
               Reporter *R) const;

  // --- Reporting -------------------------------------------------------------

  void report(Reporter *R, CheckId Id, Certainty C, uint32_t At,
              std::optional<uint32_t> Ctx, std::string Msg,
              std::optional<uint32_t> RaisingAt = {}) const;
  std::string ctxName(uint32_t Ctx) const;
  std::string witness(uint32_t Ctx, uint32_t Fault,
                      std::optional<uint32_t> Raising) const;

  const CFG &G;
  const DecodedCode &D;
  const InstructionStream &Insts;
  BlockStack &BS;
  /// Final block entry states (for witnesses), once the fixpoint is done.
  llvm::ArrayRef<ContextState> In;
  /// Locals used with the explicit pattern: the code loads both their
  /// __enter__ and their __exit__. A lone `x.__enter__()` (a start() API
  /// that returns with the context entered on purpose) is an ordinary call.
  llvm::SmallVector<uint32_t, 2> ManagerLocals;

  void findManagerLocals() {
    llvm::SmallVector<uint32_t, 4> Enters, Exits;
    for (uint32_t I = 0; I + 1 < Insts.size(); ++I) {
      const Instruction &A = Insts[I], &B = Insts[I + 1];
      if (!A.is(Opcode::LOAD_FAST) ||
          !(B.is(Opcode::LOAD_METHOD) || B.is(Opcode::LOAD_ATTR)))
        continue;
      llvm::StringRef Name = nameArg(I + 1);
      if (Name == "__enter__")
        Enters.push_back(A.Arg);
      else if (Name == "__exit__")
        Exits.push_back(A.Arg);
    }
    for (uint32_t L : Enters)
      if (llvm::is_contained(Exits, L) && !llvm::is_contained(ManagerLocals, L))
        ManagerLocals.push_back(L);
  }

private:
  ContextSlot pop(ContextState &S) const {
    if (S.Stack.empty())
      return ContextSlot{}; // underflow: reported by the stack-depth pass
    ContextSlot X = S.Stack.back();
    S.Stack.pop_back();
    return X;
  }
  void push(ContextState &S, ContextSlot X = {}) const { S.Stack.push_back(X); }

  /// A slot consumed by something that is not an exit.
  void dropped(ContextState &S, ContextSlot X, uint32_t I, Reporter *R) const {
    if (X.T != SlotTag::Exit)
      return;
    report(R, CheckId::ContextNotExited, Certainty::Definite, I, X.Id,
           llvm::formatv("{0} consumes the bound __exit__ of {1} without "
                         "calling it: the context is never exited",
                         describe(I), ctxName(X.Id)));
    S.removeActive(X.Id);
  }

  void enter(ContextState &S, uint32_t Ctx, uint32_t I, Reporter *R) const {
    if (const ActiveContext *A = S.findActive(Ctx); A && !A->Maybe)
      report(R, CheckId::ContextNotExited, Certainty::Definite, I, Ctx,
             llvm::formatv("{0} is entered again at {1} while still active "
                           "from an earlier pass: that entry is never exited",
                           ctxName(Ctx), describe(I)));
    S.enterActive(Ctx);
  }

  /// An exit of \p Ctx at \p I: checks LIFO order, then forgets it. A
  /// context entered after it on some path is still active: definitely if
  /// it is active on every path and entered before it on none.
  void exitCtx(ContextState &S, uint32_t Ctx, uint32_t I, Reporter *R) const {
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

  void exitLocal(ContextState &S, uint32_t Local, uint32_t I,
                 Reporter *R) const {
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
      report(R, CheckId::ContextExitWithoutEnter, Certainty::Possible, I,
             L->Ctx,
             llvm::formatv("{0} calls __exit__ of the manager in local '{1}', "
                           "which is entered on some paths to here but not "
                           "on others",
                           describe(I), Name));
      S.removeActive(L->Ctx);
      L->S = LocalStatus::Exited;
      return;
    }
  }

  std::string describe(uint32_t I) const {
    const Instruction &In = Insts[I];
    std::string S = std::to_string(In.Offset) + " " + In.name().str();
    if (In.Valid && In.info().hasArg())
      S += " " + std::to_string(In.Arg);
    return S;
  }
  std::string localName(uint32_t L) const {
    return L < D.Code->LocalsPlusNames.size() ? D.Code->LocalsPlusNames[L]
                                              : "#" + std::to_string(L);
  }
  llvm::StringRef nameArg(uint32_t I) const {
    uint32_t A = Insts[I].Arg;
    return A < D.Code->Names.size() ? llvm::StringRef(D.Code->Names[A]) : "";
  }
  /// LOAD_CONST None x3 and PRECALL 2 just before CALL 2 at \p I: the
  /// compiler's __exit__(None, None, None) sequence.
  bool isExitCallSequence(uint32_t I) const {
    if (I < 4 || !Insts[I].is(Opcode::CALL) || Insts[I].Arg != 2 ||
        !Insts[I - 1].is(Opcode::PRECALL) || Insts[I - 1].Arg != 2)
      return false;
    for (uint32_t K = I - 4; K < I - 1; ++K) {
      const Instruction &C = Insts[K];
      if (!C.is(Opcode::LOAD_CONST) || C.Arg >= D.Code->Consts.size() ||
          !D.Code->Consts[C.Arg].is<NoneValue>())
        return false;
    }
    return true;
  }
  bool tracked(const ContextState &S, uint32_t Local) const {
    return S.findLocal(Local) != nullptr;
  }
};

// --- Transfer ---------------------------------------------------------------

void Balance::step(ContextState &S, uint32_t I, bool Jump, Reporter *R) const {
  const Instruction &In = Insts[I];
  size_t N = S.Stack.size();
  switch (In.op()) {
  case Opcode::BEFORE_WITH:
  case Opcode::BEFORE_ASYNC_WITH: {
    dropped(S, pop(S), I, R);
    bool Async = In.is(Opcode::BEFORE_ASYNC_WITH);
    push(S, ContextSlot{Async ? SlotTag::Pending : SlotTag::Exit, I});
    push(S);
    if (!Async)
      enter(S, I, I, R);
    return;
  }
  case Opcode::SEND: {
    if (!Jump) {
      pop(S);
      push(S);
      return;
    }
    dropped(S, pop(S), I, R);
    dropped(S, pop(S), I, R);
    push(S);
    // The awaited __aenter__ returned: the pending __aexit__ is now live.
    size_t M = S.Stack.size();
    if (M >= 2 && S.Stack[M - 2].T == SlotTag::Pending) {
      S.Stack[M - 2].T = SlotTag::Exit;
      enter(S, S.Stack[M - 2].Id, I, R);
    }
    return;
  }
  case Opcode::WITH_EXCEPT_START: {
    if (N >= 4) {
      ContextSlot &X = S.Stack[N - 4];
      switch (X.T) {
      case SlotTag::Exit:
        exitCtx(S, X.Id, I, R);
        X.T = SlotTag::Called;
        break;
      case SlotTag::Called:
        report(R, CheckId::ContextExitedTwice, Certainty::Definite, I, X.Id,
               llvm::formatv("{0} calls the __exit__ of {1}, which was "
                             "already called",
                             describe(I), ctxName(X.Id)));
        break;
      case SlotTag::Mixed:
        report(R, CheckId::WithHandlerMismatch, Certainty::Possible, I, {},
               llvm::formatv("{0} finds a bound __exit__ at PEEK(4) on some "
                             "paths to here and not on others",
                             describe(I)));
        break;
      default:
        report(R, CheckId::WithHandlerMismatch, Certainty::Definite, I, {},
               llvm::formatv("{0} finds no bound __exit__ at PEEK(4): the "
                             "handler is entered at a depth that does not "
                             "match any active with",
                             describe(I)));
        break;
      }
    }
    push(S);
    return;
  }
  case Opcode::CALL: {
    size_t Need = size_t(In.Arg) + 2;
    if (N < Need) {
      S.Stack.clear();
      push(S);
      return;
    }
    size_t MethodAt = N - Need, CallableAt = N - Need + 1;
    ContextSlot M = S.Stack[MethodAt], C = S.Stack[CallableAt];
    bool Handled = false;
    if (M.T == SlotTag::Exit) {
      exitCtx(S, M.Id, I, R);
      for (WithSite &W : BS.mutableWithSites())
        if (W.EnterInst == M.Id && R && !llvm::is_contained(W.NormalExits, I))
          W.NormalExits.push_back(I);
      Handled = true;
    } else if (M.T == SlotTag::ExitMethod || C.T == SlotTag::ExitMethod) {
      exitLocal(S, M.T == SlotTag::ExitMethod ? M.Id : C.Id, I, R);
      Handled = true;
    } else if (M.T == SlotTag::EnterMethod || C.T == SlotTag::EnterMethod) {
      uint32_t Local = M.T == SlotTag::EnterMethod ? M.Id : C.Id;
      if (ContextLocal *L = S.findLocal(Local);
          L && L->S == LocalStatus::Entered)
        report(R, CheckId::ContextNotExited, Certainty::Definite, I, L->Ctx,
               llvm::formatv("{0} enters the manager in local '{1}' again "
                             "while {2} is still active",
                             describe(I), localName(Local), ctxName(L->Ctx)));
      S.setLocal({Local, LocalStatus::Entered, I});
      enter(S, I, I, R);
      Handled = true;
    } else if (isExitCallSequence(I)) {
      if (M.T == SlotTag::Called)
        report(R, CheckId::ContextExitedTwice, Certainty::Definite, I, M.Id,
               llvm::formatv("{0} calls the __exit__ of {1}, which was "
                             "already called",
                             describe(I), ctxName(M.Id)));
      else if (M.T == SlotTag::Mixed)
        report(R, CheckId::ContextExitWithoutEnter, Certainty::Possible, I, {},
               llvm::formatv("{0} calls __exit__(None, None, None) on a slot "
                             "that holds a bound __exit__ on some paths only",
                             describe(I)));
      else
        report(R, CheckId::ContextExitWithoutEnter, Certainty::Definite, I, {},
               llvm::formatv("{0} is an __exit__(None, None, None) call but "
                             "its callable slot holds no bound __exit__ of an "
                             "entered context",
                             describe(I)));
      Handled = true;
    }
    for (size_t K = MethodAt; K < N; ++K)
      if (!(Handled && K == MethodAt))
        dropped(S, S.Stack[K], I, R);
    S.Stack.resize(MethodAt);
    push(S);
    return;
  }
  case Opcode::LOAD_FAST:
    push(S, ContextSlot{SlotTag::LocalRef, In.Arg});
    return;
  case Opcode::LOAD_METHOD:
  case Opcode::LOAD_ATTR: {
    ContextSlot T = pop(S);
    dropped(S, T, I, R);
    llvm::StringRef Name = nameArg(I);
    ContextSlot Result;
    bool Manager =
        T.T == SlotTag::LocalRef && llvm::is_contained(ManagerLocals, T.Id);
    if (Manager && Name == "__enter__")
      Result = ContextSlot{SlotTag::EnterMethod, T.Id};
    else if (Manager && Name == "__exit__")
      Result = ContextSlot{SlotTag::ExitMethod, T.Id};
    push(S, Result);
    if (In.is(Opcode::LOAD_METHOD))
      push(S);
    return;
  }
  case Opcode::STORE_FAST:
  case Opcode::DELETE_FAST: {
    if (In.is(Opcode::STORE_FAST))
      dropped(S, pop(S), I, R);
    if (ContextLocal *L = S.findLocal(In.Arg)) {
      if (L->S != LocalStatus::Exited)
        report(R, CheckId::ContextNotExited,
               L->S == LocalStatus::Entered ? Certainty::Definite
                                            : Certainty::Possible,
               I, L->Ctx,
               llvm::formatv("{0} overwrites local '{1}', which holds {2}, "
                             "before its __exit__ is called",
                             describe(I), localName(In.Arg), ctxName(L->Ctx)));
      S.removeActive(L->Ctx);
      S.eraseLocal(In.Arg);
    }
    return;
  }
  case Opcode::COPY: {
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
    return;
  }
  case Opcode::SWAP:
    if (In.Arg >= 2 && In.Arg <= N)
      std::swap(S.Stack[N - 1], S.Stack[N - In.Arg]);
    return;
  case Opcode::RETURN_VALUE:
    dropped(S, pop(S), I, R);
    leaving(S, I, /*ByException=*/false, R);
    return;
  default: {
    StackIO E = getStackIO(In.op(), In.Arg, Jump);
    for (int64_t K = 0; K < E.Pops; ++K)
      dropped(S, pop(S), I, R);
    for (int64_t K = 0; K < E.Pushes && K < (1 << 20); ++K)
      push(S);
    return;
  }
  }
}

bool Balance::raisesHere(const ContextState &S, uint32_t I) const {
  const Instruction &In = Insts[I];
  if (In.is(Opcode::JUMP_BACKWARD))
    return false; // raises only at the back edge's target - 1
  if (!mayRaise(In.op(), In.Arg))
    return false;
  size_t N = S.Stack.size();
  if (In.is(Opcode::LOAD_FAST) && tracked(S, In.Arg))
    return false; // assumption: a local holding a context is bound
  if ((In.is(Opcode::LOAD_METHOD) || In.is(Opcode::LOAD_ATTR)) && N &&
      S.Stack.back().T == SlotTag::LocalRef && tracked(S, S.Stack.back().Id) &&
      (nameArg(I) == "__exit__" || nameArg(I) == "__enter__"))
    return false; // assumption: an entered manager has __exit__
  return true;
}

void Balance::applyRaisingExitEvents(ContextState &S, uint32_t I) const {
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

ContextState Balance::unwind(const ContextState &Pre, uint32_t I,
                             const CFGEdge &E, Reporter *R) const {
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
             I);
      S.removeActive(X.Id);
    }
  }
  S.Stack.resize(T.Depth);
  if (T.Lasti)
    push(S);
  push(S);
  return S;
}

void Balance::leaving(const ContextState &S, uint32_t I, bool ByException,
                      Reporter *R) const {
  for (const ActiveContext &A : S.active()) {
    std::string How =
        ByException
            ? llvm::formatv("an exception raised by {0} propagates out of the "
                            "code object",
                            describe(I))
                  .str()
            : llvm::formatv("{0} returns", describe(I)).str();
    report(R, CheckId::ContextNotExited,
           A.Maybe ? Certainty::Possible : Certainty::Definite, I, A.Ctx,
           llvm::formatv("{0} while {1} is still active{2}", How,
                         ctxName(A.Ctx),
                         A.Maybe ? " on some of the paths to here" : ""),
           ByException ? std::optional<uint32_t>(I) : std::nullopt);
  }
}

// --- Reporting
// ----------------------------------------------------------------

std::string Balance::ctxName(uint32_t Ctx) const {
  const Instruction &In = Insts[Ctx];
  if (In.is(Opcode::BEFORE_WITH) || In.is(Opcode::BEFORE_ASYNC_WITH))
    return llvm::formatv("the context entered at {0} {1}", In.Offset, In.name())
        .str();
  return llvm::formatv("the context entered at {0} (__enter__ call)", In.Offset)
      .str();
}

std::string Balance::witness(uint32_t Ctx, uint32_t Fault,
                             std::optional<uint32_t> Raising) const {
  // Breadth-first over blocks where the context is active, from the enter
  // to the fault; exception edges only where the block may raise.
  // A context already exited (exited-twice) is not active on the way to
  // the fault: then search all reached blocks.
  unsigned From = G.blockOf(Ctx), To = G.blockOf(Fault);
  std::vector<int64_t> Parent;
  for (bool OnlyActive : {true, false}) {
    Parent.assign(G.size(), -2); // edge index; -1 = start
    std::deque<unsigned> Work{From};
    Parent[From] = -1;
    while (!Work.empty() && Parent[To] == -2) {
      unsigned B = Work.front();
      Work.pop_front();
      for (unsigned EI : G.block(B).Succs) {
        const CFGEdge &E = G.edge(EI);
        if ((E.isException() && !E.MayRaise) || Parent[E.Target] != -2)
          continue;
        const ContextState &S = In[E.Target];
        if (S.isBottom() || (OnlyActive && !S.findActive(Ctx)))
          continue;
        Parent[E.Target] = EI;
        Work.push_back(E.Target);
      }
    }
    if (Parent[To] != -2)
      break;
  }
  std::string Path = std::to_string(Insts[Ctx].Offset);
  if (Parent[To] != -2 && To != From) {
    std::vector<unsigned> Edges;
    for (unsigned B = To; Parent[B] >= 0; B = G.edge(Parent[B]).Source)
      Edges.push_back(unsigned(Parent[B]));
    for (auto It = Edges.rbegin(); It != Edges.rend(); ++It) {
      const CFGEdge &E = G.edge(*It);
      uint32_t Last = G.block(E.Source).last();
      if (E.isException())
        Path += " -> " + std::to_string(Insts[Last].Offset) + " (raises)";
      Path += " -> " + std::to_string(Insts[G.block(E.Target).Begin].Offset);
    }
  }
  std::string FaultText = std::to_string(Insts[Fault].Offset);
  if (Path.size() < FaultText.size() ||
      Path.compare(Path.size() - FaultText.size(), FaultText.size(),
                   FaultText) != 0)
    Path += " -> " + FaultText;
  if (Raising)
    Path += " (raises)";
  return Path;
}

void Balance::report(Reporter *R, CheckId Id, Certainty C, uint32_t At,
                     std::optional<uint32_t> Ctx, std::string Msg,
                     std::optional<uint32_t> RaisingAt) const {
  if (!R)
    return;
  Finding F(Id, Insts[At].Offset,
            C == Certainty::Possible ? "possibly: " + Msg : Msg);
  if (C == Certainty::Possible)
    F.Sev = Severity::Warning;
  if (Ctx) {
    F.note(Insts[*Ctx].Offset, "the context is entered here");
    F.note(Insts[At].Offset, "witness path: " + witness(*Ctx, At, RaisingAt));
  }
  R->Out.push_back(std::move(F));
}

bool Balance::involvesContexts() const {
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

/// Sorts by offset and drops repeated (check, offset, message) findings.
static void finishFindings(std::vector<Finding> &Findings) {
  std::stable_sort(
      Findings.begin(), Findings.end(),
      [](const Finding &A, const Finding &B) { return A.Offset < B.Offset; });
  auto Same = [](const Finding &A, const Finding &B) {
    return A.Check == B.Check && A.Offset == B.Offset && A.Message == B.Message;
  };
  Findings.erase(std::unique(Findings.begin(), Findings.end(), Same),
                 Findings.end());
}

void Balance::reportBlock(unsigned Node, const ContextState &Entry,
                          ContextBalanceResult &Res, Reporter &R) const {
  const BasicBlock &B = G.block(Node);
  if (Entry.isTop())
    reportRejoins(B, R);
  ContextState S = Entry;
  for (uint32_t I = B.Begin; I < B.End; ++I) {
    for (const ActiveContext &A : S.active())
      Res.ActiveBefore[I].push_back(A.Ctx);
    if (G.coverOf(I) < 0 && raisesHere(S, I)) {
      ContextState T = S;
      applyRaisingExitEvents(T, I);
      leaving(T, I, /*ByException=*/true, &R);
    }
    if (I + 1 == B.End)
      for (unsigned EI : B.Succs) {
        const CFGEdge &E = G.edge(EI);
        if (E.isException() && E.MayRaise &&
            (E.FromBackEdge || raisesHere(S, I)))
          unwind(S, I, E, &R);
      }
    const OpcodeInfo &Info = Insts[I].info();
    bool Jump = Info.isJump() && !Info.isConditionalJump();
    if (I + 1 == B.End && Info.isBackwardJump())
      escapesAtBackEdge(S, I, &R);
    step(S, I, Jump, &R);
  }
}

/// The first protected instruction after each enter is covered by an entry
/// with the depth before the enter, lasti and a with handler.
void Balance::reportWithBodies(Reporter &R) const {
  for (const WithSite &W : BS.withSites()) {
    const Instruction &Enter = Insts[W.EnterInst];
    const Instruction &First = Insts[W.FirstProtected];
    if (W.BodyEntry < 0) {
      report(&R, CheckId::WithHandlerMismatch, Certainty::Definite,
             W.FirstProtected, W.EnterInst,
             llvm::formatv("{0}, the first instruction of the with body "
                           "entered at {1}, is not covered by any "
                           "exception-table entry: an exception in the body "
                           "would not call __exit__",
                           describe(W.FirstProtected), Enter.Offset));
      continue;
    }
    const ExceptionTableEntry &T = D.Table[W.BodyEntry];
    const Block &Blk = BS.blockOf(uint32_t(W.BodyEntry));
    std::vector<std::string> Wrong;
    if (W.ExitSlot >= 0 && int64_t(T.Depth) != W.ExitSlot + 1)
      Wrong.push_back(llvm::formatv("depth {0} (the bound __exit__ is slot "
                                    "{1}, so the depth must be {2})",
                                    T.Depth, W.ExitSlot, W.ExitSlot + 1));
    if (!T.Lasti)
      Wrong.push_back("no lasti");
    if (!isWithKind(Blk.Kind))
      Wrong.push_back(llvm::formatv("a handler at {0} that does not start "
                                    "PUSH_EXC_INFO; WITH_EXCEPT_START ({1})",
                                    T.Target, getBlockKindName(Blk.Kind)));
    if (Wrong.empty())
      continue;
    std::string Msg =
        llvm::formatv("the with body entered at {0} {1} starts "
                      "at {2} under entry {3} to {4} -> {5} "
                      "[{6}]{7}, which has ",
                      Enter.Offset, Enter.name(), First.Offset, T.Start,
                      T.End - 2, T.Target, T.Depth, T.Lasti ? " lasti" : "");
    for (size_t K = 0; K < Wrong.size(); ++K)
      Msg += (K ? " and " : "") + Wrong[K];
    Finding F(CheckId::WithHandlerMismatch, First.Offset, Msg);
    F.note(Enter.Offset, "the context is entered here");
    F.note(T.Target, "the entry's handler");
    R.Out.push_back(std::move(F));
  }
}

void Balance::reportSharedHandlers(Reporter &R) const {
  // Each with needs its own handler: the suppress path of a shared one
  // continues after only one of the withs. Two sites are the same with --
  // a resume prologue re-entering the with the original loop body enters
  // again, whose contexts meet in one slot -- when they share a normal
  // exit (or one has none of its own, its context merged into the other's).
  for (size_t A = 0; A < BS.withSites().size(); ++A)
    for (size_t B = A + 1; B < BS.withSites().size(); ++B) {
      const WithSite &WA = BS.withSites()[A], &WB = BS.withSites()[B];
      if (!WA.Handler || WA.Handler != WB.Handler || WA.NormalExits.empty() ||
          WB.NormalExits.empty())
        continue;
      bool Shared = llvm::any_of(WA.NormalExits, [&](uint32_t X) {
        return llvm::is_contained(WB.NormalExits, X);
      });
      if (Shared || suppressPathRaises(*WA.Handler))
        continue;
      Finding F(CheckId::WithHandlerMismatch, Insts[WB.FirstProtected].Offset,
                llvm::formatv("the with bodies entered at {0} and {1} lead to "
                              "the same handler {2} but exit at different "
                              "places; each with needs its own handler (after "
                              "a suppressed exception the shared one continues "
                              "after only one of them)",
                              Insts[WA.EnterInst].Offset,
                              Insts[WB.EnterInst].Offset, *WA.Handler));
      F.note(Insts[WA.EnterInst].Offset, "the other with is entered here");
      F.note(*WA.Handler, "the shared handler");
      R.Out.push_back(std::move(F));
    }
}

void Balance::reportHandlerEntryDepths(Reporter &R) const {
  // Every other entry that targets a with handler must keep that with's
  // __exit__ slot: depth = slot + 1.
  for (size_t E = 0; E < D.Table.size(); ++E) {
    const ExceptionTableEntry &T = D.Table[E];
    const WithSite *W = BS.siteForHandler(T.Target);
    if (!W || W->ExitSlot < 0 || int64_t(T.Depth) == W->ExitSlot + 1 ||
        int32_t(E) == W->BodyEntry)
      continue;
    // Judge only entries that cover reachable code.
    int64_t First = Insts.indexAtStart(T.Start);
    bool Live = false;
    for (int64_t I = First;
         I >= 0 && I < int64_t(Insts.size()) && Insts[I].Offset < T.End; ++I)
      Live |= G.reachable().test(G.blockOf(uint32_t(I)));
    if (!Live)
      continue;
    Finding F(CheckId::WithHandlerMismatch, Insts[First].Offset,
              llvm::formatv("entry {0} to {1} -> {2} [{3}]{4} leads to the "
                            "handler of the with entered at {5}, whose "
                            "__exit__ is slot {6}, but its depth is {3} "
                            "instead of {7}",
                            T.Start, T.End - 2, T.Target, T.Depth,
                            T.Lasti ? " lasti" : "", Insts[W->EnterInst].Offset,
                            W->ExitSlot, W->ExitSlot + 1));
    F.note(Insts[W->EnterInst].Offset, "the context is entered here");
    F.note(T.Target, "the with handler");
    R.Out.push_back(std::move(F));
  }
}

llvm::Expected<ContextBalanceResult> Balance::run(bool Skip) {
  if (Skip && !involvesContexts()) {
    // Nothing can enter or exit a context: every slot stays untagged, so
    // the interpretation could only confirm that; only the block stack's
    // own problems remain.
    ContextBalanceResult Res;
    Res.ActiveBefore.resize(Insts.size());
    for (const auto &[At, Msg] : BS.problems())
      Res.Findings.emplace_back(CheckId::BlockNesting, At, Msg);
    finishFindings(Res.Findings);
    return Res;
  }
  ContextBalanceResult Res;
  Res.ActiveBefore.resize(Insts.size());
  for (WithSite &W : BS.mutableWithSites())
    W.NormalExits.clear();
  Reporter R{*this, Res.Findings};
  CFGFixpointGraph FG(G, /*OnlyRaising=*/true);
  auto Fix = runForwardFixpoint(FG, *this, {},
                                [&](unsigned Node, const ContextState &Entry,
                                    llvm::ArrayRef<ContextState> All) {
                                  In = All;
                                  reportBlock(Node, Entry, Res, R);
                                });
  if (!Fix)
    return Fix.takeError();
  In = Fix->In;
  Res.Visits = Fix->Visits;
  reportWithBodies(R);
  reportSharedHandlers(R);
  reportHandlerEntryDepths(R);
  for (const auto &[At, Msg] : BS.problems())
    Res.Findings.emplace_back(CheckId::BlockNesting, At, Msg);

  // One finding per (check, offset, message); sorted by offset.
  finishFindings(Res.Findings);
  return Res;
}

} // namespace

llvm::Expected<ContextBalanceResult>
pyverify::checkContextBalance(const CFG &G, const StackDepthResult &Depth,
                              BlockStack &Blocks,
                              const ContextBalanceOptions &Opts) {
  if (Depth.MaxDepth > Opts.MaxStackDepth)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the stack reaches depth %lld (at offset %u), above the %lld slots "
        "the context analysis models; not analysed",
        static_cast<long long>(Depth.MaxDepth),
        G.code().Insts[Depth.MaxDepthInst].Offset,
        static_cast<long long>(Opts.MaxStackDepth));
  Balance B(G, Blocks);
  return B.run(Opts.SkipWithoutContexts);
}
