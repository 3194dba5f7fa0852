//===- LoopBound.cpp - Back edges of a symbolic frame
//---------------------------===//

#include "SymbolicFrame.h"

using namespace pyverify;
using namespace pyverify::smt;
using namespace pyverify::smt::prover;

// The unroll bound: a back edge taken more than --unroll times is cut, and
// a loop whose context state repeats is subsumed (docs/prove.md).

void Side::jumpTo(int64_t TargetByte, unsigned Unroll, bool Backward) {
  int64_t T = C->D().Insts.indexAtStart(uint64_t(TargetByte));
  if (T < 0) {
    Unsupported = "jump to a non-instruction";
    End = EndKind::Cut;
    return;
  }
  if (Backward) {
    std::string Sig = abstractState();
    unsigned N = ++BackEdges[uint32_t(T)];
    // The state at the previous arrival (none at the first).
    std::shared_ptr<const std::string> &Last = LoopHeadState[uint32_t(T)];
    bool Same = Last && *Last == Sig;
    if (N > Unroll && (Same || N > Unroll + SettleIterations)) {
      End = EndKind::Cut;
      Pc = uint32_t(T); // at the loop head, should the path be resumed
      // The previous iteration started from the same context state: what
      // this one can do with contexts was explored there (its values were
      // already fresh), so the path is covered, not cut. A state still
      // changing (a local assigned for the first time...) gets up to
      // SettleIterations more iterations before the path is cut.
      Subsumed = Same;
      CutWhy = llvm::formatv("bound: the loop at offset {0} of {1} is "
                             "unrolled {2} time(s) and its context state "
                             "still changes",
                             TargetByte, C->Name, Unroll);
      return;
    }
    Last = std::make_shared<const std::string>(std::move(Sig));
  }
  Pc = uint32_t(T);
}
