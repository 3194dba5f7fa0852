//===- SymbolicFrame.h - One code object run symbolically --------*- C++
//-*-===//
//
// Contract (private to lib/SMT): a Side is one code object executed on
// symbolic values -- the real operand stack (getStackIO), the locals
// (assigned or not), the contexts it holds (its context ledger), the steps
// taken. Values are uninterpreted terms (TermTable): an operation is its
// operationKey() (opcode, raw argument where it is a value, resolved operand
// where it indexes a table) applied to its inputs, stamped with the index of
// the observable step when it may run user code. A Side runs freely over
// instructions that cannot run user code (advance) and stops at a sync point
// (a branch, an instruction that may raise, a return), where an explorer
// decides the outcome (execSync, raiseAtSync). Which globals exist and what
// calling them does comes from Environment.def; an approximation a path
// rests on is recorded on it (approximate()). Definitions: SymbolicFrame.cpp
// (sync points, raises), MicroStep.cpp (stepping micro-operations),
// FrameContexts.cpp (context events), LoopBound.cpp (back edges).
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_LIB_SMT_SYMBOLICFRAME_H
#define PYVERIFY_LIB_SMT_SYMBOLICFRAME_H

#include "SharedPrefixVector.h"
#include "pyverify/Analysis/CodeAnalysis.h"
#include "pyverify/Analysis/ContextEvents.h"
#include "pyverify/Analysis/Environment.h"
#include "pyverify/Analysis/MicroOps.h"
#include "pyverify/Bytecode/Bundle.h"
#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Bytecode/Listing.h"
#include "pyverify/SMT/Solver.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pyverify::smt::prover {

/// What a stack slot or local holds, beyond its term.
enum class Tag : uint8_t {
  Plain,
  Null,
  ExitSlot,     ///< The bound __exit__ pushed by BEFORE_WITH (Ctx), or
                ///< 3.14's __exit__ its with's enter made one.
  LoadedExit,   ///< 3.14: __exit__ LOAD_SPECIAL loaded, its with not
                ///< entered (yet); the manager's term in Aux.
  WithEnter,    ///< 3.14: __enter__ LOAD_SPECIAL loaded (Aux: manager).
  EnterMethod,  ///< m.__enter__ (Manager term in Aux).
  ExitMethod,   ///< m.__exit__.
  ModeOp,       ///< A mode-stack operation (Mode: what it does).
  Global,       ///< A global's value (Name; Env: the rewriter's entry).
  SavedModes,   ///< What a GetStack operation returned: the stack then.
  GraphOutput,  ///< A compiled graph's result, or an element of it.
  ModeList,     ///< BUILD_LIST / BUILD_TUPLE of Len values (Exact: all
                ///< GraphOutput): a replay's list of modes.
  NoEnterClass, ///< A no-op-enter mode class of Environment.def, or an
                ///< instance of it (the result of calling it).
};

/// What the frame hands the resume function for a parameter, over the
/// frame's paths (bits of SVal::Handed; docs/prove.md, "The hand-over").
enum HandedBits : uint8_t {
  HandedNoEnter = 1,  ///< A no-op-enter mode class: re-entering takes over.
  HandedEnters = 2,   ///< Any other value: re-entering it enters / pushes.
  HandedUntraced = 4, ///< Not known (no frame, or not every path explored).
};

struct SVal {
  TermId T = 0;
  Tag K = Tag::Plain;
  int32_t Ctx = -1; ///< ExitSlot: context label.
  TermId Aux = 0;   ///< Enter/ExitMethod: the manager's term.
  /// ModeOp / Global: the name (a view of the code object's names);
  /// LoadedExit / WithEnter: the special method's.
  llvm::StringRef Name;
  const EnvGlobal *Env = nullptr; ///< Global: its Environment.def entry.
  std::optional<ModeEffect> Mode; ///< ModeOp: its effect.
  uint32_t Len = 0;               ///< ModeList: its length.
  bool Exact = false;             ///< ModeList: every element is GraphOutput.
  /// A resume-function parameter, or a value called from one: what the
  /// frame passes for it (HandedBits); 0 for any other value.
  uint8_t Handed = 0;
  int16_t Param = -1; ///< With Handed: the parameter's index.
};

/// The operation an instruction performs, as a term's function symbol:
/// its opcode, its raw argument where that is a value (a count, an operator,
/// a flag: IS_OP 0 and IS_OP 1 are different operations) and its resolved
/// operand where the argument indexes a table (names, constants, locals;
/// code objects number their tables differently). Jump distances are left
/// out: control flow is compared by the explorer, not by terms.
std::string operationKey(const CodeObject &Code, const Instruction &I);

enum class CtxKind : uint8_t { With, Mode };

struct CtxRec {
  int32_t Label;
  CtxKind Kind;
  std::optional<TermId> Manager; ///< Explicit m.__enter__() contexts.
  bool FromReplay = false;       ///< A mode pushed by the side-effect replay.
  bool Statement = false;        ///< A with statement's (withEnterAt).
  /// Statement: the stack slot its bound __exit__ was pushed to.
  int64_t EnterSlot = -1;
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
  /// Its analyses (decode, CFG, depths, block stack, contexts), each run
  /// once and shared by every property and every use below.
  std::unique_ptr<CodeAnalysis> Analysis;
  const DecodedCode &D() const { return Analysis->decoded(); }
  std::vector<ContextKind> ClaimedKinds; ///< For prologue BEFORE_WITHs.
  bool IsFrame = false;
  bool IsResume = false;
  /// Which explicit enters and exits are events (isTrackedManagerAttribute).
  CodeRole Role = CodeRole::Plain;
  /// Frame: the kinds of the contexts the original holds at break_offset.
  std::optional<std::vector<CtxKind>> ExpectedAtBreak;
  /// Resume function: per parameter, what the frame passes (HandedBits),
  /// how it was described, and why it is untraced where it is.
  std::vector<uint8_t> ParamHanded;
  std::vector<std::string> ParamHandedText;
  std::string HandedWhy;
};

/// What a frame passes, over its explored paths, in its calls of the resume
/// function for \p original_offset (HandedBits per argument, with the first
/// description of a value that enters).
struct HandOff {
  std::vector<uint8_t> Bits;
  std::vector<std::string> Text;
};

struct Step {
  std::string Code;
  uint32_t Offset;
  llvm::StringRef OpName; ///< The opcode table's name.
  llvm::SmallVector<std::string, 2> Events;
  std::optional<int32_t> Line;
};

/// The complexity budget of one proof, like the eBPF verifier's: the
/// instructions its sides execute (step(); one that pushes N > 1 values
/// counts N, so the terms made per step are bounded) and the paths its
/// explorers hold at once (hold()), counted, never timed, so an input stops at
/// the same place on every machine and every run. Once over either, it stays
/// exceeded: every side's advance() ends its path (cut) and every explorer
/// stops, and the result is unknown with Exceeded as its reason.
struct Budget {
  uint64_t MaxSteps;
  uint64_t MaxStates;
  uint64_t Steps = 0;
  uint64_t PeakStates = 0;
  std::string Exceeded; ///< Why the proof stopped ("" while within).

  bool exceeded() const { return !Exceeded.empty(); }
  /// \p N more steps; false once over the budget.
  bool step(uint64_t N = 1) {
    Steps += N;
    if (Steps > MaxSteps && !exceeded())
      Exceeded = llvm::formatv("budget: over --max-steps={0} (instructions "
                               "executed): not every path was explored",
                               MaxSteps);
    return !exceeded();
  }
  /// \p States paths (or path pairs) held; false once over the budget.
  bool hold(uint64_t States) {
    PeakStates = std::max(PeakStates, States);
    if (States > MaxStates && !exceeded())
      Exceeded = llvm::formatv("budget: over --max-states={0} (paths held "
                               "for exploration): not every path was explored",
                               MaxStates);
    return !exceeded();
  }
};

/// Whether \p I is a sync point of the explorers: a branch, RETURN_VALUE,
/// or an instruction that may raise (the prover's raise exceptions aside).
/// Side::atSync() at the current instruction; the replay's step list too.
bool isSyncInstruction(const Instruction &I);
/// Whether \p I returns (RETURN_VALUE, RETURN_CONST).
bool returns(const Instruction &I);
/// Whether \p I always raises (RERAISE, RAISE_VARARGS).
bool raisesAlways(const Instruction &I);

class Side {
public:
  Side(const CodeInfo &C, TermTable &Terms, Budget &Bud)
      : C(&C), Terms(&Terms), Bud(&Bud) {}

  const CodeInfo *C;
  TermTable *Terms;
  Budget *Bud; ///< The proof's, shared by every fork of every path.
  uint32_t Pc = 0;
  std::vector<SVal> Stack;
  std::vector<std::optional<SVal>> Locals;
  std::map<std::string, SVal> Cells;
  std::vector<CtxRec> Ctxs; ///< Every context entered on this path.
  std::vector<int32_t> Active;
  int32_t NextLabel = 0;
  /// Times each loop head (instruction index) was reached by a back edge.
  llvm::DenseMap<uint32_t, unsigned> BackEdges;
  EndKind End = EndKind::None;
  std::string CutWhy;
  std::optional<Violation> Bad;
  SharedPrefixVector<Step> Steps; ///< Shared with the forks of this path.
  unsigned Ordinal = 0; ///< Observable steps so far (values' time stamps).
  bool ResumeCalled = false;
  /// Frame: the arguments of its resume call on this path (HandedBits per
  /// argument, a description each) and the original offset the resume
  /// global names.
  std::optional<std::pair<uint32_t, HandOff>> Handed;
  /// Why this path cannot be proved even without a violation (a value the
  /// proof depends on cannot be traced); set with an approximation.
  std::string Unsettled;
  int64_t BreakIndex = -1; ///< Frame: the break instruction.
  std::optional<std::vector<CtxKind>> ActiveAtBreak;
  std::optional<std::string> Unsupported;
  /// Approximations this path rests on (recorded where they are made): a
  /// violation on such a path is "unknown", not "refuted".
  std::vector<std::string> Approximations;
  /// Values whose truth test succeeded on this path (TestedBefore).
  llvm::SmallVector<TermId, 4> TruthTested;
  /// Contexts a tier raise left entered where CPython's compiler leaves
  /// them too (isOutsideCompiledWithBody): not a violation of this path.
  llvm::SmallVector<int32_t, 2> Abandoned;
  /// Raise tiers (ProveOptions): explored at with-body instructions.
  bool TierTracing = false, TierEvalBreaker = false;
  /// advance() stopped at a tier point: TierOffsets are where a raise
  /// there is looked up, TierAbandon the contexts it would leave entered
  /// as CPython does.
  bool AtTier = false;
  llvm::SmallVector<uint32_t, 2> TierOffsets;
  llvm::SmallVector<int32_t, 2> TierAbandon;
  uint32_t TierDonePc = UINT32_MAX; ///< The tier point already forked.
  /// Whether the instruction at Pc is a tier point; fills TierOffsets and
  /// TierAbandon.
  bool tierPoint();
  /// A tier raise at Pc, looked up at \p Offset.
  void raiseTier(uint32_t Offset);
  /// Everything the rest of a path depends on, right after a raise: where
  /// it goes on, the stack (the raised exception and lasti by kind only:
  /// each raise makes fresh ones), locals, cells, contexts, loop counts,
  /// the values tested, the path condition \p PC. Two raises with the same
  /// key go on the same way: an explorer explores one.
  uint64_t raisedStateKey(llvm::ArrayRef<Lit> PC) const;
  void approximate(std::string Why) {
    if (!llvm::is_contained(Approximations, Why))
      Approximations.push_back(std::move(Why));
  }

  const Instruction &inst() const { return C->D().Insts[Pc]; }

  // --- values ---
  SVal plain(TermId T) const {
    SVal V;
    V.T = T;
    return V;
  }
  /// The NULL that PUSH_NULL, LOAD_GLOBAL (arg & 1) and LOAD_METHOD push.
  SVal null() const {
    SVal V = plain(Terms->symbol("NULL"));
    V.K = Tag::Null;
    return V;
  }
  SVal sym(llvm::StringRef Name) { return plain(Terms->symbol(Name)); }
  SVal app(llvm::StringRef Op, llvm::ArrayRef<SVal> Args, bool Timed) {
    llvm::SmallVector<TermId, 8> A;
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

  int32_t enter(CtxKind K, std::optional<TermId> Manager, bool Replay,
                bool Statement = false) {
    int32_t L = NextLabel++;
    Ctxs.push_back({L, K, Manager, Replay, Statement,
                    Statement ? int64_t(Stack.size()) : -1});
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
      if (const CtxRec *R = ctx(*Later);
          R && R->Kind == K && !llvm::is_contained(Abandoned, *Later)) {
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
    Steps.push_back(
        {C->Name, I.Offset, I.name(), {}, C->D().positionAt(I.Offset).Line});
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
    for (unsigned I = 0; I < NArgs && I < Locals.size(); ++I) {
      Locals[I] = sym(symbolForName(Co.LocalsPlusNames[I]));
      // A resume function's parameters carry what the frame passes.
      if (I < C->ParamHanded.size()) {
        Locals[I]->Handed = C->ParamHanded[I];
        Locals[I]->Param = int16_t(I);
      }
    }
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
  /// end. Returns false when the path ended (cut when over the budget: each
  /// instruction, the sync point's included, is one step of Bud).
  bool advance(unsigned Unroll);
  /// Executes the instruction at Pc, not a sync point (after a tier fork).
  void stepOver() { exec(inst(), /*Sync=*/false); }
  /// The instruction at Pc is a sync point (may raise or branch, returns).
  bool atSync() const;
  bool isBranch() const;
  /// The literal that makes the branch at Pc taken.
  Lit branchLit();
  /// Executes the sync instruction at Pc, not raising; \p Taken for
  /// branches.
  void execSync(bool Taken);
  /// The instruction at Pc raises (looked up at \p At, default its
  /// offset).
  void raise(llvm::StringRef Why, std::optional<uint32_t> At = std::nullopt);
  /// The sync instruction at Pc raises. An exit call that raises has still
  /// exited; an enter that raises has not entered.
  void raiseAtSync();
  /// Whether the sync instruction at Pc may raise: the one raise model
  /// (RaiseModel.h) with the facts this path knows (docs/prove.md: a
  /// manager has __enter__/__exit__, rewriter globals exist, mode-stack
  /// operations succeed, the replayed wrapper does not raise). Branches
  /// included: a truth test or FOR_ITER's next may raise.
  bool mayRaiseHere() const;
  /// Whether the truth test of \p T runs no user code: a constant, or a
  /// bool made by IS_OP, CONTAINS_OP, UNARY_NOT, CHECK_EXC_MATCH.
  bool isBuiltinTruthValue(TermId T) const;
  std::string syncDesc() const;
  bool CurrentSuppress = false; ///< Explore __exit__ suppressing.
  bool Subsumed = false;        ///< Cut at a loop head whose state repeats.
  static constexpr unsigned SettleIterations = 3;
  bool ModesReplayed = false; ///< Frame: the side-effect replay ran.
  /// Each loop head's abstractState() at its last arrival (shared by the
  /// forks of the path: copying a path copies no state text).
  llvm::DenseMap<uint32_t, std::shared_ptr<const std::string>> LoopHeadState;
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
           (V.K == Tag::EnterMethod || V.K == Tag::ExitMethod ||
                    V.K == Tag::LoadedExit || V.K == Tag::WithEnter
                ? std::to_string(V.Aux)
                : std::string()) +
           V.Name.str() + ",";
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
  friend struct MicroStepper;
  /// Executes \p I's micro-operations (MicroOps.h), then moves Pc on
  /// (\p Sync: a sync point, one observable step).
  void exec(const Instruction &I, bool Sync);
  /// One micro-operation of \p I; false when the path left \p I (raised,
  /// returned, or cannot go on: Unsupported).
  bool execOp(const Instruction &I, const MicroOp &Op);
  /// A micro-operation that makes values of its inputs (operationKey terms).
  void execValue(const Instruction &I, const MicroOp &Op);
  std::string localName(uint32_t Local) const;
  /// The callable slot of \p Cl on the current stack; null when short.
  const SVal *calleeOf(const uop::Call &Cl) const;
  void execBranch(bool Taken);
  // Values and context events (FrameContexts.cpp).
  void call(const uop::Call &Cl);
  void loadGlobal(uint32_t NameIdx);
  void loadAttribute(uint32_t NameIdx, bool Method);
  void loadSpecial(uop::SpecialMethod Method);
  void enterWith(const Instruction &I);
  void exitCallStart(const Instruction &I, uint32_t Depth);
  // Context events (FrameContexts.cpp).
  /// \p ExitAt: a with entered by a call (3.14), the stack index of the
  /// __exit__ its LOAD_SPECIAL loaded; else the enter pushes the exit.
  void applyContextEvent(const ContextEvent &E, const SVal &Slot, SVal &Result,
                         std::optional<size_t> ExitAt = std::nullopt);
  void modePop();
  void explicitEnter(TermId Manager);
  void explicitExit(TermId Manager);
  void handOver();
  void recordHandOff(const SVal &Callee, llvm::ArrayRef<SVal> Args);
  void reenter(const SVal &Manager, CtxKind Claimed);
  std::string describeValue(const SVal &V) const;
  void jumpTo(int64_t TargetByte, unsigned Unroll, bool Backward);
  unsigned CurrentUnroll = 2;
};

} // namespace pyverify::smt::prover

#endif
