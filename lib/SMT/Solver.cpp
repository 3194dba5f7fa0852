//===- Solver.cpp - The SMT handle types of the prover --------------------===//

#include "pyverify/SMT/Solver.h"

#include <z3++.h>

#include <cassert>
#include <map>
#include <optional>

using namespace pyverify::smt;

TermId TermTable::get(llvm::StringRef Op, llvm::ArrayRef<TermId> Args) {
  auto It = Index.find(Key{Op, Args});
  if (It != Index.end())
    return It->second;
  TermId Id = TermId(Nodes.size());
  Nodes.push_back({Op.str(), std::vector<TermId>(Args.begin(), Args.end())});
  const TermNode &N = Nodes.back();
  Index.try_emplace(Key{N.Op, N.Args}, Id);
  return Id;
}

std::string TermTable::str(TermId Root) const {
  // An explicit stack of (term, arguments printed so far): a term is nested
  // as deep as the input makes it, the C stack is the caller's.
  std::string S;
  std::vector<std::pair<TermId, size_t>> Stack{{Root, 0}};
  while (!Stack.empty()) {
    auto &[T, Next] = Stack.back();
    const TermNode &N = Nodes[T];
    if (Next == 0)
      S += N.Op;
    if (N.Args.empty()) {
      Stack.pop_back();
      continue;
    }
    if (Next == N.Args.size()) {
      S += ')';
      Stack.pop_back();
      continue;
    }
    S += Next == 0 ? "(" : ", ";
    TermId A = N.Args[Next++];
    Stack.push_back({A, 0});
  }
  return S;
}

struct PathSolver::Impl {
  const TermTable &Terms;
  z3::context Ctx;
  z3::solver Solver;
  z3::sort Obj;
  z3::func_decl Truthy, IsNone;
  std::vector<std::optional<z3::expr>> Cache;
  /// Height[T]: the longest chain of applications below T (a symbol's is
  /// 0), for the terms built so far.
  std::vector<uint32_t> Height;
  std::map<std::pair<std::string, unsigned>, z3::func_decl> Decls;

  Impl(const TermTable &Terms, uint64_t Rlimit, unsigned TimeoutMs)
      // The queries are quantifier-free uninterpreted functions over one
      // sort: a QF_UF solver. Z3's default (combined) solver builds every
      // theory and costs about 8 ms per context before the first answer;
      // this one about 0.6 ms.
      : Terms(Terms), Solver(Ctx, "QF_UF"), Obj(Ctx.uninterpreted_sort("Obj")),
        Truthy(Ctx.function("truthy", Obj, Ctx.bool_sort())),
        IsNone(Ctx.function("is_none", Obj, Ctx.bool_sort())) {
    z3::params Params(Ctx);
    Params.set("rlimit", unsigned(std::min<uint64_t>(Rlimit, UINT32_MAX)));
    Params.set("timeout", TimeoutMs);
    Solver.set(Params);
  }

  z3::func_decl decl(const std::string &Op, unsigned Arity) {
    auto Key = std::make_pair(Op, Arity);
    auto It = Decls.find(Key);
    if (It != Decls.end())
      return It->second;
    z3::sort_vector Domain(Ctx);
    for (unsigned I = 0; I < Arity; ++I)
      Domain.push_back(Obj);
    z3::func_decl D = Ctx.function(Op.c_str(), Domain, Obj);
    Decls.emplace(Key, D);
    return D;
  }

  /// Z3's form of \p Root, built bottom-up from an explicit stack (a term is
  /// nested as deep as the input makes it; the C stack is the caller's). A
  /// term higher than MaxZ3TermHeight is a fresh constant of its own
  /// (Solver.h: Deep terms), so no expression handed to Z3 is higher.
  z3::expr term(TermId Root) {
    if (Cache.size() < Terms.size()) {
      Cache.resize(Terms.size());
      Height.resize(Terms.size());
    }
    // Post-order: a term is built once its arguments are. Arguments are
    // interned before the terms that use them, so the walk ends.
    std::vector<TermId> Todo{Root};
    while (!Todo.empty()) {
      TermId T = Todo.back();
      if (Cache[T]) {
        Todo.pop_back();
        continue;
      }
      bool Ready = true;
      for (TermId A : Terms.node(T).Args)
        if (!Cache[A]) {
          Todo.push_back(A);
          Ready = false;
        }
      if (Ready) {
        Todo.pop_back();
        build(T);
      }
    }
    return *Cache[Root];
  }

  /// Z3's form of \p T, whose arguments are built.
  void build(TermId T) {
    const TermNode &N = Terms.node(T);
    uint32_t H = 0;
    for (TermId A : N.Args)
      H = std::max(H, Height[A] + 1);
    Height[T] = H;
    if (N.Args.empty()) {
      Cache[T] = Ctx.constant(N.Op.c_str(), Obj);
      return;
    }
    if (H > MaxZ3TermHeight) {
      Z3_ast C = Z3_mk_fresh_const(Ctx, "deep", Obj);
      Ctx.check_error();
      Cache[T] = z3::expr(Ctx, C);
      return;
    }
    z3::expr_vector Args(Ctx);
    for (TermId A : N.Args)
      Args.push_back(*Cache[A]);
    Cache[T] = decl(N.Op, unsigned(N.Args.size()))(Args);
  }

  z3::expr lit(const Lit &L) {
    const TermNode &N = Terms.node(L.T);
    z3::expr E = L.K == Lit::IsNone ? IsNone(term(L.T)) : Truthy(term(L.T));
    // `not x` is the negation of x's truth; `None` is falsy and is None.
    if (L.K == Lit::Truthy && N.Op == "not" && N.Args.size() == 1)
      E = !Truthy(term(N.Args[0]));
    return L.Positive ? E : !E;
  }
};

namespace {

/// A literal as its atom (truthy(not x) read as the negation of truthy(x))
/// and sign.
struct SignedAtom {
  uint64_t Atom;
  bool Positive;
};

SignedAtom normalise(const TermTable &Terms, const Lit &L) {
  TermId T = L.T;
  bool Positive = L.Positive;
  const TermNode &N = Terms.node(T);
  if (L.K == Lit::Truthy && N.Op == "not" && N.Args.size() == 1) {
    T = N.Args[0];
    Positive = !Positive;
  }
  return {uint64_t(T) << 1 | uint64_t(L.K), Positive};
}

} // namespace

PathSolver::PathSolver(const TermTable &Terms, uint64_t RlimitPerQuery,
                       unsigned TimeoutMs, SolverMode Mode)
    : Terms(Terms), Rlimit(RlimitPerQuery), TimeoutMs(TimeoutMs), Mode(Mode) {
  // The constants of the background facts, interned first (so every proof
  // numbers its terms alike, whichever mode decides its queries).
  TermTable &T = const_cast<TermTable &>(Terms);
  None = T.symbol("const:None");
  True = T.symbol("const:True");
  False = T.symbol("const:False");
  if (Mode != SolverMode::Z3)
    return;
  P = std::make_unique<Impl>(Terms, Rlimit, TimeoutMs);
  // Facts every query may use: None is falsy and is None; True and False.
  P->Solver.add(!P->Truthy(P->term(None)));
  P->Solver.add(P->IsNone(P->term(None)));
  P->Solver.add(P->Truthy(P->term(True)));
  P->Solver.add(!P->Truthy(P->term(False)));
  P->Solver.add(!P->IsNone(P->term(True)));
  P->Solver.add(!P->IsNone(P->term(False)));
}

PathSolver::~PathSolver() = default;

SatResult PathSolver::decideLiterals(llvm::ArrayRef<Lit> PathCondition) const {
  llvm::SmallDenseMap<uint64_t, bool, 64> Sign;
  const Lit Background[] = {
      {Lit::Truthy, None, false}, {Lit::IsNone, None, true},
      {Lit::Truthy, True, true},  {Lit::Truthy, False, false},
      {Lit::IsNone, True, false}, {Lit::IsNone, False, false}};
  for (llvm::ArrayRef<Lit> Part :
       {llvm::ArrayRef<Lit>(Background), PathCondition})
    for (const Lit &L : Part) {
      SignedAtom A = normalise(Terms, L);
      auto [It, New] = Sign.try_emplace(A.Atom, A.Positive);
      if (!New && It->second != A.Positive)
        return SatResult::Unsat;
    }
  return SatResult::Sat;
}

SatResult PathSolver::checkZ3(llvm::ArrayRef<Lit> PathCondition,
                              std::string &Reason) {
  assert(P && "the Z3 mode makes its solver up front");
  P->Solver.push();
  for (const Lit &L : PathCondition)
    P->Solver.add(P->lit(L));
  z3::check_result R = P->Solver.check();
  SatResult Out = SatResult::Unknown;
  if (R == z3::sat)
    Out = SatResult::Sat;
  else if (R == z3::unsat)
    Out = SatResult::Unsat;
  else
    Reason = P->Solver.reason_unknown();
  P->Solver.pop();
  return Out;
}

SatResult PathSolver::check(llvm::ArrayRef<Lit> PathCondition,
                            llvm::StringRef Name) {
  QueryRecord Q{Name.str(), SatResult::Unknown, ""};
  Q.Result = Mode == SolverMode::Z3 ? checkZ3(PathCondition, Q.Reason)
                                    : decideLiterals(PathCondition);
  Queries.push_back(Q);
  return Q.Result;
}

uint64_t PathSolver::rlimitUsed() const {
  if (!P)
    return 0;
  z3::stats S = P->Solver.statistics();
  for (unsigned I = 0; I < S.size(); ++I)
    if (S.key(I) == "rlimit count")
      return S.is_uint(I) ? S.uint_value(I) : uint64_t(S.double_value(I));
  return 0;
}
