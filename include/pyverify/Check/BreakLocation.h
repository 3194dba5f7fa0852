//===- BreakLocation.h - The frame's break instruction ----------*- C++ -*-===//
//
// Contract: locateFrameBreak() finds, in a bundle's rewritten frame F, the
// instruction that is the original's break instruction (the one at
// break_offset), structurally -- so that frames emitted without a location
// table, as real rewriters often emit them, are located too:
//
//   1. the bundle names it (frame_break_offset): it must be an instruction
//      of F with the original's opcode and argument, else an error;
//   2. otherwise the candidates are F's instructions with the original's
//      opcode and argument; one candidate is the break;
//   3. of several, the one whose result flows into the resume call (the
//      CALL whose callable is the resume-function global of
//      Environment.def), followed forward through the stack -- COPY, SWAP,
//      STORE_FAST / LOAD_FAST of a local -- on normal edges (for a PRECALL
//      or KW_NAMES, the result of the CALL that completes the call);
//   4. source positions only break a tie left after that.
// The result is the instruction index, or the reason it cannot be located.
// Pure and deterministic; bounded by the frame's size.
//
// The forward flow of step 3 runs on the Fixpoint engine
// (FixpointIterator.h) over the frame's normal edges (FrameInstructionGraph,
// FrameModes.h) from the instruction after the producer, with BreakFlowState
// below as its domain and the engine's default visit cap: a value flows
// when, on some path, the resume call may take it. When paths meet with
// stacks of different depths (or the cap is hit) and no flow was found, the
// answer is unknown -- an error, never "does not flow" -- and a break that
// needs it to be told apart is not located, saying why.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_CHECK_BREAKLOCATION_H
#define PYVERIFY_CHECK_BREAKLOCATION_H

#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Fixpoint/AbstractDomain.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace pyverify {

struct BreakLocation {
  int64_t Index = -1; ///< Instruction index in the frame, -1 if not found.
  std::string Why;    ///< Why not found ("" when found).
  bool found() const { return Index >= 0; }
};

/// \p OriginalIndex is the index of the original's instruction at
/// break_offset; \p Named the bundle's frame_break_offset.
BreakLocation locateFrameBreak(const DecodedCode &Frame,
                               const DecodedCode &Original,
                               int64_t OriginalIndex,
                               std::optional<uint32_t> Named);

/// Whether the value \p Index of \p Frame produces (for PRECALL / KW_NAMES:
/// the CALL completing the call) reaches an argument of the resume call; an
/// error when that cannot be told (see the contract).
llvm::Expected<bool> flowsIntoResumeCall(const DecodedCode &Frame,
                                         int64_t Index);

/// The domain of the flow of step 3. Bottom (unreached) < every state <
/// Inconsistent (paths whose stacks have different heights above the
/// walk's start meet). A state is the stack above (and, after a SWAP,
/// just below) the start, each slot the set of what it may be -- another
/// value, NULL, the break's result, the resume function -- with every slot
/// deeper than Stack holds counting as Other; its height above the start
/// (Stack.size() - Below, negative once the code pops below the start);
/// and the locals that may hold the result. Two states of one height join
/// slot by slot (sets unite, aligned at the top) and unite their locals.
/// Finite height (slots, locals and a SWAP's reach are bounded), so widen
/// is join.
class BreakFlowState {
public:
  /// What a slot may be: a set of these.
  enum : uint8_t { Other = 1, Null = 2, Break = 4, Resume = 8 };

  static BreakFlowState bottom() { return BreakFlowState(Shape::Bottom); }
  static BreakFlowState inconsistent() {
    return BreakFlowState(Shape::Inconsistent);
  }
  /// At the walk's start: nothing above it.
  static BreakFlowState start() { return BreakFlowState(Shape::Reached); }

  bool isBottom() const { return S == Shape::Bottom; }
  bool isInconsistent() const { return S == Shape::Inconsistent; }
  bool isReached() const { return S == Shape::Reached; }
  int64_t height() const { return int64_t(Stack.size()) - Below; }
  /// Slot \p N from the top (1: the top); Other below Stack.
  uint8_t peek(uint32_t N) const {
    return N >= 1 && N <= Stack.size() ? Stack[Stack.size() - N]
                                       : uint8_t(Other);
  }

  bool join(const BreakFlowState &O);
  bool widen(const BreakFlowState &O) { return join(O); } // finite height
  bool operator==(const BreakFlowState &O) const;

  /// Meaningful when reached.
  llvm::SmallVector<uint8_t, 8> Stack;
  int64_t Below = 0;
  llvm::SmallVector<uint32_t, 4> Locals; ///< No index twice; any order.

private:
  enum class Shape : uint8_t { Bottom, Reached, Inconsistent };
  explicit BreakFlowState(Shape S) : S(S) {}
  Shape S;
};

static_assert(AbstractDomain<BreakFlowState>);

} // namespace pyverify

#endif
