//===- CFGFixpointGraph.h - The CFG seen by the fixpoint engine -*- C++ -*-===//
//
// Contract: adapts a CFG to FixpointIterator's graph requirements. Nodes are
// block ids, edges are indices into CFG::edges(); with OnlyRaising set,
// exception edges whose source block cannot raise are left out.
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
  explicit CFGFixpointGraph(const CFG &G, bool OnlyRaising = false)
      : G(G), OnlyRaising(OnlyRaising) {}

  unsigned numNodes() const { return G.size(); }
  unsigned entryNode() const { return 0; }
  auto successors(unsigned Node) const {
    return llvm::make_filter_range(
        llvm::ArrayRef<unsigned>(G.block(Node).Succs), [this](unsigned E) {
          const CFGEdge &Edge = G.edge(E);
          return !OnlyRaising || !Edge.isException() || Edge.MayRaise;
        });
  }
  unsigned edgeTarget(unsigned E) const { return G.edge(E).Target; }
  const CFG &cfg() const { return G; }

private:
  const CFG &G;
  bool OnlyRaising;
};

} // namespace pyverify

#endif
