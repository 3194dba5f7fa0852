//===- FixpointIterator.h - Forward fixpoint over a graph -------*- C++ -*-===//
//
// Contract: runForwardFixpoint(G, A, Options) computes, for every node of the
// graph G, the abstract state on entry to it: the least fixpoint (up to
// widening at loop heads) of
//
//     In[entry] = A.entryState()
//     In[t]     = ⊔ over edges e = (s -> t) of
//                 A.transferEdge(e, In[s], A.transferNode(s, In[s]))
//
// Nodes never reached keep A.bottom(). Edges have their own transfer
// function, so branch and exception semantics live on the edges (SPARTA's
// MonotonicFixpointIterator). Nodes are visited in a priority worklist by
// reverse post-order; a node that is the target of a retreating edge is a
// loop head and widens instead of joining after Options.WideningDelay visits.
// A graph whose every edge goes to a later node is visited in node order
// (a topological order too: each reached node once, after its
// predecessors) without searching for one, when the domain declares that
// the order its states are joined in cannot show (joinIsOrderFree below).
//
// Bounded: after Options.MaxVisits node visits the result is an llvm::Error,
// never a partial result presented as a fixpoint.
//
// Reporting: an optional post-visit callback is called after the fixpoint,
// once per node whose final entry state is not bottom, in node index order
// (deterministic, and for a CFG the order of the code), with that state and
// every node's final state. A client reports its findings from the final
// states there instead of writing its own replay loop; on an error it is
// never called.
//
// Storage: an optional vector whose buffer the result's In takes (its
// contents are replaced), so that a client running one analysis after
// another can hand the last result's In back and allocate nothing.
//
// Requirements on the graph G:
//   unsigned numNodes() const;  unsigned entryNode() const;
//   <range of EdgeRef> successors(unsigned Node) const;
//     (an llvm::ArrayRef<EdgeRef> is read in place; any other range is
//     copied once per run);
//   unsigned edgeTarget(EdgeRef) const;
// Requirements on the analysis A (Domain satisfies AbstractDomain):
//   using Domain = ...;
//   Domain bottom() const;   Domain entryState() const;
//   Domain transferNode(unsigned Node, const Domain &In) const;
//   Domain transferEdge(EdgeRef E, const Domain &NodeIn,
//                       const Domain &NodeOut) const;
//
// It knows nothing of Python: tests/unit/FixpointTest.cpp runs it on toy
// graphs.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_FIXPOINT_FIXPOINTITERATOR_H
#define PYVERIFY_FIXPOINT_FIXPOINTITERATOR_H

#include "pyverify/Fixpoint/AbstractDomain.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstdint>
#include <iterator>
#include <type_traits>
#include <utility>
#include <vector>

namespace pyverify {

struct FixpointOptions {
  /// Visits of a loop head that join before it starts widening.
  unsigned WideningDelay = 2;
  /// Total node visits before giving up (0: 64 per node, at least 4096).
  uint64_t MaxVisits = 0;
};

template <typename Domain> struct FixpointResult {
  std::vector<Domain> In; ///< Entry state per node.
  uint64_t Visits = 0;
};

/// The post-visit callback: (node, its final entry state, all of them).
template <typename Domain>
using PostVisitFn = llvm::function_ref<void(unsigned Node, const Domain &In,
                                            llvm::ArrayRef<Domain> AllIn)>;

/// The successor edges of every node, materialised once.
template <typename Graph>
using EdgeRefOf = std::decay_t<decltype(*std::begin(
    std::declval<const Graph &>().successors(0u)))>;

/// Every node's successor edges in one array (Start[N] .. Start[N + 1] are
/// node N's): none of its own per node, and none at all for a small graph.
template <typename Edge> struct EdgeLists {
  llvm::SmallVector<Edge, 16> All;       ///< Inline for a small graph.
  llvm::SmallVector<unsigned, 16> Start; ///< numNodes() + 1 offsets into All.
  unsigned size() const { return unsigned(Start.size()) - 1; }
  llvm::ArrayRef<Edge> operator[](unsigned N) const {
    return llvm::ArrayRef<Edge>(All.data() + Start[N],
                                All.data() + Start[N + 1]);
  }
};

template <typename Graph>
EdgeLists<EdgeRefOf<Graph>> collectSuccessors(const Graph &G) {
  EdgeLists<EdgeRefOf<Graph>> Out;
  Out.Start.reserve(G.numNodes() + 1);
  for (unsigned N = 0; N < G.numNodes(); ++N) {
    Out.Start.push_back(unsigned(Out.All.size()));
    for (const auto &E : G.successors(N))
      Out.All.push_back(E);
  }
  Out.Start.push_back(unsigned(Out.All.size()));
  return Out;
}

/// Reverse post-order of the nodes reachable from \p Entry, into \p Post;
/// unreachable nodes follow in index order. Iterative, so deep graphs
/// cannot overflow the call stack; a small graph's search allocates
/// nothing (inline buffers).
template <typename Graph, typename EdgeLists>
void reversePostOrder(const Graph &G, const EdgeLists &Succ, unsigned Entry,
                      llvm::SmallVectorImpl<unsigned> &Post) {
  unsigned N = Succ.size();
  Post.clear();
  if (N == 1) { // the entry alone (most small functions): no search
    Post.push_back(Entry);
    return;
  }
  Post.reserve(N);
  llvm::BitVector Seen(N);
  // node, next edge index; each node is pushed at most once
  llvm::SmallVector<std::pair<unsigned, unsigned>, 32> Stack;
  if (N) {
    Stack.reserve(N);
    Seen.set(Entry);
    Stack.push_back({Entry, 0});
  }
  while (!Stack.empty()) {
    auto &[Node, Next] = Stack.back();
    if (Next == Succ[Node].size()) {
      Post.push_back(Node);
      Stack.pop_back();
      continue;
    }
    unsigned T = G.edgeTarget(Succ[Node][Next++]);
    if (!Seen.test(T)) {
      Seen.set(T);
      Stack.push_back({T, 0});
    }
  }
  std::reverse(Post.begin(), Post.end());
  if (Post.size() < N)
    for (unsigned I = 0; I < N; ++I)
      if (!Seen.test(I))
        Post.push_back(I);
}

/// The same order as a vector.
template <typename Graph, typename EdgeLists>
std::vector<unsigned> reversePostOrder(const Graph &G, const EdgeLists &Succ,
                                       unsigned Entry) {
  llvm::SmallVector<unsigned, 32> Post;
  reversePostOrder(G, Succ, Entry, Post);
  return std::vector<unsigned>(Post.begin(), Post.end());
}

/// Whether a node's entry state is the same whatever order its
/// predecessors' states arrive in: the domain declares it
/// (`static constexpr bool JoinIsOrderFree = true;`) when its join is
/// exactly commutative and associative, including what its equality
/// ignores. A domain that keeps a representative of a merge (the state that
/// arrived first, to name a witness: DepthValue's conflict, ContextState's
/// Top) is not, and is always visited in reverse post-order, the order that
/// picks its representatives.
template <typename Domain> constexpr bool joinIsOrderFree() {
  if constexpr (requires { Domain::JoinIsOrderFree; })
    return Domain::JoinIsOrderFree;
  else
    return false;
}

/// A graph whose successors(N) is its edges in one array: the engine reads
/// them in place instead of copying every list first (collectSuccessors).
/// The exact type, so that a list returned by value (convertible to an
/// ArrayRef, but a temporary) is copied as before.
template <typename Graph>
concept HasSuccessorArrays =
    std::same_as<decltype(std::declval<const Graph &>().successors(0u)),
                 llvm::ArrayRef<EdgeRefOf<Graph>>>;

/// Such a graph's lists, seen as EdgeLists are.
template <typename Graph> struct SuccessorArrays {
  const Graph &G;
  unsigned size() const { return G.numNodes(); }
  llvm::ArrayRef<EdgeRefOf<Graph>> operator[](unsigned N) const {
    return G.successors(N);
  }
};

namespace detail {
template <typename Graph, typename Analysis, typename Successors>
llvm::Expected<FixpointResult<typename Analysis::Domain>>
runForwardFixpoint(const Graph &G, const Analysis &A, const Successors &Succ,
                   FixpointOptions Opts,
                   PostVisitFn<typename Analysis::Domain> PostVisit,
                   FixpointResult<typename Analysis::Domain> R) {
  using Domain = typename Analysis::Domain;
  unsigned N = G.numNodes();
  uint64_t MaxVisits =
      Opts.MaxVisits ? Opts.MaxVisits : std::max<uint64_t>(4096, 64ull * N);
  unsigned Entry = G.entryNode();

  // The visiting order. When every edge goes to a later node (no loop:
  // most code objects' CFGs, whose blocks are in code order), node order
  // is already a topological order -- each reached node is visited once,
  // after all of its predecessors, as in reverse post-order -- and there
  // is no loop head: no search, no arrays. It gives the same states only
  // where the order predecessors arrive in cannot show (joinIsOrderFree).
  // Otherwise reverse post-order, and the targets of its retreating edges
  // are the loop heads. The engine's own arrays are inline for a small
  // graph (most code objects' CFGs), so a run allocates only the result.
  bool Forward = joinIsOrderFree<Domain>();
  for (unsigned S = 0; S < N && Forward; ++S)
    for (const auto &E : Succ[S])
      if (G.edgeTarget(E) <= S) {
        Forward = false;
        break;
      }
  llvm::SmallVector<unsigned, 32> Order, Priority, HeadVisits;
  llvm::BitVector IsHead;
  if (!Forward) {
    reversePostOrder(G, Succ, Entry, Order);
    Priority.resize(N);
    for (unsigned I = 0; I < N; ++I)
      Priority[Order[I]] = I;
    IsHead.resize(N);
    for (unsigned S = 0; S < N; ++S)
      for (const auto &E : Succ[S])
        if (Priority[G.edgeTarget(E)] <= Priority[S])
          IsHead.set(G.edgeTarget(E));
    HeadVisits.assign(N, 0);
  }
  auto NodeAt = [&](unsigned P) { return Forward ? P : Order[P]; };
  auto PriorityOf = [&](unsigned Node) {
    return Forward ? Node : Priority[Node];
  };
  auto IsLoopHead = [&](unsigned Node) {
    return !Forward && IsHead.test(Node);
  };

  // The worklist: the priorities of the queued nodes, each node at most
  // once; the next visit is the smallest, so it is a set of bits (64 to a
  // word, inline for 256 nodes: finding the first is a count of trailing
  // zeros), and Low is at or below its first (a visit queues a node before
  // it -- a retreating edge -- only by lowering Low).
  llvm::SmallVector<uint64_t, 4> Queued((N + 63) / 64, 0);
  auto IsQueued = [&](unsigned P) { return (Queued[P / 64] >> (P % 64)) & 1; };
  auto Queue = [&](unsigned P) { Queued[P / 64] |= uint64_t(1) << (P % 64); };
  unsigned Low = PriorityOf(Entry);
  auto Next = [&]() -> unsigned { // the first queued, or N
    for (unsigned W = Low / 64, E = unsigned(Queued.size()); W < E; ++W)
      if (Queued[W])
        return W * 64 + unsigned(std::countr_zero(Queued[W]));
    return N;
  };
  R.In[Entry] = A.entryState();
  Queue(Low);
  for (unsigned P = Next(); P < N; P = Next()) {
    unsigned Node = NodeAt(P);
    Queued[P / 64] &= ~(uint64_t(1) << (P % 64));
    Low = P;
    if (++R.Visits > MaxVisits)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("fixpoint did not converge within {0} node visits "
                        "({1} nodes)",
                        MaxVisits, N));
    const Domain &In = R.In[Node];
    Domain Out = A.transferNode(Node, In);
    for (const auto &E : Succ[Node]) {
      unsigned T = G.edgeTarget(E);
      Domain S = A.transferEdge(E, R.In[Node], Out);
      if (S.isBottom())
        continue;
      bool Changed;
      if (IsLoopHead(T) && HeadVisits[T] >= Opts.WideningDelay)
        Changed = R.In[T].widen(S);
      else
        Changed = R.In[T].join(S);
      if (Changed && !IsQueued(PriorityOf(T))) {
        if (IsLoopHead(T))
          ++HeadVisits[T];
        Queue(PriorityOf(T));
        Low = std::min(Low, PriorityOf(T));
      }
    }
  }
  if (PostVisit)
    for (unsigned Node = 0; Node < N; ++Node)
      if (!R.In[Node].isBottom())
        PostVisit(Node, R.In[Node], R.In);
  return R;
}
} // namespace detail

template <typename Graph, typename Analysis>
llvm::Expected<FixpointResult<typename Analysis::Domain>>
runForwardFixpoint(const Graph &G, const Analysis &A, FixpointOptions Opts = {},
                   PostVisitFn<typename Analysis::Domain> PostVisit = {},
                   std::vector<typename Analysis::Domain> Storage = {}) {
  using Domain = typename Analysis::Domain;
  static_assert(AbstractDomain<Domain>,
                "Analysis::Domain must satisfy AbstractDomain");
  FixpointResult<Domain> R;
  R.In = std::move(Storage); // its capacity, when a caller hands one back
  R.In.assign(G.numNodes(), A.bottom());
  if (G.numNodes() == 0)
    return R;
  if constexpr (HasSuccessorArrays<Graph>)
    return detail::runForwardFixpoint(G, A, SuccessorArrays<Graph>{G}, Opts,
                                      PostVisit, std::move(R));
  else
    return detail::runForwardFixpoint(G, A, collectSuccessors(G), Opts,
                                      PostVisit, std::move(R));
}

} // namespace pyverify

#endif
