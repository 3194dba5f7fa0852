//===- FrameModes.h - The modes a rewritten frame holds ---------*- C++ -*-===//
//
// Contract: frameModesBefore() says which torch-function modes a bundle's
// rewritten frame holds before one of its instructions (the break
// instruction), by a forward abstract interpretation from the frame's entry
// over normal edges. Its state (ModeState) is the real operand stack
// (getStackIO) and the locals, each slot tagged with what it is for the
// mode stack -- a mode-stack module or one of its operations
// (Environment.def), the saved stack a GetStack returned, a compiled graph
// or its output -- and the list of modes pushed so far. Each CALL is judged
// by the one recogniser (recogniseContextEvent, ContextEvents.h), as the
// prover's symbolic frame does: a push pushes a mode, a pop pops the
// latest, a SetStack of the saved stack pops every mode, any other SetStack
// is the side-effect replay (one push per mode the bundle claims).
//
// Each mode records how many ordinary contexts the frame held when it was
// pushed (\p OrdinaryBefore, the context-balance pass's active contexts), so
// that a caller can print the frame's contexts in entry order.
//
// The iteration is the Fixpoint engine's (FixpointIterator.h) over
// FrameInstructionGraph below, with its default visit cap; an edge's
// transfer is its instruction's micro-operations on that edge.
//
// Known is false -- and the caller must not judge the modes -- when the
// instruction is not reached on normal edges, when paths reaching it hold
// different modes or stacks of different depths, or when the visit cap is
// hit; Why says which. Exception edges are not followed: a rewriter's frame
// reaches its break instruction without raising (prove explores the
// raising paths). Pure, deterministic, bounded by the frame's size.
//
// FrameInstructionGraph is a frame's instructions and normal edges as the
// engine's graph (the break-location walk runs on it too): node K is
// instruction K; an instruction that continues has a fall-through edge, a
// jump a jump edge to where it lands (a conditional jump both); a return,
// a raise or an invalid instruction has none.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_CHECK_FRAMEMODES_H
#define PYVERIFY_CHECK_FRAMEMODES_H

#include "pyverify/Analysis/Environment.h"
#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Fixpoint/AbstractDomain.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pyverify {

struct FrameModes {
  bool Known = false;
  /// Per mode held, outermost first: the number of ordinary contexts the
  /// frame held when it was pushed.
  std::vector<uint32_t> OrdinaryBelow;
  std::string Why; ///< Why not Known ("" when Known).
};

/// \p ClaimedModes is the number of modes the bundle's resume 0 claims (what
/// the side-effect replay installs); \p OrdinaryBefore(I) the number of
/// ordinary contexts active before instruction I. \p Frame must be
/// well-formed.
FrameModes
frameModesBefore(const DecodedCode &Frame, uint32_t Index,
                 unsigned ClaimedModes,
                 llvm::function_ref<uint32_t(uint32_t)> OrdinaryBefore);

/// See the contract: a frame's normal edges, instruction by instruction.
class FrameInstructionGraph {
public:
  struct Edge {
    uint32_t Source;
    uint32_t Target;
    bool Jump; ///< The jump's edge (else the fall-through).
  };

  explicit FrameInstructionGraph(const DecodedCode &D, uint32_t Entry = 0)
      : D(D), Entry(Entry) {}

  unsigned numNodes() const { return unsigned(D.Insts.size()); }
  unsigned entryNode() const { return Entry; }
  llvm::SmallVector<Edge, 2> successors(unsigned Node) const;
  unsigned edgeTarget(const Edge &E) const { return E.Target; }

private:
  const DecodedCode &D;
  uint32_t Entry;
};

/// What a stack slot or local of ModeState is for the mode stack.
struct ModeTag {
  enum class Kind : uint8_t {
    Other,
    Null,
    Env,      ///< A global of Environment.def (Env says which).
    ModeOp,   ///< An operation of a mode-stack module (Effect says which).
    Saved,    ///< What a GetStack returned.
    GraphOut, ///< A compiled graph's result, or an element of it.
    List,     ///< BUILD_LIST / BUILD_TUPLE of Len values (Exact: all GraphOut).
  };
  Kind K = Kind::Other;
  const EnvGlobal *Env = nullptr;
  std::optional<ModeEffect> Effect;
  uint32_t Len = 0;
  bool Exact = false;
  bool operator==(const ModeTag &) const = default;
};

/// The mode interpretation's domain. Bottom (unreached) < every state <
/// Broken (paths whose stacks, or locals, differ in size meet). A state's
/// slots join in a flat lattice whose top is Other; its modes are a list
/// while the joined paths agree on it, else ModesDiffer (the list kept is
/// then one path's, not part of the value: equality ignores it). Finite
/// height, so widen is join.
class ModeState {
public:
  static ModeState bottom() { return ModeState(Shape::Bottom); }
  static ModeState broken() { return ModeState(Shape::Broken); }
  /// The frame's entry: an empty stack, \p NumLocals untagged locals.
  static ModeState entry(size_t NumLocals) {
    ModeState S(Shape::Reached);
    S.Locals.resize(NumLocals);
    return S;
  }

  bool isBottom() const { return S == Shape::Bottom; }
  bool isBroken() const { return S == Shape::Broken; }
  bool isReached() const { return S == Shape::Reached; }

  bool join(const ModeState &From);
  bool widen(const ModeState &From) { return join(From); } // finite height
  bool operator==(const ModeState &O) const;

  /// Meaningful when reached.
  std::vector<ModeTag> Stack;
  std::vector<ModeTag> Locals;
  std::vector<uint32_t> Modes; ///< Per mode: ordinary contexts below it.
  bool ModesDiffer = false;    ///< Paths joined here hold different modes.

  /// The stack as the transfer functions move it (an underflow pops Other).
  ModeTag pop() {
    if (Stack.empty())
      return ModeTag{};
    ModeTag T = Stack.back();
    Stack.pop_back();
    return T;
  }
  void pop(int64_t N) {
    for (int64_t K = 0; K < N; ++K)
      pop();
  }
  void pushOther(int64_t N) {
    Stack.insert(Stack.end(), size_t(std::max<int64_t>(N, 0)), ModeTag{});
  }
  ModeTag peek(uint32_t N) const { // N >= 1
    return N >= 1 && N <= Stack.size() ? Stack[Stack.size() - N] : ModeTag{};
  }

private:
  enum class Shape : uint8_t { Bottom, Reached, Broken };
  explicit ModeState(Shape S) : S(S) {}
  Shape S;
};

static_assert(AbstractDomain<ModeState>);

} // namespace pyverify

#endif
