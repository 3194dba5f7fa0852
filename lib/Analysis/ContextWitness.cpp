//===- ContextWitness.cpp - The path that shows a context fault -----------===//

#include "pyverify/Analysis/ContextWitness.h"

#include "llvm/ADT/DenseMap.h"

#include <cassert>
#include <deque>
#include <vector>

using namespace pyverify;

std::string pyverify::contextWitnessPath(const CFG &G,
                                         llvm::ArrayRef<ContextState> In,
                                         uint32_t Ctx, uint32_t Fault,
                                         bool FaultRaises) {
  assert(In.size() == G.size() && "the final state of every block");
  const InstructionStream &Insts = G.code().Insts;
  // Breadth-first over blocks where the context is active, from the enter
  // to the fault; exception edges only where the block may raise.
  // A context already exited (exited-twice) is not active on the way to
  // the fault: then search all reached blocks.
  // The blocks reached so far, each with the edge it was reached by (-1:
  // the start): only those, so a search costs what it explores, not the
  // whole graph (a code object's findings each search: one array of every
  // block per search was quadratic, 8.5 s for 80,000 findings).
  unsigned From = G.blockOf(Ctx), To = G.blockOf(Fault);
  llvm::DenseMap<unsigned, int64_t> Parent;
  for (bool OnlyActive : {true, false}) {
    Parent.clear();
    std::deque<unsigned> Work{From};
    Parent[From] = -1;
    while (!Work.empty() && !Parent.count(To)) {
      unsigned B = Work.front();
      Work.pop_front();
      for (unsigned EI : G.block(B).Succs) {
        const CFGEdge &E = G.edge(EI);
        if ((E.isException() && !E.MayRaise) || Parent.count(E.Target))
          continue;
        const ContextState &S = In[E.Target];
        if (S.isBottom() || (OnlyActive && !S.findActive(Ctx)))
          continue;
        Parent[E.Target] = EI;
        Work.push_back(E.Target);
      }
    }
    if (Parent.count(To))
      break;
  }
  std::string Path = std::to_string(Insts[Ctx].Offset);
  if (Parent.count(To) && To != From) {
    std::vector<unsigned> Edges;
    for (int64_t EI = Parent.lookup(To); EI >= 0;
         EI = Parent.lookup(G.edge(unsigned(EI)).Source))
      Edges.push_back(unsigned(EI));
    for (auto It = Edges.rbegin(); It != Edges.rend(); ++It) {
      const CFGEdge &E = G.edge(*It);
      uint32_t Last = G.raisePointOf(E);
      if (E.isException())
        Path += " -> " + std::to_string(Insts[Last].Offset) + " (raises)";
      Path += " -> " + std::to_string(Insts[G.block(E.Target).Begin].Offset);
    }
  }
  std::string FaultText = std::to_string(Insts[Fault].Offset);
  if (Path.size() < FaultText.size() ||
      Path.compare(Path.size() - FaultText.size(), FaultText.size(),
                   FaultText) != 0)
    Path += " -> " + FaultText;
  if (FaultRaises)
    Path += " (raises)";
  return Path;
}

void pyverify::addContextNotes(Finding &F, const CFG &G,
                               llvm::ArrayRef<ContextState> In, uint32_t Ctx,
                               uint32_t Fault, bool FaultRaises) {
  const InstructionStream &Insts = G.code().Insts;
  F.note(Insts[Ctx].Offset, "the context is entered here");
  F.note(Insts[Fault].Offset,
         "witness path: " + contextWitnessPath(G, In, Ctx, Fault, FaultRaises));
}
