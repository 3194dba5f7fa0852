//===- WithHandlerChecks.cpp - Findings from the block structure ----------===//

#include "pyverify/Check/WithHandlerChecks.h"
#include "pyverify/Analysis/ContextWitness.h"
#include "pyverify/Check/StackChecks.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <optional>
#include <string>

using namespace pyverify;

namespace {

/// "40 CALL 2": the instruction at index \p I for messages.
std::string describe(const InstructionStream &Insts, uint32_t I) {
  return std::to_string(Insts[I].Offset) + " " + describeInstruction(Insts[I]);
}

/// What is wrong with the entry \p T covering the body of \p W; empty if
/// nothing.
std::vector<std::string> wrongWithBodyEntry(const BlockStack &BS,
                                            const WithSite &W,
                                            const ExceptionTableEntry &T) {
  const Block &Blk = BS.blockOf(uint32_t(W.BodyEntry));
  std::vector<std::string> Wrong;
  const int64_t Keep = W.handlerDepth();
  if (W.ExitSlot >= 0 && int64_t(T.Depth) != Keep)
    Wrong.push_back(llvm::formatv("depth {0} (the bound __exit__ is slot "
                                  "{1}, so the depth must be {2})",
                                  T.Depth, W.ExitSlot, Keep));
  if (!T.Lasti)
    Wrong.push_back("no lasti");
  if (!isWithKind(Blk.Kind))
    Wrong.push_back(llvm::formatv("a handler at {0} that does not start "
                                  "PUSH_EXC_INFO; WITH_EXCEPT_START ({1})",
                                  T.Target, getBlockKindName(Blk.Kind)));
  return Wrong;
}

/// The first protected instruction after each enter is covered by an entry
/// with the depth before the enter, lasti and a with handler.
void checkWithBodies(const CFG &G, const BlockStack &BS,
                     const ContextBalanceResult &R, std::vector<Finding> &Out) {
  const DecodedCode &D = G.code();
  const InstructionStream &Insts = D.Insts;
  for (const WithSite &W : BS.withSites()) {
    const Instruction &Enter = Insts[W.EnterInst];
    const Instruction &First = Insts[W.FirstProtected];
    if (W.BodyEntry < 0) {
      Finding F(CheckId::WithHandlerMismatch, First.Offset,
                llvm::formatv("{0}, the first instruction of the with body "
                              "entered at {1}, is not covered by any "
                              "exception-table entry: an exception in the "
                              "body would not call __exit__",
                              describe(Insts, W.FirstProtected), Enter.Offset));
      addContextNotes(F, G, R.BlockIn, W.EnterInst, W.FirstProtected,
                      /*FaultRaises=*/false);
      Out.push_back(std::move(F));
      continue;
    }
    const ExceptionTableEntry &T = D.Table[W.BodyEntry];
    std::vector<std::string> Wrong = wrongWithBodyEntry(BS, W, T);
    if (Wrong.empty())
      continue;
    std::string Msg =
        llvm::formatv("the with body entered at {0} {1} starts "
                      "at {2} under entry {3} to {4} -> {5} "
                      "[{6}]{7}, which has ",
                      Enter.Offset, Enter.name(), First.Offset, T.Start,
                      T.End - 2, T.Target, T.Depth, T.Lasti ? " lasti" : "");
    for (size_t K = 0; K < Wrong.size(); ++K)
      Msg += (K ? " and " : "") + Wrong[K];
    Finding F(CheckId::WithHandlerMismatch, First.Offset, Msg);
    F.note(Enter.Offset, "the context is entered here");
    F.note(T.Target, "the entry's handler");
    Out.push_back(std::move(F));
  }
}

/// Whether the suppress branch of the with handler at \p Offset ends in a
/// raise instead of continuing after a with: the resume-function shape
/// ("raise None" after the prologue's handlers), which does not claim to
/// continue after any particular with (rewriters assume contexts never
/// suppress).
bool suppressPathRaises(const InstructionStream &Insts, uint32_t Offset) {
  int64_t H = Insts.indexAtStart(Offset);
  if (H < 0)
    return false;
  int64_t I = -1;
  // PUSH_EXC_INFO; WITH_EXCEPT_START; [3.13: TO_BOOL;] the branch.
  for (int64_t K = H; K < H + 4 && K < int64_t(Insts.size()); ++K)
    if (Insts[K].is(Opcode::POP_JUMP_FORWARD_IF_TRUE) ||
        Insts[K].is(Opcode::POP_JUMP_IF_TRUE)) {
      I = Insts.indexAtStart(uint64_t(Insts[K].Target));
      break;
    }
  for (unsigned Steps = 0; I >= 0 && Steps < 16; ++Steps) {
    const Instruction &In = Insts[I];
    if (In.is(Opcode::RAISE_VARARGS))
      return true;
    if (In.is(Opcode::JUMP_FORWARD))
      I = Insts.indexAtStart(uint64_t(In.Target));
    else if (In.is(Opcode::POP_TOP) || In.is(Opcode::POP_EXCEPT) ||
             In.is(Opcode::NOP) || In.is(Opcode::LOAD_CONST) ||
             In.is(Opcode::LOAD_COMMON_CONSTANT)) // 3.15's None
      I = I + 1 < int64_t(Insts.size()) ? I + 1 : -1;
    else
      return false;
  }
  return false;
}

/// The sites whose context the context entered at site \p X becomes by a
/// join, without an exit: from X's first protected instruction, along
/// normal edges (no exception edge: at a shared handler every two sharing
/// contexts meet), to the first instructions where X's context is no longer
/// active; there, the active contexts of sites with X's exit slot (the join
/// of two contexts in one slot keeps the smaller id). A resume prologue's
/// with whose context flows into the original body (entered again by the
/// loop around it) becomes the original's, or the other way round. Visits
/// only instructions where X's context is active.
llvm::SmallVector<uint32_t, 2> mergeTargets(const CFG &G, const BlockStack &BS,
                                            const ContextBalanceResult &R,
                                            uint32_t X) {
  llvm::ArrayRef<WithSite> Sites = BS.withSites();
  const WithSite &W = Sites[X];
  llvm::SmallVector<uint32_t, 2> Targets;
  if (W.ExitSlot < 0)
    return Targets;
  llvm::BitVector Seen(G.size());
  llvm::SmallVector<uint32_t, 8> Work{W.FirstProtected};
  while (!Work.empty()) {
    uint32_t From = Work.pop_back_val();
    const BasicBlock &B = G.block(G.blockOf(From));
    bool Left = false;
    for (uint32_t I = From; I < B.End && !Left; ++I) {
      llvm::ArrayRef<uint32_t> Active = R.activeBefore(I);
      if (llvm::is_contained(Active, W.EnterInst))
        continue;
      Left = true;
      for (uint32_t Id : Active) {
        int32_t Y = BS.siteIndexOfEnter(Id);
        if (Y >= 0 && uint32_t(Y) != X && Sites[Y].ExitSlot == W.ExitSlot &&
            !llvm::is_contained(Targets, uint32_t(Y)))
          Targets.push_back(uint32_t(Y));
      }
    }
    if (Left)
      continue;
    for (unsigned E : B.Succs) {
      const CFGEdge &Edge = G.edge(E);
      if (!Edge.isException() && !Seen.test(Edge.Target)) {
        Seen.set(Edge.Target);
        Work.push_back(G.block(Edge.Target).Begin);
      }
    }
  }
  return Targets;
}

/// Each with needs its own handler: the suppress path of a shared one
/// continues after only one of the withs. Two sites are the same with --
/// a resume prologue re-entering the with the original loop body enters
/// again, whose contexts meet in one slot -- when they share a normal exit,
/// or when one has none of its own and its context becomes the other's
/// (mergeTargets).
void checkSharedHandlers(const CFG &G, const BlockStack &BS,
                         const ContextBalanceResult &R,
                         std::vector<Finding> &Out) {
  const InstructionStream &Insts = G.code().Insts;
  llvm::ArrayRef<WithSite> Sites = BS.withSites();
  // Per site without a normal exit, computed when first needed.
  std::vector<std::optional<llvm::SmallVector<uint32_t, 2>>> Merges(
      Sites.size());
  auto MergesInto = [&](uint32_t X, uint32_t Y) {
    if (!Merges[X])
      Merges[X] = mergeTargets(G, BS, R, X);
    return llvm::is_contained(*Merges[X], Y);
  };
  for (size_t A = 0; A < Sites.size(); ++A) {
    if (!Sites[A].Handler)
      continue;
    // The sites with the same handler, in increasing order (A among them).
    // A handler whose suppress path raises continues after no with: any
    // sites may share it.
    llvm::ArrayRef<uint32_t> Sharing =
        BS.siteIndicesForHandler(*Sites[A].Handler);
    if (Sharing.back() <= A || suppressPathRaises(Insts, *Sites[A].Handler))
      continue;
    for (uint32_t B : Sharing) {
      if (B <= A)
        continue;
      const WithSite &WA = Sites[A], &WB = Sites[B];
      llvm::ArrayRef<uint32_t> ExitsA = R.NormalExits[A],
                               ExitsB = R.NormalExits[B];
      std::string Why;
      if (!ExitsA.empty() && !ExitsB.empty()) {
        if (llvm::any_of(ExitsA, [&](uint32_t X) {
              return llvm::is_contained(ExitsB, X);
            }))
          continue;
        Why = "they exit at different places";
      } else {
        if ((ExitsA.empty() && MergesInto(uint32_t(A), B)) ||
            (ExitsB.empty() && MergesInto(B, uint32_t(A))))
          continue;
        if (ExitsA.empty() && ExitsB.empty())
          Why = "neither exits normally, and neither's context becomes the "
                "other's";
        else
          Why =
              llvm::formatv("the one entered at {0} never exits normally, "
                            "and its context does not become the other's",
                            Insts[(ExitsA.empty() ? WA : WB).EnterInst].Offset);
      }
      Finding F(CheckId::WithHandlerMismatch, Insts[WB.FirstProtected].Offset,
                llvm::formatv("the with bodies entered at {0} and {1} lead to "
                              "the same handler {2} but are different withs: "
                              "{3}; each with needs its own handler (after a "
                              "suppressed exception the shared one continues "
                              "after only one of them)",
                              Insts[WA.EnterInst].Offset,
                              Insts[WB.EnterInst].Offset, *WA.Handler, Why));
      F.note(Insts[WA.EnterInst].Offset, "the other with is entered here");
      F.note(*WA.Handler, "the shared handler");
      Out.push_back(std::move(F));
    }
  }
}

/// Every other entry that targets a with handler must keep that with's
/// __exit__ slot: depth = slot + 1.
void checkHandlerEntryDepths(const CFG &G, const BlockStack &BS,
                             std::vector<Finding> &Out) {
  const DecodedCode &D = G.code();
  const InstructionStream &Insts = D.Insts;
  for (size_t E = 0; E < D.Table.size(); ++E) {
    const ExceptionTableEntry &T = D.Table[E];
    const WithSite *W = BS.siteForHandler(T.Target);
    if (!W || W->ExitSlot < 0 || int64_t(T.Depth) == W->handlerDepth() ||
        int32_t(E) == W->BodyEntry)
      continue;
    // Judge only entries that cover reachable code.
    int64_t First = Insts.indexAtStart(T.Start);
    bool Live = false;
    for (int64_t I = First;
         I >= 0 && I < int64_t(Insts.size()) && Insts[I].Offset < T.End; ++I)
      Live |= G.reachable().test(G.blockOf(uint32_t(I)));
    if (!Live)
      continue;
    Finding F(CheckId::WithHandlerMismatch, Insts[First].Offset,
              llvm::formatv("entry {0} to {1} -> {2} [{3}]{4} leads to the "
                            "handler of the with entered at {5}, whose "
                            "__exit__ is slot {6}, but its depth is {3} "
                            "instead of {7}",
                            T.Start, T.End - 2, T.Target, T.Depth,
                            T.Lasti ? " lasti" : "", Insts[W->EnterInst].Offset,
                            W->ExitSlot, W->handlerDepth()));
    F.note(Insts[W->EnterInst].Offset, "the context is entered here");
    F.note(T.Target, "the with handler");
    Out.push_back(std::move(F));
  }
}

} // namespace

void pyverify::checkWithHandlers(const CFG &G, const BlockStack &BS,
                                 const ContextBalanceResult &R,
                                 std::vector<Finding> &Out) {
  checkWithBodies(G, BS, R, Out);
  checkSharedHandlers(G, BS, R, Out);
  checkHandlerEntryDepths(G, BS, Out);
}

void pyverify::checkBlockNesting(const BlockStack &BS,
                                 std::vector<Finding> &Out) {
  for (const auto &[At, Msg] : BS.problems())
    Out.emplace_back(CheckId::BlockNesting, At, Msg);
}

void pyverify::appendContextFindings(const CFG &G, const BlockStack &BS,
                                     const ContextBalanceResult &R,
                                     std::vector<Finding> &Out) {
  // Without a with site every check of checkWithHandlers is silent (each
  // judges a site, or an entry whose handler is a site's: siteForHandler is
  // null), so with no pass finding and no nesting problem there is nothing
  // to add, sort or copy (most code objects hold no with).
  if (R.Findings.empty() && BS.withSites().empty() && BS.problems().empty())
    return;
  std::vector<Finding> All = R.Findings;
  checkWithHandlers(G, BS, R, All);
  checkBlockNesting(BS, All);
  sortAndUniqueFindings(All);
  Out.insert(Out.end(), std::make_move_iterator(All.begin()),
             std::make_move_iterator(All.end()));
}
