//===- ContextDomainTest.cpp - The context state obeys the lattice laws ---===//
//
// ContextState (pyverify/Domain/ContextDomain.h) joins the lattice-law suite
// with states drawn from a generator of random but well-formed states (the
// invariants the header states), and runs every law on several hundred
// random triples from a fixed seed, so a failure is reproducible.
//
//===----------------------------------------------------------------------===//

#include "LatticeLaws.h"

#include "pyverify/Domain/ContextDomain.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace pyverify;
using namespace pyverify::test;

namespace {

/// Random well-formed states over a stack of Depth slots: the states of
/// one to three paths, joined.
///
/// A path's state: a context id names its enter instruction, so it always
/// sits in the same slot: slot I draws its ids from {100 + 10 I, +1, +2},
/// and local J's contexts from {500 + 10 J, +1} (an explicit __enter__
/// call). An X slot's context is active, a C or P slot's is not; an Entered
/// local's context is active, an Exited one's is not. The contexts are
/// entered in stack order, with the locals' at random points among them.
/// Mixed slots, Maybe locals and Maybe contexts, and unordered or
/// conflicting entry orders come from the joins.
class StateGenerator {
public:
  explicit StateGenerator(unsigned Depth, uint32_t Seed)
      : Depth(Depth), Rng(Seed) {}

  ContextState next() {
    ContextState S = path();
    unsigned More = pick(20);
    for (unsigned K = More < 10 ? 0 : More < 17 ? 1 : 2; K; --K)
      S.join(path());
    return S;
  }

  ContextState path() {
    ContextState S = ContextState::entry(Depth);
    std::vector<uint32_t> StackCtx; // in stack order
    for (unsigned I = 0; I < Depth; ++I) {
      uint32_t Ctx = 100 + 10 * I + pick(3);
      switch (pick(8)) {
      case 0:
      case 1:
        S.Stack[I] = {SlotTag::Exit, Ctx};
        StackCtx.push_back(Ctx);
        break;
      case 2:
        S.Stack[I] = {SlotTag::Called, Ctx};
        break;
      case 3:
        S.Stack[I] = {SlotTag::Pending, Ctx};
        break;
      case 4:
        S.Stack[I] = {SlotTag::LocalRef, pick(3)};
        break;
      case 5:
        S.Stack[I] = {coin() ? SlotTag::EnterMethod : SlotTag::ExitMethod,
                      pick(3)};
        break;
      default:
        break; // Other
      }
    }
    std::vector<uint32_t> LocalCtx;
    for (uint32_t L = 0; L < 3; ++L) {
      uint32_t Ctx = 500 + 10 * L + pick(2);
      switch (pick(3)) {
      case 0:
        S.setLocal({L, LocalStatus::Entered, Ctx});
        LocalCtx.push_back(Ctx);
        break;
      case 1:
        S.setLocal({L, LocalStatus::Exited, Ctx});
        break;
      default:
        break; // not a manager local on this path
      }
    }
    // Interleave: the stack's contexts keep their order.
    size_t SI = 0, LI = 0;
    while (SI < StackCtx.size() || LI < LocalCtx.size()) {
      bool TakeLocal =
          SI == StackCtx.size() || (LI < LocalCtx.size() && coin());
      S.enterActive(TakeLocal ? LocalCtx[LI++] : StackCtx[SI++]);
    }
    return S;
  }

private:
  unsigned pick(unsigned N) { return unsigned(Rng() % N); }
  bool coin() { return pick(2) == 0; }

  unsigned Depth;
  std::mt19937 Rng; // its output sequence is fixed by the standard
};

std::string tagName(SlotTag T) {
  switch (T) {
  case SlotTag::Other:
    return "_";
  case SlotTag::Exit:
    return "X";
  case SlotTag::Pending:
    return "P";
  case SlotTag::Called:
    return "C";
  case SlotTag::Mixed:
    return "M";
  case SlotTag::LocalRef:
    return "L";
  case SlotTag::EnterMethod:
    return "En";
  case SlotTag::ExitMethod:
    return "Ex";
  case SlotTag::LoadedExit:
    return "Lx";
  case SlotTag::WithEnter:
    return "We";
  case SlotTag::ExitSelf:
    return "S";
  }
  return "?";
}

} // namespace

template <> struct pyverify::test::LatticeSamples<ContextState> {
  static ContextState bottom() { return ContextState::bottom(); }
  static ContextState top() { return ContextState::top(); }
  static std::vector<ContextState> values() {
    StateGenerator Gen(/*Depth=*/3, /*Seed=*/7);
    std::vector<ContextState> Out;
    for (int I = 0; I < 12; ++I)
      Out.push_back(Gen.next());
    Out.push_back(ContextState::entry(3));
    Out.push_back(ContextState::entry(2)); // another stack shape
    Out.push_back(ContextState::top());
    return Out;
  }
  static std::string show(const ContextState &S) {
    if (S.isBottom())
      return "bottom";
    if (S.isTop())
      return "top";
    std::string Out = "[stack";
    for (const ContextSlot &X : S.Stack) {
      Out += " " + tagName(X.T);
      if (X.T != SlotTag::Other && X.Id != ContextSlot::NoContext)
        Out += std::to_string(X.Id);
    }
    Out += " | locals";
    for (const ContextLocal &L : S.Locals)
      Out += " " + std::to_string(L.Local) + ":" +
             (L.S == LocalStatus::Entered  ? "E"
              : L.S == LocalStatus::Exited ? "D"
                                           : "M") +
             std::to_string(L.Ctx);
    Out += " | active";
    for (const ActiveContext &A : S.active()) {
      Out += " " + std::to_string(A.Ctx) + (A.Maybe ? "?" : "");
      // Mark the pairs the list order does not show: unordered (no path
      // has both) or conflicting (paths disagree).
      for (const ActiveContext &B : S.active())
        if (A.Ctx < B.Ctx &&
            S.enteredBefore(A.Ctx, B.Ctx) == S.enteredBefore(B.Ctx, A.Ctx))
          Out += (S.enteredBefore(A.Ctx, B.Ctx) ? "<>" : "~") +
                 std::to_string(B.Ctx);
    }
    return Out + "]";
  }
};

namespace pyverify::test {
INSTANTIATE_TYPED_TEST_SUITE_P(ContextStateLattice, LatticeLaws, ContextState);
} // namespace pyverify::test

namespace {

/// What a join of \p A and \p B exercises, to check that the generator
/// reaches every rule of the join.
struct Coverage {
  unsigned Renames = 0, MixedWithContext = 0, Unordered = 0, Conflicting = 0;

  void add(const ContextState &A, const ContextState &B) {
    if (!A.isValue() || !B.isValue() || A.Stack.size() != B.Stack.size())
      return;
    for (size_t I = 0; I < A.Stack.size(); ++I) {
      uint32_t X = A.Stack[I].context(), Y = B.Stack[I].context();
      Renames +=
          X != Y && X != ContextSlot::NoContext && Y != ContextSlot::NoContext;
    }
    ContextState J = joined(A, B);
    for (const ContextSlot &X : J.Stack)
      MixedWithContext +=
          X.T == SlotTag::Mixed && X.context() != ContextSlot::NoContext;
    for (const ActiveContext &P : J.active())
      for (const ActiveContext &Q : J.active()) {
        bool PQ = J.enteredBefore(P.Ctx, Q.Ctx);
        bool QP = J.enteredBefore(Q.Ctx, P.Ctx);
        Unordered += P.Ctx < Q.Ctx && !PQ && !QP;
        Conflicting += P.Ctx < Q.Ctx && PQ && QP;
      }
  }
};

// Every law on 500 random triples (with bottom and top), for two stack
// depths. A law's first failing triple is enough: the rest would repeat it.
TEST(ContextStateLaws, RandomTriples) {
  Coverage Cov;
  for (unsigned Depth : {2u, 4u}) {
    StateGenerator Gen(Depth, /*Seed=*/20240611 + Depth);
    for (int T = 0; T < 500 && !::testing::Test::HasFailure(); ++T) {
      std::vector<ContextState> Vs{ContextState::bottom(), Gen.next(),
                                   Gen.next(), Gen.next()};
      SCOPED_TRACE("depth " + std::to_string(Depth) + ", triple " +
                   std::to_string(T));
      laws::joinIsCommutative(Vs);
      laws::joinIsAssociative(Vs);
      laws::joinIsIdempotent(Vs);
      laws::bottomIsIdentity(Vs.front(), Vs);
      laws::topIsAbsorbing(ContextState::top(), Vs);
      laws::joinIsUpperBound(Vs);
      laws::joinReportsChange(Vs);
      laws::widenIsUpperBound(Vs);
      laws::widenReportsChange(Vs);
      laws::widenIsStableBelow(Vs);
      laws::widenChainsStabilise(Vs);
      Cov.add(Vs[1], Vs[2]);
      Cov.add(Vs[2], Vs[3]);
    }
  }
  // The triples reach every rule of the join, many times.
  EXPECT_GT(Cov.Renames, 100u);
  EXPECT_GT(Cov.MixedWithContext, 100u);
  EXPECT_GT(Cov.Unordered, 100u);
  EXPECT_GT(Cov.Conflicting, 20u);
}

// assign() into one reused state gives the state assigned, whatever the
// scratch held before (bottom, top, a deeper or shallower value).
TEST(ContextStateAssign, EqualsTheStateAssignedWhateverItHeld) {
  StateGenerator Deep(6, /*Seed=*/7), Shallow(1, /*Seed=*/8);
  ContextState X = ContextState::bottom();
  std::vector<ContextState> Vs{ContextState::bottom(), ContextState::top()};
  for (int T = 0; T < 100; ++T) {
    Vs.push_back(Deep.next());
    Vs.push_back(Shallow.next());
  }
  for (const ContextState &A : Vs) {
    X.assign(A);
    ASSERT_EQ(X, A);
  }
}

// The join's rules on small states, both ways round.

ContextState withExit(uint32_t Ctx) {
  ContextState S = ContextState::entry(1);
  S.Stack[0] = {SlotTag::Exit, Ctx};
  S.enterActive(Ctx);
  return S;
}

ContextState entering(std::initializer_list<uint32_t> Ctxs) {
  ContextState S = ContextState::entry(0);
  for (uint32_t C : Ctxs)
    S.enterActive(C);
  return S;
}

std::vector<std::pair<uint32_t, bool>> activeOf(const ContextState &S) {
  std::vector<std::pair<uint32_t, bool>> Out;
  for (const ActiveContext &A : S.active())
    Out.push_back({A.Ctx, A.Maybe});
  return Out;
}

using ActiveList = std::vector<std::pair<uint32_t, bool>>;

// The old join named the other path's context after this one's, so
// join(a, b) != join(b, a); both now take the smaller id.
TEST(ContextStateJoin, ContextsInOneSlotTakeTheSmallerId) {
  for (bool Swap : {false, true}) {
    ContextState A = withExit(Swap ? 101 : 100);
    EXPECT_EQ(A.join(withExit(Swap ? 100 : 101)), Swap);
    EXPECT_TRUE(A == withExit(100)) << LatticeSamples<ContextState>::show(A);
  }
  // Called on one side, X on the other: still one context, now Mixed.
  ContextState X = withExit(104), C = ContextState::entry(1);
  C.Stack[0] = {SlotTag::Called, 102};
  ContextState J = joined(X, C);
  EXPECT_TRUE(J == joined(C, X));
  EXPECT_TRUE(J.Stack[0] == ContextSlot::mixed(102));
  EXPECT_EQ(activeOf(J), (ActiveList{{102, true}}));
}

TEST(ContextStateJoin, OneSidedContextsAreMaybeAndUnordered) {
  ContextState J = joined(entering({7}), entering({3}));
  EXPECT_TRUE(J == joined(entering({3}), entering({7})));
  EXPECT_EQ(activeOf(J), (ActiveList{{3, true}, {7, true}})) << "by id";
  EXPECT_FALSE(J.enteredBefore(3, 7));
  EXPECT_FALSE(J.enteredBefore(7, 3));
  // A later path that has both decides their order.
  ContextState K = joined(J, entering({7, 3}));
  EXPECT_EQ(activeOf(K), (ActiveList{{7, true}, {3, true}}));
  EXPECT_TRUE(K ==
              joined(entering({7}), joined(entering({3}), entering({7, 3}))));
}

TEST(ContextStateJoin, AgreedOrderIsKept) {
  // 9 then 4 on both sides; 1 only on one, entered last there.
  ContextState J = joined(entering({9, 4}), entering({9, 4, 1}));
  EXPECT_EQ(activeOf(J), (ActiveList{{9, false}, {4, false}, {1, true}}));
  EXPECT_TRUE(J == joined(entering({9, 4, 1}), entering({9, 4})));
}

TEST(ContextStateJoin, DisagreeingOrderIsRecorded) {
  ContextState J = joined(entering({3, 7}), entering({7, 3}));
  EXPECT_TRUE(J == joined(entering({7, 3}), entering({3, 7})));
  EXPECT_EQ(activeOf(J), (ActiveList{{3, false}, {7, false}}));
  EXPECT_TRUE(J.enteredBefore(3, 7));
  EXPECT_TRUE(J.enteredBefore(7, 3));
}

TEST(ContextStateJoin, LocalsTakeTheSmallerContext) {
  ContextState A = ContextState::entry(0), B = ContextState::entry(0);
  A.setLocal({2, LocalStatus::Entered, 530});
  B.setLocal({2, LocalStatus::Entered, 520});
  ContextState J = joined(A, B);
  EXPECT_TRUE(J == joined(B, A));
  ASSERT_EQ(J.Locals.size(), 1u);
  EXPECT_TRUE(J.Locals[0] == (ContextLocal{2, LocalStatus::Maybe, 520}));
}

TEST(ContextStateJoin, NothingToRenameChangesNothing) {
  ContextState A = withExit(100);
  EXPECT_FALSE(A.join(withExit(100)));
  EXPECT_TRUE(A == withExit(100));
}

} // namespace
