//===- LatticeLaws.h - Lattice-law tests any domain joins -------*- C++ -*-===//
//
// Contract: the laws AbstractDomain.h states, checked on every pair and triple
// of a domain's sample values (bottom included), one named test per law:
//
//   JoinIsCommutative     a ⊔ b == b ⊔ a
//   JoinIsAssociative     (a ⊔ b) ⊔ c == a ⊔ (b ⊔ c)
//   JoinIsIdempotent      a ⊔ a == a, and join reports no change
//   BottomIsIdentity      ⊥ ⊔ a == a ⊔ ⊥ == a; isBottom() iff == ⊥
//   TopIsAbsorbing        ⊤ ⊔ a == a ⊔ ⊤ == ⊤, and joining into ⊤ changes
//                         nothing (only for a domain whose samples name a
//                         top; skipped otherwise)
//   JoinIsUpperBound      a ⊑ a ⊔ b and b ⊑ a ⊔ b
//   JoinReportsChange     join's result == (value after != value before)
//   WidenIsUpperBound     a ⊑ a ∇ b and b ⊑ a ∇ b
//   WidenReportsChange    widen's result == (value after != value before)
//   WidenIsStableBelow    b ⊑ a implies a ∇ b == a (a stable loop head is
//                         not re-queued forever)
//   WidenChainsStabilise  x := x ∇ (x ⊔ s) over the samples, repeated,
//                         stops changing
//
// where a ⊑ b means "joining a into b changes nothing". Equality is the
// domain's operator== (abstract values, not representations).
//
// A domain joins the suite in a few lines (SPARTA's
// AbstractDomainPropertyTest):
//
//   template <> struct pyverify::test::LatticeSamples<MyDomain> {
//     static MyDomain bottom() { return MyDomain::bottom(); }
//     static std::vector<MyDomain> values() { return {...}; }
//     static MyDomain top() { return MyDomain::top(); } // if it has one
//   };
//   namespace pyverify::test {
//   INSTANTIATE_TYPED_TEST_SUITE_P(MyDomainLattice, LatticeLaws, ::MyDomain);
//   }
//
// ctest lists them as MyDomainLattice.JoinIsCommutative<MyDomain>, ...; so
// `ctest -R Lattice` runs every domain's laws.
//
// The laws are also plain function templates (namespace laws), so a test can
// show each one rejecting a deliberately broken domain.
//
// Failures print the values with `static std::string show(const D &)` from
// the LatticeSamples specialisation if it has one, else with
// `std::ostream << value` if that works.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_TESTS_UNIT_LATTICELAWS_H
#define PYVERIFY_TESTS_UNIT_LATTICELAWS_H

#include "pyverify/Fixpoint/AbstractDomain.h"

#include "gtest/gtest.h"

#include <concepts>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace pyverify::test {

/// Specialise for each domain: `static D bottom()` and
/// `static std::vector<D> values()` (a handful of distinct values: some
/// incomparable pairs, some chains, top if there is one), and optionally
/// `static D top()` and `static std::string show(const D &)`.
template <typename D> struct LatticeSamples;

template <typename D> std::string show(const D &V) {
  if constexpr (requires(const D &X) {
                  {
                    LatticeSamples<D>::show(X)
                    } -> std::convertible_to<std::string>;
                }) {
    return LatticeSamples<D>::show(V);
  } else if constexpr (requires(std::ostream & OS, const D &X) { OS << X; }) {
    std::ostringstream OS;
    OS << V;
    return OS.str();
  } else {
    return "<value>";
  }
}

template <typename D> D joined(D A, const D &B) {
  A.join(B);
  return A;
}
template <typename D> D widened(D A, const D &B) {
  A.widen(B);
  return A;
}
/// A ⊑ B: joining A into B changes nothing.
template <typename D> bool leq(const D &A, D B) { return !B.join(A); }

/// The laws as functions over a sample list (bottom first), so a test can
/// also show that each one catches a broken domain.
namespace laws {

template <typename D> void joinIsCommutative(const std::vector<D> &Vs) {
  for (const D &A : Vs)
    for (const D &B : Vs)
      EXPECT_TRUE(joined(A, B) == joined(B, A))
          << show(A) << " join " << show(B) << " = " << show(joined(A, B))
          << " but the other way round = " << show(joined(B, A));
}

template <typename D> void joinIsAssociative(const std::vector<D> &Vs) {
  for (const D &A : Vs)
    for (const D &B : Vs)
      for (const D &C : Vs) {
        D L = joined(joined(A, B), C);
        D R = joined(A, joined(B, C));
        EXPECT_TRUE(L == R)
            << "(" << show(A) << " join " << show(B) << ") join " << show(C)
            << " = " << show(L) << " but " << show(A) << " join (" << show(B)
            << " join " << show(C) << ") = " << show(R);
      }
}

template <typename D> void joinIsIdempotent(const std::vector<D> &Vs) {
  for (const D &A : Vs) {
    D X = A;
    EXPECT_TRUE(X == A) << "a copy differs from " << show(A);
    EXPECT_FALSE(X.join(A)) << show(A) << " join itself reports a change";
    EXPECT_TRUE(X == A) << show(A) << " join itself = " << show(X);
  }
}

template <typename D>
void bottomIsIdentity(const D &Bot, const std::vector<D> &Vs) {
  EXPECT_TRUE(Bot.isBottom()) << show(Bot) << " is not isBottom()";
  for (const D &A : Vs) {
    EXPECT_TRUE(joined(Bot, A) == A)
        << "bottom join " << show(A) << " = " << show(joined(Bot, A));
    D X = A;
    EXPECT_FALSE(X.join(Bot)) << show(A) << " join bottom reports a change";
    EXPECT_TRUE(X == A) << show(A) << " join bottom = " << show(X);
    EXPECT_EQ(A.isBottom(), A == Bot)
        << show(A) << ": isBottom() is " << A.isBottom();
  }
}

template <typename D>
void topIsAbsorbing(const D &Top, const std::vector<D> &Vs) {
  for (const D &A : Vs) {
    EXPECT_TRUE(joined(A, Top) == Top)
        << show(A) << " join top = " << show(joined(A, Top));
    EXPECT_TRUE(joined(Top, A) == Top)
        << "top join " << show(A) << " = " << show(joined(Top, A));
    D X = Top;
    EXPECT_FALSE(X.join(A)) << "top join " << show(A) << " reports a change";
  }
}

template <typename D> void joinIsUpperBound(const std::vector<D> &Vs) {
  for (const D &A : Vs)
    for (const D &B : Vs) {
      D J = joined(A, B);
      EXPECT_TRUE(leq(A, J)) << show(A) << " join " << show(B) << " = "
                             << show(J) << ", not above " << show(A);
      EXPECT_TRUE(leq(B, J)) << show(A) << " join " << show(B) << " = "
                             << show(J) << ", not above " << show(B);
    }
}

template <typename D> void joinReportsChange(const std::vector<D> &Vs) {
  for (const D &A : Vs)
    for (const D &B : Vs) {
      D X = A;
      bool Changed = X.join(B);
      EXPECT_EQ(Changed, !(X == A))
          << show(A) << " join " << show(B) << " = " << show(X)
          << " but join returned " << Changed;
    }
}

template <typename D> void widenIsUpperBound(const std::vector<D> &Vs) {
  for (const D &A : Vs)
    for (const D &B : Vs) {
      D W = widened(A, B);
      EXPECT_TRUE(leq(A, W)) << show(A) << " widen " << show(B) << " = "
                             << show(W) << ", not above " << show(A);
      EXPECT_TRUE(leq(B, W)) << show(A) << " widen " << show(B) << " = "
                             << show(W) << ", not above " << show(B);
    }
}

template <typename D> void widenReportsChange(const std::vector<D> &Vs) {
  for (const D &A : Vs)
    for (const D &B : Vs) {
      D X = A;
      bool Changed = X.widen(B);
      EXPECT_EQ(Changed, !(X == A))
          << show(A) << " widen " << show(B) << " = " << show(X)
          << " but widen returned " << Changed;
    }
}

template <typename D> void widenIsStableBelow(const std::vector<D> &Vs) {
  for (const D &A : Vs)
    for (const D &B : Vs) {
      if (!leq(B, A))
        continue;
      D X = A;
      EXPECT_FALSE(X.widen(B)) << show(A) << " widen " << show(B)
                               << " (which is below it) reports a change";
      EXPECT_TRUE(X == A) << show(A) << " widen " << show(B) << " = "
                          << show(X);
    }
}

/// Drives every sample through rounds of x := x ∇ (x ⊔ s) over all samples:
/// a correct widening stops changing after a few rounds.
template <typename D> void widenChainsStabilise(const std::vector<D> &Vs) {
  const unsigned MaxRounds = 64;
  for (const D &Start : Vs) {
    D X = Start;
    unsigned Round = 0;
    for (bool Changed = true; Changed && Round < MaxRounds; ++Round) {
      Changed = false;
      for (const D &S : Vs)
        Changed |= X.widen(joined(X, S));
    }
    EXPECT_LT(Round, MaxRounds)
        << "widening from " << show(Start) << " did not stabilise";
  }
}

} // namespace laws

template <typename D> class LatticeLaws : public ::testing::Test {
protected:
  static_assert(AbstractDomain<D>, "LatticeLaws needs an AbstractDomain");

  static D bottom() { return LatticeSamples<D>::bottom(); }
  /// The samples with bottom first.
  static std::vector<D> values() {
    std::vector<D> Out{bottom()};
    for (const D &V : LatticeSamples<D>::values())
      Out.push_back(V);
    return Out;
  }
};

TYPED_TEST_SUITE_P(LatticeLaws);

TYPED_TEST_P(LatticeLaws, JoinIsCommutative) {
  laws::joinIsCommutative(TestFixture::values());
}
TYPED_TEST_P(LatticeLaws, JoinIsAssociative) {
  laws::joinIsAssociative(TestFixture::values());
}
TYPED_TEST_P(LatticeLaws, JoinIsIdempotent) {
  laws::joinIsIdempotent(TestFixture::values());
}
TYPED_TEST_P(LatticeLaws, BottomIsIdentity) {
  laws::bottomIsIdentity(TestFixture::bottom(), TestFixture::values());
}
TYPED_TEST_P(LatticeLaws, TopIsAbsorbing) {
  if constexpr (requires {
                  {
                    LatticeSamples<TypeParam>::top()
                    } -> std::same_as<TypeParam>;
                })
    laws::topIsAbsorbing(LatticeSamples<TypeParam>::top(),
                         TestFixture::values());
  else
    GTEST_SKIP() << "the samples name no top";
}
TYPED_TEST_P(LatticeLaws, JoinIsUpperBound) {
  laws::joinIsUpperBound(TestFixture::values());
}
TYPED_TEST_P(LatticeLaws, JoinReportsChange) {
  laws::joinReportsChange(TestFixture::values());
}
TYPED_TEST_P(LatticeLaws, WidenIsUpperBound) {
  laws::widenIsUpperBound(TestFixture::values());
}
TYPED_TEST_P(LatticeLaws, WidenReportsChange) {
  laws::widenReportsChange(TestFixture::values());
}
TYPED_TEST_P(LatticeLaws, WidenIsStableBelow) {
  laws::widenIsStableBelow(TestFixture::values());
}
TYPED_TEST_P(LatticeLaws, WidenChainsStabilise) {
  laws::widenChainsStabilise(TestFixture::values());
}

REGISTER_TYPED_TEST_SUITE_P(LatticeLaws, JoinIsCommutative, JoinIsAssociative,
                            JoinIsIdempotent, BottomIsIdentity, TopIsAbsorbing,
                            JoinIsUpperBound, JoinReportsChange,
                            WidenIsUpperBound, WidenReportsChange,
                            WidenIsStableBelow, WidenChainsStabilise);

} // namespace pyverify::test

#endif
