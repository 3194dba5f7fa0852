//===- ContextBalance.h - Every context entered and exited once -*- C++ -*-===//
//
// Contract: checkContextBalance() runs a forward abstract interpretation over
// the CFG (normal edges and raising exception edges) whose state is the real
// operand stack with tagged slots, the context state of locals, and the
// ordered list of active contexts, and reports every path on which a context
// is not entered and exited exactly once, in LIFO order:
//
//   enter events  BEFORE_WITH (slot holds the bound __exit__: X),
//                 BEFORE_ASYNC_WITH (pending P until the awaited __aenter__
//                 returns, the SEND jump edge), and the explicit method-call
//                 pattern rewriters emit: LOAD_FAST m; LOAD_METHOD __enter__;
//                 PRECALL 0; CALL 0 (the context lives in local m);
//   exit events   a CALL whose callable slot is X (the __exit__(None, None,
//                 None) sequence), WITH_EXCEPT_START with X at PEEK(4) (X
//                 becomes C: called), and LOAD_FAST m; LOAD_METHOD __exit__;
//                 ...; CALL n on an entered local m.
//
// Findings (check ids in Checks.def): context-not-exited (return, exception
// propagating out, an exception edge whose entry depth unwinds an X slot, or
// an X popped by anything but an exit), context-exited-twice,
// context-exit-order, context-exit-without-enter, with-handler-mismatch
// (the handler's WITH_EXCEPT_START must find this context's __exit__ at
// PEEK(4)). The checks that rest on the exception table alone -- the
// structural with-handler-mismatch checks and block-nesting -- are the Check
// layer's (pyverify/Check/WithHandlerChecks.h), from this result and the
// block stack.
//
// Definite problems are errors; problems that only hold on some of the paths
// merged at a join (a slot or local that is a context on one path and not on
// another) are warnings, which the SMT prover can confirm or refute.
// Each finding carries a witness path from the enter to the fault
// (ContextWitness.h).
//
// The result is a value: the block stack is read, never written. What the
// pass learns about the with sites (their normal exits) is in the result.
//
// Assumptions (docs/context-balance.md): a local holding an entered context
// manager is bound (its LOAD_FAST does not raise) and the manager has
// __enter__/__exit__ (LOAD_METHOD of them does not raise); an exception
// raised by an exit call means the exit was called.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_ANALYSIS_CONTEXTBALANCE_H
#define PYVERIFY_ANALYSIS_CONTEXTBALANCE_H

#include "pyverify/Analysis/BlockStack.h"
#include "pyverify/Analysis/ContextEvents.h"
#include "pyverify/Analysis/StackDepth.h"
#include "pyverify/CFG/CFG.h"
#include "pyverify/Domain/ContextDomain.h"
#include "pyverify/Support/Finding.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace pyverify {

struct ContextBalanceResult {
  /// Sorted by offset; one per (check, offset, message).
  std::vector<Finding> Findings;
  /// Where an instruction's active contexts lie in ActiveIds.
  struct ContextSpan {
    uint32_t Begin = 0, Size = 0;
  };
  /// Per instruction: the span of ActiveIds holding the ids (enter
  /// instruction indices) of the contexts active before it, in entry order;
  /// empty when unreachable. The vector itself is empty when the
  /// interpretation was skipped (nothing can enter a context): read it
  /// through activeBefore(). One pool for all instructions, so that the
  /// contexts of deep with nests allocate nothing per instruction.
  std::vector<ContextSpan> ActiveBefore;
  llvm::SmallVector<uint32_t, 64> ActiveIds;
  /// Per instruction: bit K set when activeBefore(I)[K] is active on some
  /// merged paths only (K < 64; later ones count as maybe).
  std::vector<uint64_t> MaybeBefore;
  /// Per with site (the index in BlockStack::withSites()): the instruction
  /// indices of its normal-exit calls (a CALL consuming its __exit__ slot),
  /// in the order the replay meets them.
  std::vector<llvm::SmallVector<uint32_t, 2>> NormalExits;
  /// Per CFG block: the final entry state (bottom when unreached), for
  /// witness paths; empty when the interpretation was skipped.
  std::vector<ContextState> BlockIn;
  uint64_t Visits = 0;

  /// The contexts active before instruction \p I, in entry order.
  llvm::ArrayRef<uint32_t> activeBefore(uint32_t I) const {
    if (I >= ActiveBefore.size())
      return {};
    return llvm::ArrayRef<uint32_t>(ActiveIds).slice(ActiveBefore[I].Begin,
                                                     ActiveBefore[I].Size);
  }
  /// Whether the K-th context of activeBefore(I) is active on every merged
  /// path to I.
  bool definitelyActive(uint32_t I, size_t K) const {
    return K < 64 && I < MaybeBefore.size() && !(MaybeBefore[I] >> K & 1);
  }
};

struct ContextBalanceOptions {
  /// Skip the interpretation of a code object in which nothing can enter
  /// or exit a context (no with site, no BEFORE_WITH, BEFORE_ASYNC_WITH or
  /// WITH_EXCEPT_START, no local whose __enter__ and __exit__ are both
  /// loaded, no __exit__(None, None, None) call sequence): every slot would
  /// stay untagged, so the result is the same but for BlockIn, left empty (a
  /// ctest runs both ways over the stdlib). Most code objects have no
  /// context.
  bool SkipWithoutContexts = true;
  /// The interpretation keeps the whole operand stack per state: a code
  /// object whose stack-depth result goes deeper than this (a corrupt
  /// exception-table depth reaches 2^32) is refused with an llvm::Error
  /// instead of allocating slots for it. CPython's compiler stays far below
  /// (the deepest stdlib code object needs a few dozen slots).
  int64_t MaxStackDepth = 1 << 16;
  /// Plain code may delegate and forward explicit enters and exits; a
  /// bundle's emitted code objects may not (isTrackedManagerAttribute).
  CodeRole Role = CodeRole::Plain;

  bool operator==(const ContextBalanceOptions &) const = default;
};

/// Fails only if the fixpoint exceeds its visit cap or the stack is deeper
/// than Opts.MaxStackDepth.
llvm::Expected<ContextBalanceResult>
checkContextBalance(const CFG &G, const StackDepthResult &Depth,
                    const BlockStack &Blocks,
                    const ContextBalanceOptions &Opts = {});

} // namespace pyverify

#endif
