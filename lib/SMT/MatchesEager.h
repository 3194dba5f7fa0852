//===- MatchesEager.h - The resume function against eager --------*- C++
//-*-===//
//
// Contract (private to lib/SMT): PairExplorer runs the original from the
// resume offset and the resume function after its prologue together, one
// sync point each at a time, making the same decisions, and keeps the
// shortest pair of paths on which they differ: another operation, another
// branch on the same values, other context events or other active contexts
// at an observable step, another end.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_LIB_SMT_MATCHESEAGER_H
#define PYVERIFY_LIB_SMT_MATCHESEAGER_H

#include "PathExplorer.h"

namespace pyverify::smt::prover {

/// matches-eager: the original from the resume offset and the resume
/// function after its prologue, one sync point each at a time.
struct PairExplorer {
  const ProveOptions &O;
  Feasibility &F;
  ExploreStats Stats;
  std::optional<Counterexample> Best;
  /// The shortest divergence on a path that rests on an approximation, and
  /// the approximation.
  std::optional<Counterexample> BestApprox;
  std::string ApproxWhy;

  struct Item {
    Side A, B; ///< Eager, emitted.
    std::vector<Lit> PC;
    /// The aligned steps so far (shared with the forks of this pair).
    SharedPrefixVector<ProofStep> EA, EB;
  };

  static std::vector<std::string> contextEvents(const Step &S);

  /// The events both sides produced since the last product step, folded
  /// into one aligned step each.
  static ProofStep fold(const Side &S, size_t From);

  void diverge(Item &It, std::string Why);

  void run(Side A, Side B);

private:
  /// Advances both sides to their next sync point; false when the pair is
  /// done (cut or covered), counted.
  bool reachSync(Item &It, bool &SyncA, bool &SyncB);
  /// At least one side ended: both must end alike, holding the same.
  void endPair(Item &It, bool SyncA, bool SyncB);
  /// Whether the two sides' last steps have the same context events.
  bool sameEvents(Item &N, size_t FromA, size_t FromB, const std::string &Desc);
  /// Both sides branch: the four outcomes, the mixed two divergences.
  void branchPair(Item &It, std::vector<Item> &Work, size_t FromA, size_t FromB,
                  const std::string &Desc);
};

} // namespace pyverify::smt::prover

#endif
