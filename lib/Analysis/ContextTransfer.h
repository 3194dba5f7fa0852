//===- ContextTransfer.h - What instructions do to contexts -----*- C++ -*-===//
//
// Contract (private to lib/Analysis): ContextTransfer is the analysis the
// fixpoint engine runs for the context-balance pass (ContextBalance.h): the
// transfer of a block and of an edge over ContextState, one helper per event
// (enter, exit, a slot dropped, a local overwritten, a path leaving the code
// object), and the may-raise rule with the documented assumptions. The
// same functions replay each reached block once more after the fixpoint,
// then with a ContextReport: only then do they report findings and record
// the with sites' normal exits. Without one (during the fixpoint) they only
// compute states, so a state never depends on whether it is being reported.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_LIB_ANALYSIS_CONTEXTTRANSFER_H
#define PYVERIFY_LIB_ANALYSIS_CONTEXTTRANSFER_H

#include "pyverify/Analysis/BlockStack.h"
#include "pyverify/Analysis/ContextEvents.h"
#include "pyverify/Analysis/MicroOps.h"
#include "pyverify/CFG/CFG.h"
#include "pyverify/Domain/ContextDomain.h"
#include "pyverify/Support/Finding.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>
#include <vector>

namespace pyverify::balance {

// How an event is reported: Certainty (pyverify/Support/Finding.h) is
// Possible when it rests on a merged Mixed / Maybe fact; the severity stays
// the check's own.

/// Where the replay after the fixpoint puts what it finds.
struct ContextReport {
  const CFG &G;
  /// Final block entry states (for witness paths).
  llvm::ArrayRef<ContextState> In;
  std::vector<Finding> &Findings;
  /// Per with site of the block stack: its normal-exit calls.
  std::vector<llvm::SmallVector<uint32_t, 2>> &NormalExits;

  /// A finding at instruction \p At; with \p Ctx, the notes naming its
  /// enter and a witness path (ending in a raise at \p At if \p Raises).
  /// \p Cause: Finding::Cause (one root cause seen at several places).
  void add(CheckId Id, Certainty C, uint32_t At, std::optional<uint32_t> Ctx,
           std::string Msg, bool Raises, std::string Cause = {}) const;
};

class ContextTransfer {
public:
  using Domain = ContextState;

  ContextTransfer(const CFG &G, const BlockStack &BS, CodeRole Role);

  Domain bottom() const { return ContextState::bottom(); }
  Domain entryState() const;
  Domain transferNode(unsigned Node, const Domain &In) const;
  Domain transferEdge(unsigned EdgeIdx, const Domain &In,
                      const Domain &Out) const;

  /// Applies instruction \p I's normal semantics on the fall-through
  /// (\p Jump false) or jump edge: its micro-operations (MicroOps.h), in
  /// order.
  void step(ContextState &S, uint32_t I, bool Jump, ContextReport *R) const;

  /// The state a handler sees when instruction \p I raises along \p E.
  ContextState unwind(const ContextState &Pre, uint32_t I, const CFGEdge &E,
                      ContextReport *R) const {
    ContextState S = ContextState::bottom();
    unwindInto(S, Pre, I, E, R);
    return S;
  }
  /// The same, into \p S: assigned from \p Pre (S's buffers reused, so a
  /// loop over a block's raising instructions with one scratch state does
  /// not allocate per instruction when the stack is deeper than a state's
  /// inline slots), then unwound in place.
  void unwindInto(ContextState &S, const ContextState &Pre, uint32_t I,
                  const CFGEdge &E, ContextReport *R) const;

  /// Whether \p I may raise in state \p S (the bytecode notes' rules, less
  /// the documented assumptions about entered context managers).
  bool raisesHere(const ContextState &S, uint32_t I) const;

  /// Exit events of \p I that happen even when \p I raises: the exit was
  /// called (a Call, a CallPrepare of the call after it -- 3.11's
  /// specialised PRECALL calls --, an ExitCallStart).
  void applyRaisingExitEvents(ContextState &S, uint32_t I) const;

  /// A taken backward jump runs the eval breaker, which looks a handler up
  /// at its target - 1 (bytecode notes 3.1): with no entry there, an
  /// interrupt leaves the frame with the state after the jump.
  void escapesAtBackEdge(const ContextState &S, uint32_t I,
                         ContextReport *R) const;

  /// A path leaves the code object at \p I with \p S's active contexts.
  void leaving(const ContextState &S, uint32_t I, bool ByException,
               ContextReport *R) const;

  /// Whether anything in \p G's code can enter or exit a context in role
  /// \p Role: a with site of \p BS, an event opcode, a manager local. Asked
  /// before a ContextTransfer is built (most code objects hold no context).
  static bool involvesContexts(const CFG &G, const BlockStack &BS,
                               CodeRole Role);

  /// "40 CALL 2": instruction \p I for messages.
  std::string describe(uint32_t I) const;
  /// "the context entered at 4 BEFORE_WITH".
  std::string ctxName(uint32_t Ctx) const;

  /// Reports through \p R; nothing without one (during the fixpoint).
  void report(ContextReport *R, CheckId Id, Certainty C, uint32_t At,
              std::optional<uint32_t> Ctx, std::string Msg, bool Raises = false,
              std::string Cause = {}) const {
    if (R)
      R->add(Id, C, At, Ctx, std::move(Msg), Raises, std::move(Cause));
  }

  const CFG &G;
  const DecodedCode &D;
  const InstructionStream &Insts;
  const BlockStack &BS;
  CodeRole Role;

private:
  /// Instruction \p I's micro-operations on its fall-through edge, lowered
  /// once per code object (the first time a state is stepped: a code object
  /// with no context is never lowered).
  llvm::ArrayRef<MicroOp> ops(uint32_t I) const {
    if (LoweredAt.empty())
      lowerAll();
    return llvm::ArrayRef<MicroOp>(Lowered).slice(
        LoweredAt[I], LoweredAt[I + 1] - LoweredAt[I]);
  }
  void lowerAll() const;
  /// Steps one instruction's micro-operations: one operator() per
  /// alternative (ContextTransfer.cpp).
  struct Stepper;
  // One helper per event of Stepper.
  void stepEnterWith(ContextState &S, uint32_t I, ContextReport *R) const;
  void stepSuspending(ContextState &S, uint32_t I, const uop::Effect &E,
                      bool Jump, ContextReport *R) const;
  void stepExitCallStart(ContextState &S, uint32_t I, uop::ExitCallStart X,
                         ContextReport *R) const;
  void stepCall(ContextState &S, uint32_t I, const uop::Call &C,
                ContextReport *R) const;
  /// The index in \p S's stack of the callable of call \p C whose two call
  /// slots start at \p Base (Call::calleeSlot).
  static size_t calleeIndex(const ContextState &S, size_t Base,
                            const uop::Call &C);
  /// The call at \p I, or after the CallPrepare instructions from \p I on
  /// (3.11's PRECALL and KW_NAMES are part of the CALL after them).
  std::optional<uop::Call> callOf(uint32_t I) const;
  /// Where an event happens: the state, the instruction, the slot the
  /// event uses (the callable of a Call, the exit slot of ExitCallStart),
  /// the manager local of an explicit call; Handled: the event consumed the
  /// slot (it is no dropped value).
  struct EventSite {
    ContextState &S;
    uint32_t I;
    ContextReport *R;
    ContextSlot *Slot = nullptr;
    uint32_t Local = 0;
    bool ExitSequence = false;
    bool Handled = false;
    /// A call's event: the index of its deepest call slot (3.14's with
    /// enter finds the with's __exit__ below it).
    std::optional<size_t> CallBase = std::nullopt;
    /// 3.14: the slot above the callable, the self an exit calls it with.
    const ContextSlot *Self = nullptr;
  };
  /// Applies one event of the recogniser (ContextEvents.h); every kind is
  /// handled, so a new kind does not compile until it is here.
  void onEvent(const ContextEvent &E, EventSite &At) const;
  /// EnterWith by a call (3.14's CALL 0 of LOAD_SPECIAL __enter__).
  void enterByCall(EventSite &At, bool Async) const;
  /// 3.14: an exit whose self is another active with's.
  void checkExitSelf(const EventSite &At) const;
  enum class Fault { Again, Maybe, Unbound };
  /// An exit where no bound, uncalled __exit__ is (ExitAgain, ExitMaybe,
  /// ExitUnbound).
  void exitFault(EventSite &At, ExitVia Via, Fault K) const;
  /// 3.14's LOAD_SPECIAL: a with's __exit__ (not yet entered) or its
  /// __enter__, tagged for the call that enters it.
  void stepLoadSpecial(ContextState &S, uint32_t I, uop::LoadSpecial M,
                       ContextReport *R) const;
  /// A LoadAttr (\p Method false) or LoadMethod of co_names[\p Name].
  void stepLoadAttr(ContextState &S, uint32_t I, uint32_t Name, bool Method,
                    ContextReport *R) const;
  void overwriteLocal(ContextState &S, uint32_t I, uint32_t Local,
                      ContextReport *R) const;
  void stepCopy(ContextState &S, uint32_t N) const;
  /// Values no event concerns: \p E's pops are dropped, its pushes fresh.
  void moveValues(ContextState &S, uint32_t I, const uop::Effect &E,
                  ContextReport *R) const;

  ContextSlot pop(ContextState &S) const;
  void push(ContextState &S, ContextSlot X = {}) const { S.Stack.push_back(X); }
  /// A slot consumed by something that is not an exit.
  void dropped(ContextState &S, ContextSlot X, uint32_t I,
               ContextReport *R) const {
    if (X.T == SlotTag::Exit)
      droppedExit(S, X, I, R);
  }
  void droppedExit(ContextState &S, ContextSlot X, uint32_t I,
                   ContextReport *R) const;
  void enter(ContextState &S, uint32_t Ctx, uint32_t I, ContextReport *R) const;
  /// An exit of \p Ctx at \p I: checks LIFO order, then forgets it.
  void exitCtx(ContextState &S, uint32_t Ctx, uint32_t I,
               ContextReport *R) const;
  void exitLocal(ContextState &S, uint32_t Local, uint32_t I,
                 ContextReport *R) const;

  /// co_names[\p Name], "" when out of range.
  llvm::StringRef nameAt(uint32_t Name) const;
  /// LOAD_CONST None x3 and PRECALL 2 just before CALL 2 at \p I: the
  /// compiler's __exit__(None, None, None) sequence.
  bool isExitCallSequence(uint32_t I) const {
    return pyverify::isExitCallSequence(D, I);
  }
  bool tracked(const ContextState &S, uint32_t Local) const {
    return S.findLocal(Local) != nullptr;
  }
  /// The ManagerLocals of \p D in role \p Role.
  static llvm::SmallVector<uint32_t, 2> managerLocals(const DecodedCode &D,
                                                      CodeRole Role);

  /// Locals whose explicit enters and exits are context events
  /// (isTrackedManagerAttribute): in plain code those whose __enter__ and
  /// __exit__ are both called as methods -- a lone `x.__enter__()` (a
  /// start() API returning with the context entered on purpose) is an
  /// ordinary call; in emitted code every local either is loaded from.
  llvm::SmallVector<uint32_t, 2> ManagerLocals;
  /// ops(): every instruction's micro-operations, I's from LoweredAt[I] to
  /// LoweredAt[I + 1]; empty until first asked.
  mutable llvm::SmallVector<MicroOp, 0> Lowered;
  mutable std::vector<uint32_t> LoweredAt;
};

} // namespace pyverify::balance

#endif
