//===- ValueChecks.h - Findings about NULL and unbound locals ---*- C++ -*-===//
//
// Contract: checkValueKinds() turns analyzeValueKinds()'s issues into
// findings, one per instruction and cause, naming the slot or the local:
//
//   null-stack-value  NullTaken (a call's layout for another version is said
//                     so: 3.13's CALL takes the callable first, 3.11's and
//                     3.12's the NULL first)
//   local-unbound     UnboundRead, HandlerUnbound
//   exception-slot-type  ExceptionSlot
//   value-kind-mismatch  KindMismatch, LocalKind
//
// Run only on code whose stack depths are consistent (the depth checks
// report the rest); an error (and no finding) when the analysis found them
// inconsistent after all: the caller says the Values checks did not run.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_CHECK_VALUECHECKS_H
#define PYVERIFY_CHECK_VALUECHECKS_H

#include "pyverify/CFG/CFG.h"
#include "pyverify/Support/Finding.h"

#include "llvm/Support/Error.h"

#include <vector>

namespace pyverify {

llvm::Error checkValueKinds(const CFG &G, std::vector<Finding> &Out);

} // namespace pyverify

#endif
