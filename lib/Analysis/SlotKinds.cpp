//===- SlotKinds.cpp - What a stack slot may hold -------------------------===//

#include "pyverify/Analysis/SlotKinds.h"
#include "pyverify/Bytecode/Value.h"

#include "llvm/ADT/BitVector.h"

#include <array>
#include <iterator>

using namespace pyverify;

using namespace pyverify::slotdef;

namespace {
bool applies(const Instruction &I, uint8_t Versions, Opcode Op, int Arg) {
  return I.is(Op) && (Versions & (1u << unsigned(I.Ver))) &&
         (Arg == AnyArg || uint32_t(Arg) == I.Arg);
}
} // namespace

namespace {
/// Per version, the opcodes some row of SlotKinds.def names: the others,
/// most instructions, have no rule, and the typed-stack pass skips them
/// (hasSlotRules) without reading the table. Built at start-up: no rule is
/// asked for in a static initialiser.
std::array<llvm::BitVector, std::size(AllPythonVersions)> nameOpcodes() {
  std::array<llvm::BitVector, std::size(AllPythonVersions)> N;
  for (llvm::BitVector &B : N)
    B.resize(unsigned(Opcode::EndOfOpcodes));
  auto Name = [&](uint8_t Versions, Opcode Op) {
    for (size_t V = 0; V < N.size(); ++V)
      if (Versions & (1u << V))
        N[V].set(unsigned(Op));
  };
#define PYV_SLOT_NEEDS(Versions, Op, Arg, Slot, Allowed)                       \
  Name(Versions, Opcode::Op);
#define PYV_SLOT_REQUIRES(Versions, Op, Arg, Slot, Allowed)                    \
  Name(Versions, Opcode::Op);
#define PYV_LOCAL_REQUIRES(Versions, Op, Allowed) Name(Versions, Opcode::Op);
#define PYV_SLOT_MAKES(Versions, Op, Arg, Slot, Kinds, From)                   \
  Name(Versions, Opcode::Op);
#define PYV_SLOT_NONE_TEST(Versions, Op, NoneWhenJumping)                      \
  Name(Versions, Opcode::Op);
#include "pyverify/Analysis/SlotKinds.def"
  return N;
}
const std::array<llvm::BitVector, std::size(AllPythonVersions)> TheNamed =
    nameOpcodes();
} // namespace

bool pyverify::hasSlotRules(const Instruction &I) {
  return TheNamed[unsigned(I.Ver)].test(unsigned(I.op()));
}

SlotRules pyverify::getSlotRules(const Instruction &I) {
  SlotRules R;
  if (!hasSlotRules(I))
    return R;
#define PYV_SLOT_NEEDS(Versions, Op, Arg, Slot, Allowed)                       \
  if (applies(I, Versions, Opcode::Op, Arg))                                   \
    R.Needs.push_back({Slot, SlotKinds(Allowed), true});
#define PYV_SLOT_REQUIRES(Versions, Op, Arg, Slot, Allowed)                    \
  if (applies(I, Versions, Opcode::Op, Arg))                                   \
    R.Needs.push_back({Slot, SlotKinds(Allowed), false});
#define PYV_LOCAL_REQUIRES(Versions, Op, Allowed)                              \
  if (applies(I, Versions, Opcode::Op, AnyArg))                                \
    R.LocalNeed = SlotKinds(Allowed);
#define PYV_SLOT_MAKES(Versions, Op, Arg, Slot, Kinds, From)                   \
  if (applies(I, Versions, Opcode::Op, Arg))                                   \
    R.Makes.push_back({Slot, SlotKinds(Kinds), int8_t(From)});
#define PYV_SLOT_NONE_TEST(Versions, Op, NoneWhenJumping)                      \
  if (applies(I, Versions, Opcode::Op, AnyArg))                                \
    R.NoneTest = (NoneWhenJumping) ? 1 : 0;
#include "pyverify/Analysis/SlotKinds.def"
  return R;
}

SlotKinds pyverify::getConstKind(const Value &V) {
  if (V.is<NoneValue>())
    return KNone;
  if (V.getSequence(SequenceKind::List))
    return KList;
  if (V.getSequence(SequenceKind::Tuple))
    return KTuple;
  if (V.is<OpaqueValue>())
    return KUnknown;
  return KOther;
}

std::string pyverify::describeSlotKinds(SlotKinds K) {
  static const std::pair<SlotKinds, const char *> Names[] = {
      {KExc, "the raised exception"},
      {KNone, "None"},
      {KLasti, "the lasti int of a handler entry"},
      {KList, "a list"},
      {KIter, "an iterator"},
      {KTuple, "a tuple"},
      {KFunc, "a function"},
      {KCell, "a cell"},
      {KOther, "a bool or another object that is not an exception"},
      {KNull, "NULL"},
      {KUnknown, "an object of unknown type"}};
  std::string S;
  for (auto &[Bit, Name] : Names)
    if (K & Bit)
      S += (S.empty() ? "" : " or ") + std::string(Name);
  return S;
}
