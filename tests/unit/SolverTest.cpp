//===- SolverTest.cpp - TermTable and PathSolver on deep terms ------------===//
//
// A term is nested as deep as the input makes it (`x = x + 1` repeated), and
// the prover runs on the caller's thread (prove_bundle from any Python
// thread). Printing a term and asking Z3 about it must not use C stack in
// proportion to its height: these run on a 64 KiB thread, where a recursion
// per level overflows after a few hundred levels.
//
//===----------------------------------------------------------------------===//

#include "pyverify/SMT/Solver.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include "SmallStack.h"

#include <gtest/gtest.h>
#include <pthread.h>

using namespace pyverify::smt;

namespace {

using pyverify::testing::onSmallStack;

/// binop:+(...binop:+(local:x, const:1)..., const:1), \p Levels deep.
TermId chain(TermTable &Terms, size_t Levels) {
  TermId One = Terms.symbol("const:1");
  TermId T = Terms.symbol("local:x");
  for (size_t I = 0; I < Levels; ++I)
    T = Terms.apply("binop:+", {T, One});
  return T;
}

TEST(SolverSmallStack, PrintsDeepTerm) {
  TermTable Terms;
  TermId T = chain(Terms, 2);
  EXPECT_EQ(Terms.str(T), "binop:+(binop:+(local:x, const:1), const:1)");
  TermId Deep = chain(Terms, 100000);
  onSmallStack([&] {
    std::string S = Terms.str(Deep);
    EXPECT_EQ(S.size(), 100000 * (sizeof("binop:+(, const:1)") - 1) +
                            sizeof("local:x") - 1);
    EXPECT_EQ(S.substr(0, 16), "binop:+(binop:+(");
  });
}

TEST(SolverSmallStack, Z3AnswersAsTheLiteralRuleOnDeepTerms) {
  // Above MaxZ3TermHeight a term is a fresh constant of its own: the same
  // term still contradicts itself, two different ones do not.
  TermTable Terms;
  TermId A = chain(Terms, 100000);
  TermId B = Terms.apply("binop:+", {A, Terms.symbol("const:2")});
  TermId NotA = Terms.apply("not", {A});
  const Lit Cases[][2] = {
      {{Lit::Truthy, A, true}, {Lit::Truthy, A, false}},
      {{Lit::Truthy, A, true}, {Lit::Truthy, B, false}},
      {{Lit::Truthy, A, true}, {Lit::Truthy, NotA, true}},
      {{Lit::Truthy, A, true}, {Lit::IsNone, A, true}},
      {{Lit::Truthy, chain(Terms, 3), true}, {Lit::Truthy, A, false}}};
  onSmallStack([&] {
    PathSolver Z3(Terms, 2000000, 5000, SolverMode::Z3);
    PathSolver Rule(Terms, 2000000, 5000, SolverMode::Literals);
    for (const auto &C : Cases) {
      SatResult R = Z3.check(C, "deep");
      EXPECT_NE(R, SatResult::Unknown);
      EXPECT_EQ(R, Rule.check(C, "deep"));
    }
    EXPECT_EQ(Z3.check(Cases[0], "deep"), SatResult::Unsat);
    EXPECT_EQ(Z3.check(Cases[1], "deep"), SatResult::Sat);
    EXPECT_EQ(Z3.check(Cases[2], "deep"), SatResult::Unsat);
  });
}

} // namespace
