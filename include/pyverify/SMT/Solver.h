//===- Solver.h - The SMT handle types of the prover ------------*- C++ -*-===//
//
// Contract: the prover's only door to Z3. A TermTable interns symbolic
// Python values (uninterpreted: a symbol, or an operation applied to other
// terms); a Lit says that a term is truthy (or is None) or is not. A
// PathSolver answers "is this conjunction of literals satisfiable?" for one
// proof -- no global state, so proofs run in parallel threads, one
// PathSolver each. Every query is named; the names and outcomes are kept for
// the report.
//
// Terms are uninterpreted: two terms are equal exactly when they are the
// same application to equal arguments (congruence), so two tests of the same
// unmodified value agree and nothing else is assumed about Python values.
// Background facts: None is falsy and is None, True truthy, False falsy,
// neither of them None; truthy(not x) is the negation of truthy(x).
//
// How a query is decided (SolverMode). A conjunction of such literals is
// satisfiable exactly when no atom -- truthy(t) or is_none(t), after
// truthy(not x) is read as the negation of truthy(x) -- occurs in it or in
// the background facts with both signs: nothing equates two different terms,
// so in the term model (each term its own value) truthy and is_none can be
// chosen term by term. SolverMode::Literals decides every query by that
// rule, without Z3; SolverMode::Z3 asks Z3 (one z3::context and QF_UF
// solver per PathSolver) under an operation limit (Z3's rlimit,
// reproducible) and a time limit per query. The two give the same answer on
// every query (the Z3 mode is the cross-check, `pyverify prove --solver=z3`).
//
// Deep terms. A term is nested as deep as the input makes it (100,000
// statements `x = x + 1` make x 100,000 levels deep), and the prover may run
// on a small stack (prove_bundle runs on the calling Python thread).
// Nothing here recurses per level: TermTable::str and Z3's form of a term
// are built from explicit stacks. Z3 is never handed a term higher than
// MaxZ3TermHeight: a higher term is a fresh Z3 constant of its own (one per
// TermId). That changes no answer: the mapping from terms to Z3 terms stays
// one-to-one, nothing equates two terms, so (by the rule above) a query is
// satisfiable in Z3 exactly when it was before -- the result is no
// approximation and the literal rule still cross-checks it.
//
// Z3 headers are not included here: users of lib/SMT see only these types.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_SMT_SOLVER_H
#define PYVERIFY_SMT_SOLVER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace pyverify::smt {

using TermId = uint32_t;

/// The highest term (applications above a symbol) a query hands Z3; higher
/// terms are fresh constants (see Deep terms). Measured with Z3 4.8.12 on
/// queries like the prover's (docs/prove-cli.md: Deep terms): adding,
/// checking and popping a 20,000-level term runs on a 32 KiB thread stack
/// (Z3 walks it without recursion), but the run took 15 s, nearly all of it
/// freeing Z3's context (1.3 s at 3,000 levels, 0.36 s at 512). The bound
/// keeps Z3's cost per term small and does not rely on every Z3 walk
/// staying iterative.
inline constexpr uint32_t MaxZ3TermHeight = 512;

/// A symbolic value: a named symbol (no arguments) or an application.
struct TermNode {
  std::string Op; ///< Symbol name or operation ("binop:+", "call@3", ...).
  std::vector<TermId> Args;
};

/// Interns terms: the same operation on the same arguments is the same
/// TermId, numbered in the order terms are first made.
class TermTable {
public:
  TermTable() = default;
  TermTable(const TermTable &) = delete;
  TermTable &operator=(const TermTable &) = delete;

  TermId symbol(llvm::StringRef Name) { return get(Name, {}); }
  TermId apply(llvm::StringRef Op, llvm::ArrayRef<TermId> Args) {
    return get(Op, Args);
  }
  const TermNode &node(TermId T) const { return Nodes[T]; }
  size_t size() const { return Nodes.size(); }
  /// Readable form, e.g. "binop:+(local:x, const:1)".
  std::string str(TermId T) const;

  /// A term as the index sees it: views of a node's operation and
  /// arguments (of a node in Nodes, or of a lookup's).
  struct Key {
    llvm::StringRef Op;
    llvm::ArrayRef<TermId> Args;
  };

private:
  /// Hashes and compares keys by operation and arguments. DenseMap's empty
  /// and tombstone keys are told apart by where their (empty) Op points, so
  /// no term's operation can be taken for one.
  struct KeyInfo {
    static constexpr char Sentinels[2] = {0, 0};
    static Key getEmptyKey() { return {llvm::StringRef(&Sentinels[0], 0), {}}; }
    static Key getTombstoneKey() {
      return {llvm::StringRef(&Sentinels[1], 0), {}};
    }
    static bool isSentinel(const Key &K) {
      return K.Op.data() == &Sentinels[0] || K.Op.data() == &Sentinels[1];
    }
    static unsigned getHashValue(const Key &K) {
      return unsigned(llvm::hash_combine(
          K.Op, llvm::hash_combine_range(K.Args.begin(), K.Args.end())));
    }
    static bool isEqual(const Key &A, const Key &B) {
      if (isSentinel(A) || isSentinel(B))
        return A.Op.data() == B.Op.data();
      return A.Op == B.Op && A.Args == B.Args;
    }
  };

  TermId get(llvm::StringRef Op, llvm::ArrayRef<TermId> Args);
  /// A deque: a node never moves, so the index's keys may view it.
  std::deque<TermNode> Nodes;
  llvm::DenseMap<Key, TermId, KeyInfo> Index;
};

/// A fact about a term on a path.
struct Lit {
  enum Kind : uint8_t { Truthy, IsNone };
  Kind K;
  TermId T;
  bool Positive;
  bool operator==(const Lit &O) const {
    return K == O.K && T == O.T && Positive == O.Positive;
  }
};

enum class SatResult { Sat, Unsat, Unknown };

/// Who decides a PathSolver's queries (see the contract).
enum class SolverMode : uint8_t {
  Literals, ///< The complementary-literal rule, exact for literals.
  Z3,       ///< Z3, with the rlimit and the timeout per query.
};

struct QueryRecord {
  std::string Name;
  SatResult Result;
  std::string Reason; ///< For Unknown: Z3's reason ("timeout", ...).
};

class PathSolver {
public:
  PathSolver(const TermTable &Terms, uint64_t RlimitPerQuery,
             unsigned TimeoutMs, SolverMode Mode = SolverMode::Literals);
  ~PathSolver();
  PathSolver(const PathSolver &) = delete;
  PathSolver &operator=(const PathSolver &) = delete;

  /// Is the conjunction \p PathCondition satisfiable?
  SatResult check(llvm::ArrayRef<Lit> PathCondition, llvm::StringRef Name);

  /// Z3's cumulative resource count over every query so far (0 when Z3
  /// answered none).
  uint64_t rlimitUsed() const;
  llvm::ArrayRef<QueryRecord> queries() const { return Queries; }

private:
  /// The complementary-literal rule (see the contract).
  SatResult decideLiterals(llvm::ArrayRef<Lit> PathCondition) const;
  SatResult checkZ3(llvm::ArrayRef<Lit> PathCondition, std::string &Reason);

  struct Impl;
  const TermTable &Terms;
  uint64_t Rlimit;
  unsigned TimeoutMs;
  SolverMode Mode;
  TermId None, True, False;
  std::unique_ptr<Impl> P; ///< Z3 (SolverMode::Z3 only).
  std::vector<QueryRecord> Queries;
};

} // namespace pyverify::smt

#endif
