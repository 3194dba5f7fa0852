//===- Prover.cpp - Translation validation of emitted code ----------------===//
//
// Bounded symbolic execution of 3.11 code objects (docs/prove.md):
//
//  * A Side is one code object being executed on symbolic values: the real
//    operand stack, the locals (assigned or not), the contexts it holds, the
//    steps taken. Values are uninterpreted terms (smt::TermTable): a local
//    or stack slot read at the start is a symbol; anything computed is an
//    application of the operation to its inputs, and anything that may run
//    user code also takes the index of the observable step it happens at,
//    so that two sides taking the same step compute the same value and two
//    different calls never do.
//  * A Side runs freely over instructions that cannot run user code and
//    stops at a *sync point*: a conditional branch, an instruction that may
//    raise, a return, or the end of the frame. There the explorer decides
//    -- branch taken or not (a literal on the tested term, checked with Z3
//    against the path condition), raises or continues -- and steps on.
//  * exactly-once explores one Side; matches-eager explores the original
//    and the resume function together, one sync point each at a time,
//    making the same decisions, and compares what they do.
//
//===----------------------------------------------------------------------===//

#include "pyverify/SMT/Prover.h"
#include "pyverify/Analysis/BlockStack.h"
#include "pyverify/Analysis/ContextBalance.h"
#include "pyverify/Analysis/StackDepth.h"
#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Bytecode/Listing.h"
#include "pyverify/Bytecode/Opcode.h"
#include "pyverify/CFG/CFG.h"
#include "pyverify/Check/BundleVerifier.h"
#include "pyverify/Check/Verifier.h"
#include "pyverify/SMT/Solver.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>
#include <map>
#include <optional>

using namespace pyverify;
using namespace pyverify::smt;

llvm::StringRef pyverify::getVerdictName(Verdict V) {
  switch (V) {
  case Verdict::Proved:
    return "proved";
  case Verdict::Refuted:
    return "refuted";
  case Verdict::Unknown:
    return "unknown";
  }
  return "unknown";
}

namespace {

// --- Symbolic state
// -----------------------------------------------------------

/// What a stack slot or local holds, beyond its term.
enum class Tag : uint8_t {
  Plain,
  Null,
  ExitSlot,    ///< The bound __exit__ pushed by BEFORE_WITH (Ctx).
  EnterMethod, ///< m.__enter__ (Manager term in Aux).
  ExitMethod,  ///< m.__exit__.
  ModeOp,      ///< A torch-function mode-stack function (Name).
  Global,      ///< A global's value (Name), to recognise calls.
};

struct SVal {
  TermId T = 0;
  Tag K = Tag::Plain;
  int32_t Ctx = -1; ///< ExitSlot: context label.
  TermId Aux = 0;   ///< Enter/ExitMethod: the manager's term.
  std::string Name; ///< ModeOp / Global: the name.
};

enum class CtxKind : uint8_t { With, Mode };

struct CtxRec {
  int32_t Label;
  CtxKind Kind;
  std::optional<TermId> Manager; ///< Explicit m.__enter__() contexts.
  bool FromReplay = false;       ///< A mode pushed by the side-effect replay.
};

enum class EndKind : uint8_t { None, Return, RaiseOut, Cut };

/// A violation found on one path.
struct Violation {
  std::string Property;
  std::string Explanation;
};

/// Static facts about one code object being executed.
struct CodeInfo {
  std::string Name; ///< "original", "frame", "resume:<i>".
  const CodeObject *Code = nullptr;
  DecodedCode D;
  std::vector<ContextKind> ClaimedKinds; ///< For prologue BEFORE_WITHs.
  bool IsFrame = false;
  bool IsResume = false;
  /// Frame: the kinds of the contexts the original holds at break_offset.
  std::optional<std::vector<CtxKind>> ExpectedAtBreak;
};

struct Step {
  std::string Code;
  uint32_t Offset;
  std::string OpName;
  std::vector<std::string> Events;
};

class Side {
public:
  Side(const CodeInfo &C, TermTable &Terms) : C(&C), Terms(&Terms) {}

  const CodeInfo *C;
  TermTable *Terms;
  uint32_t Pc = 0;
  std::vector<SVal> Stack;
  std::vector<std::optional<SVal>> Locals;
  std::map<std::string, SVal> Cells;
  std::vector<CtxRec> Ctxs; ///< Every context entered on this path.
  std::vector<int32_t> Active;
  int32_t NextLabel = 0;
  std::map<uint32_t, unsigned> BackEdges;
  EndKind End = EndKind::None;
  std::string CutWhy;
  std::optional<Violation> Bad;
  std::vector<Step> Steps;
  unsigned Ordinal = 0; ///< Observable steps so far (values' time stamps).
  bool ResumeCalled = false;
  int64_t BreakIndex = -1; ///< Frame: the break instruction.
  std::optional<std::vector<CtxKind>> ActiveAtBreak;
  std::optional<std::string> Unsupported;

  const Instruction &inst() const { return C->D.Insts[Pc]; }

  // --- values ---
  SVal plain(TermId T) const { return SVal{T, Tag::Plain, -1, 0, {}}; }
  SVal sym(llvm::StringRef Name) { return plain(Terms->symbol(Name)); }
  SVal app(llvm::StringRef Op, llvm::ArrayRef<SVal> Args, bool Timed) {
    std::vector<TermId> A;
    for (const SVal &V : Args)
      A.push_back(V.T);
    if (Timed)
      A.push_back(Terms->symbol("t" + std::to_string(Ordinal)));
    return plain(Terms->apply(Op, A));
  }
  SVal pop() {
    if (Stack.empty()) {
      Unsupported = "stack underflow";
      return sym("underflow");
    }
    SVal V = Stack.back();
    Stack.pop_back();
    return V;
  }

  std::string describe(int32_t Label) const {
    for (const CtxRec &R : Ctxs)
      if (R.Label == Label)
        return (R.Kind == CtxKind::Mode ? "mode#" : "ctx#") +
               std::to_string(Label);
    return "ctx#" + std::to_string(Label);
  }
  const CtxRec *ctx(int32_t Label) const {
    for (const CtxRec &R : Ctxs)
      if (R.Label == Label)
        return &R;
    return nullptr;
  }
  std::string activeText() const {
    std::string S;
    for (int32_t L : Active)
      S += (S.empty() ? "" : ", ") + describe(L);
    return "[" + S + "]";
  }

  void event(std::string E) { Steps.back().Events.push_back(std::move(E)); }
  void violate(llvm::StringRef Property, std::string Why) {
    if (!Bad) {
      Bad = Violation{Property.str(), std::move(Why)};
      BadStep = int64_t(Steps.size()) - 1;
    }
  }

  int32_t enter(CtxKind K, std::optional<TermId> Manager, bool Replay) {
    int32_t L = NextLabel++;
    Ctxs.push_back({L, K, Manager, Replay});
    Active.push_back(L);
    event("enter " + describe(L));
    return L;
  }
  void exit(int32_t L, llvm::StringRef How) {
    auto It = llvm::find(Active, L);
    if (It == Active.end()) {
      event("exit " + describe(L) + " (not active)");
      violate("exactly-once",
              llvm::formatv("{0} exits {1}, which is not active (exited "
                            "already or never entered)",
                            How, describe(L)));
      return;
    }
    // LIFO per stack: torch-function modes live on the mode stack, other
    // contexts in the frame; the interleaving of the two is not observable.
    CtxKind K = ctx(L) ? ctx(L)->Kind : CtxKind::With;
    for (auto Later = std::next(It); Later != Active.end(); ++Later)
      if (const CtxRec *R = ctx(*Later); R && R->Kind == K) {
        violate("exactly-once",
                llvm::formatv("{0} exits {1} while {2} entered after it is "
                              "still active (not LIFO)",
                              How, describe(L), describe(*Later)));
        break;
      }
    Active.erase(It);
    event("exit " + describe(L));
  }

  void pushStep(llvm::StringRef Extra = "") {
    const Instruction &I = inst();
    Steps.push_back({C->Name, I.Offset, I.name().str(), {}});
    if (!Extra.empty())
      Steps.back().Events.push_back(Extra.str());
  }

  // --- setup ---
  void initLocals() {
    Locals.assign(C->Code->LocalsPlusNames.size(), std::nullopt);
  }
  int64_t localIndex(llvm::StringRef Name) const {
    for (size_t I = 0; I < C->Code->LocalsPlusNames.size(); ++I)
      if (C->Code->LocalsPlusNames[I] == Name)
        return int64_t(I);
    return -1;
  }
  /// Parameters bound at entry: ___stack<j> -> stack:j, others local:<n>.
  void bindParameters() {
    initLocals();
    const CodeObject &Co = *C->Code;
    unsigned NArgs = unsigned(Co.ArgCount + Co.KwOnlyArgCount) +
                     ((Co.Flags & CoVarArgs) ? 1 : 0) +
                     ((Co.Flags & CoVarKeywords) ? 1 : 0);
    for (unsigned I = 0; I < NArgs && I < Locals.size(); ++I)
      Locals[I] = sym(symbolForName(Co.LocalsPlusNames[I]));
  }
  static std::string symbolForName(llvm::StringRef N) {
    if (N.consume_front("___stack")) {
      unsigned J;
      if (!N.getAsInteger(10, J))
        return "stack:" + std::to_string(J);
    }
    return "local:" + N.str();
  }

  // --- stepping ---

  /// Runs instructions that cannot run user code until a sync point or the
  /// end. Returns false when the path ended.
  bool advance(unsigned Unroll);
  /// The instruction at Pc is a sync point (may raise or branch, returns).
  bool atSync() const;
  bool isBranch() const;
  /// The literal that makes the branch at Pc taken.
  Lit branchLit();
  /// Executes the sync instruction at Pc, not raising; \p Taken for
  /// branches.
  void execSync(bool Taken);
  /// The instruction at Pc raises.
  void raise(llvm::StringRef Why);
  /// The sync instruction at Pc raises. An exit call that raises has still
  /// exited; an enter that raises has not entered.
  void raiseAtSync();
  /// Whether the sync instruction at Pc may raise, under the assumptions
  /// of docs/prove.md (a manager has __enter__/__exit__, mode-stack
  /// operations succeed).
  bool mayRaiseHere() const;
  std::string syncDesc() const;
  bool CurrentSuppress = false; ///< Explore __exit__ suppressing.
  bool Subsumed = false;        ///< Cut at a loop head whose state repeats.
  static constexpr unsigned SettleIterations = 3;
  bool ModesReplayed = false; ///< Frame: the side-effect replay ran.
  std::map<uint32_t, std::string> LoopHeadState;
  /// What the context properties depend on: active contexts, the tags of
  /// the stack slots and locals.
  std::string abstractState() const {
    // Contexts by their place in the active list, not their label: a with
    // entered again in the next iteration is the same state.
    auto Canon = [&](int32_t L) -> int {
      auto It = llvm::find(Active, L);
      return It == Active.end() ? -2 : int(It - Active.begin());
    };
    std::string S;
    for (int32_t L : Active)
      S += (ctx(L) && ctx(L)->Kind == CtxKind::Mode ? "m" : "w") +
           std::string(",");
    S += "|";
    auto One = [&](const SVal &V) {
      S += std::to_string(int(V.K)) + ":" +
           std::to_string(V.K == Tag::ExitSlot ? Canon(V.Ctx) : -1) + ":" +
           (V.K == Tag::EnterMethod || V.K == Tag::ExitMethod
                ? std::to_string(V.Aux)
                : std::string()) +
           V.Name + ",";
    };
    for (const SVal &V : Stack)
      One(V);
    S += "|";
    for (const auto &L : Locals) {
      if (L)
        One(*L);
      else
        S += "u,";
    }
    return S;
  }
  bool StopAtForwardJump = false; ///< Resume prologue: stop at its jump.
  int64_t BadStep = -1;           ///< Step index of the violation.
  int64_t BreakStep = -1;         ///< Frame: step index at the break.

private:
  void execPlain(const Instruction &I);
  void call(unsigned N);
  void jumpTo(int64_t TargetByte, unsigned Unroll, bool Backward);
  unsigned CurrentUnroll = 2;
};

bool Side::isBranch() const {
  const Instruction &I = inst();
  if (!I.Valid)
    return false;
  return I.info().isConditionalJump();
}

bool Side::atSync() const {
  const Instruction &I = inst();
  if (!I.Valid)
    return false;
  if (isBranch())
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
    return mayRaise(I.op(), I.Arg);
  }
}

bool Side::mayRaiseHere() const {
  const Instruction &I = inst();
  if (isBranch() && !I.is(Opcode::FOR_ITER))
    return false;
  switch (I.op()) {
  case Opcode::RETURN_VALUE:
    return false;
  case Opcode::LOAD_GLOBAL: {
    // The mode-stack module a rewriter imports is there.
    uint32_t N = I.Arg >> 1;
    llvm::StringRef Name =
        N < C->Code->Names.size() ? llvm::StringRef(C->Code->Names[N]) : "";
    // Rewriter-installed globals (the resume function, the compiled graph,
    // imports and helpers) are there.
    return !(Name.contains("modestack") || Name.contains("torch") ||
             Name.startswith("__resume") || Name.startswith("__compiled_fn") ||
             Name.startswith("__import_") || Name.startswith("__pyverify_"));
  }
  case Opcode::LOAD_ATTR:
  case Opcode::LOAD_METHOD: {
    // A manager has __enter__/__exit__; the mode-stack module its functions.
    llvm::StringRef Name = I.Arg < C->Code->Names.size()
                               ? llvm::StringRef(C->Code->Names[I.Arg])
                               : "";
    if (Name == "__enter__" || Name == "__exit__" || Name == "__aenter__" ||
        Name == "__aexit__")
      return false;
    return Stack.empty() || Stack.back().K != Tag::Global ||
           !(llvm::StringRef(Stack.back().Name).contains("modestack") ||
             llvm::StringRef(Stack.back().Name).contains("torch"));
  }
  case Opcode::CALL: {
    // The frame's wrapper setup between the mode replay and the break
    // instruction (context constructors, __enter__) does not raise.
    if (C->IsFrame && ModesReplayed && BreakStep < 0)
      return false;
    if (Stack.size() < I.Arg + 2)
      return true;
    const SVal &First = Stack[Stack.size() - I.Arg - 2];
    const SVal &Second = Stack[Stack.size() - I.Arg - 1];
    const SVal &Callee = First.K == Tag::Null ? Second : First;
    if (Callee.K == Tag::ModeOp)
      return false; // mode-stack operations succeed
    // While the frame holds replayed modes, its wrapper's __enter__ and
    // __exit__ calls succeed (else the mode would leak: no handler covers
    // them in the shape rewriters emit).
    if (C->IsFrame && ModesReplayed &&
        (Callee.K == Tag::EnterMethod || Callee.K == Tag::ExitMethod))
      return false;
    return true;
  }
  default:
    return true;
  }
}

std::string Side::syncDesc() const {
  const Instruction &I = inst();
  if (!I.Valid)
    return "<invalid>";
  if (I.info().isJump())
    return I.name().str();
  return (I.name() + " " + describeArgument(*C->Code, I)).str();
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

void Side::jumpTo(int64_t TargetByte, unsigned Unroll, bool Backward) {
  int64_t T = C->D.Insts.indexAtStart(uint64_t(TargetByte));
  if (T < 0) {
    Unsupported = "jump to a non-instruction";
    End = EndKind::Cut;
    return;
  }
  if (Backward) {
    std::string Sig = abstractState();
    unsigned N = ++BackEdges[uint32_t(T)];
    std::string &Last = LoopHeadState[uint32_t(T)];
    if (N > Unroll && (Sig == Last || N > Unroll + SettleIterations)) {
      End = EndKind::Cut;
      Pc = uint32_t(T); // at the loop head, should the path be resumed
      // The previous iteration started from the same context state: what
      // this one can do with contexts was explored there (its values were
      // already fresh), so the path is covered, not cut. A state still
      // changing (a local assigned for the first time...) gets up to
      // SettleIterations more iterations before the path is cut.
      Subsumed = Sig == Last;
      CutWhy = llvm::formatv("bound: the loop at offset {0} of {1} is "
                             "unrolled {2} time(s) and its context state "
                             "still changes",
                             TargetByte, C->Name, Unroll);
      return;
    }
    Last = Sig;
  }
  Pc = uint32_t(T);
}

void Side::raise(llvm::StringRef Why) {
  event(Why.str());
  const Instruction &I = inst();
  const ExceptionTableEntry *E = lookupHandler(C->D.Table, I.Offset);
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
  int64_t T = C->D.Insts.indexAtStart(E->Target);
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
                (Callee.K == Tag::Global && C->IsFrame &&
                 llvm::StringRef(Callee.Name).startswith("__resume"));
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

void Side::call(unsigned N) {
  std::vector<SVal> Args(N);
  for (unsigned K = N; K-- > 0;)
    Args[K] = pop();
  SVal Second = pop(); // callable or self
  SVal First = pop();  // NULL or method
  const SVal &Callee = First.K == Tag::Null ? Second : First;
  std::vector<SVal> All{First, Second};
  All.insert(All.end(), Args.begin(), Args.end());
  switch (Callee.K) {
  case Tag::ExitSlot:
    exit(Callee.Ctx, "the __exit__ call");
    break;
  case Tag::EnterMethod: {
    // A second __enter__ of the same manager while active: entered twice.
    for (int32_t L : Active)
      if (const CtxRec *R = ctx(L); R && R->Manager == Callee.Aux)
        violate("exactly-once",
                llvm::formatv("__enter__ of the manager of {0} again while "
                              "it is active",
                              describe(L)));
    enter(CtxKind::With, Callee.Aux, false);
    break;
  }
  case Tag::ExitMethod: {
    int32_t Found = -1;
    for (auto It = Active.rbegin(); It != Active.rend(); ++It)
      if (const CtxRec *R = ctx(*It); R && R->Manager == Callee.Aux) {
        Found = *It;
        break;
      }
    if (Found < 0) {
      event("exit of a manager that is not active");
      violate("exactly-once", "an explicit __exit__ call on a manager that "
                              "holds no active context (exit without enter, "
                              "or exited twice)");
    } else {
      exit(Found, "the explicit __exit__ call");
    }
    break;
  }
  case Tag::ModeOp: {
    llvm::StringRef Name = Callee.Name;
    if (Name == "pop" || Name == "_pop_torch_function_stack") {
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
      } else {
        exit(Top, "the mode-stack pop");
      }
    } else if (Name == "push" || Name == "_push_on_torch_function_stack") {
      enter(CtxKind::Mode, std::nullopt, false);
    } else if (Name == "set_stack" || Name == "set_torch_function_mode_stack") {
      bool Restore = N == 1 && Args[0].K == Tag::Plain &&
                     Terms->node(Args[0].T).Op.find("___prev_torch_function") !=
                         std::string::npos;
      if (Restore) {
        // Restoring the saved stack pops every mode pushed by the replay.
        for (auto It = Active.rbegin(); It != Active.rend();) {
          const CtxRec *R = ctx(*It);
          ++It;
          if (R && R->Kind == CtxKind::Mode)
            exit(R->Label, "the mode-stack restore");
        }
      } else {
        // The side-effect replay: one push per claimed mode.
        ModesReplayed = true;
        for (ContextKind K : C->ClaimedKinds)
          if (K == ContextKind::Mode)
            enter(CtxKind::Mode, std::nullopt, true);
      }
    }
    break;
  }
  case Tag::Global:
    if (C->IsFrame && llvm::StringRef(Callee.Name).startswith("__resume")) {
      event("calls the resume function");
      ResumeCalled = true;
      // Only modes may be handed to the resume function, each once.
      for (int32_t L : Active)
        if (const CtxRec *R = ctx(L); R && R->Kind == CtxKind::With)
          violate("exactly-once",
                  llvm::formatv("{0} is still active when the frame calls "
                                "the resume function",
                                describe(L)));
    }
    break;
  default:
    break;
  }
  Stack.push_back(app("call", All, /*Timed=*/true));
}

void Side::execSync(bool Taken) {
  const Instruction &I = inst();
  Opcode Op = I.op();
  if (isBranch()) {
    event(Taken ? "branch taken" : "branch not taken");
    const OpcodeInfo &Info = I.info();
    bool Backward = Info.isBackwardJump();
    switch (Op) {
    case Opcode::JUMP_IF_TRUE_OR_POP:
    case Opcode::JUMP_IF_FALSE_OR_POP:
      if (!Taken)
        pop();
      break;
    case Opcode::FOR_ITER:
      if (Taken)
        pop();
      else
        Stack.push_back(app("next", {Stack.back()}, true));
      break;
    default:
      pop();
      break;
    }
    ++Ordinal;
    if (Taken)
      jumpTo(I.Target, CurrentUnroll, Backward);
    else
      ++Pc;
    return;
  }
  if (Op == Opcode::RETURN_VALUE) {
    pop();
    End = EndKind::Return;
    event("returns");
    return;
  }
  // Instructions with context meaning; the rest by their stack effect.
  switch (Op) {
  case Opcode::BEFORE_WITH: {
    SVal M = pop();
    CtxKind K = CtxKind::With;
    // In a resume prologue, the n-th re-entered context is the n-th claim.
    if (C->IsResume && size_t(NextLabel) < C->ClaimedKinds.size() &&
        C->ClaimedKinds[NextLabel] == ContextKind::Mode)
      K = CtxKind::Mode;
    int32_t L = enter(K, std::nullopt, false);
    SVal X = app("exit_of", {M}, false);
    X.K = Tag::ExitSlot;
    X.Ctx = L;
    Stack.push_back(X);
    Stack.push_back(app("entered", {M}, true));
    break;
  }
  case Opcode::WITH_EXCEPT_START: {
    if (Stack.size() < 4) {
      Unsupported = "WITH_EXCEPT_START on a short stack";
      break;
    }
    const SVal &X = Stack[Stack.size() - 4];
    if (X.K == Tag::ExitSlot) {
      exit(X.Ctx, "WITH_EXCEPT_START");
    } else {
      event("calls a value that is no bound __exit__");
      violate("exactly-once",
              "WITH_EXCEPT_START finds no bound __exit__ at PEEK(4): the "
              "handler calls something else and the context is not exited");
    }
    // Whether the context's __exit__ suppresses: the same choice for the
    // same context (by label) at the same step on both sides.
    Stack.push_back(
        CurrentSuppress
            ? app("suppress",
                  {X.K == Tag::ExitSlot ? sym("ctx:" + std::to_string(X.Ctx))
                                        : X},
                  true)
            : sym("const:False"));
    break;
  }
  case Opcode::CALL:
    call(I.Arg);
    break;
  case Opcode::LOAD_GLOBAL: {
    if (I.Arg & 1)
      Stack.push_back(SVal{Terms->symbol("NULL"), Tag::Null, -1, 0, {}});
    uint32_t NameIdx = I.Arg >> 1;
    std::string Name = NameIdx < C->Code->Names.size() ? C->Code->Names[NameIdx]
                                                       : std::string("?");
    SVal V = app("global:" + Name, {}, true);
    V.K = Tag::Global;
    V.Name = Name;
    Stack.push_back(V);
    break;
  }
  case Opcode::LOAD_ATTR:
  case Opcode::LOAD_METHOD: {
    SVal Obj = pop();
    std::string Name = I.Arg < C->Code->Names.size() ? C->Code->Names[I.Arg]
                                                     : std::string("?");
    SVal V = app("attr:" + Name, {Obj}, true);
    if (Name == "__enter__" || Name == "__aenter__") {
      V.K = Tag::EnterMethod;
      V.Aux = Obj.T;
    } else if (Name == "__exit__" || Name == "__aexit__") {
      V.K = Tag::ExitMethod;
      V.Aux = Obj.T;
    } else if (Obj.K == Tag::Global &&
               (llvm::StringRef(Obj.Name).contains("modestack") ||
                llvm::StringRef(Obj.Name).contains("torch"))) {
      V.K = Tag::ModeOp;
      V.Name = Name;
    }
    Stack.push_back(V);
    if (Op == Opcode::LOAD_METHOD)
      Stack.push_back(Obj);
    break;
  }
  default:
    execPlain(I);
    break;
  }
  ++Ordinal;
  if (End == EndKind::None)
    ++Pc;
}

void Side::execPlain(const Instruction &I) {
  Opcode Op = I.op();
  StackIO E = getStackIO(Op, I.Arg, false);
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
  // The argument as `dis` resolves it (names, constants, locals): code
  // objects number their tables differently.
  std::string OpName = (I.name() + ":" + describeArgument(*C->Code, I)).str();
  for (int64_t K = 0; K < E.Pushes; ++K) {
    std::vector<SVal> A = In;
    A.push_back(sym(std::to_string(K)));
    Stack.push_back(app(OpName, A, /*Timed=*/true));
  }
}

bool Side::advance(unsigned Unroll) {
  CurrentUnroll = Unroll;
  while (End == EndKind::None) {
    if (Unsupported) {
      End = EndKind::Cut;
      CutWhy = "unsupported: " + *Unsupported;
      return false;
    }
    if (Pc >= C->D.Insts.size()) {
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
    if (atSync())
      return true;
    Opcode Op = I.op();
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
    case Opcode::LOAD_FAST: {
      if (I.Arg >= Locals.size() || !Locals[I.Arg]) {
        pushStep();
        std::string Name = I.Arg < C->Code->LocalsPlusNames.size()
                               ? C->Code->LocalsPlusNames[I.Arg]
                               : std::string("?");
        raise("raises UnboundLocalError: '" + Name +
              "' is never assigned here");
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
      Stack.push_back(SVal{Terms->symbol("NULL"), Tag::Null, -1, 0, {}});
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
      // Cannot raise and is not a jump: by its stack effect.
      execPlain(I);
      if (!Unsupported)
        ++Pc;
      break;
    }
  }
  return false;
}

// --- Exploration
// --------------------------------------------------------------

/// Is the path condition plus \p L satisfiable? Literals on atoms already
/// decided are settled without the solver.
struct Feasibility {
  Feasibility(PathSolver &S, std::string Prefix)
      : S(S), Prefix(std::move(Prefix)) {}

  PathSolver &S;
  std::string Prefix;
  unsigned Count = 0;
  bool Unknown = false;
  std::string UnknownWhy;

  bool check(std::vector<Lit> &PC, const Lit &L) {
    for (const Lit &X : PC)
      if (X.K == L.K && X.T == L.T)
        return X.Positive == L.Positive;
    PC.push_back(L);
    SatResult R = S.check(PC, Prefix + ":" + std::to_string(Count++));
    if (R == SatResult::Unknown) {
      Unknown = true;
      UnknownWhy = "rlimit/timeout in the solver";
    }
    if (R == SatResult::Sat)
      return true;
    PC.pop_back();
    return false;
  }
};

ProofStep toProofStep(const Step &S) {
  return {S.Code, S.Offset, S.OpName, llvm::join(S.Events, "; ")};
}

struct ExploreStats {
  uint64_t Paths = 0;
  bool Cut = false;
  std::string CutWhy;
  bool Limit = false;
};

/// exactly-once on one code object: every path from \p Start.
struct SingleExplorer {
  const ProveOptions &O;
  Feasibility &F;
  ExploreStats Stats;
  std::optional<Side> Worst; ///< The shortest violating path.

  void run(Side Start) {
    struct Item {
      Side S;
      std::vector<Lit> PC;
    };
    std::vector<Item> Work;
    Work.push_back({std::move(Start), {}});
    while (!Work.empty()) {
      if (Stats.Paths >= O.MaxPaths) {
        Stats.Limit = true;
        return;
      }
      Item It = std::move(Work.back());
      Work.pop_back();
      Side &S = It.S;
      if (!S.advance(O.Unroll)) {
        finish(S);
        continue;
      }
      S.pushStep();
      if (S.isBranch()) {
        Lit L = S.branchLit();
        // Not taken first (explored first: pushed last).
        for (bool Taken : {true, false}) {
          std::vector<Lit> PC = It.PC;
          Lit X = L;
          X.Positive = Taken ? L.Positive : !L.Positive;
          if (!F.check(PC, X))
            continue;
          Side N = S;
          N.execSync(Taken);
          Work.push_back({std::move(N), std::move(PC)});
        }
        continue;
      }
      if (S.inst().op() == Opcode::RETURN_VALUE) {
        S.execSync(false);
        finish(S);
        continue;
      }
      // May raise: raising (explored second) or continuing.
      if (S.mayRaiseHere()) {
        Side R = S;
        R.Steps.back().Events.clear();
        // An exit call that raises has still exited (docs/prove.md).
        R.raiseAtSync();
        Work.push_back({std::move(R), It.PC});
      }
      S.execSync(false);
      Work.push_back({std::move(S), std::move(It.PC)});
    }
  }

  void finish(Side &S) {
    ++Stats.Paths;
    if (S.End == EndKind::Cut && S.Subsumed && !S.Bad)
      return;
    if (S.End == EndKind::Cut) {
      if (!Stats.Cut) {
        Stats.Cut = true;
        Stats.CutWhy = S.CutWhy;
      }
      return;
    }
    // Modes and ordinary contexts live on different stacks: each sequence
    // must match, their interleaving is not observable.
    auto Count = [](const std::vector<CtxKind> &Ks, CtxKind K) {
      return llvm::count(Ks, K);
    };
    if (!S.Bad && S.C->IsFrame && S.ActiveAtBreak && S.C->ExpectedAtBreak &&
        (Count(*S.ActiveAtBreak, CtxKind::Mode) !=
             Count(*S.C->ExpectedAtBreak, CtxKind::Mode) ||
         Count(*S.ActiveAtBreak, CtxKind::With) !=
             Count(*S.C->ExpectedAtBreak, CtxKind::With))) {
      auto Text = [](const std::vector<CtxKind> &Ks) {
        std::string T;
        for (CtxKind K : Ks)
          T += (T.empty() ? "" : ", ") +
               std::string(K == CtxKind::Mode ? "mode" : "with");
        return "[" + T + "]";
      };
      S.Bad = Violation{
          "matches-eager",
          llvm::formatv("at the break instruction the frame holds {0}, but "
                        "the original holds {1} at break_offset",
                        Text(*S.ActiveAtBreak), Text(*S.C->ExpectedAtBreak))};
      S.BadStep = S.BreakStep;
    }
    if (!S.Bad) {
      // At a frame exit, no context may remain (the frame may hand its
      // modes to the resume function on the normal path).
      std::vector<int32_t> Left;
      for (int32_t L : S.Active) {
        const CtxRec *R = S.ctx(L);
        if (S.C->IsFrame && S.ResumeCalled && R->Kind == CtxKind::Mode)
          continue;
        Left.push_back(L);
      }
      if (!Left.empty()) {
        std::string Names;
        for (int32_t L : Left)
          Names += (Names.empty() ? "" : ", ") + S.describe(L);
        S.violate(
            "exactly-once",
            llvm::formatv("{0} {1} with {2} still active: never "
                          "exited on this path",
                          S.C->Name,
                          S.End == EndKind::Return ? "returns" : "raises out",
                          Names));
      }
    }
    if (S.Bad && (!Worst || S.Steps.size() < Worst->Steps.size()))
      Worst = S;
  }
};

} // namespace

namespace {

/// matches-eager: the original from the resume offset and the resume
/// function after its prologue, one sync point each at a time.
struct PairExplorer {
  const ProveOptions &O;
  Feasibility &F;
  ExploreStats Stats;
  std::optional<Counterexample> Best;

  struct Item {
    Side A, B; ///< Eager, emitted.
    std::vector<Lit> PC;
    std::vector<ProofStep> EA, EB;
  };

  static std::vector<std::string> contextEvents(const Step &S) {
    std::vector<std::string> Out;
    for (const std::string &E : S.Events)
      if (llvm::StringRef(E).startswith("enter ") ||
          llvm::StringRef(E).startswith("exit ") ||
          llvm::StringRef(E).startswith("calls a value"))
        Out.push_back(E);
    return Out;
  }

  /// The events both sides produced since the last product step, folded
  /// into one aligned step each.
  static ProofStep fold(const Side &S, size_t From) {
    if (From >= S.Steps.size())
      return {S.C->Name, S.Steps.empty() ? 0 : S.Steps.back().Offset,
              S.Steps.empty() ? "" : S.Steps.back().OpName, ""};
    std::vector<std::string> Ev;
    for (size_t K = From; K < S.Steps.size(); ++K)
      for (const std::string &E : S.Steps[K].Events)
        Ev.push_back(E);
    const Step &Last = S.Steps[From];
    return {S.C->Name, Last.Offset, Last.OpName, llvm::join(Ev, "; ")};
  }

  void diverge(Item &It, std::string Why) {
    ++Stats.Paths;
    Counterexample C;
    C.Eager = It.EA;
    C.Emitted = It.EB;
    C.Divergence = int32_t(It.EA.size()) - 1;
    if (C.Divergence < 0)
      C.Divergence = 0;
    C.Explanation = std::move(Why);
    if (!Best || C.Eager.size() < Best->Eager.size())
      Best = std::move(C);
  }

  void run(Side A, Side B) {
    std::vector<Item> Work;
    Work.push_back({std::move(A), std::move(B), {}, {}, {}});
    while (!Work.empty()) {
      if (Stats.Paths >= O.MaxPaths) {
        Stats.Limit = true;
        return;
      }
      Item It = std::move(Work.back());
      Work.pop_back();
      size_t FromA = It.A.Steps.size(), FromB = It.B.Steps.size();
      bool SyncA = It.A.advance(O.Unroll), SyncB = It.B.advance(O.Unroll);
      // A side whose loop repeated its state waits for the other: resume it
      // (at its loop head) while the other still settles.
      for (int Round = 0; Round < 4; ++Round) {
        bool CutA = It.A.End == EndKind::Cut, CutB = It.B.End == EndKind::Cut;
        if (CutA == CutB)
          break;
        Side &Waiting = CutA ? It.A : It.B;
        if (!Waiting.Subsumed)
          break;
        Waiting.End = EndKind::None;
        Waiting.Subsumed = false;
        (CutA ? SyncA : SyncB) = Waiting.advance(O.Unroll);
      }
      if (It.A.End == EndKind::Cut && It.B.End == EndKind::Cut &&
          It.A.Subsumed && It.B.Subsumed) {
        ++Stats.Paths; // both loops repeat their context state: covered
        continue;
      }
      if (It.A.End == EndKind::Cut || It.B.End == EndKind::Cut) {
        ++Stats.Paths;
        if (!Stats.Cut) {
          Stats.Cut = true;
          Stats.CutWhy = It.A.End == EndKind::Cut ? It.A.CutWhy : It.B.CutWhy;
        }
        continue;
      }
      if (SyncA)
        It.A.pushStep();
      if (SyncB)
        It.B.pushStep();
      It.EA.push_back(fold(It.A, FromA));
      It.EB.push_back(fold(It.B, FromB));
      if (!SyncA || !SyncB) {
        auto EndText = [](const Side &S) -> std::string {
          switch (S.End) {
          case EndKind::Return:
            return "returns";
          case EndKind::RaiseOut:
            return "raises out";
          default:
            return ("continues at " + llvm::Twine(S.inst().Offset) + " " +
                    S.inst().name())
                .str();
          }
        };
        if (SyncA != SyncB || It.A.End != It.B.End) {
          diverge(It, "the original " + EndText(It.A) +
                          " where the resume function " + EndText(It.B));
          continue;
        }
        if (It.A.Active != It.B.Active) {
          diverge(It, "at the end the original holds " + It.A.activeText() +
                          ", the resume function " + It.B.activeText());
          continue;
        }
        ++Stats.Paths;
        continue;
      }
      std::string DA = It.A.syncDesc(), DB = It.B.syncDesc();
      if (DA != DB) {
        diverge(It, "the original executes " + DA +
                        " where the resume function executes " + DB);
        continue;
      }
      if (It.A.Active != It.B.Active) {
        diverge(It, "before " + DA + " the original holds " +
                        It.A.activeText() + ", the resume function " +
                        It.B.activeText());
        continue;
      }
      auto Compare = [&](Item &N) -> bool {
        // The context events of this step must be the same.
        auto EA = contextEvents(N.A.Steps.back()),
             EB = contextEvents(N.B.Steps.back());
        N.EA.back() = fold(N.A, FromA);
        N.EB.back() = fold(N.B, FromB);
        if (EA != EB) {
          diverge(N, "at " + DA + " the original's context events are [" +
                         llvm::join(EA, ", ") +
                         "] and the resume function's are [" +
                         llvm::join(EB, ", ") + "]");
          return false;
        }
        return true;
      };
      if (It.A.isBranch()) {
        Lit LA = It.A.branchLit(), LB = It.B.branchLit();
        // Explored in this order: not taken, taken, then the mixed ones.
        const std::pair<bool, bool> Order[] = {
            {true, false}, {false, true}, {true, true}, {false, false}};
        for (auto [TA, TB] : Order) {
          std::vector<Lit> PC = It.PC;
          Lit XA = LA, XB = LB;
          XA.Positive = TA ? LA.Positive : !LA.Positive;
          XB.Positive = TB ? LB.Positive : !LB.Positive;
          if (!F.check(PC, XA) || !F.check(PC, XB))
            continue;
          Item N = It;
          N.PC = std::move(PC);
          N.A.execSync(TA);
          N.B.execSync(TB);
          if (TA != TB) {
            N.EA.back() = fold(N.A, FromA);
            N.EB.back() = fold(N.B, FromB);
            diverge(N, "at " + DA + " the original's branch is " +
                           (TA ? "taken" : "not taken") +
                           " and the resume function's is " +
                           (TB ? "taken" : "not taken") +
                           " on the same values");
            continue;
          }
          if (Compare(N))
            Work.push_back(std::move(N));
        }
        continue;
      }
      if (It.A.inst().op() == Opcode::RETURN_VALUE) {
        It.A.execSync(false);
        It.B.execSync(false);
        if (Compare(It))
          Work.push_back(std::move(It));
        continue;
      }
      // Both raise here (explored second), or both continue.
      if (It.A.mayRaiseHere() && It.B.mayRaiseHere()) {
        Item R = It;
        R.A.Steps.back().Events.clear();
        R.B.Steps.back().Events.clear();
        R.A.raiseAtSync();
        R.B.raiseAtSync();
        if (Compare(R))
          Work.push_back(std::move(R));
      }
      It.A.execSync(false);
      It.B.execSync(false);
      if (Compare(It))
        Work.push_back(std::move(It));
    }
  }
};

std::string kindsText(llvm::ArrayRef<ContextKind> Ks) {
  std::string T;
  for (ContextKind K : Ks)
    T += (T.empty() ? "" : ", ") +
         std::string(K == ContextKind::Mode ? "mode" : "with");
  return "[" + T + "]";
}

bool isContextCheck(CheckId Id) {
  switch (Id) {
  case CheckId::ContextNotExited:
  case CheckId::ContextExitedTwice:
  case CheckId::ContextExitOrder:
  case CheckId::ContextExitWithoutEnter:
  case CheckId::WithHandlerMismatch:
    return true;
  default:
    return false;
  }
}

/// well-formed: the dataflow errors other than the context checks.
std::vector<Diagnostic> wellFormedErrors(const CodeInfo &C,
                                         llvm::StringRef File) {
  std::vector<Diagnostic> Out;
  CheckOptions Opts;
  for (const Finding &F : verifyCode(C.D, Opts))
    if (F.Sev == Severity::Error && !isContextCheck(F.Check)) {
      Diagnostic D = makeDiagnostic(F, C.D, File, 0);
      D.Target = C.Name;
      Out.push_back(std::move(D));
    }
  return Out;
}

std::vector<std::string> assumptions(const ProveOptions &O, bool Pair) {
  std::vector<std::string> A;
  if (O.AssumeNoSuppress)
    A.push_back("__exit__ never suppresses an exception (the split contexts "
                "are re-entrant and non-suppressing)");
  A.push_back("an exception raised by an exit call means the exit was called");
  A.push_back("a context manager has __enter__ and __exit__");
  A.push_back("the globals a rewriter installs (resume functions, compiled "
              "graphs, imports, helpers) exist");
  A.push_back("mode-stack operations succeed");
  if (Pair) {
    A.push_back("the resume function receives the original's stack values "
                "and live locals at original_offset");
    A.push_back("the resume prologue does not raise (its context "
                "constructors and re-entries succeed)");
  }
  A.push_back(llvm::formatv("loops unrolled {0} time(s)", O.Unroll));
  return A;
}

/// Fills V/Reason/Property/Cex from one exploration's outcome; a refuted
/// result's reason is its counterexample's explanation.
void conclude(ProofResult &R, const ExploreStats &St, const Feasibility &F,
              std::optional<Counterexample> Cex, llvm::StringRef Property) {
  if (Cex) {
    R.V = Verdict::Refuted;
    R.Property = Property.str();
    R.Reason = Cex->Explanation;
    R.Cex = std::move(Cex);
    return;
  }
  if (St.Limit) {
    R.V = Verdict::Unknown;
    R.Reason = llvm::formatv("path limit ({0} paths)", St.Paths);
    R.Property = Property.str();
    return;
  }
  if (F.Unknown) {
    R.V = Verdict::Unknown;
    R.Reason = "solver: " + F.UnknownWhy;
    R.Property = Property.str();
    return;
  }
  if (St.Cut) {
    R.V = Verdict::Unknown;
    R.Reason = St.CutWhy;
    R.Property = Property.str();
    return;
  }
}

Counterexample singleCex(const Side &S, const std::vector<ProofStep> &Eager) {
  Counterexample C;
  C.Eager = Eager;
  for (const Step &St : S.Steps)
    C.Emitted.push_back(toProofStep(St));
  C.Divergence =
      int32_t(S.BadStep >= 0 ? S.BadStep : int64_t(S.Steps.size()) - 1);
  if (C.Divergence < 0)
    C.Divergence = 0;
  C.Explanation = S.Bad ? S.Bad->Explanation : "";
  return C;
}

struct Prover {
  const ProveOptions &O;
  std::string File;

  /// exactly-once (and, for a frame, the break check) on one code object.
  void exactlyOnce(CodeInfo &C, ProofResult &R, PathSolver &S, TermTable &Terms,
                   const std::vector<ProofStep> &Eager, int64_t BreakIndex) {
    Feasibility F{S, "feasible:" + C.Name + ":exactly-once"};
    SingleExplorer X{O, F, {}, {}};
    Side Start(C, Terms);
    Start.CurrentSuppress = !O.AssumeNoSuppress;
    Start.bindParameters();
    Start.BreakIndex = BreakIndex;
    X.run(std::move(Start));
    R.Paths += X.Stats.Paths;
    R.Queries += F.Count;
    std::optional<Counterexample> Cex;
    std::string Prop;
    if (X.Worst) {
      Prop = X.Worst->Bad->Property;
      Cex = singleCex(
          *X.Worst, Prop == "matches-eager" ? Eager : std::vector<ProofStep>{});
      // The counterexample path must be feasible on its own too.
    }
    conclude(R, X.Stats, F, std::move(Cex), Prop);
  }

  ProofResult start(const CodeInfo &C) {
    ProofResult R;
    R.File = File;
    R.Target = C.Name;
    return R;
  }

  void finishTiming(ProofResult &R, PathSolver &S,
                    std::chrono::steady_clock::time_point T0) {
    R.RlimitUsed = S.rlimitUsed();
    R.Seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
            .count();
    if (R.V == Verdict::Unknown && R.Reason.empty() && R.Cex == std::nullopt &&
        R.Property.empty())
      R.V = Verdict::Proved;
  }
};

/// Which locals of \p Code are assigned on every path (Must) and on some
/// path (May) to instruction \p At: forward dataflow over the CFG (exception
/// edges carry the raising block's entry state for Must, everything the
/// block may store for May).
struct Assigned {
  llvm::BitVector Must, May;
};
Assigned assignedBefore(const CFG &G, const CodeObject &Code, uint32_t At) {
  const InstructionStream &Insts = G.code().Insts;
  size_t N = Code.LocalsPlusNames.size();
  unsigned NArgs = unsigned(Code.ArgCount + Code.KwOnlyArgCount) +
                   ((Code.Flags & CoVarArgs) ? 1 : 0) +
                   ((Code.Flags & CoVarKeywords) ? 1 : 0);
  size_t NB = G.blocks().size();
  std::vector<std::optional<Assigned>> In(NB);
  Assigned Entry{llvm::BitVector(N), llvm::BitVector(N)};
  for (unsigned I = 0; I < NArgs && I < N; ++I) {
    Entry.Must.set(I);
    Entry.May.set(I);
  }
  auto Transfer = [&](Assigned S, uint32_t From, uint32_t To) {
    for (uint32_t I = From; I < To; ++I) {
      const Instruction &In_ = Insts[I];
      if (!In_.Valid || In_.Arg >= N)
        continue;
      if (In_.is(Opcode::STORE_FAST)) {
        S.Must.set(In_.Arg);
        S.May.set(In_.Arg);
      } else if (In_.is(Opcode::DELETE_FAST)) {
        S.Must.reset(In_.Arg);
      }
    }
    return S;
  };
  In[G.entry().Id] = Entry;
  std::vector<unsigned> Work{G.entry().Id};
  while (!Work.empty()) {
    unsigned B = Work.back();
    Work.pop_back();
    const BasicBlock &Blk = G.blocks()[B];
    Assigned Out = Transfer(*In[B], Blk.Begin, Blk.End);
    for (unsigned EI : Blk.Succs) {
      const CFGEdge &E = G.edge(EI);
      Assigned S = Out;
      if (E.isException()) {
        S.Must = Transfer(*In[B], Blk.Begin, Blk.Begin).Must;
        for (uint32_t I = Blk.Begin; I < Blk.End; ++I)
          if (Insts[I].is(Opcode::DELETE_FAST) && Insts[I].Arg < N)
            S.Must.reset(Insts[I].Arg);
      }
      std::optional<Assigned> &T = In[E.Target];
      if (!T) {
        T = S;
        Work.push_back(E.Target);
        continue;
      }
      llvm::BitVector Must = T->Must, May = T->May;
      Must &= S.Must;
      May |= S.May;
      if (Must != T->Must || May != T->May) {
        T = Assigned{Must, May};
        Work.push_back(E.Target);
      }
    }
  }
  uint32_t B = G.blockOf(At);
  if (!In[B])
    return Entry;
  return Transfer(*In[B], G.blocks()[B].Begin, At);
}

CodeInfo makeInfo(std::string Name, const CodeObject &Code) {
  CodeInfo C;
  C.Name = std::move(Name);
  C.Code = &Code;
  C.D = DecodedCode::decode(Code);
  return C;
}

std::vector<CtxKind> toCtxKinds(llvm::ArrayRef<ContextKind> Ks) {
  std::vector<CtxKind> Out;
  for (ContextKind K : Ks)
    Out.push_back(K == ContextKind::Mode ? CtxKind::Mode : CtxKind::With);
  return Out;
}

} // namespace

std::vector<ProofResult> pyverify::proveBundle(const Bundle &B,
                                               const ProveOptions &O) {
  std::vector<ProofResult> Out;
  Prover P{O, B.Path};
  CodeInfo Orig = makeInfo("original", *B.Original);
  bool OrigOk = wellFormedErrors(Orig, B.Path).empty();
  std::vector<ContextKind> FrameKinds;
  if (!B.Resumes.empty())
    for (const BundleContext &Cx : B.Resumes[0].Contexts)
      FrameKinds.push_back(Cx.Kind);

  // --- the frame ---
  if (B.Frame) {
    auto T0 = std::chrono::steady_clock::now();
    CodeInfo Fr = makeInfo("frame", *B.Frame);
    Fr.IsFrame = true;
    Fr.ClaimedKinds = FrameKinds;
    ProofResult R = P.start(Fr);
    R.Assumptions = assumptions(O, false);
    if (llvm::is_contained(FrameKinds, ContextKind::Mode))
      R.Assumptions.push_back(
          "the frame's wrapper code while modes are replayed (context "
          "constructors before the break instruction, __enter__ and "
          "__exit__ calls) does not raise");
    TermTable Terms;
    PathSolver S(Terms, O.Rlimit, O.TimeoutMs);
    R.Findings = wellFormedErrors(Fr, B.Path);
    if (!R.Findings.empty()) {
      R.V = Verdict::Refuted;
      R.Property = "well-formed";
      R.Reason = llvm::formatv("{0} dataflow error(s), first: {1} [{2}]",
                               R.Findings.size(), R.Findings[0].Message,
                               getCheckName(R.Findings[0].Check));
    } else {
      // The break instruction: the frame's instruction like the original's
      // at break_offset (same opcode and argument), at the same source
      // position when there are several.
      int64_t BreakIndex = -1;
      std::vector<ProofStep> Eager;
      int64_t OI = Orig.D.Insts.indexAtStart(B.BreakOffset);
      if (OI >= 0 && OrigOk) {
        const Instruction &OB = Orig.D.Insts[OI];
        std::vector<int64_t> Cands;
        for (size_t K = 0; K < Fr.D.Insts.size(); ++K) {
          const Instruction &FI = Fr.D.Insts[K];
          if (FI.Valid && OB.Valid && FI.OpByte == OB.OpByte &&
              FI.Arg == OB.Arg)
            Cands.push_back(int64_t(K));
        }
        if (Cands.size() > 1) {
          Position Want = Orig.D.positionAt(OB.Offset);
          std::vector<int64_t> Same;
          for (int64_t K : Cands)
            if (Fr.D.positionAt(Fr.D.Insts[K].Offset) == Want)
              Same.push_back(K);
          Cands = Same;
        }
        if (Cands.size() == 1)
          BreakIndex = Cands[0];
        auto Active = activeWithContexts(*B.Original, B.BreakOffset);
        if (Active && BreakIndex >= 0) {
          std::vector<ContextKind> Ks;
          for (size_t K = 0; K < Active->size(); ++K)
            Ks.push_back(K < FrameKinds.size() &&
                                 Active->size() == FrameKinds.size()
                             ? FrameKinds[K]
                             : ContextKind::With);
          Fr.ExpectedAtBreak = toCtxKinds(Ks);
          Eager.push_back({"original", OB.Offset, OB.name().str(),
                           "break instruction; active " + kindsText(Ks)});
        } else if (Active) {
          // Without the break instruction only exactly-once is checked.
        } else {
          llvm::consumeError(Active.takeError());
        }
      }
      P.exactlyOnce(Fr, R, S, Terms, Eager, BreakIndex);
      if (R.V != Verdict::Refuted && BreakIndex < 0 && OrigOk) {
        R.V = Verdict::Unknown;
        R.Property = "matches-eager";
        R.Reason = "cannot locate the break instruction in the frame";
      }
    }
    P.finishTiming(R, S, T0);
    Out.push_back(std::move(R));
  }

  // --- each resume function ---
  for (size_t RI = 0; RI < B.Resumes.size(); ++RI) {
    const BundleResume &Res = B.Resumes[RI];
    auto T0 = std::chrono::steady_clock::now();
    CodeInfo Rc = makeInfo("resume:" + std::to_string(RI), *Res.Code);
    Rc.IsResume = true;
    for (const BundleContext &Cx : Res.Contexts)
      Rc.ClaimedKinds.push_back(Cx.Kind);
    ProofResult R = P.start(Rc);
    R.Assumptions = assumptions(O, true);
    TermTable Terms;
    PathSolver S(Terms, O.Rlimit, O.TimeoutMs);
    R.Findings = wellFormedErrors(Rc, B.Path);
    if (!R.Findings.empty()) {
      R.V = Verdict::Refuted;
      R.Property = "well-formed";
      R.Reason = llvm::formatv("{0} dataflow error(s), first: {1} [{2}]",
                               R.Findings.size(), R.Findings[0].Message,
                               getCheckName(R.Findings[0].Check));
      P.finishTiming(R, S, T0);
      Out.push_back(std::move(R));
      continue;
    }
    P.exactlyOnce(Rc, R, S, Terms, {}, -1);
    if (R.V == Verdict::Unknown && R.Cex) {
      // refuted already set by conclude()
    }
    if (R.V != Verdict::Refuted) {
      // matches-eager.
      std::string Why;
      int64_t OI = Orig.D.Insts.indexAtStart(Res.OriginalOffset);
      Orig.ClaimedKinds = Rc.ClaimedKinds;
      if (!OrigOk) {
        Why = "the original is not well-formed";
      } else if (OI < 0) {
        Why = "original_offset is not an instruction start";
      }
      Side B2(Rc, Terms);
      B2.CurrentSuppress = !O.AssumeNoSuppress;
      B2.bindParameters();
      B2.StopAtForwardJump = true;
      std::string PrologueWhy;
      while (Why.empty()) {
        if (!B2.advance(O.Unroll)) {
          Why = "the resume function ends in its prologue";
          break;
        }
        const Instruction &I = B2.inst();
        if (I.is(Opcode::JUMP_FORWARD)) {
          B2.pushStep("jumps into the body");
          int64_t T = Rc.D.Insts.indexAtStart(uint64_t(I.Target));
          if (T < 0) {
            Why = "the prologue jumps to a non-instruction";
            break;
          }
          B2.Pc = uint32_t(T);
          B2.StopAtForwardJump = false;
          break;
        }
        if (B2.isBranch()) {
          Why = "a conditional branch in the resume prologue";
          break;
        }
        B2.pushStep();
        B2.execSync(false);
      }
      if (Why.empty()) {
        // O at original_offset with the resume function's values.
        CFG G = CFG::build(Orig.D);
        auto Depth = computeStackDepth(G);
        auto Active = activeWithContexts(*B.Original, Res.OriginalOffset);
        if (!Depth || !Active) {
          if (!Depth)
            llvm::consumeError(Depth.takeError());
          if (!Active)
            llvm::consumeError(Active.takeError());
          Why = "no stack depth / contexts for the original at the offset";
        } else if (!Depth->Before[OI]) {
          Why = "original_offset is unreachable in the original";
        } else {
          Side A(Orig, Terms);
          A.CurrentSuppress = !O.AssumeNoSuppress;
          // The original's locals at p: bound when assigned on every path
          // there; unbound when on none; when on some paths only, as the
          // resume function receives them (the rewriter's reading).
          A.initLocals();
          Assigned AS = assignedBefore(G, *B.Original, uint32_t(OI));
          for (size_t K = 0; K < A.Locals.size(); ++K) {
            const std::string &Name = B.Original->LocalsPlusNames[K];
            bool Bound = AS.Must.test(K);
            if (!Bound && AS.May.test(K)) {
              int64_t RK = B2.localIndex(Name);
              Bound = RK >= 0 && B2.Locals[RK].has_value();
            }
            if (Bound)
              A.Locals[K] = A.sym(Side::symbolForName(Name));
          }
          A.Pc = uint32_t(OI);
          int64_t D = *Depth->Before[OI];
          for (size_t K = 0; K < Active->size(); ++K) {
            CtxKind Kd = K < Rc.ClaimedKinds.size() &&
                                 Rc.ClaimedKinds[K] == ContextKind::Mode
                             ? CtxKind::Mode
                             : CtxKind::With;
            A.Ctxs.push_back({int32_t(K), Kd, std::nullopt, false});
            A.Active.push_back(int32_t(K));
          }
          A.NextLabel = int32_t(Active->size());
          for (int64_t J = 0; J < D; ++J) {
            int32_t Ctx = -1;
            for (size_t K = 0; K < Active->size(); ++K)
              if ((*Active)[K].StackIndex == uint32_t(J))
                Ctx = int32_t(K);
            if (Ctx >= 0) {
              // The same bound __exit__ value as the resume function's.
              SVal X =
                  size_t(J) < B2.Stack.size() && B2.Stack[J].K == Tag::ExitSlot
                      ? B2.Stack[J]
                      : A.sym("exit_slot:" + std::to_string(J));
              X.K = Tag::ExitSlot;
              X.Ctx = Ctx;
              A.Stack.push_back(X);
            } else if (size_t(J) < B2.Stack.size() &&
                       B2.Stack[J].K != Tag::ExitSlot) {
              A.Stack.push_back(B2.Stack[J]); // the value passed in
            } else {
              A.Stack.push_back(A.sym("stack:" + std::to_string(J)));
            }
          }
          // The body must start with the original's instruction at p.
          std::string DA = A.syncDesc(), DB = B2.syncDesc();
          Feasibility F{S, "feasible:" + Rc.Name + ":matches-eager"};
          // Values computed from here on are stamped from 0 on both sides.
          A.Ordinal = B2.Ordinal = 0;
          if (DA != DB) {
            Counterexample C;
            C.Eager.push_back(
                {"original", A.inst().Offset, A.inst().name().str(), ""});
            C.Emitted.push_back(
                {Rc.Name, B2.inst().Offset, B2.inst().name().str(), ""});
            C.Explanation = "the resume body does not start with the "
                            "original's instruction at original_offset: " +
                            DA + " vs " + DB;
            conclude(R, {}, F, std::move(C), "matches-eager");
          } else {
            B2.Steps.clear();
            PairExplorer X{O, F, {}, {}};
            X.run(std::move(A), std::move(B2));
            R.Paths += X.Stats.Paths;
            R.Queries += F.Count;
            conclude(R, X.Stats, F, std::move(X.Best), "matches-eager");
          }
        }
      }
      if (!Why.empty() && R.V != Verdict::Refuted) {
        R.V = Verdict::Unknown;
        R.Property = "matches-eager";
        R.Reason = Why;
      }
    }
    P.finishTiming(R, S, T0);
    Out.push_back(std::move(R));
  }

  // A bundle with neither frame nor resumes: exactly-once on the original.
  if (!B.Frame && B.Resumes.empty()) {
    auto T0 = std::chrono::steady_clock::now();
    ProofResult R = P.start(Orig);
    R.Assumptions = assumptions(O, false);
    TermTable Terms;
    PathSolver S(Terms, O.Rlimit, O.TimeoutMs);
    R.Findings = wellFormedErrors(Orig, B.Path);
    if (!R.Findings.empty()) {
      R.V = Verdict::Refuted;
      R.Property = "well-formed";
      R.Reason = llvm::formatv("{0} dataflow error(s), first: {1} [{2}]",
                               R.Findings.size(), R.Findings[0].Message,
                               getCheckName(R.Findings[0].Check));
    } else {
      P.exactlyOnce(Orig, R, S, Terms, {}, -1);
    }
    P.finishTiming(R, S, T0);
    Out.push_back(std::move(R));
  }
  return Out;
}

std::vector<ProofResult> pyverify::proveCodeFile(const CodeFile &F,
                                                 const ProveOptions &O) {
  std::vector<ProofResult> Out;
  uint32_t Index = 0;
  for (const auto &Root : F.Roots)
    forEachCodeObject(*Root, [&](const CodeObject &C, unsigned) {
      Bundle B;
      B.Path = F.Path;
      B.Original = std::shared_ptr<const CodeObject>(Root, &C);
      std::vector<ProofResult> Rs = proveBundle(B, O);
      for (ProofResult &R : Rs) {
        R.Target = Index == 0 ? "original" : "code:" + std::to_string(Index);
        Out.push_back(std::move(R));
      }
      ++Index;
    });
  return Out;
}
