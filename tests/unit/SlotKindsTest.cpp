//===- SlotKindsTest.cpp - SlotKinds.def against the version tables -------===//
//
// Every row of SlotKinds.def names an opcode of each version it lists, and
// its slots are ones the opcode reads (needs), pushes or pops (makes), by
// that version's stack table (scripts/stack_io.py). What the rows mean is
// tested through pyverify check (tests/lit/check/exception-slot-*.py).
//
//===----------------------------------------------------------------------===//

#include "pyverify/Analysis/SlotKinds.h"
#include "pyverify/Bytecode/InstructionStream.h"
#include "pyverify/Bytecode/VersionOpcodes.h"

#include "gtest/gtest.h"

#include <optional>
#include <string>
#include <tuple>
#include <vector>

using namespace pyverify;
using namespace pyverify::slotdef;

namespace {

/// Calls \p Fn with the fall-through stack effect of \p Name with \p Arg in
/// each version of \p Versions; a version without the opcode fails.
template <class FnT>
void forEachVersion(unsigned Versions, llvm::StringRef Name, int Arg, FnT Fn) {
  for (PythonVersion V : AllPythonVersions) {
    if (!(Versions & (1u << unsigned(V))))
      continue;
    std::string Where = pythonVersionName(V).str() + " " + Name.str();
    const OpcodeInfo *Info = nullptr;
    for (unsigned B = 1; B < 256 && !Info; ++B)
      if (const OpcodeInfo *I = getVersionOpcodeInfo(V, uint8_t(B)))
        if (Name == I->Name)
          Info = I;
    if (!Info) {
      ADD_FAILURE() << Where << " is not an opcode of that version";
      continue;
    }
    Fn(getStackIO(*Info, uint32_t(Arg == AnyArg ? 0 : Arg), false), Where);
  }
}

/// A need's \p Slot lies among the slots \p Name reads: ArgSlot + K (the
/// argument plus K) with each argument 1 to 8 (\p Arg: AnyArg) in turn.
void expectSlotRead(unsigned Versions, llvm::StringRef Name, int Arg,
                    int Slot) {
  if (Slot < ArgSlot) {
    forEachVersion(Versions, Name, Arg,
                   [&](const StackIO &E, const std::string &W) {
                     EXPECT_LT(Slot, E.Reads) << W;
                   });
    return;
  }
  ASSERT_EQ(Arg, AnyArg) << Name.str() << ": an argument slot for any argument";
  SlotRules::Need N{uint8_t(Slot), KUnknown, false};
  for (int A = 1; A <= 8; ++A)
    forEachVersion(Versions, Name, A,
                   [&](const StackIO &E, const std::string &W) {
                     EXPECT_LT(int64_t(N.slotFor(uint32_t(A))), E.Reads)
                         << W << " with argument " << A;
                   });
}

TEST(SlotKindsTable, RowsFitTheVersionTables) {
  unsigned Rows = 0;
#define PYV_SLOT_NEEDS(Versions, Op, Arg, Slot, Allowed)                       \
  ++Rows;                                                                      \
  expectSlotRead(Versions, #Op, Arg, Slot);
#define PYV_SLOT_MAKES(Versions, Op, Arg, Slot, Kinds, From)                   \
  ++Rows;                                                                      \
  forEachVersion(Versions, #Op, Arg,                                           \
                 [](const StackIO &E, const std::string &W) {                  \
                   EXPECT_LT(Slot, E.Pushes) << W;                             \
                   EXPECT_LT(From, E.Pops) << W;                               \
                 });
#define PYV_SLOT_REQUIRES(Versions, Op, Arg, Slot, Allowed)                    \
  ++Rows;                                                                      \
  expectSlotRead(Versions, #Op, Arg, Slot);
#define PYV_LOCAL_REQUIRES(Versions, Op, Allowed)                              \
  ++Rows;                                                                      \
  forEachVersion(Versions, #Op, AnyArg,                                        \
                 [](const StackIO &, const std::string &) {});
#define PYV_SLOT_NONE_TEST(Versions, Op, NoneWhenJumping)                      \
  ++Rows;                                                                      \
  forEachVersion(Versions, #Op, AnyArg,                                        \
                 [](const StackIO &E, const std::string &W) {                  \
                   EXPECT_EQ(E.Pops, 1) << W;                                  \
                 });
#define PYV_SLOT_TUPLE_OF_ARG(Versions, Op, Slot)                              \
  ++Rows;                                                                      \
  expectSlotRead(Versions, #Op, AnyArg, Slot);
#include "pyverify/Analysis/SlotKinds.def"
  EXPECT_GT(Rows, 20u);
}

// LOAD_COMMON_CONSTANT makes None exactly where the version's own table of
// common constants (its CommonConstant argument texts, read from its dis)
// names None, and an object known not to be None elsewhere.
TEST(SlotKindsTable, CommonConstantNoneIsTheVersionsNone) {
  unsigned Seen = 0;
  for (PythonVersion V : AllPythonVersions) {
    std::optional<uint8_t> Byte;
    for (unsigned B = 1; B < 256 && !Byte; ++B)
      if (const OpcodeInfo *I = getVersionOpcodeInfo(V, uint8_t(B)))
        if (llvm::StringRef(I->Name) == "LOAD_COMMON_CONSTANT")
          Byte = uint8_t(B);
    if (!Byte)
      continue;
    for (uint32_t Arg = 0; Arg < MaxArgTexts; ++Arg) {
      const char *Text = getArgText(V, ArgTextTable::CommonConstant, Arg);
      if (!Text)
        continue;
      Instruction In{};
      In.Ver = V;
      In.OpByte = *Byte;
      In.Op = Opcode::LOAD_COMMON_CONSTANT;
      In.Arg = Arg;
      SlotRules R = getSlotRules(In);
      ASSERT_FALSE(R.Makes.empty()) << Text;
      SlotKinds Made = R.Makes.back().Kinds;
      bool None = llvm::StringRef(Text) == "None";
      EXPECT_EQ(Made == KNone, None)
          << pythonVersionName(V).str() << " LOAD_COMMON_CONSTANT " << Arg
          << " (" << Text << ")";
      Seen += None;
    }
  }
  EXPECT_GE(Seen, 1u); // 3.15's None
}

// findSlotRules(), the table built at start-up, gives every instruction the
// row getSlotRules() builds for it, or null exactly when that row rules
// nothing: every version, opcode byte and argument up to 300 (past every
// argument a row names), and an invalid instruction.
TEST(SlotKindsTable, FoundRowsAreTheBuiltRows) {
  auto Same = [](const SlotRules &A, const SlotRules &B) {
    auto Needs = [](const SlotRules &R) {
      std::vector<std::tuple<int, int, bool>> Out;
      for (const SlotRules::Need &N : R.Needs)
        Out.emplace_back(N.Slot, N.Allowed, N.Exception);
      return Out;
    };
    auto Makes = [](const SlotRules &R) {
      std::vector<std::tuple<int, int, int>> Out;
      for (const SlotRules::Make &M : R.Makes)
        Out.emplace_back(M.Slot, M.Kinds, M.From);
      return Out;
    };
    return Needs(A) == Needs(B) && Makes(A) == Makes(B) &&
           A.NoneTest == B.NoneTest && A.LocalNeed == B.LocalNeed;
  };
  unsigned Rows = 0;
  for (PythonVersion V : AllPythonVersions)
    for (unsigned B = 0; B < 256; ++B) {
      const OpcodeInfo *Info = getVersionOpcodeInfo(V, uint8_t(B));
      if (!Info)
        continue;
      for (uint32_t Arg = 0; Arg < 300; ++Arg) {
        Instruction In{};
        In.Ver = V;
        In.OpByte = uint8_t(B);
        In.Op = Info->Op;
        In.Arg = Arg;
        SlotRules Built = getSlotRules(In);
        const SlotRules *Found = findSlotRules(In);
        std::string Where = pythonVersionName(V).str() + " " + Info->Name +
                            " " + std::to_string(Arg);
        if (!Found) {
          EXPECT_TRUE(Same(Built, SlotRules())) << Where;
          continue;
        }
        ++Rows;
        EXPECT_TRUE(Same(Built, *Found)) << Where;
        EXPECT_FALSE(Same(*Found, SlotRules())) << Where;
      }
    }
  EXPECT_GT(Rows, 1000u);
  Instruction Invalid{};
  Invalid.Valid = false;
  Invalid.Op = Opcode::RERAISE;
  EXPECT_EQ(findSlotRules(Invalid), nullptr);
}

} // namespace
