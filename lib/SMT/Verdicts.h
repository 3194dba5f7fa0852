//===- Verdicts.h - How a proof result is concluded -------------*- C++ -*-===//
//
// Contract (private to lib/SMT): the one place where a ProofResult gets its
// verdict. conclude() records one exploration of one property: refuted with
// its counterexample, unknown with a reason (path limit, solver, a cut path,
// or a violation that rests on an approximation: "couldn't prove"), or --
// only when every path was covered with none of those -- the property in
// ProvedProperties. decide() makes a result Proved only when every property
// its target needs is there. wellFormedErrors() and assumptions() give the
// other parts of a result: the dataflow errors that refute well-formed, and
// the assumptions printed with it (the environment's from Environment.def).
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_LIB_SMT_VERDICTS_H
#define PYVERIFY_LIB_SMT_VERDICTS_H

#include "PathExplorer.h"

#include <initializer_list>

namespace pyverify::smt::prover {

std::string kindsText(llvm::ArrayRef<ContextKind> Ks);

/// The context checks, which the proof decides itself.
bool isContextCheck(CheckId Id);

/// well-formed: the dataflow errors other than the context checks; the
/// context findings go to \p Context when given (undecided).
std::vector<Diagnostic>
wellFormedErrors(const CodeInfo &C, llvm::StringRef File,
                 std::vector<CheckedFinding> *Context = nullptr);

/// Settles each of R.ContextFindings by R's exactly-once conclusion.
void settleContextFindings(ProofResult &R);

/// The assumptions a result rests on; \p Pair for matches-eager results;
/// the environment's for the rewriter globals that \p Codes load.
std::vector<std::string>
assumptions(const ProveOptions &O, bool Pair,
            std::initializer_list<const DecodedCode *> Codes);

/// Records one exploration of \p Property in \p R (see the contract).
void conclude(ProofResult &R, const ExploreStats &St, const Feasibility &F,
              std::optional<Counterexample> Cex, llvm::StringRef Property,
              std::optional<Counterexample> ApproxCex = std::nullopt,
              llvm::StringRef ApproxWhy = "");

/// The verdict of \p R from its conclusions (see the contract).
void decide(ProofResult &R, std::initializer_list<llvm::StringRef> Required);

} // namespace pyverify::smt::prover

#endif
