//===- MicroOps.h - Instructions lowered to micro-operations ----*- C++ -*-===//
//
// Contract: lowerInstruction() turns one valid instruction of any version
// into the short list of micro-operations it performs on one edge, read off
// its version's opcode table (VersionOpcodes.h) and traits row
// (VersionTraits.def): which local it loads or stores, the global or
// attribute it loads, a method load, a NULL pushed below or above a value, a
// call with its layout, stack shuffles, sequence building, subscripting.
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

#include <cstdint>
#include <variant>

namespace pyverify {

namespace uop {
/// Push NULL.
struct PushNull {};
/// Push fast local Local (an unbound one: NULL, or an exception where the
/// version checks).
struct LoadLocal {
  uint32_t Local;
};
/// Pop into fast local Local.
struct StoreLocal {
  uint32_t Local;
};
/// Unbind fast local Local.
struct DeleteLocal {
  uint32_t Local;
};
/// Push the global co_names[Name].
struct LoadGlobal {
  uint32_t Name;
};
/// Pop an object, push its attribute co_names[Name].
struct LoadAttr {
  uint32_t Name;
};
/// Pop an object, push the two slots a method call takes: the attribute
/// co_names[Name] (the method, or the callable) deepest, then the object (a
/// bound method's self, or NULL: which, only the run decides).
struct LoadMethod {
  uint32_t Name;
};
/// Part of the next call: moves nothing (3.11's PRECALL and KW_NAMES).
struct CallPrepare {};
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
/// Pop and push values no pass tracks.
struct Effect {
  int64_t Pops;
  int64_t Pushes;
};
} // namespace uop

using MicroOp = std::variant<uop::PushNull, uop::LoadLocal, uop::StoreLocal,
                             uop::DeleteLocal, uop::LoadGlobal, uop::LoadAttr,
                             uop::LoadMethod, uop::CallPrepare, uop::Call,
                             uop::Copy, uop::Swap, uop::UnpackSequence,
                             uop::Subscript, uop::BuildSequence, uop::Effect>;
using MicroOps = llvm::SmallVector<MicroOp, 2>;

/// \p I's micro-operations on its fall-through edge (\p JumpEdge false) or
/// its jump edge. \p I must be valid.
MicroOps lowerInstruction(const Instruction &I, bool JumpEdge = false);

/// Whether \p I is part of the call that follows it (CallPrepare only).
bool isCallPrepare(const Instruction &I);

} // namespace pyverify

#endif
