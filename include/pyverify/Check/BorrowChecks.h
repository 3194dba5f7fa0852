//===- BorrowChecks.h - Borrowed references used after their local -*- C++
//-*-===//
//
// Contract: checkBorrows() turns findBorrowsOutlivingLocals()'s uses
// (BorrowedRefs.h) into borrow-outlives-local errors, one per kill and
// borrowing load (the uses of that value are notes; Cause merges the
// rest): at the instruction that overwrote or deleted the local, naming
// the local, the load that borrowed it and the first instruction that
// takes the value after. Run on code whose stack depths are consistent; an
// error (and no finding) when the fixpoint gave up.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_CHECK_BORROWCHECKS_H
#define PYVERIFY_CHECK_BORROWCHECKS_H

#include "pyverify/CFG/CFG.h"
#include "pyverify/Support/Finding.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace pyverify {

/// \p BorrowLoads, when given, receives how many borrowing loads the code
/// holds.
llvm::Error checkBorrows(const CFG &G, std::vector<Finding> &Out,
                         uint32_t *BorrowLoads = nullptr);

} // namespace pyverify

#endif
