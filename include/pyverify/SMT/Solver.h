//===- Solver.h - The SMT handle types of the prover ------------*- C++ -*-===//
//
// Contract: the prover's only door to Z3. A TermTable interns symbolic
// Python values (uninterpreted: a symbol, or an operation applied to other
// terms); a Lit says that a term is truthy (or is None) or is not. A
// PathSolver owns one z3::context and one solver -- no global state, so
// proofs run in parallel threads, one PathSolver each -- and answers
// "is this conjunction of literals satisfiable?" with an operation limit
// (Z3's rlimit, reproducible) and a time limit per query. Every query is
// named; the names and outcomes are kept for the report.
//
// Terms are uninterpreted: two terms are equal exactly when they are the
// same application to equal arguments (congruence), so two tests of the same
// unmodified value agree and nothing else is assumed about Python values.
//
// Z3 headers are not included here: users of lib/SMT see only these types.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_SMT_SOLVER_H
#define PYVERIFY_SMT_SOLVER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace pyverify::smt {

using TermId = uint32_t;

/// A symbolic value: a named symbol (no arguments) or an application.
struct TermNode {
  std::string Op; ///< Symbol name or operation ("binop:+", "call@3", ...).
  std::vector<TermId> Args;
  bool operator<(const TermNode &O) const {
    return Op != O.Op ? Op < O.Op : Args < O.Args;
  }
};

class TermTable {
public:
  TermId symbol(llvm::StringRef Name) { return get({Name.str(), {}}); }
  TermId apply(llvm::StringRef Op, llvm::ArrayRef<TermId> Args) {
    return get({Op.str(), std::vector<TermId>(Args.begin(), Args.end())});
  }
  const TermNode &node(TermId T) const { return Nodes[T]; }
  size_t size() const { return Nodes.size(); }
  /// Readable form, e.g. "binop:+(local:x, const:1)".
  std::string str(TermId T) const;

private:
  TermId get(TermNode N);
  std::vector<TermNode> Nodes;
  std::map<TermNode, TermId> Index;
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

struct QueryRecord {
  std::string Name;
  SatResult Result;
  std::string Reason; ///< For Unknown: Z3's reason ("timeout", ...).
};

class PathSolver {
public:
  PathSolver(const TermTable &Terms, uint64_t RlimitPerQuery,
             unsigned TimeoutMs);
  ~PathSolver();
  PathSolver(const PathSolver &) = delete;
  PathSolver &operator=(const PathSolver &) = delete;

  /// Is the conjunction \p PathCondition satisfiable?
  SatResult check(llvm::ArrayRef<Lit> PathCondition, llvm::StringRef Name);

  /// Z3's cumulative resource count over every query so far.
  uint64_t rlimitUsed() const;
  llvm::ArrayRef<QueryRecord> queries() const { return Queries; }

private:
  struct Impl;
  std::unique_ptr<Impl> P;
  std::vector<QueryRecord> Queries;
};

} // namespace pyverify::smt

#endif
