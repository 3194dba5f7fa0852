//===- OperandChecksTest.cpp - The quick operand test against the rules ---===//
//
// checkOperands() passes over an instruction whose operands lie within the
// commonest bounds without consulting its rules; checkOperandsByRules()
// consults them at every instruction. Over every version's every opcode
// byte that takes an argument, arguments around each bound (table sizes,
// the fixed ranges' ends, the fields' shifts and masks) and code objects
// with empty and with small tables, the two report the same findings, and
// the rules do report some (the comparison is not between two silences).
//
//===----------------------------------------------------------------------===//

#include "pyverify/Check/OperandChecks.h"

#include "AssembledCode.h"

#include "pyverify/Bytecode/CodeObject.h"
#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Bytecode/PythonVersion.h"
#include "pyverify/Bytecode/VersionOpcodes.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <string>
#include <vector>

using namespace pyverify;

namespace {

/// Arguments on both sides of every bound the rules state: the small
/// tables' sizes, the ranges' ends (comparisons 0..5, binary operators, stack
/// positions from 1), each field's shift (1, 2, 4, 5) and mask (low 4 bits),
/// and the extended arguments' widths.
const uint32_t OperandArgs[] = {
    0,     1,     2,       3,          4,           5,          6,    7,
    8,     9,     12,      13,         14,          15,         16,   17,
    24,    25,    26,      27,         31,          32,         33,   48,
    63,    64,    65,      95,         96,          127,        128,  129,
    160,   191,   192,     255,        256,         257,        4095, 4096,
    65535, 65536, 1000000, 0x7FFFFFFF, 0x80000000u, 0xFFFFFFFFu};

/// One instruction of byte \p B and argument \p Arg (EXTENDED_ARG prefixes
/// for its high bytes), its caches, then a RETURN-free tail of CACHE units;
/// \p Small: three constants, two names and four localsplus slots (a local,
/// a cell, a free variable, a local), else none of each.
CodeObject oneInstruction(PythonVersion V, uint8_t B, uint32_t Arg,
                          bool Small) {
  CodeObject C = test::blankCode(V, 8);
  if (Small) {
    C.Consts = {Value(NoneValue{}), Value(NoneValue{}), Value(NoneValue{})};
    C.Names = {C.own("a"), C.own("b")};
    for (const char *N : {"x", "c", "fr", "y"})
      C.LocalsPlusNames.push_back(C.own(N));
    C.LocalsPlusKinds = C.own(std::string{char(CoFastLocal), char(CoFastCell),
                                          char(CoFastFree), char(CoFastLocal)});
  }
  std::string Code;
  uint8_t Ext = test::opcodeByte(V, "EXTENDED_ARG");
  for (int Shift = 24; Shift > 0; Shift -= 8)
    if (Arg >> Shift) {
      Code += char(Ext);
      Code += char((Arg >> Shift) & 0xFF);
    }
  Code += char(B);
  Code += char(Arg & 0xFF);
  if (const OpcodeInfo *I = getVersionOpcodeInfo(V, B))
    Code.append(2 * size_t(I->Caches), '\0');
  C.Code = C.own(Code);
  C.LineTable = C.own(test::noLocationTable(Code.size() / 2));
  return C;
}

std::vector<std::string> describe(const std::vector<Finding> &Fs) {
  std::vector<std::string> Out;
  for (const Finding &F : Fs)
    Out.push_back(std::to_string(F.Offset) + " " +
                  getCheckInfo(F.Check).Name.str() + " " + F.Message);
  return Out;
}

TEST(OperandChecksTest, QuickTestFindsWhatTheRulesFind) {
  size_t Compared = 0, Reported = 0;
  for (PythonVersion V : AllPythonVersions)
    for (unsigned B = 0; B < 256; ++B) {
      const OpcodeInfo *Info = getVersionOpcodeInfo(V, uint8_t(B));
      if (!Info || !Info->HasArg)
        continue;
      for (uint32_t Arg : OperandArgs)
        for (bool Small : {false, true}) {
          CodeObject C = oneInstruction(V, uint8_t(B), Arg, Small);
          DecodedCode D = DecodedCode::decode(C);
          std::vector<Finding> Quick, ByRules;
          checkOperands(D, Quick);
          checkOperandsByRules(D, ByRules);
          ++Compared;
          Reported += ByRules.size();
          ASSERT_EQ(describe(Quick), describe(ByRules))
              << pythonVersionName(V).str() << " " << Info->Name << " argument "
              << Arg << (Small ? " (small tables)" : "");
        }
    }
  // Every version's bytes with an argument, each argument, both tables.
  EXPECT_GT(Compared, 5u * 60 * std::size(OperandArgs) * 2);
  // Most out-of-range arguments are reported: the rules did run.
  EXPECT_GT(Reported, Compared / 4);
}

} // namespace
