//===- BorrowedRefs.h - Borrowed references that outlive their local -*- C++
//-*-===//
//
// Contract: findBorrowsOutlivingLocals() follows, over the CFG (normal and
// exception edges), where every operand-stack slot may have been borrowed
// from. A borrowing load (3.14's LOAD_FAST_BORROW and
// LOAD_FAST_BORROW_LOAD_FAST_BORROW: the lowering's LoadLocal with Borrowed
// set, MicroOps.h) pushes the local's
// object without a new reference: it stays alive only while the local holds
// it. The pass reports every instruction that takes such a value after the
// local was overwritten or deleted on some path in between -- a use of an
// object that may have been freed.
//
// The abstract state, per program point: for each stack slot and each fast
// local, the set of borrows it may hold, each (local, load, kill): the local
// it was borrowed from, the load that pushed it, and the instruction that
// overwrote or deleted the local since (none while the local still holds
// it). Moves follow the micro-operations (MicroOps.h): COPY duplicates a
// slot's set (CPython's PyStackRef_DUP of a borrowed reference stays
// borrowed), SWAP exchanges two, a LoadLocal pushes what the local holds (a
// borrowed reference stored in a local stays borrowed: STORE_FAST keeps the
// stack reference as it is), a method load pushes its self slot with the
// popped object's set, and every other value pushed (getStackIO's pushes)
// is owned -- except a pushed slot the table marks as possibly NULL, which
// may be the popped self passed through (LOAD_SPECIAL, LOAD_SUPER_ATTR) and
// takes the popped slots' sets. A StoreLocal, DeleteLocal or MakeCell of x
// (STORE_FAST, the fused stores, DELETE_FAST, LOAD_FAST_AND_CLEAR's clear)
// kills x: every live borrow of x, on the stack or stored in a local,
// records that instruction. An exception edge enters its handler with the
// join of the states before every instruction of its block, truncated to
// the entry's depth, then lasti and the exception (owned).
//
// A use: a micro-operation that pops a slot (StoreLocal, COPY and SWAP move
// it and are not uses) or an instruction that reads a slot in place below
// its pops (getStackIO's Reads: LIST_APPEND's list, FOR_ITER's iterator).
// The instructions that push their top input itself as their top output
// (FORMAT_SIMPLE of an exact str, END_SEND, SET_FUNCTION_ATTRIBUTE,
// PUSH_EXC_INFO: CPython's optimize_load_fast's list as it holds in 3.14;
// the opcode tables have no such column yet) give that output the input's
// borrows too.
// The pass runs only on code whose stack depths are consistent (no
// underflow or conflict); code without a borrowing load is not walked.
// Deterministic: the uses sorted by kill, load, use.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_ANALYSIS_BORROWEDREFS_H
#define PYVERIFY_ANALYSIS_BORROWEDREFS_H

#include "pyverify/CFG/CFG.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace pyverify {

/// A value borrowed from a local, taken after the local was overwritten.
struct BorrowAfterKill {
  uint32_t Load;  ///< The borrowing load (instruction index).
  uint32_t Local; ///< The local it borrowed from (localsplus index).
  uint32_t Kill;  ///< The instruction that overwrote or deleted the local.
  uint32_t Use;   ///< The instruction that takes the value.
  /// The slot may hold something else on other merged paths (another borrow,
  /// an owned value, a borrow whose local was not killed).
  bool Possible;

  bool operator<(const BorrowAfterKill &O) const;
  bool operator==(const BorrowAfterKill &O) const;
};

struct BorrowResult {
  std::vector<BorrowAfterKill> Uses;
  uint32_t BorrowLoads = 0; ///< Borrowing loads in the code.
};

/// \p G's code must have consistent stack depths. Fails only when the
/// fixpoint exceeds its visit cap.
llvm::Expected<BorrowResult> findBorrowsOutlivingLocals(const CFG &G);

} // namespace pyverify

#endif
