//===- RaiseModel.h - Whether an instruction may raise ----------*- C++ -*-===//
//
// Contract: mayRaiseGiven() is the one raise model. Its base is the opcode
// table (Opcodes.def's Raises column, mayRaise(): the rules of the bytecode
// notes); a pass that knows more passes RaiseFacts, each of which rules a
// raise out under one documented assumption and nothing else:
//
//   LocalBound          LOAD_FAST of a local the pass knows is bound;
//   ProtocolAttribute   LOAD_ATTR / LOAD_METHOD of __enter__ / __exit__ on a
//                       context manager, or 3.14's LOAD_SPECIAL of them
//                       ("a manager has both");
//   EnvironmentGlobal   LOAD_GLOBAL of a name of Environment.def;
//   ModeStackOperation  the attribute load or the call (CALL, CALL_KW) of a
//                       mode-stack
//                       operation of Environment.def ("they succeed");
//   ReplayedWrapper     the frame's wrapper code while replayed modes are
//                       held (docs/prove.md);
//   BuiltinTruthValue   a truth test (a conditional branch; 3.13's TO_BOOL)
//                       whose tested value is a
//                       constant or a bool an instruction made (IS_OP,
//                       CONTAINS_OP, UNARY_NOT, CHECK_EXC_MATCH): its truth
//                       test runs no user code (a fact, not an assumption);
//   TestedBefore        a truth test of a value whose truth test
//                       already succeeded on this path (assumption: testing
//                       it again does not raise; printed by the prover);
//   BackEdgeSeparately  JUMP_BACKWARD whose eval-breaker exception is
//                       looked up at the target - 1 (breakerRaisesAtTarget:
//                       3.11, 3.12): a CFG edge of its own, not a raise of
//                       the jump. 3.13's raises at the jump.
//
// Raise tiers (raiseTierName, tracingRaiseOffsets, checksEvalBreaker): an
// exception is raised at an instruction by the instruction itself (Self:
// mayRaiseGiven), through the eval breaker (a signal handler, an
// asynchronous exception, at the instructions that check it), or through
// tracing (a trace function raising on a line or opcode event: pdb's quit,
// coverage tools). Measured per version by tests/versions/check_raise_tiers.py
// (docs/versions.md, "Raise tiers"); which instructions of a with CPython's
// own compiler covers is isOutsideCompiledWithBody (ContextEvents.h).
//
// The CFG (its raising edges), the context-balance pass and the prover all
// decide "may this raise here" by it. A conditional branch may raise (the
// truth test calls __bool__ / __len__) unless the table says otherwise
// (POP_JUMP_*_IF_NONE / _NOT_NONE cannot).
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_RAISEMODEL_H
#define PYVERIFY_BYTECODE_RAISEMODEL_H

#include "pyverify/Bytecode/InstructionStream.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace pyverify {

struct RaiseFacts {
  bool LocalBound = false;
  bool ProtocolAttribute = false;
  bool EnvironmentGlobal = false;
  bool ModeStackOperation = false;
  bool ReplayedWrapper = false;
  bool BuiltinTruthValue = false;
  bool TestedBefore = false;
  bool BackEdgeSeparately = false;
};

/// Whether \p I's back edge checks the eval breaker with the instruction
/// pointer already at its target, so that the exception is looked up at the
/// target - 1 (3.11's JUMP_BACKWARD and POP_JUMP_BACKWARD_IF_*, 3.12's
/// JUMP_BACKWARD), rather than at the jump (3.13's JUMP_BACKWARD checks
/// before it jumps). Measured on each interpreter:
/// tests/versions/check_back_edge.py.
bool breakerRaisesAtTarget(const Instruction &I);

/// How many values \p I (valid) has taken off the stack when an exception
/// it raises itself unwinds, counted from its depth before: its inputs
/// (getStackIO's fall-through Pops) -- 3.12+'s error exits pop them before
/// unwinding, and 3.11's may leave a NULL where the result goes, a slot
/// unwinding would keep; except YIELD_VALUE, whose exceptions are thrown in
/// when the frame resumes, with the sent value (None for throw()) already
/// pushed in its result's place (nothing taken: the compilers' own yields
/// and awaits in a try, 2,326 YIELD_VALUEs of 3.12's stdlib, are covered at
/// that depth and run). Measured on the interpreters:
/// tests/lit/check/handler-depth-at-raise.py.
int64_t raisePops(const Instruction &I);

/// The tiers of the raise model (see the contract).
enum class RaiseTier : uint8_t { Self, EvalBreaker, Tracing };
llvm::StringRef getRaiseTierName(RaiseTier T);

/// Whether a trace function's exception can be raised at \p I, and the
/// offsets its exception is looked up at: every instruction gets an opcode
/// event but RESUME, MAKE_CELL and RETURN_GENERATOR (and 3.12's END_FOR,
/// never executed); 3.11 delivers the event of an instruction with an
/// EXTENDED_ARG prefix at the prefix (looked up there), 3.12 and 3.13 one
/// at the prefix and one at the instruction. Empty when it cannot.
llvm::SmallVector<uint32_t, 2> tracingRaiseOffsets(const Instruction &I);

/// Whether \p I checks the eval breaker, so that a pending signal handler
/// or asynchronous exception raises there: RESUME after a yield, the back
/// jumps (looked up at the target - 1 or the jump: breakerRaisesAtTarget),
/// and the call instructions (which also raise by themselves).
bool checksEvalBreaker(const Instruction &I);

/// Whether \p I may run a Python callee in a frame it pushes inline, whose
/// exception the caller then looks up where the version says
/// (CalleeRaiseLookupBefore, VersionTraits.def): CALL, CALL_KW and
/// CALL_FUNCTION_EX of a Python function; specialised, a Python __init__
/// (CALL), __getitem__ (BINARY_SUBSCR; from 3.14 BINARY_OP [] only), a property
/// (LOAD_ATTR) and a generator (FOR_ITER, SEND). Measured but SEND:
/// tests/versions/callee_lookup.py.
bool mayRunCalleeFrame(const Instruction &I);

/// Whether \p I (a valid instruction whose opcode's facts are \p Info) may
/// raise, given what \p F rules out (see the contract). Callers that have
/// the opcode's info at hand (the CFG builder) pass it.
bool mayRaiseGiven(const Instruction &I, const OpcodeInfo &Info,
                   const RaiseFacts &F);

/// The same for any instruction; an invalid one may raise.
inline bool mayRaiseGiven(const Instruction &I, const RaiseFacts &F) {
  return !I.Valid || mayRaiseGiven(I, I.info(), F);
}

} // namespace pyverify

#endif
