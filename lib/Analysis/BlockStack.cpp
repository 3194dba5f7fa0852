//===- BlockStack.cpp - Rebuilding the 3.11 block stack -------------------===//

#include "pyverify/Analysis/BlockStack.h"
#include "pyverify/Analysis/ContextEvents.h"
#include "pyverify/Analysis/MicroOps.h"
#include "pyverify/Bytecode/ExceptionTableText.h"
#include "pyverify/Bytecode/VersionOpcodes.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace pyverify;

llvm::StringRef pyverify::getBlockKindName(BlockKind K) {
  switch (K) {
  case BlockKind::With:
    return "with";
  case BlockKind::AsyncWith:
    return "async with";
  case BlockKind::Try:
    return "try";
  case BlockKind::Cleanup:
    return "cleanup";
  case BlockKind::ExceptAs:
    return "except-as";
  case BlockKind::AsyncFor:
    return "async for";
  case BlockKind::ExceptStar:
    return "except*";
  case BlockKind::Unknown:
    return "unknown";
  }
  llvm_unreachable("unknown block kind");
}

namespace {

bool isStore(const Instruction &I) {
  return I.is(Opcode::STORE_FAST) || I.is(Opcode::STORE_NAME) ||
         I.is(Opcode::STORE_DEREF) || I.is(Opcode::STORE_GLOBAL);
}
bool isDelete(const Instruction &I) {
  return I.is(Opcode::DELETE_FAST) || I.is(Opcode::DELETE_NAME) ||
         I.is(Opcode::DELETE_DEREF) || I.is(Opcode::DELETE_GLOBAL);
}

/// Classifies a handler by its first instructions and lasti (section 2.5).
BlockKind classify(const InstructionStream &Insts, int64_t At, bool Lasti) {
  auto Is = [&](int64_t K, Opcode Op, std::optional<uint32_t> Arg = {}) {
    return At + K < int64_t(Insts.size()) && Insts[At + K].is(Op) &&
           (!Arg || Insts[At + K].Arg == *Arg);
  };
  if (At < 0)
    return BlockKind::Unknown;
  if (Is(0, Opcode::PUSH_EXC_INFO)) {
    if (Is(1, Opcode::WITH_EXCEPT_START))
      return Is(2, Opcode::GET_AWAITABLE) ? BlockKind::AsyncWith
                                          : BlockKind::With;
    return BlockKind::Try;
  }
  if (Is(0, Opcode::COPY, 3) && Is(1, Opcode::POP_EXCEPT) &&
      Is(2, Opcode::RERAISE, 1))
    return BlockKind::Cleanup;
  if (Is(0, Opcode::END_ASYNC_FOR))
    return BlockKind::AsyncFor;
  if (Is(0, Opcode::LIST_APPEND, 3))
    return BlockKind::ExceptStar;
  if (Is(0, Opcode::LOAD_CONST) && At + 2 < int64_t(Insts.size()) &&
      isStore(Insts[At + 1]) && isDelete(Insts[At + 2])) {
    if (Is(3, Opcode::LIST_APPEND, 3))
      return BlockKind::ExceptStar;
    if (Is(3, Opcode::RERAISE, 1))
      return BlockKind::ExceptAs;
  }
  (void)Lasti;
  return BlockKind::Unknown;
}

/// Per version and opcode byte: whether an instruction with that byte may
/// be a with enter, by withEnterAt's own filter (it lowers to EnterWith, or
/// to a Call where the version has a LoadSpecial to follow), built once
/// from the lowering's tables. A byte that is no base opcode is none.
/// findWithSites looks every instruction up here, with one load.
struct EnterCandidates {
  bool Kind[NumPythonVersions][256] = {};

  EnterCandidates() {
    for (PythonVersion V : AllPythonVersions) {
      uint8_t Mask = classBit(LowersTo::EnterWith);
      if (versionMayLowerTo(V, LowersTo::LoadSpecial))
        Mask |= classBit(LowersTo::Call);
      for (unsigned B = 0; B < 256; ++B)
        if (std::optional<Instruction> In = Instruction::probe(V, uint8_t(B)))
          Kind[unsigned(V)][B] = lowersToClasses(*In) & Mask;
    }
  }
};

/// Skips NOPs from instruction \p I.
uint32_t skipNops(const InstructionStream &Insts, uint32_t I) {
  while (I < Insts.size() && Insts[I].is(Opcode::NOP))
    ++I;
  return I;
}

} // namespace

/// Classifies every entry's handler and finds its enclosing entry.
std::vector<int32_t> BlockStack::classifyEntries() {
  const CFG &G = *this->G;
  const DecodedCode &D = G.code();
  const InstructionStream &Insts = D.Insts;
  size_t NE = D.Table.size();
  std::vector<int32_t> Outer(NE, -1);
  for (size_t E = 0; E < NE; ++E) {
    const ExceptionTableEntry &T = D.Table[E];
    int64_t At = Insts.indexAtStart(T.Target);
    Blocks.push_back(
        Block{classify(Insts, At, T.Lasti), uint32_t(E), T.Target, {}});
    if (At < 0)
      continue;
    int32_t C = G.coverOf(At);
    if (Insts[At].is(Opcode::PUSH_EXC_INFO)) {
      if (C >= 0) {
        int64_t CT = Insts.indexAtStart(D.Table[C].Target);
        Outer[E] = CT >= 0 ? G.coverOf(CT) : -1;
      }
    } else {
      Outer[E] = C;
    }
  }

  return Outer;
}

/// Each entry's chain of enclosing entries, outermost first; cut at a cycle.
void BlockStack::buildChains(const std::vector<int32_t> &Outer) {
  const DecodedCode &D = G->code();
  size_t NE = D.Table.size();
  ChainStart.reserve(NE + 1);
  ChainData.reserve(NE);
  // The entries on the chain being built; cleared after each chain by
  // resetting just its entries, so the cost stays that of the chains.
  llvm::BitVector Seen(NE);
  llvm::SmallVector<uint32_t, 8> Chain;
  for (size_t E = 0; E < NE; ++E) {
    Chain.clear();
    for (int32_t Cur = int32_t(E); Cur >= 0; Cur = Outer[Cur]) {
      if (Seen.test(Cur)) {
        Problems.push_back(
            {D.Table[E].Start,
             llvm::formatv("the handlers enclosing entry {0} -> {1} form a "
                           "cycle (through the entry for handler {2})",
                           entryRangeText(D.Table[E]), D.Table[E].Target,
                           D.Table[Cur].Target)});
        break;
      }
      Seen.set(Cur);
      if (!Chain.empty() && D.Table[Cur].Depth > D.Table[Chain.back()].Depth)
        Problems.push_back(
            {D.Table[E].Start,
             llvm::formatv("entry for handler {0} (depth {1}) is enclosed by "
                           "the entry for handler {2} with a larger depth {3}",
                           D.Table[Chain.back()].Target,
                           D.Table[Chain.back()].Depth, D.Table[Cur].Target,
                           D.Table[Cur].Depth)});
      Chain.push_back(uint32_t(Cur));
    }
    for (uint32_t Cur : Chain)
      Seen.reset(Cur);
    ChainStart.push_back(uint32_t(ChainData.size()));
    ChainData.insert(ChainData.end(), Chain.rbegin(),
                     Chain.rend()); // outermost first
  }
  ChainStart.push_back(uint32_t(ChainData.size()));
}

/// Effective cover: uncovered NOPs inherit from where control comes from.
void BlockStack::computeEffectiveCover() {
  const CFG &G = *this->G;
  const InstructionStream &Insts = G.code().Insts;
  if (G.code().Table.empty())
    return; // no cover to carry over a NOP: Effective stays empty
  Effective.resize(Insts.size());
  for (uint32_t I = 0; I < Insts.size(); ++I) {
    int32_t C = G.coverOf(I);
    if (C < 0 && Insts[I].is(Opcode::NOP)) {
      const BasicBlock &B = G.block(G.blockOf(I));
      if (I > B.Begin) {
        C = Effective[I - 1];
      } else {
        std::optional<int32_t> Agreed;
        bool Conflict = false;
        for (unsigned EI : B.Preds) {
          const CFGEdge &E = G.edge(EI);
          uint32_t Last = G.block(E.Source).last();
          if (E.isException() || Last >= I)
            continue; // handlers and back edges do not decide
          int32_t P = Effective[Last];
          if (Agreed && *Agreed != P)
            Conflict = true;
          Agreed = P;
        }
        if (Agreed && !Conflict)
          C = *Agreed;
      }
    }
    Effective[I] = C;
  }
}

/// The with sites: each reachable with enter (withEnterAt: BEFORE_WITH /
/// BEFORE_ASYNC_WITH, 3.14's CALL 0 of LOAD_SPECIAL __enter__), its body,
/// exit slot and handler, in code order.
void BlockStack::findWithSites(const StackDepthResult &Depth) {
  const CFG &G = *this->G;
  const DecodedCode &D = G.code();
  const InstructionStream &Insts = D.Insts;
  // The size once: Sites.push_back may, for all the compiler knows, change it.
  const uint32_t N = uint32_t(Insts.size());
  llvm::ArrayRef<Instruction> All = Insts.instructions();
  // withEnterAt's own filter, hoisted (every instruction has the code's
  // version): withEnterAt decides the few candidates, invalid ones included.
  static const EnterCandidates Candidates;
  const bool *Candidate = Candidates.Kind[unsigned(D.Code->Version)];
  for (uint32_t I = 0; I < N; ++I) {
    if (!Candidate[All[I].OpByte])
      continue;
    std::optional<WithEnter> Enter = withEnterAt(Insts, I);
    if (!Enter)
      continue;
    if (!G.reachable().test(G.blockOf(I)))
      continue;
    bool Async = Enter->Async;
    WithSite W;
    W.EnterInst = I;
    W.Async = Async;
    W.ExitSlots = traits(Insts[I].Ver).WithExitSlots;
    uint32_t First = I + 1;
    if (Async) {
      // BEFORE_ASYNC_WITH (3.14: CALL 0); GET_AWAITABLE 1; LOAD_CONST None;
      // SEND done; ... The body starts at the SEND's jump target (from 3.12:
      // after the END_SEND there).
      for (uint32_t K = I + 1; K < Insts.size() && K <= I + 4; ++K)
        if (Insts[K].is(Opcode::SEND)) {
          int64_t T = Insts.indexAtStart(uint64_t(Insts[K].Target));
          if (T >= 0)
            First = uint32_t(T) + (Insts[T].is(Opcode::END_SEND) ? 1 : 0);
          break;
        }
    }
    First = skipNops(Insts, First);
    if (First >= Insts.size())
      continue;
    W.FirstProtected = First;
    if (Depth.Before[I] && *Depth.Before[I] >= int64_t(Enter->ExitPeek))
      W.ExitSlot = *Depth.Before[I] - Enter->ExitPeek;
    W.BodyEntry = G.coverOf(First);
    if (W.BodyEntry >= 0)
      W.Handler = D.Table[W.BodyEntry].Target;
    Sites.push_back(W);
  }
  if (Sites.empty())
    return; // no site to index, none a block's handler leads to
  indexSitesByHandler();
  for (Block &B : Blocks)
    if (isWithKind(B.Kind))
      if (const WithSite *W = siteForHandler(B.Handler))
        B.Enter = Insts[W->EnterInst].Offset;
}

void BlockStack::indexSitesByHandler() {
  for (uint32_t K = 0; K < Sites.size(); ++K)
    if (Sites[K].Handler)
      SitesByHandler.push_back(K);
  llvm::sort(SitesByHandler, [&](uint32_t A, uint32_t B) {
    return std::make_pair(*Sites[A].Handler, A) <
           std::make_pair(*Sites[B].Handler, B);
  });
}

BlockStack BlockStack::compute(const CFG &G, const StackDepthResult &Depth) {
  BlockStack S;
  S.G = &G;
  // Without a table there is no block to classify, chain or carry over a
  // NOP: the steps would only allocate empty results.
  if (!G.code().Table.empty()) {
    std::vector<int32_t> Outer = S.classifyEntries();
    S.buildChains(Outer);
    S.computeEffectiveCover();
  }
  S.findWithSites(Depth);
  return S;
}

int32_t BlockStack::siteIndexOfEnter(uint32_t EnterInst) const {
  auto It = llvm::partition_point(
      Sites, [&](const WithSite &W) { return W.EnterInst < EnterInst; });
  if (It == Sites.end() || It->EnterInst != EnterInst)
    return -1;
  return int32_t(It - Sites.begin());
}

llvm::ArrayRef<uint32_t>
BlockStack::siteIndicesForHandler(uint32_t Offset) const {
  // Sorted by handler: the run of those whose handler is Offset.
  auto Lo = llvm::partition_point(
      SitesByHandler, [&](uint32_t K) { return *Sites[K].Handler < Offset; });
  auto Hi = std::partition_point(Lo, SitesByHandler.end(), [&](uint32_t K) {
    return *Sites[K].Handler == Offset;
  });
  return llvm::ArrayRef<uint32_t>(SitesByHandler)
      .slice(size_t(Lo - SitesByHandler.begin()), size_t(Hi - Lo));
}

const WithSite *BlockStack::siteForHandler(uint32_t Offset) const {
  // Several sites may share a handler (a resume prologue's BEFORE_WITH and
  // a dead original one sharing a remapped handler): the first in code
  // order wins, deterministically.
  llvm::ArrayRef<uint32_t> Ks = siteIndicesForHandler(Offset);
  return Ks.empty() ? nullptr : &Sites[Ks.front()];
}

llvm::SmallVector<Block, 4> BlockStack::blocksAt(uint32_t Inst) const {
  llvm::SmallVector<Block, 4> Out;
  for (uint32_t E : chainAt(Inst))
    Out.push_back(Blocks[E]);
  return Out;
}
