//===- ExactlyOnce.h - Every path of one code object -------------*- C++
//-*-===//
//
// Contract (private to lib/SMT): SingleExplorer runs one Side over every
// feasible path (each branch outcome, each may-raise instruction raising or
// not) and keeps the shortest path that violates exactly-once (or, for a
// frame, matches-eager at its break instruction): each context entered is
// exited exactly once, LIFO, at every exit of the code object. A violating
// path that rests on an approximation is kept apart (WorstApprox).
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_LIB_SMT_EXACTLYONCE_H
#define PYVERIFY_LIB_SMT_EXACTLYONCE_H

#include "PathExplorer.h"

#include "llvm/ADT/DenseSet.h"

namespace pyverify::smt::prover {

/// exactly-once on one code object: every path from \p Start.
struct SingleExplorer {
  const ProveOptions &O;
  Feasibility &F;
  ExploreStats Stats;
  std::optional<Side> Worst; ///< The shortest violating path.
  /// The shortest violating path that rests on an approximation.
  std::optional<Side> WorstApprox;
  /// The offsets in the explored code object at which some path violates
  /// exactly-once without resting on an approximation.
  std::vector<uint32_t> ViolationAt;
  /// A frame's calls of its resume functions, by the original offset the
  /// resume global names: what each argument is on the explored paths
  /// (HandedBits or-ed over them).
  std::map<uint32_t, HandOff> HandOffs;
  /// The states tier raises went on from (Side::raisedStateKey).
  llvm::DenseSet<uint64_t> TierSeen;

  void run(Side Start);

  void finish(Side &S);
};

} // namespace pyverify::smt::prover

#endif
