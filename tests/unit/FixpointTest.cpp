//===- FixpointTest.cpp - The fixpoint engine on toy graphs ---------------===//
//
// runForwardFixpoint() and reversePostOrder() know nothing of Python, so they
// are tested here on toy programs over one integer variable x: each node
// does one action (x := c, x := x + c, or nothing) and each edge carries a
// guard (x < k, x >= k) or passes the state *before* its source node on, as
// an exception edge does. Two toy domains interpret them: intervals with
// widening, and constants. A concrete interpreter runs the same programs so
// the tests can check soundness (every concrete state is in the abstract one)
// as well as exact results. Both toy domains and DepthValue pass the lattice
// laws.
//
//===----------------------------------------------------------------------===//

#include "LatticeLaws.h"

#include "pyverify/Domain/DepthDomain.h"
#include "pyverify/Fixpoint/AbstractDomain.h"
#include "pyverify/Fixpoint/FixpointIterator.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <limits>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

using namespace pyverify;
using namespace pyverify::test;

namespace {

//===----------------------------------------------------------------------===//
// Toy programs
//===----------------------------------------------------------------------===//

enum class Action { None, Assign, Add };
enum class Guard { Always, Less, GreaterEq, NodeIn };

struct ToyEdge {
  unsigned Source;
  unsigned Target;
  Guard G = Guard::Always;
  int64_t K = 0;
};

struct ToyNode {
  Action A = Action::None;
  int64_t C = 0;
};

/// A graph meeting FixpointIterator's requirements, and nothing else.
class ToyGraph {
public:
  explicit ToyGraph(unsigned N, unsigned Entry = 0)
      : Nodes(N), Succs(N), Entry(Entry) {}

  ToyGraph &assign(unsigned N, int64_t C) {
    Nodes[N] = {Action::Assign, C};
    return *this;
  }
  ToyGraph &add(unsigned N, int64_t C) {
    Nodes[N] = {Action::Add, C};
    return *this;
  }
  ToyGraph &edge(unsigned S, unsigned T, Guard G = Guard::Always,
                 int64_t K = 0) {
    Succs[S].push_back({S, T, G, K});
    return *this;
  }

  unsigned numNodes() const { return Nodes.size(); }
  unsigned entryNode() const { return Entry; }
  llvm::ArrayRef<ToyEdge> successors(unsigned N) const { return Succs[N]; }
  unsigned edgeTarget(const ToyEdge &E) const { return E.Target; }

  const ToyNode &node(unsigned N) const { return Nodes[N]; }

private:
  std::vector<ToyNode> Nodes;
  std::vector<std::vector<ToyEdge>> Succs;
  unsigned Entry;
};

/// Runs the program concretely from x = \p X0 for at most \p Steps nodes,
/// taking at each node the first edge whose guard holds, and records the
/// value of x on entry to every node visited.
std::map<unsigned, std::set<int64_t>> runConcrete(const ToyGraph &G, int64_t X0,
                                                  unsigned Steps = 100000) {
  std::map<unsigned, std::set<int64_t>> Seen;
  unsigned N = G.entryNode();
  int64_t X = X0;
  for (unsigned S = 0; S < Steps; ++S) {
    Seen[N].insert(X);
    const ToyNode &Nd = G.node(N);
    if (Nd.A == Action::Assign)
      X = Nd.C;
    else if (Nd.A == Action::Add)
      X += Nd.C;
    // NodeIn edges model exceptional exits, which the concrete run never
    // takes.
    const ToyEdge *Taken = nullptr;
    for (const ToyEdge &E : G.successors(N))
      if (E.G == Guard::Always || (E.G == Guard::Less && X < E.K) ||
          (E.G == Guard::GreaterEq && X >= E.K)) {
        Taken = &E;
        break;
      }
    if (!Taken)
      break;
    N = Taken->Target;
  }
  return Seen;
}

//===----------------------------------------------------------------------===//
// Toy domains
//===----------------------------------------------------------------------===//

/// Intervals over int64 with ±infinity, and the standard widening (an
/// unstable bound jumps to infinity).
class Interval {
public:
  /// Bounds widen to the hull: no order shows (FixpointIterator.h).
  static constexpr bool JoinIsOrderFree = true;
  static constexpr int64_t NegInf = std::numeric_limits<int64_t>::min();
  static constexpr int64_t PosInf = std::numeric_limits<int64_t>::max();

  static Interval bottom() { return Interval(1, 0); }
  static Interval top() { return Interval(NegInf, PosInf); }
  static Interval of(int64_t Lo, int64_t Hi) {
    assert(Lo <= Hi);
    return Interval(Lo, Hi);
  }
  static Interval constant(int64_t C) { return Interval(C, C); }

  bool isBottom() const { return Lo > Hi; }
  int64_t lo() const { return Lo; }
  int64_t hi() const { return Hi; }
  bool contains(int64_t V) const { return Lo <= V && V <= Hi; }

  bool join(const Interval &O) {
    if (O.isBottom())
      return false;
    if (isBottom()) {
      *this = O;
      return true;
    }
    Interval Old = *this;
    Lo = std::min(Lo, O.Lo);
    Hi = std::max(Hi, O.Hi);
    return !(*this == Old);
  }
  bool widen(const Interval &O) {
    if (O.isBottom())
      return false;
    if (isBottom()) {
      *this = O;
      return true;
    }
    Interval Old = *this;
    if (O.Lo < Lo)
      Lo = NegInf;
    if (O.Hi > Hi)
      Hi = PosInf;
    return !(*this == Old);
  }
  bool operator==(const Interval &O) const {
    return (isBottom() && O.isBottom()) || (Lo == O.Lo && Hi == O.Hi);
  }

  Interval plus(int64_t C) const {
    if (isBottom())
      return *this;
    auto Add = [C](int64_t V) {
      if (V == NegInf || V == PosInf)
        return V;
      return V + C;
    };
    return Interval(Add(Lo), Add(Hi));
  }
  /// The values below \p K.
  Interval less(int64_t K) const {
    if (isBottom() || Lo >= K)
      return bottom();
    return Interval(Lo, std::min(Hi, K - 1));
  }
  /// The values at or above \p K.
  Interval greaterEq(int64_t K) const {
    if (isBottom() || Hi < K)
      return bottom();
    return Interval(std::max(Lo, K), Hi);
  }

  friend std::ostream &operator<<(std::ostream &OS, const Interval &I) {
    if (I.isBottom())
      return OS << "bottom";
    OS << '[';
    I.Lo == NegInf ? OS << "-inf" : OS << I.Lo;
    OS << ", ";
    I.Hi == PosInf ? OS << "+inf" : OS << I.Hi;
    return OS << ']';
  }

private:
  Interval(int64_t Lo, int64_t Hi) : Lo(Lo), Hi(Hi) {}
  int64_t Lo, Hi;
};

/// An interval domain whose "widening" only joins: on a counting loop
/// without a bound its chain never stabilises.
class JoinOnlyInterval : public Interval {
public:
  JoinOnlyInterval(const Interval &I) : Interval(I) {}
  bool widen(const JoinOnlyInterval &O) { return join(O); }
};

/// Constant propagation: bottom < every constant < top.
class Constant {
public:
  static Constant bottom() { return Constant(Kind::Bottom, 0); }
  static Constant top() { return Constant(Kind::Top, 0); }
  static Constant of(int64_t V) { return Constant(Kind::Value, V); }

  bool isBottom() const { return K == Kind::Bottom; }
  bool isTop() const { return K == Kind::Top; }
  bool isValue() const { return K == Kind::Value; }
  int64_t value() const { return V; }

  bool join(const Constant &O) {
    if (O.K == Kind::Bottom || K == Kind::Top)
      return false;
    if (K == Kind::Bottom || O.K == Kind::Top) {
      *this = O;
      return true;
    }
    if (V == O.V)
      return false;
    *this = top();
    return true;
  }
  bool widen(const Constant &O) { return join(O); } // finite height
  bool operator==(const Constant &O) const {
    return K == O.K && (K != Kind::Value || V == O.V);
  }

  friend std::ostream &operator<<(std::ostream &OS, const Constant &C) {
    if (C.isBottom())
      return OS << "bottom";
    if (C.isTop())
      return OS << "top";
    return OS << C.V;
  }

private:
  enum class Kind { Bottom, Value, Top };
  Constant(Kind K, int64_t V) : K(K), V(V) {}
  Kind K;
  int64_t V;
};

/// A type that has everything but is default constructible.
struct DefaultConstructible {
  bool join(const DefaultConstructible &) { return false; }
  bool widen(const DefaultConstructible &) { return false; }
  bool isBottom() const { return true; }
  bool operator==(const DefaultConstructible &) const { return true; }
};

static_assert(!std::is_default_constructible_v<Interval>);
static_assert(!std::is_default_constructible_v<JoinOnlyInterval>);
static_assert(!std::is_default_constructible_v<Constant>);
static_assert(!std::is_default_constructible_v<DepthValue>);
static_assert(AbstractDomain<Interval>);
static_assert(AbstractDomain<JoinOnlyInterval>);
static_assert(AbstractDomain<Constant>);
static_assert(AbstractDomain<DepthValue>);
static_assert(!AbstractDomain<DefaultConstructible>,
              "the concept must reject a default-constructible domain");
static_assert(!AbstractDomain<int>);

//===----------------------------------------------------------------------===//
// Toy analyses
//===----------------------------------------------------------------------===//

/// Intervals over a ToyGraph; \p D is Interval or JoinOnlyInterval.
template <typename D> class IntervalAnalysis {
public:
  using Domain = D;
  IntervalAnalysis(const ToyGraph &G, Interval Entry = Interval::top())
      : G(G), Entry(Entry) {}

  Domain bottom() const { return Domain(Interval::bottom()); }
  Domain entryState() const { return Domain(Entry); }
  Domain transferNode(unsigned N, const Domain &In) const {
    const ToyNode &Nd = G.node(N);
    if (In.isBottom())
      return In;
    switch (Nd.A) {
    case Action::None:
      return In;
    case Action::Assign:
      return Domain(Interval::constant(Nd.C));
    case Action::Add:
      return Domain(In.plus(Nd.C));
    }
    return In;
  }
  Domain transferEdge(const ToyEdge &E, const Domain &NodeIn,
                      const Domain &NodeOut) const {
    switch (E.G) {
    case Guard::Always:
      return NodeOut;
    case Guard::Less:
      return Domain(NodeOut.less(E.K));
    case Guard::GreaterEq:
      return Domain(NodeOut.greaterEq(E.K));
    case Guard::NodeIn:
      return NodeIn;
    }
    return NodeOut;
  }

private:
  const ToyGraph &G;
  Interval Entry;
};

/// Constant propagation over a ToyGraph; guards are not interpreted (a
/// guard that a constant refutes makes the edge infeasible).
class ConstantAnalysis {
public:
  using Domain = Constant;
  explicit ConstantAnalysis(const ToyGraph &G) : G(G) {}

  Domain bottom() const { return Constant::bottom(); }
  Domain entryState() const { return Constant::top(); }
  Domain transferNode(unsigned N, const Domain &In) const {
    const ToyNode &Nd = G.node(N);
    if (!In.isValue() && !(In.isTop() && Nd.A == Action::Assign))
      return In;
    switch (Nd.A) {
    case Action::None:
      return In;
    case Action::Assign:
      return Constant::of(Nd.C);
    case Action::Add:
      return Constant::of(In.value() + Nd.C);
    }
    return In;
  }
  Domain transferEdge(const ToyEdge &E, const Domain &NodeIn,
                      const Domain &NodeOut) const {
    if (E.G == Guard::NodeIn)
      return NodeIn;
    if (NodeOut.isValue() &&
        ((E.G == Guard::Less && !(NodeOut.value() < E.K)) ||
         (E.G == Guard::GreaterEq && !(NodeOut.value() >= E.K))))
      return Constant::bottom();
    return NodeOut;
  }

private:
  const ToyGraph &G;
};

template <typename Domain>
void expectSound(const ToyGraph &G, const std::vector<Domain> &In, int64_t X0) {
  for (const auto &[Node, Values] : runConcrete(G, X0))
    for (int64_t V : Values)
      EXPECT_TRUE(In[Node].contains(V))
          << "node " << Node << " is reached with x = " << V
          << " but its state is " << In[Node];
}

//===----------------------------------------------------------------------===//
// Lattice laws
//===----------------------------------------------------------------------===//

} // namespace

template <> struct pyverify::test::LatticeSamples<Interval> {
  static Interval bottom() { return Interval::bottom(); }
  static Interval top() { return Interval::top(); }
  static std::vector<Interval> values() {
    return {Interval::constant(0),
            Interval::constant(5),
            Interval::of(0, 10),
            Interval::of(-3, 2),
            Interval::of(4, 7),
            Interval::of(Interval::NegInf, 0),
            Interval::of(1, Interval::PosInf),
            Interval::top()};
  }
};

template <> struct pyverify::test::LatticeSamples<Constant> {
  static Constant bottom() { return Constant::bottom(); }
  static Constant top() { return Constant::top(); }
  static std::vector<Constant> values() {
    return {Constant::of(0), Constant::of(1), Constant::of(-7),
            Constant::top()};
  }
};

template <> struct pyverify::test::LatticeSamples<DepthValue> {
  static DepthValue bottom() { return DepthValue::bottom(); }
  static DepthValue top() { return DepthValue::conflict(); }
  static std::vector<DepthValue> values() {
    return {DepthValue::of(0), DepthValue::of(1), DepthValue::of(5),
            DepthValue::of(1 << 20), DepthValue::conflict()};
  }
  static std::string show(const DepthValue &D) {
    if (D.isBottom())
      return "bottom";
    if (D.isConflict())
      return "conflict";
    return std::to_string(D.value());
  }
};

namespace pyverify::test {
INSTANTIATE_TYPED_TEST_SUITE_P(IntervalLattice, LatticeLaws, ::Interval);
INSTANTIATE_TYPED_TEST_SUITE_P(ConstantLattice, LatticeLaws, ::Constant);
INSTANTIATE_TYPED_TEST_SUITE_P(DepthValueLattice, LatticeLaws, DepthValue);
} // namespace pyverify::test

namespace {

// Each law catches the broken domain it is about. Flawed<F> is the lattice
// of naturals under max (0 is bottom) with one flaw.
enum class Flaw {
  None,
  NonCommutative,     // the right operand wins
  NonAssociative,     // different values add up
  LiesAboutChange,    // join always reports a change
  BottomAbsorbs,      // anything joined with bottom is bottom
  WidenNarrows,       // widen replaces the value with the operand
  WidenAlwaysChanges, // widen always reports a change
};

template <Flaw F> class Flawed {
public:
  static Flawed of(int V) { return Flawed(V); }
  bool join(const Flawed &O) {
    int Old = V;
    switch (F) {
    case Flaw::NonCommutative:
      if (O.V)
        V = O.V;
      break;
    case Flaw::NonAssociative:
      if (V != O.V)
        V += O.V;
      break;
    case Flaw::BottomAbsorbs:
      V = (V == 0 || O.V == 0) ? 0 : std::max(V, O.V);
      break;
    default:
      V = std::max(V, O.V);
    }
    return F == Flaw::LiesAboutChange || V != Old;
  }
  bool widen(const Flawed &O) {
    if (F == Flaw::WidenNarrows) {
      int Old = V;
      V = O.V;
      return V != Old;
    }
    bool Changed = join(O);
    return F == Flaw::WidenAlwaysChanges || Changed;
  }
  bool isBottom() const { return V == 0; }
  bool operator==(const Flawed &O) const { return V == O.V; }
  friend std::ostream &operator<<(std::ostream &OS, const Flawed &X) {
    return OS << X.V;
  }

private:
  explicit Flawed(int V) : V(V) {}
  int V;
};

template <Flaw F> std::vector<Flawed<F>> flawedSamples() {
  return {Flawed<F>::of(0), Flawed<F>::of(1), Flawed<F>::of(2),
          Flawed<F>::of(5)};
}

TEST(LatticeLawsSelfTest, ASoundDomainPassesEveryLaw) {
  auto Vs = flawedSamples<Flaw::None>();
  laws::joinIsCommutative(Vs);
  laws::joinIsAssociative(Vs);
  laws::joinIsIdempotent(Vs);
  laws::bottomIsIdentity(Vs.front(), Vs);
  laws::joinIsUpperBound(Vs);
  laws::joinReportsChange(Vs);
  laws::widenIsUpperBound(Vs);
  laws::widenReportsChange(Vs);
  laws::widenIsStableBelow(Vs);
  laws::widenChainsStabilise(Vs);
}

/// Runs \p Law with its failures intercepted, and expects one of them to
/// contain \p Message.
void expectCaught(llvm::function_ref<void()> Law, llvm::StringRef Message) {
  ::testing::TestPartResultArray Failures;
  {
    ::testing::ScopedFakeTestPartResultReporter Reporter(
        ::testing::ScopedFakeTestPartResultReporter::
            INTERCEPT_ONLY_CURRENT_THREAD,
        &Failures);
    Law();
  }
  std::string All;
  for (int I = 0; I < Failures.size(); ++I) {
    llvm::StringRef Text = Failures.GetTestPartResult(I).message();
    if (Text.contains(Message))
      return;
    All += Text.str() + "\n";
  }
  ADD_FAILURE() << "no failure mentions \"" << Message.str() << "\"; got "
                << Failures.size() << ":\n"
                << All;
}

TEST(LatticeLawsSelfTest, EachLawCatchesItsFlaw) {
  expectCaught(
      [] { laws::joinIsCommutative(flawedSamples<Flaw::NonCommutative>()); },
      "but the other way round");
  expectCaught(
      [] { laws::joinIsAssociative(flawedSamples<Flaw::NonAssociative>()); },
      "(1 join 1) join 2 = 3 but 1 join (1 join 2) = 4");
  expectCaught(
      [] { laws::joinIsIdempotent(flawedSamples<Flaw::LiesAboutChange>()); },
      "join itself reports a change");
  expectCaught(
      [] { laws::joinReportsChange(flawedSamples<Flaw::LiesAboutChange>()); },
      "but join returned true");
  expectCaught(
      [] {
        laws::bottomIsIdentity(Flawed<Flaw::BottomAbsorbs>::of(0),
                               flawedSamples<Flaw::BottomAbsorbs>());
      },
      "bottom join 1 = 0");
  expectCaught(
      [] {
        laws::topIsAbsorbing(Flawed<Flaw::NonCommutative>::of(5),
                             flawedSamples<Flaw::NonCommutative>());
      },
      "top join 1 = 1");
  expectCaught(
      [] { laws::joinIsUpperBound(flawedSamples<Flaw::NonCommutative>()); },
      "1 join 2 = 2, not above 1");
  expectCaught(
      [] { laws::widenIsUpperBound(flawedSamples<Flaw::WidenNarrows>()); },
      "5 widen 1 = 1, not above 5");
  expectCaught(
      [] {
        laws::widenReportsChange(flawedSamples<Flaw::WidenAlwaysChanges>());
      },
      "but widen returned true");
  expectCaught(
      [] {
        laws::widenIsStableBelow(flawedSamples<Flaw::WidenAlwaysChanges>());
      },
      "(which is below it) reports a change");
  expectCaught(
      [] {
        laws::widenChainsStabilise(flawedSamples<Flaw::WidenAlwaysChanges>());
      },
      "did not stabilise");
}

TEST(LatticeLawsSelfTest, LeqIsTheOrderJoinInduces) {
  EXPECT_TRUE(leq(Interval::constant(3), Interval::of(0, 5)));
  EXPECT_FALSE(leq(Interval::of(0, 5), Interval::constant(3)));
  EXPECT_TRUE(leq(Interval::bottom(), Interval::constant(3)));
  EXPECT_FALSE(leq(Interval::of(0, 1), Interval::of(2, 3)));
  EXPECT_FALSE(leq(Interval::of(2, 3), Interval::of(0, 1)));
}

//===----------------------------------------------------------------------===//
// The engine
//===----------------------------------------------------------------------===//

using IntervalResult = FixpointResult<Interval>;

IntervalResult runIntervals(const ToyGraph &G, Interval Entry = Interval::top(),
                            FixpointOptions Opts = {}) {
  auto R = runForwardFixpoint(G, IntervalAnalysis<Interval>(G, Entry), Opts);
  if (!R) {
    ADD_FAILURE() << "fixpoint failed: " << llvm::toString(R.takeError());
    return {};
  }
  return std::move(*R);
}

TEST(Fixpoint, EmptyGraph) {
  ToyGraph G(0);
  auto R = runForwardFixpoint(G, ConstantAnalysis(G));
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(R->In.empty());
  EXPECT_EQ(R->Visits, 0u);
}

TEST(Fixpoint, SingleNodeGetsTheEntryState) {
  ToyGraph G(1);
  IntervalResult R = runIntervals(G, Interval::constant(7));
  ASSERT_EQ(R.In.size(), 1u);
  EXPECT_EQ(R.In[0], Interval::constant(7));
  EXPECT_EQ(R.Visits, 1u);
}

// A diamond: 0: x := 1;  0 -> 1: x += 1 -> 3;  0 -> 2: x += 3 -> 3
TEST(Fixpoint, DiamondJoinsBothArms) {
  ToyGraph G(4);
  G.assign(0, 1).add(1, 1).add(2, 3);
  G.edge(0, 1).edge(0, 2).edge(1, 3).edge(2, 3);
  IntervalResult R = runIntervals(G);
  EXPECT_EQ(R.In[0], Interval::top());
  EXPECT_EQ(R.In[1], Interval::constant(1));
  EXPECT_EQ(R.In[2], Interval::constant(1));
  EXPECT_EQ(R.In[3], Interval::of(2, 4));
  // Acyclic: the RPO worklist visits every node exactly once.
  EXPECT_EQ(R.Visits, 4u);
}

TEST(Fixpoint, DiamondWithConstants) {
  // Both arms agree: the merge keeps the constant.
  ToyGraph Same(4);
  Same.assign(1, 5).assign(2, 5);
  Same.edge(0, 1).edge(0, 2).edge(1, 3).edge(2, 3);
  auto R = runForwardFixpoint(Same, ConstantAnalysis(Same));
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->In[3], Constant::of(5));

  // They disagree: top.
  ToyGraph Differ(4);
  Differ.assign(1, 5).assign(2, 6);
  Differ.edge(0, 1).edge(0, 2).edge(1, 3).edge(2, 3);
  auto R2 = runForwardFixpoint(Differ, ConstantAnalysis(Differ));
  ASSERT_TRUE(bool(R2)) << llvm::toString(R2.takeError());
  EXPECT_EQ(R2->In[1], Constant::top());
  EXPECT_EQ(R2->In[3], Constant::top());
}

// Storage handed in (a caller's vector from an earlier run, ValueKinds.cpp):
// whatever it held is replaced, and its buffer holds the result.
TEST(Fixpoint, StorageHandedInHoldsTheResult) {
  ToyGraph G(4);
  G.assign(1, 5).assign(2, 5);
  G.edge(0, 1).edge(0, 2).edge(1, 3).edge(2, 3);
  std::vector<Constant> Old(6, Constant::top());
  const Constant *Buffer = Old.data();
  auto R = runForwardFixpoint(G, ConstantAnalysis(G), {}, {}, std::move(Old));
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  auto Fresh = runForwardFixpoint(G, ConstantAnalysis(G));
  ASSERT_TRUE(bool(Fresh)) << llvm::toString(Fresh.takeError());
  EXPECT_EQ(R->In, Fresh->In);
  EXPECT_EQ(R->Visits, Fresh->Visits);
  EXPECT_EQ(R->In.data(), Buffer);
}

// Per-edge transfer: a branch's guard refines the state on each edge, and an
// edge the guard refutes (bottom) contributes nothing.
TEST(Fixpoint, BranchEdgesRefine) {
  //   0: x := 5;  0 -[x < 3]-> 1;  0 -[x >= 3]-> 2;  1 -> 3;  2 -> 3
  ToyGraph G(4);
  G.assign(0, 5);
  G.edge(0, 1, Guard::Less, 3).edge(0, 2, Guard::GreaterEq, 3);
  G.edge(1, 3).edge(2, 3);
  IntervalResult R = runIntervals(G);
  EXPECT_TRUE(R.In[1].isBottom()) << R.In[1];
  EXPECT_EQ(R.In[2], Interval::constant(5));
  EXPECT_EQ(R.In[3], Interval::constant(5));

  // From an unknown x both arms are feasible, each refined.
  ToyGraph H(4);
  H.edge(0, 1, Guard::Less, 3).edge(0, 2, Guard::GreaterEq, 3);
  H.edge(1, 3).edge(2, 3);
  IntervalResult S = runIntervals(H, Interval::of(-10, 10));
  EXPECT_EQ(S.In[1], Interval::of(-10, 2));
  EXPECT_EQ(S.In[2], Interval::of(3, 10));
  EXPECT_EQ(S.In[3], Interval::of(-10, 10));
}

// transferEdge gets the source's entry state too: an "exception" edge that
// leaves before the node's action carries NodeIn, not NodeOut.
TEST(Fixpoint, EdgeSeesTheStateBeforeItsSource) {
  //   0: x := 0 -> 1: x := x + 10;  1 -> 2 (normal);  1 -> 3 (NodeIn)
  ToyGraph G(4);
  G.assign(0, 0).add(1, 10);
  G.edge(0, 1).edge(1, 2).edge(1, 3, Guard::NodeIn);
  IntervalResult R = runIntervals(G);
  EXPECT_EQ(R.In[2], Interval::constant(10));
  EXPECT_EQ(R.In[3], Interval::constant(0));
}

// A counting loop: widening at the head makes it terminate; the guards then
// bound the body and the exit.
//   0: x := 0 -> 1;  1 -[x < 10]-> 2;  1 -[x >= 10]-> 3;  2: x += 1 -> 1
TEST(Fixpoint, CountingLoopTerminatesByWidening) {
  ToyGraph G(4);
  G.assign(0, 0).add(2, 1);
  G.edge(0, 1).edge(1, 2, Guard::Less, 10).edge(1, 3, Guard::GreaterEq, 10);
  G.edge(2, 1);
  IntervalResult R = runIntervals(G);
  EXPECT_EQ(R.In[1], Interval::of(0, Interval::PosInf));
  EXPECT_EQ(R.In[2], Interval::of(0, 9));
  EXPECT_EQ(R.In[3], Interval::of(10, Interval::PosInf));
  EXPECT_LT(R.Visits, 20u) << "widening should cut the loop short";
  expectSound(G, R.In, 0);
}

TEST(Fixpoint, WideningDelayKeepsEarlyIterationsPrecise) {
  // With the bound at 3 and a delay longer than the loop, plain joins reach
  // the exact fixpoint before any widening.
  ToyGraph G(4);
  G.assign(0, 0).add(2, 1);
  G.edge(0, 1).edge(1, 2, Guard::Less, 3).edge(1, 3, Guard::GreaterEq, 3);
  G.edge(2, 1);
  FixpointOptions Opts;
  Opts.WideningDelay = 10;
  IntervalResult R = runIntervals(G, Interval::top(), Opts);
  EXPECT_EQ(R.In[1], Interval::of(0, 3));
  EXPECT_EQ(R.In[2], Interval::of(0, 2));
  EXPECT_EQ(R.In[3], Interval::constant(3));
  expectSound(G, R.In, 0);
}

TEST(Fixpoint, SelfLoop) {
  //   0: x := 0 -> 1;  1: x += 1;  1 -[x < 5]-> 1;  1 -[x >= 5]-> 2
  ToyGraph G(3);
  G.assign(0, 0).add(1, 1);
  G.edge(0, 1).edge(1, 1, Guard::Less, 5).edge(1, 2, Guard::GreaterEq, 5);
  IntervalResult R = runIntervals(G);
  EXPECT_EQ(R.In[1], Interval::of(0, Interval::PosInf));
  EXPECT_EQ(R.In[2], Interval::of(5, Interval::PosInf));
  expectSound(G, R.In, 0);

  // The constant domain needs no widening on a self loop that keeps x.
  ToyGraph H(2);
  H.assign(0, 4);
  H.edge(0, 1).edge(1, 1);
  auto C = runForwardFixpoint(H, ConstantAnalysis(H));
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  EXPECT_EQ(C->In[1], Constant::of(4));
}

// Nested loops: both heads widen, the result is sound, and the exits are
// bounded by their guards.
//   0: x := 0 -> 1
//   1 (outer head) -[x < 100]-> 2;  1 -[x >= 100]-> 5
//   2 (inner head) -[x < 50]-> 3;   2 -[x >= 50]-> 4
//   3: x += 1 -> 2;  4: x += 2 -> 1
TEST(Fixpoint, NestedLoops) {
  ToyGraph G(6);
  G.assign(0, 0).add(3, 1).add(4, 2);
  G.edge(0, 1);
  G.edge(1, 2, Guard::Less, 100).edge(1, 5, Guard::GreaterEq, 100);
  G.edge(2, 3, Guard::Less, 50).edge(2, 4, Guard::GreaterEq, 50);
  G.edge(3, 2).edge(4, 1);
  IntervalResult R = runIntervals(G);
  EXPECT_EQ(R.In[1], Interval::of(0, Interval::PosInf));
  EXPECT_EQ(R.In[2], Interval::of(0, Interval::PosInf));
  EXPECT_EQ(R.In[3], Interval::of(0, 49));
  EXPECT_EQ(R.In[4], Interval::of(50, Interval::PosInf));
  EXPECT_EQ(R.In[5], Interval::of(100, Interval::PosInf));
  EXPECT_LT(R.Visits, 64u);
  expectSound(G, R.In, 0);
}

TEST(Fixpoint, UnreachableNodeStaysBottom) {
  //   0 -> 1 -> 2;  3 -> 2 (3 has no predecessor);  4 isolated
  ToyGraph G(5);
  G.assign(0, 1).assign(3, 9);
  G.edge(0, 1).edge(1, 2).edge(3, 2);
  IntervalResult R = runIntervals(G);
  EXPECT_TRUE(R.In[3].isBottom()) << R.In[3];
  EXPECT_TRUE(R.In[4].isBottom()) << R.In[4];
  EXPECT_EQ(R.In[2], Interval::constant(1)) << "node 3 must not contribute";
  EXPECT_EQ(R.Visits, 3u);
}

TEST(Fixpoint, NonZeroEntryNode) {
  //   2 is the entry: 2: x := 7 -> 0 -> 1
  ToyGraph G(3, /*Entry=*/2);
  G.assign(2, 7);
  G.edge(2, 0).edge(0, 1);
  IntervalResult R = runIntervals(G);
  EXPECT_EQ(R.In[2], Interval::top());
  EXPECT_EQ(R.In[0], Interval::constant(7));
  EXPECT_EQ(R.In[1], Interval::constant(7));
}

// 100,000 nodes in a chain: the RPO and the worklist are iterative, so no
// recursion depth is involved.
TEST(Fixpoint, LongChainDoesNotOverflowTheStack) {
  const unsigned N = 100000;
  ToyGraph G(N);
  G.assign(0, 0);
  for (unsigned I = 0; I + 1 < N; ++I) {
    if (I)
      G.add(I, 1);
    G.edge(I, I + 1);
  }
  IntervalResult R = runIntervals(G);
  ASSERT_EQ(R.In.size(), N);
  EXPECT_EQ(R.In[N - 1], Interval::constant(N - 2));
  EXPECT_EQ(R.Visits, N);

  // And as one big loop (N - 1 -> 0 is a back edge to the entry).
  G.edge(N - 1, 0);
  IntervalResult L = runIntervals(G);
  EXPECT_EQ(L.In[0], Interval::top());
  EXPECT_EQ(L.In[1], Interval::constant(0));
}

// A counting loop with no bound: without widening the join climbs forever;
// the visit cap turns that into an error, never a result.
TEST(Fixpoint, NonStabilisingJoinHitsTheVisitCap) {
  //   0: x := 0 -> 1: x += 1 -> 1;  1 -> 2
  ToyGraph G(3);
  G.assign(0, 0).add(1, 1);
  G.edge(0, 1).edge(1, 1).edge(1, 2);

  FixpointOptions Opts;
  Opts.MaxVisits = 100;
  auto R = runForwardFixpoint(G, IntervalAnalysis<JoinOnlyInterval>(G), Opts);
  ASSERT_FALSE(bool(R)) << "a non-converging fixpoint produced a result";
  EXPECT_EQ(llvm::toString(R.takeError()),
            "fixpoint did not converge within 100 node visits (3 nodes)");

  // The default cap: 64 visits per node, at least 4096.
  auto D = runForwardFixpoint(G, IntervalAnalysis<JoinOnlyInterval>(G));
  ASSERT_FALSE(bool(D));
  EXPECT_EQ(llvm::toString(D.takeError()),
            "fixpoint did not converge within 4096 node visits (3 nodes)");

  // Widening that never starts (an infinite delay) is the same.
  Opts.WideningDelay = std::numeric_limits<unsigned>::max();
  auto W = runForwardFixpoint(G, IntervalAnalysis<Interval>(G), Opts);
  ASSERT_FALSE(bool(W));
  EXPECT_EQ(llvm::toString(W.takeError()),
            "fixpoint did not converge within 100 node visits (3 nodes)");

  // The real widening converges on the same graph.
  IntervalResult Ok = runIntervals(G);
  EXPECT_EQ(Ok.In[2], Interval::of(1, Interval::PosInf));
}

TEST(Fixpoint, VisitCapIsExact) {
  // A 5-node chain needs exactly 5 visits: a cap of 5 succeeds, 4 fails.
  ToyGraph G(5);
  for (unsigned I = 0; I + 1 < 5; ++I)
    G.edge(I, I + 1);
  FixpointOptions Opts;
  Opts.MaxVisits = 5;
  auto R = runForwardFixpoint(G, ConstantAnalysis(G), Opts);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Visits, 5u);
  Opts.MaxVisits = 4;
  auto F = runForwardFixpoint(G, ConstantAnalysis(G), Opts);
  ASSERT_FALSE(bool(F));
  EXPECT_EQ(llvm::toString(F.takeError()),
            "fixpoint did not converge within 4 node visits (5 nodes)");
}

// The post-visit hook sees every reached node once, after the fixpoint, in
// node index order, with its final state and all the others.
/// \p G seen through a range that is not an ArrayRef: the engine copies its
/// lists (collectSuccessors) instead of reading them in place.
class CopiedListsGraph {
public:
  explicit CopiedListsGraph(const ToyGraph &G) : G(G) {}
  unsigned numNodes() const { return G.numNodes(); }
  unsigned entryNode() const { return G.entryNode(); }
  auto successors(unsigned N) const {
    return llvm::make_filter_range(G.successors(N),
                                   [](const ToyEdge &) { return true; });
  }
  unsigned edgeTarget(const ToyEdge &E) const { return E.Target; }

private:
  const ToyGraph &G;
};
static_assert(HasSuccessorArrays<ToyGraph>);
static_assert(!HasSuccessorArrays<CopiedListsGraph>);

// Lists read in place and lists copied: the same run, with and without a
// loop.
TEST(Fixpoint, ListsReadInPlaceOrCopiedAgree) {
  ToyGraph Loop(4);
  Loop.assign(0, 0).add(2, 1);
  Loop.edge(0, 1).edge(1, 2, Guard::Less, 10).edge(1, 3, Guard::GreaterEq, 10);
  Loop.edge(2, 1);
  ToyGraph Dag(5);
  Dag.assign(0, 2).add(1, 1).add(2, 5).add(3, -1);
  Dag.edge(0, 2).edge(0, 1).edge(1, 3).edge(2, 3).edge(3, 4).edge(1, 4);
  for (const ToyGraph *G : {&Loop, &Dag}) {
    auto Direct = runForwardFixpoint(*G, IntervalAnalysis<Interval>(*G));
    auto Copied = runForwardFixpoint(CopiedListsGraph(*G),
                                     IntervalAnalysis<Interval>(*G));
    ASSERT_TRUE(bool(Direct)) << llvm::toString(Direct.takeError());
    ASSERT_TRUE(bool(Copied)) << llvm::toString(Copied.takeError());
    EXPECT_EQ(Direct->In, Copied->In);
    EXPECT_EQ(Direct->Visits, Copied->Visits);
  }
}

/// DepthValue with its order-freedom declared: \p OrderFree true is a lie
/// (a conflict keeps the depth that arrived first), told to see which order
/// the engine visits in.
template <bool OrderFree> struct TaggedDepth : DepthValue {
  TaggedDepth(DepthValue D) : DepthValue(D) {}
  static constexpr bool JoinIsOrderFree = OrderFree;
};
static_assert(!joinIsOrderFree<DepthValue>());
static_assert(joinIsOrderFree<TaggedDepth<true>>());

/// Depths over a ToyGraph: an Assign node sets the depth, an Add node adds.
template <typename D> class DepthToy {
public:
  using Domain = D;
  explicit DepthToy(const ToyGraph &G) : G(G) {}
  Domain bottom() const { return Domain(DepthValue::bottom()); }
  Domain entryState() const { return Domain(DepthValue::of(0)); }
  Domain transferNode(unsigned N, const Domain &In) const {
    const ToyNode &Nd = G.node(N);
    if (In.isBottom() || Nd.A == Action::None)
      return In;
    int64_t V = Nd.A == Action::Assign ? Nd.C : In.value() + Nd.C;
    return Domain(In.isConflict() ? DepthValue::conflict(V)
                                  : DepthValue::of(V));
  }
  Domain transferEdge(const ToyEdge &, const Domain &,
                      const Domain &Out) const {
    return Out;
  }

private:
  const ToyGraph &G;
};

// A domain that keeps a representative of a merge (DepthValue's conflict:
// the depth that arrived first) depends on the order the predecessors
// arrive in, so the engine visits it in reverse post-order even where node
// order would be a topological order too. 0 -> 1 -> 3 and 0 -> 2 -> 3,
// searched depth first along 0 -> 1 first: reverse post-order is 0 2 1 3,
// so node 3 meets 2's depth first; node order would meet 1's.
TEST(Fixpoint, ARepresentativeFollowsReversePostOrder) {
  ToyGraph G(4);
  G.assign(1, 1).assign(2, 2);
  G.edge(0, 1).edge(0, 2).edge(1, 3).edge(2, 3);
  auto R = runForwardFixpoint(G, DepthToy<DepthValue>(G));
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_TRUE(R->In[3].isConflict());
  EXPECT_EQ(R->In[3].value(), 2);
  // Declared order-free, the same graph is visited in node order.
  auto Lie = runForwardFixpoint(G, DepthToy<TaggedDepth<true>>(G));
  ASSERT_TRUE(bool(Lie)) << llvm::toString(Lie.takeError());
  ASSERT_TRUE(Lie->In[3].isConflict());
  EXPECT_EQ(Lie->In[3].value(), 1);
  EXPECT_EQ(Lie->Visits, R->Visits);
}

// A graph whose edges all go to later nodes is visited in node order; the
// same graph numbered backwards (every edge to an earlier node, so reverse
// post-order is searched) gives the same states and one visit per reached
// node in both. Diamonds, a skip edge, a node reached late and one
// unreachable: node order is not the depth-first one here.
TEST(Fixpoint, ForwardGraphInNodeOrderMatchesReversePostOrder) {
  const unsigned N = 8;
  std::vector<std::pair<unsigned, unsigned>> Edges = {
      {0, 3}, {0, 1}, {1, 2}, {3, 4}, {2, 4}, {1, 5}, {4, 6}, {5, 6}, {0, 6}};
  auto Build = [&](bool Backwards) {
    auto Id = [&](unsigned K) { return Backwards ? N - 1 - K : K; };
    ToyGraph G(N, Id(0));
    G.assign(Id(0), 1).add(Id(1), 2).add(Id(2), 3).add(Id(3), 10);
    G.add(Id(4), 1).add(Id(5), -4).add(Id(7), 100);
    for (auto [S, T] : Edges)
      G.edge(Id(S), Id(T));
    G.edge(Id(7), Id(6)); // from the unreachable node
    return G;
  };
  ToyGraph Fwd = Build(false), Bwd = Build(true);
  IntervalResult A = runIntervals(Fwd), B = runIntervals(Bwd);
  ASSERT_EQ(A.In.size(), N);
  ASSERT_EQ(B.In.size(), N);
  for (unsigned K = 0; K < N; ++K)
    EXPECT_EQ(A.In[K], B.In[N - 1 - K]) << "node " << K;
  EXPECT_EQ(A.Visits, 7u); // every node but 7, once
  EXPECT_EQ(B.Visits, 7u);
  EXPECT_EQ(A.In[6], Interval::of(-1, 12)); // from 5 (-1), 0 (1), 4 (7..12)
  EXPECT_TRUE(A.In[7].isBottom());
}

TEST(Fixpoint, PostVisitSeesEachReachedNodeOnceWithItsFinalState) {
  // The counting loop (1 is the head, revisited) plus an unreachable 4,
  // listed out of order: 3 -> ... edges first.
  ToyGraph G(5);
  G.assign(0, 0).add(2, 1);
  G.edge(0, 1).edge(1, 2, Guard::Less, 10).edge(1, 3, Guard::GreaterEq, 10);
  G.edge(2, 1).edge(4, 3);
  std::vector<unsigned> Seen;
  std::vector<Interval> States;
  auto R = runForwardFixpoint(
      G, IntervalAnalysis<Interval>(G), {},
      [&](unsigned Node, const Interval &In, llvm::ArrayRef<Interval> All) {
        Seen.push_back(Node);
        States.push_back(In);
        EXPECT_EQ(All.size(), 5u);
        EXPECT_EQ(All[Node], In);
      });
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(Seen, (std::vector<unsigned>{0, 1, 2, 3}));
  ASSERT_EQ(States.size(), 4u);
  for (unsigned I = 0; I < 4; ++I)
    EXPECT_EQ(States[I], R->In[I]) << "node " << I << ": not its final state";

  // A fixpoint that fails reports nothing.
  FixpointOptions Opts;
  Opts.MaxVisits = 2;
  bool Called = false;
  auto F = runForwardFixpoint(G, IntervalAnalysis<Interval>(G), Opts,
                              [&](unsigned, const Interval &,
                                  llvm::ArrayRef<Interval>) { Called = true; });
  EXPECT_FALSE(bool(F));
  llvm::consumeError(F.takeError());
  EXPECT_FALSE(Called);
}

//===----------------------------------------------------------------------===//
// Reverse post-order
//===----------------------------------------------------------------------===//

std::vector<unsigned> rpo(const ToyGraph &G) {
  return reversePostOrder(G, collectSuccessors(G), G.entryNode());
}

/// Position of each node in \p Order; checks it is a permutation.
std::vector<unsigned> positions(const std::vector<unsigned> &Order,
                                unsigned N) {
  EXPECT_EQ(Order.size(), N);
  std::vector<unsigned> Pos(N, ~0u);
  for (unsigned I = 0; I < Order.size(); ++I) {
    EXPECT_LT(Order[I], N);
    if (Order[I] >= N)
      continue;
    EXPECT_EQ(Pos[Order[I]], ~0u) << "node " << Order[I] << " twice";
    Pos[Order[I]] = I;
  }
  return Pos;
}

TEST(ReversePostOrder, AcyclicEdgesGoForward) {
  // A DAG with a long and a short path to the same node.
  ToyGraph G(7);
  G.edge(0, 1).edge(0, 4).edge(1, 2).edge(2, 3).edge(4, 3).edge(3, 5);
  G.edge(4, 5).edge(5, 6).edge(0, 6);
  auto Order = rpo(G);
  auto Pos = positions(Order, 7);
  EXPECT_EQ(Order.front(), 0u);
  for (unsigned S = 0; S < 7; ++S)
    for (const ToyEdge &E : G.successors(S))
      EXPECT_LT(Pos[S], Pos[E.Target]) << S << " -> " << E.Target;
}

TEST(ReversePostOrder, OnlyBackEdgesRetreat) {
  // The nested-loop graph: the retreating edges are exactly 3 -> 2 and
  // 4 -> 1, the back edges to the loop heads.
  ToyGraph G(6);
  G.edge(0, 1).edge(1, 2).edge(1, 5).edge(2, 3).edge(2, 4).edge(3, 2);
  G.edge(4, 1);
  auto Pos = positions(rpo(G), 6);
  std::set<std::pair<unsigned, unsigned>> Retreating;
  for (unsigned S = 0; S < 6; ++S)
    for (const ToyEdge &E : G.successors(S))
      if (Pos[E.Target] <= Pos[S])
        Retreating.insert({S, E.Target});
  EXPECT_EQ(Retreating,
            (std::set<std::pair<unsigned, unsigned>>{{3, 2}, {4, 1}}));
}

TEST(ReversePostOrder, SelfLoopRetreats) {
  ToyGraph G(2);
  G.edge(0, 1).edge(1, 1);
  auto Pos = positions(rpo(G), 2);
  EXPECT_LT(Pos[0], Pos[1]);
}

TEST(ReversePostOrder, UnreachableNodesFollowInIndexOrder) {
  //   entry 3 -> 1;  0, 2, 4 unreachable (4 -> 3 does not make 4 reachable)
  ToyGraph G(5, /*Entry=*/3);
  G.edge(3, 1).edge(4, 3).edge(2, 0);
  auto Order = rpo(G);
  EXPECT_EQ(Order, (std::vector<unsigned>{3, 1, 0, 2, 4}));
}

TEST(ReversePostOrder, LongChainIsIterative) {
  const unsigned N = 100000;
  ToyGraph G(N);
  for (unsigned I = 0; I + 1 < N; ++I)
    G.edge(I, I + 1);
  auto Order = rpo(G);
  ASSERT_EQ(Order.size(), N);
  for (unsigned I = 0; I < N; ++I)
    ASSERT_EQ(Order[I], I);
}

TEST(ReversePostOrder, FollowsEdgeOrderDeterministically) {
  // Depth-first in edge order: 0 -> 2 -> 3 -> 4 (4 -> 0 is seen), 3 -> 5,
  // then 0 -> 1. Post-order 4 5 3 2 1 0, reversed.
  ToyGraph G(6);
  G.edge(0, 2).edge(0, 1).edge(1, 3).edge(2, 3).edge(3, 4).edge(4, 0);
  G.edge(3, 5);
  auto First = rpo(G);
  EXPECT_EQ(First, (std::vector<unsigned>{0, 1, 2, 3, 5, 4}));
  for (int I = 0; I < 10; ++I)
    EXPECT_EQ(rpo(G), First);
}

} // namespace
