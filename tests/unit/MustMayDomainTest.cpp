//===- MustMayDomainTest.cpp - The must/may set domain --------------------===//
//
// MustMaySet (pyverify/Domain/MustMayDomain.h), the domain of the
// prover's assigned-locals analysis (lib/SMT/ResumeEntry.cpp), joins the
// lattice law suite (LatticeLaws.h): states over four locals with every
// mix of must / may / neither, and bottom.
//
//===----------------------------------------------------------------------===//

#include "LatticeLaws.h"

#include "pyverify/Domain/MustMayDomain.h"

using namespace pyverify;

namespace {
MustMaySet state(unsigned MustBits, unsigned MayBits) {
  llvm::BitVector Must(4), May(4);
  for (unsigned I = 0; I < 4; ++I) {
    if ((MustBits >> I) & 1)
      Must.set(I);
    if (((MayBits | MustBits) >> I) & 1)
      May.set(I);
  }
  return MustMaySet::of(Must, May);
}
} // namespace

template <> struct pyverify::test::LatticeSamples<MustMaySet> {
  static MustMaySet bottom() { return MustMaySet::bottom(4); }
  static std::vector<MustMaySet> values() {
    return {state(0, 0),  state(1, 0),  state(1, 2),
            state(3, 3),  state(0, 15), state(5, 10),
            state(15, 0), state(2, 1),  state(0b1000, 0b0111)};
  }
  static std::string show(const MustMaySet &S) {
    if (S.isBottom())
      return "bottom";
    std::string Out = "must ";
    for (unsigned I = 0; I < 4; ++I)
      Out += S.must().test(I) ? '1' : '0';
    Out += " may ";
    for (unsigned I = 0; I < 4; ++I)
      Out += S.may().test(I) ? '1' : '0';
    return Out;
  }
};

namespace pyverify::test {
INSTANTIATE_TYPED_TEST_SUITE_P(MustMaySetLattice, LatticeLaws, MustMaySet);
} // namespace pyverify::test

TEST(MustMaySet, JoinIntersectsMustAndUnitesMay) {
  MustMaySet A = state(0b0011, 0b0100), B = state(0b0110, 0b1000);
  EXPECT_TRUE(A.join(B));
  EXPECT_EQ(A, state(0b0010, 0b1101));
  // A store that may store nothing: possibly assigned, not definitely.
  MustMaySet C = state(0b0001, 0);
  C.setMaybe(0);
  EXPECT_EQ(C, state(0, 0b0001));
  C.resetMust(0);
  EXPECT_EQ(C, state(0, 0b0001));
}
