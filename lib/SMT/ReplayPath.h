//===- ReplayPath.h - Refutations whose failure is safe to run --*- C++ -*-===//
//
// Contract (private to lib/SMT): the one classification of which dataflow
// errors are safe to run on a real interpreter, and the path a well-formed
// refutation made only of those carries for its replay (docs/prove-cli.md,
// "Replay").
//
// Safe to run: the instruction the error is at raises an ordinary Python
// exception there and does nothing else -- a checked read of a local that is
// unbound (3.11's LOAD_FAST, LOAD_FAST_CHECK; local-unbound) raises
// UnboundLocalError. Every other dataflow error is not: a stack underflow, a
// depth beyond co_stacksize, a NULL taken or copied, an unchecked read that
// pushes NULL (3.12+'s LOAD_FAST), a slot of the wrong kind -- CPython does
// not check those and reads or writes memory it does not own, or crashes.
// Such a refutation keeps having no path: its replay says "cannot replay".
//
// The symbolic frame models a checked read of an unbound local as the raise
// it is (MicroStep.cpp), so exactly-once explores such code as it explores
// well-formed code; the path kept is its counterexample when that path
// raises at one of the errors. The verdict is not changed by it.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_LIB_SMT_REPLAYPATH_H
#define PYVERIFY_LIB_SMT_REPLAYPATH_H

#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/SMT/Prover.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace pyverify::smt::prover {

/// The exception the instruction of dataflow error \p D (about \p Code)
/// raises when it runs, when that is all it does (the error is safe to
/// run); std::nullopt for an error that is not safe to run.
std::optional<llvm::StringRef> safeFailure(const Diagnostic &D,
                                           const DecodedCode &Code);

/// Whether a well-formed refutation with the dataflow errors \p Findings
/// may be run: each error that refutes (not a checks-not-run one) is safe,
/// and there is one.
bool runsSafely(llvm::ArrayRef<Diagnostic> Findings, const DecodedCode &Code);

/// Whether the emitted path of \p Cex raises, at the instruction of one of
/// \p Findings in \p Target (whose code is \p Code), the exception that
/// error raises (safeFailure).
bool raisesAtFinding(const Counterexample &Cex,
                     llvm::ArrayRef<Diagnostic> Findings,
                     const DecodedCode &Code, llvm::StringRef Target);

} // namespace pyverify::smt::prover

#endif
