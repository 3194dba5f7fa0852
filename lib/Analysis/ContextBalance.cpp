//===- ContextBalance.cpp - Every context entered and exited once ---------===//
//
// The driver: the fixpoint of ContextTransfer runs without reporting; its
// post-visit hook then walks each reached block once from its final entry
// state and reports each problem once, at the instruction where it happens.
//
//===----------------------------------------------------------------------===//

#include "pyverify/Analysis/ContextBalance.h"
#include "ContextTransfer.h"
#include "pyverify/Analysis/CFGFixpointGraph.h"
#include "pyverify/Analysis/ContextWitness.h"
#include "pyverify/Fixpoint/FixpointIterator.h"

#include "llvm/Support/FormatVariadic.h"

using namespace pyverify;
using namespace pyverify::balance;

void ContextReport::add(CheckId Id, Certainty C, uint32_t At,
                        std::optional<uint32_t> Ctx, std::string Msg,
                        bool Raises) const {
  Finding F(Id, G.code().Insts[At].Offset,
            C == Certainty::Possible ? "possibly: " + Msg : Msg);
  if (C == Certainty::Possible)
    F.Sev = Severity::Warning;
  if (Ctx)
    addContextNotes(F, G, In, *Ctx, At, Raises);
  Findings.push_back(std::move(F));
}

namespace {

/// At a join whose paths disagree on the stack's shape (Top), a context
/// active on an incoming path but not on the representative one is lost
/// there: typically entered in a loop body and not exited before the back
/// edge, once per iteration.
void reportRejoins(const ContextTransfer &T, const BasicBlock &B,
                   ContextReport &R) {
  const CFG &G = T.G;
  const ContextState &Rep = R.In[B.Id];
  for (unsigned EI : B.Preds) {
    const CFGEdge &E = G.edge(EI);
    const ContextState &Src = R.In[E.Source];
    if (Src.isBottom())
      continue;
    ContextState Arriving =
        T.transferEdge(EI, Src, T.transferNode(E.Source, Src));
    if (Arriving.isBottom())
      continue;
    uint32_t Last = G.block(E.Source).last();
    for (const ActiveContext &A : Arriving.active())
      if (!A.Maybe && !Rep.findActive(A.Ctx))
        T.report(&R, CheckId::ContextNotExited, Certainty::Definite, Last,
                 A.Ctx,
                 llvm::formatv("{0} reaches {1} with {2} still active, but "
                               "the other paths into {1} have a different "
                               "stack: the context is never exited on this "
                               "path",
                               T.describe(Last), T.Insts[B.Begin].Offset,
                               T.ctxName(A.Ctx)));
  }
}

/// Reports the problems of block \p Node from its final entry state
/// \p Entry and records the contexts active before each instruction.
void reportBlock(const ContextTransfer &T, unsigned Node,
                 const ContextState &Entry, ContextBalanceResult &Res,
                 ContextReport &R) {
  const CFG &G = T.G;
  const BasicBlock &B = G.block(Node);
  if (Entry.isTop())
    reportRejoins(T, B, R);
  ContextState S = Entry;
  for (uint32_t I = B.Begin; I < B.End; ++I) {
    for (const ActiveContext &A : S.active())
      Res.ActiveBefore[I].push_back(A.Ctx);
    if (G.coverOf(I) < 0 && T.raisesHere(S, I)) {
      ContextState X = S;
      T.applyRaisingExitEvents(X, I);
      T.leaving(X, I, /*ByException=*/true, &R);
    }
    if (I + 1 == B.End)
      for (unsigned EI : B.Succs) {
        const CFGEdge &E = G.edge(EI);
        if (E.isException() && E.MayRaise &&
            (E.FromBackEdge || T.raisesHere(S, I)))
          T.unwind(S, I, E, &R);
      }
    const OpcodeInfo &Info = T.Insts[I].info();
    bool Jump = Info.isJump() && !Info.isConditionalJump();
    if (I + 1 == B.End && Info.isBackwardJump())
      T.escapesAtBackEdge(S, I, &R);
    T.step(S, I, Jump, &R);
  }
}

/// Runs the fixpoint, reporting from every reached block's final state in
/// the engine's post-visit hook.
llvm::Expected<ContextBalanceResult> run(const CFG &G, const BlockStack &BS,
                                         bool Skip, CodeRole Role) {
  ContextTransfer T(G, BS, Role);
  ContextBalanceResult Res;
  Res.ActiveBefore.resize(T.Insts.size());
  Res.NormalExits.resize(BS.withSites().size());
  // Nothing can enter or exit a context: every slot would stay untagged,
  // so the interpretation could only confirm that.
  if (Skip && !T.involvesContexts())
    return Res;
  ContextReport R{G, {}, Res.Findings, Res.NormalExits};
  CFGFixpointGraph FG(G, /*OnlyRaising=*/true);
  auto Fix = runForwardFixpoint(FG, T, {},
                                [&](unsigned Node, const ContextState &Entry,
                                    llvm::ArrayRef<ContextState> All) {
                                  R.In = All;
                                  reportBlock(T, Node, Entry, Res, R);
                                });
  if (!Fix)
    return Fix.takeError();
  Res.Visits = Fix->Visits;
  Res.BlockIn = std::move(Fix->In);
  // One finding per (check, offset, message); sorted by offset.
  sortAndUniqueFindings(Res.Findings);
  return Res;
}

} // namespace

llvm::Expected<ContextBalanceResult>
pyverify::checkContextBalance(const CFG &G, const StackDepthResult &Depth,
                              const BlockStack &Blocks,
                              const ContextBalanceOptions &Opts) {
  if (Depth.MaxDepth > Opts.MaxStackDepth)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the stack reaches depth %lld (at offset %u), above the %lld slots "
        "the context analysis models; not analysed",
        static_cast<long long>(Depth.MaxDepth),
        G.code().Insts[Depth.MaxDepthInst].Offset,
        static_cast<long long>(Opts.MaxStackDepth));
  return run(G, Blocks, Opts.SkipWithoutContexts, Opts.Role);
}
