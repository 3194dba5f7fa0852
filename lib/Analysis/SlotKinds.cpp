//===- SlotKinds.cpp - What a stack slot may hold -------------------------===//

#include "pyverify/Analysis/SlotKinds.h"
#include "pyverify/Bytecode/Value.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"

#include <array>
#include <cassert>
#include <iterator>
#include <optional>
#include <vector>

using namespace pyverify;

using namespace pyverify::slotdef;

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
#define PYV_SLOT_TUPLE_OF_ARG(Versions, Op, Slot) Name(Versions, Opcode::Op);
#include "pyverify/Analysis/SlotKinds.def"
  return N;
}
const std::array<llvm::BitVector, std::size(AllPythonVersions)> TheNamed =
    nameOpcodes();
} // namespace

bool pyverify::hasSlotRules(const Instruction &I) {
  return TheNamed[unsigned(I.Ver)].test(unsigned(I.op()));
}

namespace {
/// The rows of SlotKinds.def that apply to opcode \p Op of version \p V
/// with argument \p Arg (none: an argument no row names).
SlotRules rulesOf(PythonVersion V, Opcode Op, std::optional<uint32_t> Arg) {
  auto Applies = [&](uint8_t Versions, Opcode RowOp, int RowArg) {
    return RowOp == Op && (Versions & (1u << unsigned(V))) &&
           (RowArg == AnyArg || (Arg && uint32_t(RowArg) == *Arg));
  };
  SlotRules R;
#define PYV_SLOT_NEEDS(Versions, Op, Arg, Slot, Allowed)                       \
  if (Applies(Versions, Opcode::Op, Arg))                                      \
    R.Needs.push_back({Slot, SlotKinds(Allowed), true});
#define PYV_SLOT_REQUIRES(Versions, Op, Arg, Slot, Allowed)                    \
  if (Applies(Versions, Opcode::Op, Arg))                                      \
    R.Needs.push_back({Slot, SlotKinds(Allowed), false});
#define PYV_LOCAL_REQUIRES(Versions, Op, Allowed)                              \
  if (Applies(Versions, Opcode::Op, AnyArg))                                   \
    R.LocalNeed = SlotKinds(Allowed);
#define PYV_SLOT_MAKES(Versions, Op, Arg, Slot, Kinds, From)                   \
  if (Applies(Versions, Opcode::Op, Arg))                                      \
    R.Makes.push_back({Slot, SlotKinds(Kinds), int8_t(From)});
#define PYV_SLOT_NONE_TEST(Versions, Op, NoneWhenJumping)                      \
  if (Applies(Versions, Opcode::Op, AnyArg))                                   \
    R.NoneTest = (NoneWhenJumping) ? 1 : 0;
#define PYV_SLOT_TUPLE_OF_ARG(Versions, Op, Slot)                              \
  if (Applies(Versions, Opcode::Op, AnyArg))                                   \
    R.TupleOfArg = int8_t(Slot);
#include "pyverify/Analysis/SlotKinds.def"
  return R;
}

/// Every named opcode's rows, per version: one per argument some row of it
/// names, then the one of every other argument (SlotRowSpan).
struct RowTable {
  struct Row {
    int64_t Arg; ///< AnyArg: every argument the rows before did not name.
    bool Empty;  ///< Rules nothing (findSlotRules() gives null).
    SlotRules Rules;
  };
  std::vector<detail::SlotRowSpan> Spans;
  std::vector<Row> Rows;

  RowTable() : Spans(size_t(NumPythonVersions) * NumOpcodes) {
    struct Named {
      uint8_t Versions;
      Opcode Op;
      int Arg;
    };
    std::vector<Named> Args; // the rows that name an argument
    auto Note = [&](uint8_t Versions, Opcode Op, int Arg) {
      if (Arg != AnyArg)
        Args.push_back({Versions, Op, Arg});
    };
#define PYV_SLOT_NEEDS(Versions, Op, Arg, Slot, Allowed)                       \
  Note(Versions, Opcode::Op, Arg);
#define PYV_SLOT_REQUIRES(Versions, Op, Arg, Slot, Allowed)                    \
  Note(Versions, Opcode::Op, Arg);
#define PYV_SLOT_MAKES(Versions, Op, Arg, Slot, Kinds, From)                   \
  Note(Versions, Opcode::Op, Arg);
#include "pyverify/Analysis/SlotKinds.def"
    for (unsigned V = 0; V < NumPythonVersions; ++V)
      for (unsigned O = 0; O < NumOpcodes; ++O) {
        if (!TheNamed[V].test(O))
          continue;
        PythonVersion Ver = AllPythonVersions[V];
        Opcode Op = Opcode(O);
        size_t First = Rows.size();
        for (const Named &N : Args)
          if (N.Op == Op && (N.Versions & (1u << V)) &&
              llvm::none_of(llvm::drop_begin(Rows, First),
                            [&](const Row &R) { return R.Arg == N.Arg; }))
            add(N.Arg, rulesOf(Ver, Op, uint32_t(N.Arg)));
        add(AnyArg, rulesOf(Ver, Op, std::nullopt));
        Spans[size_t(V) * NumOpcodes + O] = {uint16_t(First),
                                             uint16_t(Rows.size() - First)};
      }
    assert(Rows.size() < UINT16_MAX && "spans count rows in 16 bits");
  }
  void add(int64_t Arg, SlotRules R) {
    bool Empty = R.Needs.empty() && R.Makes.empty() && R.NoneTest < 0 &&
                 !R.LocalNeed && R.TupleOfArg < 0;
    Rows.push_back({Arg, Empty, std::move(R)});
  }
};

// Built at start-up, after TheNamed (above, in this file), before any pass
// asks (none runs in a static initialiser).
const RowTable TheRows;
} // namespace

const detail::SlotRowSpan *const pyverify::detail::TheSlotRowSpans =
    TheRows.Spans.data();

const SlotRules *pyverify::detail::findSlotRow(SlotRowSpan S, uint32_t Arg) {
  for (const RowTable::Row &R :
       llvm::ArrayRef(TheRows.Rows).slice(S.First, S.Count))
    if (R.Arg == AnyArg || uint32_t(R.Arg) == Arg)
      return R.Empty ? nullptr : &R.Rules;
  llvm_unreachable("a span ends with the row of every argument");
}

SlotRules pyverify::getSlotRules(const Instruction &I) {
  if (!I.Valid || !hasSlotRules(I))
    return SlotRules();
  return rulesOf(I.Ver, I.Op, I.Arg);
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
  if (V.is<CodeValue>())
    return KCode;
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
      {KDict, "a dict"},
      {KCode, "a code object"},
      {KSet, "a set"},
      {KOther, "a bool or another object that is not an exception"},
      {KIndex, "GET_ITER's index (a tagged int)"},
      {KNull, "NULL"},
      {KUnknown, "an object of unknown type"}};
  std::string S;
  for (auto &[Bit, Name] : Names)
    if (K & Bit)
      S += (S.empty() ? "" : " or ") + std::string(Name);
  return S;
}
