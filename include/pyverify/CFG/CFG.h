//===- CFG.h - Control-flow graph of a 3.11 code object ---------*- C++ -*-===//
//
// Contract: CFG::build() takes a well-formed DecodedCode (isWellFormed(): the
// instruction stream decoded, jump targets are instruction starts, the
// exception table is sorted, non-overlapping and on instruction boundaries)
// and returns basic blocks that tile the instruction list in order, with
//
//   * FallThrough edges (to the next block, unless the last instruction is a
//     terminator; YIELD_VALUE and RETURN_GENERATOR fall through),
//   * Jump edges (unconditional jumps) and BranchTaken / BranchNotTaken edges
//     (conditional jumps, FOR_ITER, SEND, JUMP_IF_*_OR_POP),
//   * Exception edges, each carrying its table entry (handler, depth, lasti).
//
// Exception edges: every block whose instructions are covered by an entry has
// one edge to that entry's handler. The edge says whether any instruction of
// the block may raise (mayRaise(); bytecode notes section 1.3): analyses of
// control (context balance) follow only raising edges, while stack depth
// follows all of them, as CPython's compiler does when it sizes the frame.
// A block is a straight-line region: an instruction that may raise does not
// end it, so its one exception edge per handler stands for every raise in
// the block (the handler's stack depth is fixed by the entry, whichever
// instruction raises). An analysis whose handler state depends on where the
// block raises (context balance) joins, on that edge, the states before each
// instruction of the block that may raise. A backward jump also gets an edge
// to the handler covering its target - 1, where CPython's eval breaker looks
// it up (section 3.1).
//
// Blocks split at: jump targets, handler targets, table-entry boundaries,
// and after terminators and jumps -- nowhere else. Block 0 is the entry. Edges
// are stored in a deterministic order (by kind as added, then target).
// GraphTraits specialisations (CFGGraphTraits.h) make LLVM's traversals
// (depth_first, post_order, scc_iterator, WriteGraph) work.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_CFG_CFG_H
#define PYVERIFY_CFG_CFG_H

#include "pyverify/Bytecode/DecodedCode.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace pyverify {

enum class EdgeKind : uint8_t {
  FallThrough,    ///< Straight-line successor.
  Jump,           ///< Unconditional jump.
  BranchTaken,    ///< Conditional jump taken.
  BranchNotTaken, ///< Conditional jump not taken (falls through).
  Exception,      ///< Unwinding to a handler.
};

llvm::StringRef getEdgeKindName(EdgeKind K);

class BasicBlock;
struct CFGStorage;

struct CFGEdge {
  EdgeKind Kind;
  unsigned Source;
  unsigned Target;
  /// Exception edges: the table entry (index into DecodedCode::Table).
  int32_t Entry = -1;
  /// Exception edges: some instruction of the source block may raise.
  bool MayRaise = false;
  /// Exception edges: the eval-breaker lookup of a backward jump (keyed at
  /// its target - 1), not the block's own cover.
  bool FromBackEdge = false;

  bool isException() const { return Kind == EdgeKind::Exception; }
};

class BasicBlock {
public:
  const CFGStorage *Owner; ///< Stable across moves of the CFG.
  unsigned Id;
  uint32_t Begin; ///< First instruction index.
  uint32_t End;   ///< One past the last instruction index.
  /// Indices into CFG::edges(), in edge order: views of the CFG's storage
  /// (two arrays for every block, filled once the edges are known, so a
  /// block with many edges allocates nothing of its own).
  llvm::ArrayRef<unsigned> Succs;
  llvm::ArrayRef<unsigned> Preds;

  uint32_t size() const { return End - Begin; }
  uint32_t last() const { return End - 1; }
};

/// Heap storage of a CFG, so block pointers survive moving the CFG. Every
/// array is inline up to a size most code objects stay under (the median
/// stdlib code object has a few blocks and a few dozen instructions), so a
/// small CFG is one allocation: the storage is on the heap and never moves,
/// so the views into it stay valid.
struct CFGStorage {
  llvm::SmallVector<BasicBlock, 4> Blocks;
  llvm::SmallVector<CFGEdge, 8> Edges;
  /// What the blocks' Succs and Preds view: every block's out-edges, then
  /// every block's in-edges, block by block.
  llvm::SmallVector<unsigned, 16> SuccIndex, PredIndex;
  llvm::SmallVector<unsigned, 32> InstToBlock; ///< CFG::blockOf
  llvm::SmallVector<int32_t, 32> Cover;        ///< CFG::coverOf

  /// Empties every array, keeping its buffer.
  void clear() {
    Blocks.clear();
    Edges.clear();
    SuccIndex.clear();
    PredIndex.clear();
    InstToBlock.clear();
    Cover.clear();
  }
};

class CFG {
public:
  CFG() = default;
  /// Builds the CFG. \p D must be well-formed and outlive the CFG.
  static CFG build(const DecodedCode &D);
  /// The same, in \p Storage, an earlier CFG's (releaseStorage(); its
  /// contents are replaced), so that a caller building one CFG after
  /// another allocates nothing for small ones (CodeAnalysis keeps the
  /// thread's last).
  static CFG build(const DecodedCode &D, std::unique_ptr<CFGStorage> Storage);
  /// Gives up the CFG's storage (its arrays' buffers), to build another.
  std::unique_ptr<CFGStorage> releaseStorage() && { return std::move(S); }

  const DecodedCode &code() const { return *D; }
  llvm::ArrayRef<BasicBlock> blocks() const { return S->Blocks; }
  const BasicBlock &block(unsigned I) const { return S->Blocks[I]; }
  const BasicBlock &entry() const { return S->Blocks.front(); }
  size_t size() const { return S->Blocks.size(); }
  llvm::ArrayRef<CFGEdge> edges() const { return S->Edges; }
  const CFGEdge &edge(unsigned I) const { return S->Edges[I]; }

  /// Index of the table entry covering instruction \p Inst (CPython's lookup
  /// at its opcode unit), or -1.
  int32_t coverOf(uint32_t Inst) const { return S->Cover[Inst]; }
  /// Block containing instruction index \p Inst.
  unsigned blockOf(uint32_t Inst) const { return S->InstToBlock[Inst]; }
  /// Whether instruction \p Inst may raise by the raise model with no facts
  /// (mayRaiseGiven; a backward jump's eval breaker is its own edge).
  bool mayRaiseAt(uint32_t Inst) const { return Raises.test(Inst); }
  /// The instruction an exception edge is described as unwinding from: a
  /// back edge's jump, else the last instruction of the source block that
  /// may raise (its last instruction when none may).
  uint32_t raisePointOf(const CFGEdge &E) const;
  /// Blocks reachable from the entry over all edges.
  const llvm::BitVector &reachable() const { return Reachable; }
  /// Blocks reachable when only raising exception edges are followed.
  llvm::BitVector reachableFollowing(bool OnlyRaisingExceptionEdges) const;

private:
  explicit CFG(std::unique_ptr<CFGStorage> S) : S(std::move(S)) {}
  const DecodedCode *D = nullptr;
  std::unique_ptr<CFGStorage> S = std::make_unique<CFGStorage>();
  llvm::BitVector Raises;
  llvm::BitVector Reachable;
};

} // namespace pyverify

#endif
