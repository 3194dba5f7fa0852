//===- MicroOps.h - Instructions lowered to micro-operations ----*- C++ -*-===//
//
// Contract: lowerInstruction() turns one valid instruction of any version
// into the short list of micro-operations it performs on one edge, read off
// its version's opcode table (VersionOpcodes.h) and traits row
// (VersionTraits.def): which local it loads or stores, the global or
// attribute it loads, a method load, a NULL pushed below or above a value, a
// call with its layout, stack shuffles, sequence building, subscripting, a
// branch's test and sense, a return, a raise, a with statement's enter and
// its handler's exit call, the exception-handling moves, truth tests.
// Every other instruction is one Effect: what it pops and pushes on that
// edge (getStackIO), values no pass tracks. A pass that follows values
// visits micro-operations (std::visit over MicroOp, every alternative
// handled), never opcodes, so it reads 3.11's `PRECALL 1; CALL 1`, 3.12's
// `LOAD_ATTR` with the method bit and 3.13's NULL after the callable the
// same way.
//
// Order: the micro-operations run in list order, each on the stack the
// previous one left (LOAD_FAST_LOAD_FAST a, b is LoadLocal a, LoadLocal b).
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_ANALYSIS_MICROOPS_H
#define PYVERIFY_ANALYSIS_MICROOPS_H

#include "pyverify/Bytecode/InstructionStream.h"
#include "pyverify/Bytecode/Opcode.h"
#include "pyverify/Support/Overloaded.h"

#include "llvm/ADT/SmallVector.h"

#include <array>
#include <cstdint>
#include <optional>
#include <variant>

namespace pyverify {

namespace uop {
/// Push NULL.
struct PushNull {};
/// How a load reads a local that may be unbound.
enum class LocalRead : uint8_t {
  Checked,   ///< Raises UnboundLocalError (LOAD_FAST_CHECK; LOAD_FAST where
             ///< VersionTraits::LoadFastChecksBound).
  Unchecked, ///< Pushes NULL: the compiler proved it bound.
  Saved,     ///< Pushes the value or NULL by design (LOAD_FAST_AND_CLEAR
             ///< saving a comprehension's variable).
};
/// Push fast local Local. Borrowed: the pushed reference is not counted
/// (3.14's LOAD_FAST_BORROW and its fused pair): it stays valid only while
/// the local holds the value (BorrowedRefs.h).
struct LoadLocal {
  uint32_t Local;
  LocalRead Read = LocalRead::Unchecked;
  bool Borrowed = false;
};
/// Pop into fast local Local. NullOk: the version stores a NULL too (3.12
/// restores a comprehension's saved variable so; its table row says it).
struct StoreLocal {
  uint32_t Local;
  bool NullOk = false;
};
/// Unbind fast local Local. Checked: raises UnboundLocalError when it is
/// not bound (DELETE_FAST; LOAD_FAST_AND_CLEAR's clearing never raises).
struct DeleteLocal {
  uint32_t Local;
  bool Checked = false;
};
/// Push co_consts[Index].
struct LoadConst {
  uint32_t Index;
};
/// Wrap fast local Local in a new cell.
struct MakeCell {
  uint32_t Local;
};
/// Fill the last N fast locals with the closure's cells.
struct CopyFreeVars {
  uint32_t N;
};
/// Pop the exception being handled and leave its handler.
struct PopExcept {};
/// Push the global co_names[Name].
struct LoadGlobal {
  uint32_t Name;
};
/// Pop an object, push its attribute co_names[Name].
struct LoadAttr {
  uint32_t Name;
};
/// Pop an object, push the two slots a method call takes: the method and
/// its self, or the attribute and a NULL -- which, only the run decides --
/// in the version's call layout (NullAfterCallable: [attribute, NULL], else
/// [NULL, attribute]).
struct LoadMethod {
  uint32_t Name;
  bool NullAfterCallable;
  /// The pushed slot that may be NULL (0: the deeper one).
  unsigned nullSlot() const { return NullAfterCallable ? 1 : 0; }
};
/// Which special method LOAD_SPECIAL looks up (3.14; its argument, as the
/// version's SpecialMethod texts name it).
enum class SpecialMethod : uint8_t { Enter, Exit, AEnter, AExit, Other };
/// Pop an object, push its special method Method, looked up on its type,
/// and the self it is called with (or NULL when the lookup bound it), in
/// the version's call layout: [method, self-or-NULL].
struct LoadSpecial {
  SpecialMethod Method;
  /// The pushed slot that may be NULL (0: the deeper one).
  unsigned nullSlot() const { return 1; }
};
/// Part of the next call: moves nothing (3.11's PRECALL and KW_NAMES).
/// PRECALL n reads the callable (or self) n slots under the top in place to
/// look its type up: NULL there is dereferenced (measured, SIGSEGV on
/// 3.11.7; families.py precall-of-null). Here rather than a SlotKinds.def
/// row: the row's step cost every PRECALL 12 M Ir on the 3.11 stdlib.
struct CallPrepare {
  static constexpr uint32_t NoSlot = ~uint32_t(0);
  uint32_t CalleeSlot = NoSlot; ///< The slot (0 = top) it reads, or none.
};
/// Pop the keyword-names tuple when KwNamesOnTop, then NArgs arguments, then
/// the callable and the self-or-NULL slot in the version's layout; push the
/// result.
struct Call {
  uint32_t NArgs;
  bool NullAfterCallable; ///< [callable, self-or-NULL], else [NULL-or-method,
                          ///< callable-or-self]
  bool KwNamesOnTop;      ///< 3.13's CALL_KW.

  /// Which of the two slots below the arguments holds the callable (0: the
  /// deeper one), given whether the deeper one is NULL.
  unsigned calleeSlot(bool DeeperIsNull) const {
    return NullAfterCallable || !DeeperIsNull ? 0 : 1;
  }
  /// Which of the two may be NULL (0: the deeper one).
  unsigned nullSlot() const { return NullAfterCallable ? 1 : 0; }
};
/// Push a copy of the N-th slot from the top (N >= 1).
struct Copy {
  uint32_t N;
};
/// Swap the top with the N-th slot from the top.
struct Swap {
  uint32_t N;
};
/// Pop a sequence, push its N items (the last item deepest).
struct UnpackSequence {
  uint32_t N;
};
/// Pop a key and a container, push container[key].
struct Subscript {};
/// Pop N values, push a list (List) or a tuple of them.
struct BuildSequence {
  uint32_t N;
  bool List;
};
/// What a conditional jump tests of the top of the stack.
enum class TestKind : uint8_t {
  Truth,     ///< Its truth value (POP_JUMP_IF_TRUE, JUMP_IF_FALSE_OR_POP ...).
  IsNone,    ///< Whether it is None.
  Exhausted, ///< Whether the iterator is exhausted (FOR_ITER).
};
/// A conditional jump's test, first on each of its edges: this edge is the
/// one run when Kind's test of the top of the stack comes out Holds. Pops
/// the tested value when Pops (JUMP_IF_TRUE_OR_POP's jump and FOR_ITER's
/// fall-through keep it).
struct Test {
  TestKind Kind;
  bool Holds;
  bool Pops;
};
/// FOR_ITER's fall-through: push next(iterator) above the iterator.
struct Next {};
/// Pop the return value and return.
struct Return {};
/// Pop Pops values and raise (RAISE_VARARGS, RERAISE).
struct Raise {
  int64_t Pops;
};
/// Pop a manager; push its bound __exit__, then what its __enter__ returned
/// (Async: the awaitable __aenter__ returned).
struct EnterWith {
  bool Async;
};
/// WITH_EXCEPT_START: call the bound __exit__ at the Depth-th slot from the
/// top with the exception being handled; push what it returned.
struct ExitCallStart {
  uint32_t Depth;
};
/// Pop the exception raised; push the one handled before it, then it.
struct PushExcInfo {};
/// Pop an exception type; push whether the exception below matches it.
struct ExcMatch {};
/// Pop a value, push its negated truth (UNARY_NOT).
struct Not {};
/// Pop a value, push its truth as a bool (TO_BOOL).
struct ToBool {};
/// Push the contents of the cell or free variable at localsplus Local.
struct LoadCell {
  uint32_t Local;
};
/// Pop into the cell or free variable at localsplus Local.
struct StoreCell {
  uint32_t Local;
};
/// Moves nothing and runs no code a pass follows (NOP, RESUME,
/// EXTENDED_ARG, an unconditional jump: control flow is the CFG's).
struct Nop {};
/// What an Effect does beyond moving its values.
enum class EffectScope : uint8_t {
  Values,    ///< Nothing: it computes values.
  Suspends,  ///< It suspends or resumes the frame (generators, coroutines).
  Namespace, ///< It writes the frame's namespace by name (import *,
             ///< __annotations__), fast locals included.
};
/// Pop and push values no pass tracks. Bit k of NullIn: the k-th popped
/// value (0 = deepest) may be NULL; of NullOut: the k-th pushed one may be.
struct Effect {
  int64_t Pops;
  int64_t Pushes;
  uint64_t NullIn = 0;
  uint64_t NullOut = 0;
  EffectScope Scope = EffectScope::Values;
};
} // namespace uop

using MicroOp = std::variant<
    uop::PushNull, uop::LoadLocal, uop::StoreLocal, uop::DeleteLocal,
    uop::LoadConst, uop::MakeCell, uop::CopyFreeVars, uop::PopExcept,
    uop::LoadGlobal, uop::LoadAttr, uop::LoadMethod, uop::LoadSpecial,
    uop::CallPrepare, uop::Call, uop::Copy, uop::Swap, uop::UnpackSequence,
    uop::Subscript, uop::BuildSequence, uop::Test, uop::Next, uop::Return,
    uop::Raise, uop::EnterWith, uop::ExitCallStart, uop::PushExcInfo,
    uop::ExcMatch, uop::Not, uop::ToBool, uop::LoadCell, uop::StoreCell,
    uop::Nop, uop::Effect>;
using MicroOps = llvm::SmallVector<MicroOp, 2>;

/// Micro-operations a caller looks for at every instruction.
/// BorrowedLoad: a LoadLocal with Borrowed set.
enum class LowersTo : uint8_t { EnterWith, Call, LoadSpecial, BorrowedLoad };

namespace detail {
/// Per version, per opcode byte: bit C set when the fall-through lowering
/// may hold a LowersTo C (built from the lowering's own kind table at
/// start-up, MicroOps.cpp).
extern const std::array<uint8_t, 256> *const TheLowersToClasses;
/// Per version: the union of its opcodes' bits.
extern const uint8_t *const TheVersionLowersToClasses;
} // namespace detail

/// The bit of class \p What in lowersToClasses().
constexpr uint8_t classBit(LowersTo What) {
  return uint8_t(1u << unsigned(What));
}

/// Every class instruction \p I's fall-through lowering may hold, as
/// classBit()s (0 for an invalid instruction): one lookup for a caller
/// that tests several.
inline uint8_t lowersToClasses(const Instruction &I) {
  return I.Valid ? detail::TheLowersToClasses[unsigned(I.Ver)][I.OpByte] : 0;
}

/// Whether instruction \p I's fall-through lowering may hold \p What: the
/// lowering's own kind table, looked up without lowering (false for an
/// invalid instruction). A caller that searches every instruction for one
/// (withEnterAt) lowers only where this holds.
inline bool mayLowerTo(const Instruction &I, LowersTo What) {
  return lowersToClasses(I) & classBit(What);
}

/// Whether any instruction of version \p V may lower to \p What (3.11-3.13
/// have no borrowed load): a pass that looks for one can skip the code.
inline bool versionMayLowerTo(PythonVersion V, LowersTo What) {
  return (detail::TheVersionLowersToClasses[unsigned(V)] >> unsigned(What)) & 1;
}

/// Whether \p I lowers to borrowed LoadLocals (3.14's LOAD_FAST_BORROW and
/// its fused pair): the lowering's own table, looked up without lowering.
inline bool isBorrowingLoad(const Instruction &I) {
  return mayLowerTo(I, LowersTo::BorrowedLoad);
}

/// \p I's micro-operations on its fall-through edge (\p JumpEdge false) or
/// its jump edge. \p I must be valid. \p IO, when given, receives the
/// edge's getStackIO() (the lowering reads it anyway).
MicroOps lowerInstruction(const Instruction &I, bool JumpEdge = false,
                          StackIO *IO = nullptr);

/// How many values \p Op pops and pushes, and which may be NULL: what a
/// pass that follows no value through \p Op does with it. (Copy pops none
/// and pushes one; Swap N pops and pushes N.)
uop::Effect movementOf(const MicroOp &Op);

/// \p I's test when it is a conditional jump whose test a pass can follow
/// (every one but SEND): the Test on its \p JumpEdge.
std::optional<uop::Test> branchTest(const Instruction &I, bool JumpEdge);

/// Whether \p I is part of the call that follows it (CallPrepare only).
bool isCallPrepare(const Instruction &I);

} // namespace pyverify

#endif
