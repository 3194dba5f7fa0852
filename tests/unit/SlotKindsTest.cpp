//===- SlotKindsTest.cpp - SlotKinds.def against the version tables -------===//
//
// Every row of SlotKinds.def names an opcode of each version it lists, and
// its slots are ones the opcode reads (needs), pushes or pops (makes), by
// that version's stack table (scripts/stack_io.py). What the rows mean is
// tested through pyverify check (tests/lit/check/exception-slot-*.py).
//
//===----------------------------------------------------------------------===//

#include "pyverify/Analysis/SlotKinds.h"
#include "pyverify/Bytecode/VersionOpcodes.h"

#include "gtest/gtest.h"

#include <string>

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

TEST(SlotKindsTable, RowsFitTheVersionTables) {
  unsigned Rows = 0;
#define PYV_SLOT_NEEDS(Versions, Op, Arg, Slot, Allowed)                       \
  ++Rows;                                                                      \
  forEachVersion(Versions, #Op, Arg,                                           \
                 [](const StackIO &E, const std::string &W) {                  \
                   EXPECT_LT(Slot, E.Reads) << W;                              \
                 });
#define PYV_SLOT_MAKES(Versions, Op, Arg, Slot, Kinds, From)                   \
  ++Rows;                                                                      \
  forEachVersion(Versions, #Op, Arg,                                           \
                 [](const StackIO &E, const std::string &W) {                  \
                   EXPECT_LT(Slot, E.Pushes) << W;                             \
                   EXPECT_LT(From, E.Pops) << W;                               \
                 });
#define PYV_SLOT_REQUIRES(Versions, Op, Arg, Slot, Allowed)                    \
  ++Rows;                                                                      \
  forEachVersion(Versions, #Op, Arg,                                           \
                 [](const StackIO &E, const std::string &W) {                  \
                   EXPECT_LT(Slot, E.Reads) << W;                              \
                 });
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
#include "pyverify/Analysis/SlotKinds.def"
  EXPECT_GT(Rows, 20u);
}

} // namespace
