//===- SlotKinds.h - What a stack slot may hold -----------------*- C++ -*-===//
//
// Contract: a SlotKind set says what a stack slot (or a fast local) may hold
// at a point, over every path: a bit per kind, the join is the union. The
// kinds are the ones exception handling and the unchecked operands tell
// apart: the raised exception (a handler entry's top, PUSH_EXC_INFO's top),
// None, a handler entry's lasti (an int), a list (BUILD_LIST), an iterator
// (GET_ITER), a tuple, a function (MAKE_FUNCTION), a cell (a local that
// MAKE_CELL or COPY_FREE_VARS set up), a dict (BUILD_MAP), another object
// known to be none of those (a constant, a bool from IS_OP), NULL, and an
// unknown object (anything). getSlotRules() gives an instruction's row of
// SlotKinds.def: the kinds it needs in the slots it reads and makes
// in the slots it writes, and whether it tests a value for None. Nothing
// else about these kinds is written anywhere.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_ANALYSIS_SLOTKINDS_H
#define PYVERIFY_ANALYSIS_SLOTKINDS_H

#include "pyverify/Bytecode/InstructionStream.h"

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>

namespace pyverify {

class Value;

using SlotKinds = uint16_t;
enum : SlotKinds {
  KUnknown = 1, ///< Any object, an exception included.
  KNull = 2,
  KExc = 4,    ///< The raised exception.
  KNone = 8,   ///< None.
  KLasti = 16, ///< A handler entry's lasti, an int.
  KOther = 32, ///< An object known not to be an exception (nor None, a list).
  KList = 64,
  KIter = 128,  ///< An iterator (GET_ITER's result).
  KTuple = 256, ///< A tuple (BUILD_TUPLE, a tuple constant).
  KFunc = 512,  ///< A function (MAKE_FUNCTION).
  KCell = 1024, ///< A cell (a fast local after MAKE_CELL, COPY_FREE_VARS).
  KDict = 2048, ///< A dict (BUILD_MAP).
  KCode = 4096, ///< A code object (a constant).
  KSet = 8192,  ///< A set (BUILD_SET; a frozenset constant is not one).
  /// 3.15: the index GET_ITER keeps beside a list or tuple it iterates in
  /// place, a tagged int (not an object: not in KAnyObject).
  KIndex = 16384,
  /// Any object, whatever its kind (NULL is not one).
  KAnyObject = KUnknown | KExc | KNone | KLasti | KOther | KList | KIter |
               KTuple | KFunc | KCell | KDict | KCode | KSet,
};

/// The names SlotKinds.def's rows use besides the kinds (for includers of
/// the .def: SlotKinds.cpp and the table's unit test).
namespace slotdef {
#define PYV_SLOT_VERSION_BITS
#include "pyverify/Analysis/SlotKinds.def"
constexpr int AnyArg = -1;
constexpr int NoSlot = -1;
/// A Need's slot ArgSlot + K: the slot the argument names, plus K (the
/// container LIST_APPEND & co. add to, at a position under what they pop).
constexpr int ArgSlot = 128;
} // namespace slotdef

/// One instruction's row of SlotKinds.def (slots count from the top).
struct SlotRules {
  struct Need {
    uint8_t Slot;      ///< From slotdef::ArgSlot: the argument plus the rest
                       ///< (slotFor()).
    SlotKinds Allowed; ///< KUnknown in it: an unknown object is not reported.
    bool Exception;    ///< exception-slot-type; else value-kind-mismatch.
    /// The slot (0 = top) it needs of an instruction with argument \p Arg.
    uint64_t slotFor(uint32_t Arg) const {
      return Slot < slotdef::ArgSlot
                 ? Slot
                 : uint64_t(Arg) + (Slot - slotdef::ArgSlot);
    }
  };
  struct Make {
    uint8_t Slot;
    SlotKinds Kinds;
    int8_t From; ///< -1: none.
  };
  llvm::SmallVector<Need, 1> Needs;
  llvm::SmallVector<Make, 2> Makes;
  int8_t NoneTest = -1;    ///< 1: jumps when None; 0: when not None.
  int8_t TupleOfArg = -1;  ///< The slot (0 = top) that holds a tuple of at
                           ///< least the argument's count of items, or -1.
  SlotKinds LocalNeed = 0; ///< Nonzero: what the local the argument names
                           ///< must hold (NULL and an unknown object not).
};

SlotRules getSlotRules(const Instruction &I);
/// Whether SlotKinds.def names \p I's opcode in its version (most opcodes:
/// no; getSlotRules() then returns no rule).
bool hasSlotRules(const Instruction &I);

namespace detail {
/// Where one version's opcode has its rows in the table built at start-up
/// (SlotKinds.cpp): Count rows from First, those of the arguments the .def
/// names first, the row of every other argument last; Count 0: no row.
struct SlotRowSpan {
  uint16_t First = 0;
  uint16_t Count = 0;
};
/// Indexed by version * NumOpcodes + opcode.
extern const SlotRowSpan *const TheSlotRowSpans;
/// The row of \p Arg in span \p S (non-empty), null when it is empty.
const SlotRules *findSlotRow(SlotRowSpan S, uint32_t Arg);
} // namespace detail

/// \p I's row as getSlotRules() gives it, or null when it has none or an
/// empty one (which rules nothing): a pass that asks at every instruction
/// pays one load for most and copies no row. The rows are built once, at
/// start-up, per version, opcode and argument a row names (any other
/// argument meets only the rows of every argument), and live as long as the
/// program.
inline const SlotRules *findSlotRules(const Instruction &I) {
  if (!I.Valid)
    return nullptr; // getSlotRules(): no row applies to an invalid one
  detail::SlotRowSpan S =
      detail::TheSlotRowSpans[unsigned(I.Ver) * NumOpcodes + unsigned(I.Op)];
  return S.Count ? detail::findSlotRow(S, I.Arg) : nullptr;
}

/// The kind of a constant: None, a list (a live code object's), an unknown
/// object (any other live object), otherwise another non-exception object.
SlotKinds getConstKind(const Value &V);

/// "None or an int lasti": the kinds in \p K, for messages.
std::string describeSlotKinds(SlotKinds K);

} // namespace pyverify

#endif
