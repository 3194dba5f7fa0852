//===- CFGGraphTraits.h - llvm::GraphTraits for the CFG ---------*- C++ -*-===//
//
// Contract: GraphTraits<const CFG *> walks blocks along all successor edges
// (normal and exceptional) from the entry block; GraphTraits<Inverse<const
// CFG *>> walks predecessors. Child iterators step over edge indices, so
// CFGChildIterator::edge() tells a DOT writer which kind of edge it is on.
// depth_first, post_order, ReversePostOrderTraversal, scc_iterator and
// WriteGraph all work on a const CFG *.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_CFG_CFGGRAPHTRAITS_H
#define PYVERIFY_CFG_CFGGRAPHTRAITS_H

#include "pyverify/CFG/CFG.h"

#include "llvm/ADT/GraphTraits.h"
#include "llvm/ADT/iterator.h"

namespace pyverify {

template <bool Inverse>
class CFGChildIterator
    : public llvm::iterator_facade_base<CFGChildIterator<Inverse>,
                                        std::forward_iterator_tag,
                                        const BasicBlock *> {
public:
  // Our operator++() hides the facade's postfix operator++(int), which
  // depth_first, post_order and scc_iterator use.
  using llvm::iterator_facade_base<CFGChildIterator<Inverse>,
                                   std::forward_iterator_tag,
                                   const BasicBlock *>::operator++;
  CFGChildIterator() = default;
  CFGChildIterator(const BasicBlock *B, const unsigned *It) : B(B), It(It) {}
  bool operator==(const CFGChildIterator &O) const { return It == O.It; }
  const BasicBlock *operator*() const {
    const CFGEdge &E = edge();
    return &B->Owner->Blocks[Inverse ? E.Source : E.Target];
  }
  CFGChildIterator &operator++() {
    ++It;
    return *this;
  }
  const CFGEdge &edge() const { return B->Owner->Edges[*It]; }

private:
  const BasicBlock *B = nullptr;
  const unsigned *It = nullptr;
};

} // namespace pyverify

namespace llvm {

template <> struct GraphTraits<const pyverify::BasicBlock *> {
  using NodeRef = const pyverify::BasicBlock *;
  using ChildIteratorType = pyverify::CFGChildIterator<false>;
  static NodeRef getEntryNode(NodeRef N) { return N; }
  static ChildIteratorType child_begin(NodeRef N) {
    return {N, N->Succs.begin()};
  }
  static ChildIteratorType child_end(NodeRef N) { return {N, N->Succs.end()}; }
};

template <> struct GraphTraits<Inverse<const pyverify::BasicBlock *>> {
  using NodeRef = const pyverify::BasicBlock *;
  using ChildIteratorType = pyverify::CFGChildIterator<true>;
  static NodeRef getEntryNode(Inverse<NodeRef> N) { return N.Graph; }
  static ChildIteratorType child_begin(NodeRef N) {
    return {N, N->Preds.begin()};
  }
  static ChildIteratorType child_end(NodeRef N) { return {N, N->Preds.end()}; }
};

template <>
struct GraphTraits<const pyverify::CFG *>
    : GraphTraits<const pyverify::BasicBlock *> {
  using nodes_iterator = pointer_iterator<const pyverify::BasicBlock *>;
  static NodeRef getEntryNode(const pyverify::CFG *G) { return &G->entry(); }
  static nodes_iterator nodes_begin(const pyverify::CFG *G) {
    return nodes_iterator(G->blocks().begin());
  }
  static nodes_iterator nodes_end(const pyverify::CFG *G) {
    return nodes_iterator(G->blocks().end());
  }
  static unsigned size(const pyverify::CFG *G) { return G->size(); }
};

template <>
struct GraphTraits<Inverse<const pyverify::CFG *>>
    : GraphTraits<Inverse<const pyverify::BasicBlock *>> {
  static NodeRef getEntryNode(Inverse<const pyverify::CFG *> G) {
    return &G.Graph->entry();
  }
};

} // namespace llvm

#endif
