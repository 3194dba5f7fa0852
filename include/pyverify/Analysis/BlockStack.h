//===- BlockStack.h - Rebuilding the 3.11 block stack -----------*- C++ -*-===//
//
// Contract: BlockStack::compute() reconstructs, from the exception table
// alone, which blocks are active at every instruction -- what the 3.10 block
// stack held and 3.11 only encodes in the table (bytecode notes section 7.1):
//
//   lookup(i)  = the entry covering instruction i (innermost by construction);
//   outer(H)   = lookup(C.target) when H's handler starts with PUSH_EXC_INFO,
//                C being the cleanup entry that covers that PUSH_EXC_INFO
//                (handler code runs under the enclosing handler), and
//                lookup(H.target) otherwise (cleanups, except-as, async for);
//   chain(i)   = lookup(i), outer(lookup(i)), ... read outermost first.
//
// Each level is classified by its handler's first instructions and lasti
// (section 2.5): with, async with, try, cleanup, except-as, async for,
// except*; anything else is "unknown". Each with site (BEFORE_WITH /
// BEFORE_ASYNC_WITH) is linked to its body entry (the entry covering its
// first protected instruction), the stack slot of its bound __exit__ and its
// handler. (Its normal exits are a fact of the context-balance pass, in
// ContextBalanceResult::NormalExits.)
//
// An uncovered NOP (the surviving SETUP NOP of a `try:` line, which CPython
// leaves outside every entry because it cannot raise) takes the block stack
// in effect where control reaches it from: that of the instruction before it
// in its block, or of its normal predecessors when they agree.
//
// Needs a well-formed DecodedCode, its CFG and its stack depths. Chains are
// cut (and reported in Problems) at a cycle; the result never loops.
// Immutable once computed.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_ANALYSIS_BLOCKSTACK_H
#define PYVERIFY_ANALYSIS_BLOCKSTACK_H

#include "pyverify/Analysis/StackDepth.h"
#include "pyverify/CFG/CFG.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>
#include <vector>

namespace pyverify {

enum class BlockKind : uint8_t {
  With,
  AsyncWith,
  Try,
  Cleanup,
  ExceptAs,
  AsyncFor,
  ExceptStar,
  Unknown,
};

llvm::StringRef getBlockKindName(BlockKind K);
inline bool isWithKind(BlockKind K) {
  return K == BlockKind::With || K == BlockKind::AsyncWith;
}

/// One level of the block stack: a table entry and what its handler is.
struct Block {
  BlockKind Kind;
  uint32_t Entry;   ///< Index into DecodedCode::Table.
  uint32_t Handler; ///< Handler byte offset.
  /// With kinds: the offset of the BEFORE_WITH whose body this is.
  std::optional<uint32_t> Enter;
};

struct WithSite {
  uint32_t EnterInst; ///< Index of its enter (withEnterAt, ContextEvents.h).
  bool Async = false;
  uint32_t FirstProtected; ///< Index of the first instruction of the body.
  int64_t ExitSlot = -1;   ///< Stack index of the bound __exit__ (-1: unknown).
  /// The slots the __exit__ takes from ExitSlot up
  /// (VersionTraits::WithExitSlots).
  uint8_t ExitSlots = 1;
  int32_t BodyEntry = -1;          ///< Entry covering FirstProtected, or -1.
  std::optional<uint32_t> Handler; ///< Byte offset of the body's handler.
  /// The depth the body's handler entry must keep: the __exit__'s slots.
  int64_t handlerDepth() const { return ExitSlot + ExitSlots; }
};

class BlockStack {
public:
  static BlockStack compute(const CFG &G, const StackDepthResult &Depth);

  /// Entries active at instruction \p Inst, outermost first.
  llvm::ArrayRef<uint32_t> chainAt(uint32_t Inst) const {
    int32_t C = Effective.empty() ? -1 : Effective[Inst];
    if (C < 0)
      return {};
    return llvm::ArrayRef<uint32_t>(ChainData).slice(
        ChainStart[C], ChainStart[C + 1] - ChainStart[C]);
  }
  /// The block for table entry \p Entry.
  const Block &blockOf(uint32_t Entry) const { return Blocks[Entry]; }
  /// Blocks active at \p Inst, outermost first.
  llvm::SmallVector<Block, 4> blocksAt(uint32_t Inst) const;
  /// In code order (by EnterInst).
  llvm::ArrayRef<WithSite> withSites() const { return Sites; }
  /// The index in withSites() of the with entered at instruction
  /// \p EnterInst, or -1. O(log sites).
  int32_t siteIndexOfEnter(uint32_t EnterInst) const;
  /// The indices in withSites(), in increasing order, of the sites whose
  /// body entry targets handler \p Offset. O(log sites).
  llvm::ArrayRef<uint32_t> siteIndicesForHandler(uint32_t Offset) const;
  /// The first such site in code order, if any.
  const WithSite *siteForHandler(uint32_t Offset) const;
  /// Nesting problems: (instruction offset, message).
  llvm::ArrayRef<std::pair<uint32_t, std::string>> problems() const {
    return Problems;
  }

private:
  // The steps of compute().
  std::vector<int32_t> classifyEntries();
  void buildChains(const std::vector<int32_t> &Outer);
  void computeEffectiveCover();
  void findWithSites(const StackDepthResult &Depth);
  void indexSitesByHandler();

  const CFG *G = nullptr;
  std::vector<Block> Blocks; ///< Per table entry.
  /// Entry E's chain is ChainData[ChainStart[E] .. ChainStart[E + 1]): one
  /// allocation for all chains, none without a table.
  std::vector<uint32_t> ChainData;
  std::vector<uint32_t> ChainStart; ///< Per entry + 1; empty without a table.
  std::vector<WithSite> Sites;
  /// Indices into Sites of the sites with a handler, sorted by (handler,
  /// index): siteIndicesForHandler().
  std::vector<uint32_t> SitesByHandler;
  std::vector<std::pair<uint32_t, std::string>> Problems;

  /// Per instruction: the entry whose chain is in effect, -1 for none;
  /// empty without a table (no instruction has a chain).
  std::vector<int32_t> Effective;
};

} // namespace pyverify

#endif
