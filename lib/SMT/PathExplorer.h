//===- PathExplorer.h - What every path exploration shares -------*- C++
//-*-===//
//
// Contract (private to lib/SMT): Feasibility decides whether a path
// condition plus one literal is satisfiable (PathSolver, literals on decided
// atoms settled without it); ExploreStats counts paths and records
// why an exploration is incomplete (cut, limit, budget); toProofStep and
// singleCex turn a Side's steps into the printed counterexample.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_LIB_SMT_PATHEXPLORER_H
#define PYVERIFY_LIB_SMT_PATHEXPLORER_H

#include "SymbolicFrame.h"
#include "pyverify/SMT/Prover.h"

namespace pyverify::smt::prover {

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

  bool check(std::vector<Lit> &PC, const Lit &L);
};

ProofStep toProofStep(const Step &S);

struct ExploreStats {
  uint64_t Paths = 0;
  bool Cut = false;
  std::string CutWhy;
  bool Limit = false;
  /// The proof's budget ran out (Budget::Exceeded: which, and its value).
  std::string OverBudget;
  /// Why some path cannot be proved even without a violation
  /// (Side::Unsettled): the property is unknown, never proved.
  std::string Unsettled;
};

Counterexample singleCex(const Side &S, const std::vector<ProofStep> &Eager);

} // namespace pyverify::smt::prover

#endif
