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
#include "pyverify/Bytecode/RaiseModel.h"
#include "pyverify/Fixpoint/FixpointIterator.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace pyverify;
using namespace pyverify::balance;

void ContextReport::add(CheckId Id, Certainty C, uint32_t At,
                        std::optional<uint32_t> Ctx, std::string Msg,
                        bool Raises, std::string Cause) const {
  Finding F(Id, G.code().Insts[At].Offset, std::move(Msg));
  F.Cert = C;
  if (Ctx)
    addContextNotes(F, G, In, *Ctx, At, Raises);
  F.Cause = std::move(Cause);
  Findings.push_back(std::move(F));
}

namespace {

/// At a join whose paths disagree on the stack's shape (Top), a context
/// active on an incoming path but not on the representative one is lost
/// there: typically entered in a loop body and not exited before the back
/// edge, once per iteration.
/// Calls \p Fn(Edge, SourceState, Arriving) for each reached predecessor
/// edge of \p B with the state that edge brings into \p B.
/// Only the edges \p Wanted accepts (it reads the edge alone): the others'
/// states are not computed.
template <class F, class P = bool (*)(const CFGEdge &)>
void forEachArriving(
    const ContextTransfer &T, const BasicBlock &B, const ContextReport &R, F Fn,
    P Wanted = [](const CFGEdge &) { return true; }) {
  for (unsigned EI : B.Preds) {
    const CFGEdge &E = T.G.edge(EI);
    const ContextState &Src = R.In[E.Source];
    if (Src.isBottom() || !Wanted(E))
      continue;
    ContextState Arriving =
        T.transferEdge(EI, Src, T.transferNode(E.Source, Src));
    if (!Arriving.isBottom())
      Fn(E, Src, Arriving);
  }
}

void reportRejoins(const ContextTransfer &T, const BasicBlock &B,
                   ContextReport &R) {
  const ContextState &Rep = R.In[B.Id];
  forEachArriving(
      T, B, R,
      [&](const CFGEdge &E, const ContextState &,
          const ContextState &Arriving) {
        uint32_t Last = T.G.raisePointOf(E);
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
      });
}

/// How an edge leaves the bound __exit__ of a with block: entered (an X
/// slot), on some merged paths only (a Mixed slot naming a context), or not.
enum class ExitSlotState { Entered, Maybe, Absent };

/// The name of the with enter at byte offset \p Off (BEFORE_WITH, 3.14's
/// CALL).
llvm::StringRef enterName(const InstructionStream &Insts, uint32_t Off) {
  int64_t K = Insts.indexAtOffset(Off);
  return K >= 0 ? Insts[K].name() : llvm::StringRef("(enter)");
}

/// The state of with block \p Blk's __exit__ slot in \p S, and why not
/// entered in \p Why. The with's enters are the BEFORE_WITHs whose body
/// entry leads to the block's handler; its slot is theirs (the depth before
/// the enter - 1) or, without a reachable enter, the entry's depth - the
/// version's WithExitSlots, which a well-formed with body entry keeps. Any
/// bound __exit__ in the slot counts, as in the domain's join, where two
/// contexts in one slot are one: a resume function's prologue re-enters a with
/// and jumps into the copied body, whose entries may still lead to the copy of
/// the original's handler (docs/rewriter.md, entries-not-redirected). So do
/// this with's own contexts in another slot (a SWAP moved them; the exit checks
/// judge that).
ExitSlotState exitSlotState(const ContextTransfer &T, const Block &Blk,
                            const ContextState &S, std::string &Why) {
  llvm::SmallVector<uint64_t, 2> Slots;
  llvm::SmallVector<uint32_t, 2> Enters;
  for (uint32_t K : T.BS.siteIndicesForHandler(Blk.Handler)) {
    const WithSite &W = T.BS.withSites()[K];
    Enters.push_back(W.EnterInst);
    if (W.ExitSlot >= 0)
      Slots.push_back(uint64_t(W.ExitSlot));
  }
  // The entry keeps the exit slots (3.14: the __exit__ function and its
  // self) below its depth; the bound __exit__ is the first of them.
  int64_t H = T.Insts.indexAtOffset(Blk.Handler);
  const uint32_t ExitSlots = H >= 0 ? traits(T.Insts[H].Ver).WithExitSlots : 1u;
  if (uint32_t Depth = T.D.Table[Blk.Entry].Depth; Depth >= ExitSlots)
    Slots.push_back(Depth - ExitSlots);
  llvm::sort(Slots);
  Slots.erase(std::unique(Slots.begin(), Slots.end()), Slots.end());
  if (Slots.empty())
    return ExitSlotState::Entered; // nowhere to look: nothing to report
  if (llvm::any_of(S.Stack, [&](const ContextSlot &X) {
        return X.T == SlotTag::Exit && llvm::is_contained(Enters, X.Id);
      }))
    return ExitSlotState::Entered;
  ExitSlotState Best = ExitSlotState::Absent;
  for (uint64_t K : Slots) {
    if (K >= S.Stack.size())
      continue;
    const ContextSlot &X = S.Stack[K];
    if (X.T == SlotTag::Exit)
      return ExitSlotState::Entered;
    if (X.T == SlotTag::Mixed && X.context() != ContextSlot::NoContext)
      Best = ExitSlotState::Maybe;
  }
  uint64_t K = Slots.front();
  if (Best == ExitSlotState::Maybe)
    Why = llvm::formatv("stack slot {0} holds a bound __exit__ on some of the "
                        "paths merged before the edge, not on all",
                        K);
  else if (K >= S.Stack.size())
    Why = llvm::formatv("the stack holds {0} value(s), so there is no bound "
                        "__exit__ in slot {1}",
                        S.Stack.size(), K);
  else
    Why = llvm::formatv("stack slot {0} holds no bound __exit__", K);
  return Best;
}

/// Whether instruction \p I is in the body of a with whose handler is at
/// \p Handler.
bool inWithBody(const BlockStack &BS, uint32_t I, uint32_t Handler) {
  return llvm::any_of(BS.chainAt(I), [&](uint32_t Entry) {
    const Block &Blk = BS.blockOf(Entry);
    return isWithKind(Blk.Kind) && Blk.Handler == Handler;
  });
}

/// A with body is only entered through its enter: every edge from outside
/// a with's body to an instruction inside it (whose block stack holds the
/// with) must bring that with's bound __exit__ in its slot. A jump that
/// bypasses the BEFORE_WITH runs the body (and later its exit and handler)
/// for a context never entered. Edges inside the body are not judged: what
/// happens to the slot there is the other checks' business. Reported at the
/// target, once per edge, for the outermost such with.
void reportBodyEntries(const ContextTransfer &T, const BasicBlock &B,
                       ContextReport &R) {
  llvm::SmallVector<Block, 4> Withs;
  for (uint32_t Entry : T.BS.chainAt(B.Begin))
    if (const Block &Blk = T.BS.blockOf(Entry); isWithKind(Blk.Kind))
      Withs.push_back(Blk);
  if (Withs.empty())
    return;
  // An edge from inside the body of each of these withs is not judged (the
  // loop below skips every with for it): its state is not needed. Most
  // edges into a with body come from inside it.
  auto FromOutsideOne = [&](const CFGEdge &E) {
    uint32_t Last = T.G.raisePointOf(E);
    return llvm::any_of(Withs, [&](const Block &Blk) {
      return !inWithBody(T.BS, Last, Blk.Handler);
    });
  };
  forEachArriving(
      T, B, R,
      [&](const CFGEdge &E, const ContextState &Src,
          const ContextState &Arriving) {
        // A Top state (paths of different depths met) is judged by its
        // representative path, and what it shows is only possible.
        bool Merged = Src.isTop() || Arriving.isTop();
        uint32_t Last = T.G.raisePointOf(E);
        for (const Block &Blk : Withs) {
          if (inWithBody(T.BS, Last, Blk.Handler))
            continue;
          std::string Why;
          ExitSlotState St = exitSlotState(T, Blk, Arriving, Why);
          if (St == ExitSlotState::Entered)
            continue;
          std::string With =
              Blk.Enter
                  ? llvm::formatv("the with entered at {0} {1}", *Blk.Enter,
                                  enterName(T.Insts, *Blk.Enter))
                        .str()
                  : llvm::formatv("the with whose handler is at {0}",
                                  Blk.Handler)
                        .str();
          Finding F(
              CheckId::WithBodyEnteredWithoutEnter, T.Insts[B.Begin].Offset,
              llvm::formatv("{0} is in the body of {1}, but the {2} from "
                            "{3} reaches it without entering that context: "
                            "{4}",
                            T.describe(B.Begin), With,
                            E.isException() ? "exception edge" : "edge",
                            T.describe(Last), Why));
          F.Cert = St == ExitSlotState::Maybe || Merged ? Certainty::Possible
                                                        : Certainty::Definite;
          F.note(T.Insts[Last].Offset,
                 E.Kind == EdgeKind::Jump || E.Kind == EdgeKind::BranchTaken
                     ? "the jump into the with body"
                     : "the edge into the with body");
          if (Blk.Enter)
            F.note(*Blk.Enter, "the with's context is entered only here");
          R.Findings.push_back(std::move(F));
          break; // the outermost with not entered
        }
      },
      FromOutsideOne);
}

/// Whether \p S holds a bound __exit__ (an X slot) at index \p Depth or
/// above: one an unwind to that depth would drop.
bool dropsExit(const ContextState &S, size_t Depth) {
  return Depth < S.Stack.size() &&
         llvm::any_of(
             llvm::ArrayRef<ContextSlot>(S.Stack).drop_front(Depth),
             [](const ContextSlot &X) { return X.T == SlotTag::Exit; });
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
  reportBodyEntries(T, B, R);
  ContextState S = Entry;
  // One scratch state for the block's raises: assigned, so its buffers are
  // reused (no allocation per instruction for a stack deeper than a state's
  // inline slots).
  ContextState X = ContextState::bottom();
  for (uint32_t I = B.Begin; I < B.End; ++I) {
    llvm::ArrayRef<ActiveContext> Active = S.active();
    Res.ActiveBefore[I] = {static_cast<uint32_t>(Res.ActiveIds.size()),
                           static_cast<uint32_t>(Active.size())};
    for (size_t K = 0; K < Active.size(); ++K) {
      if (Active[K].Maybe && K < 64)
        Res.MaybeBefore[I] |= uint64_t(1) << K;
      Res.ActiveIds.push_back(Active[K].Ctx);
    }
    // leaving() reports each active context, and the exit events only
    // remove some: with none active there is nothing to report.
    if (!S.active().empty() && G.coverOf(I) < 0 && T.raisesHere(S, I)) {
      X.assign(S);
      T.applyRaisingExitEvents(X, I);
      T.leaving(X, I, /*ByException=*/true, &R);
    }
    // Any instruction of the block may raise along its exception edges (a
    // straight-line region, CFG.h); a back edge's eval breaker only at the
    // jump that ends it. The replay's unwind only reports (its state is the
    // fixpoint's): a bound __exit__ the entry's depth drops. Without one at
    // or above that depth (the raise's exit events only turn an X slot
    // into a called one) it reports nothing; after a back edge's jump, the
    // step may move slots, so that unwind always runs.
    for (unsigned EI : B.Succs) {
      const CFGEdge &E = G.edge(EI);
      if (!E.isException() || !E.MayRaise)
        continue;
      if (E.FromBackEdge
              ? I + 1 == B.End
              : dropsExit(S, T.D.Table[E.Entry].Depth) && T.raisesHere(S, I))
        T.unwindInto(X, S, I, E, &R);
    }
    const OpcodeInfo &Info = T.Insts[I].info();
    bool Jump = Info.isJump() && !Info.isConditionalJump();
    if (I + 1 == B.End && breakerRaisesAtTarget(T.Insts[I]))
      T.escapesAtBackEdge(S, I, &R);
    T.step(S, I, Jump, &R);
  }
}

/// Runs the fixpoint, reporting from every reached block's final state in
/// the engine's post-visit hook.
llvm::Expected<ContextBalanceResult> run(const CFG &G, const BlockStack &BS,
                                         bool Skip, CodeRole Role) {
  ContextBalanceResult Res;
  Res.NormalExits.resize(BS.withSites().size());
  // Nothing can enter or exit a context: every slot would stay untagged,
  // so the interpretation could only confirm that (no context is ever
  // active: ActiveBefore stays empty).
  if (Skip && !ContextTransfer::involvesContexts(G, BS, Role))
    return Res;
  ContextTransfer T(G, BS, Role);
  Res.ActiveBefore.resize(T.Insts.size());
  Res.MaybeBefore.resize(T.Insts.size());
  ContextReport R{G, {}, Res.Findings, Res.NormalExits};
  RaisingCFGFixpointGraph FG(G);
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
