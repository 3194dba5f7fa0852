//===- CFGFixpointGraph.h - The CFG seen by the fixpoint engine -*- C++ -*-===//
//
// Contract: adapts a CFG to FixpointIterator's graph requirements. Nodes are
// block ids, edges are indices into CFG::edges(). CFGFixpointGraph has
// every edge (each block's successor list, read in place by the engine);
// RaisingCFGFixpointGraph leaves out the exception edges whose source block
// cannot raise.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_ANALYSIS_CFGFIXPOINTGRAPH_H
#define PYVERIFY_ANALYSIS_CFGFIXPOINTGRAPH_H

#include "pyverify/CFG/CFG.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"

namespace pyverify {

class CFGFixpointGraph {
public:
  explicit CFGFixpointGraph(const CFG &G) : G(G) {}

  unsigned numNodes() const { return G.size(); }
  unsigned entryNode() const { return 0; }
  llvm::ArrayRef<unsigned> successors(unsigned Node) const {
    return G.block(Node).Succs;
  }
  unsigned edgeTarget(unsigned E) const { return G.edge(E).Target; }
  const CFG &cfg() const { return G; }

protected:
  const CFG &G;
};

class RaisingCFGFixpointGraph : public CFGFixpointGraph {
public:
  using CFGFixpointGraph::CFGFixpointGraph;

  auto successors(unsigned Node) const {
    return llvm::make_filter_range(
        CFGFixpointGraph::successors(Node), [this](unsigned E) {
          const CFGEdge &Edge = G.edge(E);
          return !Edge.isException() || Edge.MayRaise;
        });
  }
};

} // namespace pyverify

#endif
