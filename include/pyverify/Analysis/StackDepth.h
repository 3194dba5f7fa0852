//===- StackDepth.h - Operand-stack depth analysis --------------*- C++ -*-===//
//
// Contract: computeStackDepth() runs a forward analysis over all edges of the
// CFG (exception edges included, whether or not the block may raise, as
// CPython's compiler does when it sizes the frame) and returns, per
// instruction, the operand-stack depth before it and after it, and the
// maximum reachable depth -- the value CPython stores in co_stacksize.
//
// Rules (bytecode notes sections 4 and 5): the entry starts at 0, or at 1 for
// generator, coroutine and async-generator code (RETURN_GENERATOR's result
// is popped by the next POP_TOP); fall-through and jump edges apply the real
// stack effect (getStackIO: what the interpreter pops and pushes; its net is
// dis.stack_effect except between PRECALL n and CALL n, where the real stack
// still holds the n arguments, so the maximum depth is the compiler's); an
// exception edge enters the handler at depth + lasti + 1 whatever the source
// depth. Before each instruction its real pops and its deepest read are
// checked against the depth: an instruction that takes or reads a value
// below the bottom of the stack is an underflow *at that instruction*, and
// the analysis goes on as if the missing values had been there (one finding
// per underflow, none after it). The domain is the
// flat lattice of depths: two different depths joined give Conflict, which
// is then propagated without further findings.
//
// The result records the raw facts; the Check layer turns them into
// findings (stack-underflow, stack-depth-conflict, stacksize-too-small,
// handler-depth-exceeds-stack, ...).
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_ANALYSIS_STACKDEPTH_H
#define PYVERIFY_ANALYSIS_STACKDEPTH_H

#include "pyverify/CFG/CFG.h"
#include "pyverify/Domain/DepthDomain.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace pyverify {

/// An instruction that pops or reads below the bottom of the stack: its
/// real pops or its deepest read (getStackIO) exceed the depth before it.
struct StackUnderflow {
  uint32_t Inst; ///< Instruction index.
  int64_t Depth; ///< Depth before it.
  int64_t Pops;  ///< What it pops on the edge that underflows.
  int64_t Reads; ///< The deepest slot it reads there (>= Pops).
  bool operator==(const StackUnderflow &) const = default;
};

struct StackDepthConflict {
  unsigned Block;        ///< Block reached at two depths.
  unsigned EdgeA, EdgeB; ///< Two incoming edges that disagree.
  int64_t DepthA, DepthB;
  bool operator==(const StackDepthConflict &) const = default;
};

/// Per instruction, a depth, or none (unreached): a
/// std::vector<std::optional<int64_t>> in half the memory. None is
/// INT64_MIN, which no depth reaches (a depth moves by at most about 2^32
/// per instruction).
class InstDepths {
public:
  static constexpr int64_t None = INT64_MIN;

  /// \p N instructions, none reached.
  void assignNone(size_t N) { V.assign(N, None); }
  size_t size() const { return V.size(); }
  size_t capacity() const { return V.capacity(); }
  std::optional<int64_t> operator[](size_t I) const {
    return V[I] == None ? std::nullopt : std::optional<int64_t>(V[I]);
  }
  /// The raw depths (None where unreached), to fill.
  int64_t *data() { return V.data(); }
  bool any() const {
    return llvm::any_of(V, [](int64_t D) { return D != None; });
  }
  std::vector<std::optional<int64_t>> toVector() const {
    std::vector<std::optional<int64_t>> Out;
    Out.reserve(V.size());
    for (size_t I = 0; I < V.size(); ++I)
      Out.push_back((*this)[I]);
    return Out;
  }
  bool operator==(const InstDepths &O) const = default;

private:
  std::vector<int64_t> V;
};

struct StackDepthResult {
  /// Per instruction: depth before it (after a conflict: the representative
  /// depth; after an underflow: as if the missing values had been there);
  /// none if unreachable.
  InstDepths Before;
  /// Per instruction: the lowest depth it leaves on any of its normal edges
  /// (for terminators: the depth after its pops).
  InstDepths After;
  /// Block entry states.
  std::vector<DepthValue> BlockIn;
  int64_t MaxDepth = 0;
  /// Instruction index where MaxDepth is first reached (lowest offset).
  uint32_t MaxDepthInst = 0;
  std::vector<StackUnderflow> Underflows;
  std::vector<StackDepthConflict> Conflicts;
  uint64_t Visits = 0;

  /// A default result for \p NumInsts instructions, none reached, in the
  /// buffers this one has (a new field is reset here too).
  void resetKeepingBuffers(size_t NumInsts) {
    Before.assignNone(NumInsts);
    After.assignNone(NumInsts);
    BlockIn.clear();
    MaxDepth = 0;
    MaxDepthInst = 0;
    Underflows.clear();
    Conflicts.clear();
    Visits = 0;
  }
};

/// The depth on entry: 0, every frame's, generators' too. A generator's
/// code makes its generator in RETURN_GENERATOR, whose push (every
/// version's table: the value the first resumption sends, which the POP_TOP
/// after it drops) is where that value comes from -- not the code's start,
/// so instructions before it (3.15's eager iterator of a generator
/// expression) and code without it are counted from an empty stack.
int64_t entryStackDepth(const CodeObject &C);

/// How computeStackDepth() reaches the fixpoint. Both give the same result
/// (a unit test compares every field over real and broken code).
enum class DepthSolver {
  /// One sweep over the blocks in code order when that is the fixpoint (no
  /// edge back to a swept block changes it, no block is reached at two
  /// depths: all well-formed code), else the worklist engine.
  Auto,
  /// The worklist engine (Fixpoint/FixpointIterator.h) always.
  Worklist,
};

/// Fails only if the fixpoint exceeds its visit cap.
/// \p Storage: an earlier result whose buffers the new one takes (its
/// contents are replaced), so that a caller analysing one code object after
/// another allocates nothing for depths (CodeAnalysis keeps the thread's
/// last one).
llvm::Expected<StackDepthResult>
computeStackDepth(const CFG &G, DepthSolver Solver = DepthSolver::Auto,
                  StackDepthResult Storage = {});

} // namespace pyverify

#endif
