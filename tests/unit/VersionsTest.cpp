//===- VersionsTest.cpp - 3.12 and 3.13 tables and decoding ---------------===//
//
// The tables' fields are checked against each interpreter by
// tests/versions/check_version_opcodes.py; here: the 3.11 view equals
// Opcodes.def, every opcode's identity is its name, the version-aware
// decoder on real 3.12 code (FOR_ITER's skipped END_FOR), and the checks on
// it.
//
//===----------------------------------------------------------------------===//

#include "Opcodes311.h"
#include "pyverify/Bytecode/CodeFile.h"
#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Bytecode/OperandRules.h"
#include "pyverify/Bytecode/VersionOpcodes.h"
#include "pyverify/Check/Verifier.h"

#include "llvm/ADT/StringExtras.h"

#include "gtest/gtest.h"

using namespace pyverify;
using namespace pyverify::test311;

namespace {

TEST(VersionOpcodes, The311ViewIsOpcodesDef) {
  for (unsigned B = 0; B < 256; ++B) {
    const OpcodeInfo *I = getOpcodeInfo(uint8_t(B));
    const VersionOpcodeInfo *V =
        getVersionOpcodeInfo(PythonVersion::V3_11, uint8_t(B));
    if (!I || B == 0) {
      EXPECT_EQ(V, nullptr) << B;
      continue;
    }
    ASSERT_NE(V, nullptr) << B;
    EXPECT_STREQ(V->Name, I->Name);
    EXPECT_EQ(V->Caches, I->Caches);
    EXPECT_EQ(V->HasArg, I->hasArg());
    EXPECT_EQ(V->Jump, I->Jump);
    EXPECT_EQ(V->Terminator, I->Terminator);
    for (uint32_t A : {0u, 1u, 3u, 255u, 65536u})
      for (bool J : {false, true})
        if (!I->hasArg() && A)
          continue;
        else
          EXPECT_EQ(V->stackEffect(A, J), getStackEffect(opcodeOf(B), A, J))
              << I->Name << " " << A;
  }
}

TEST(VersionOpcodes, KnownFacts) {
  EXPECT_EQ(extendedArgByte(PythonVersion::V3_11), 144);
  EXPECT_EQ(extendedArgByte(PythonVersion::V3_12), 144);
  EXPECT_EQ(extendedArgByte(PythonVersion::V3_13), 71);
  const VersionOpcodeInfo *ForIter =
      getVersionOpcodeInfo(PythonVersion::V3_12, 93);
  ASSERT_NE(ForIter, nullptr);
  EXPECT_STREQ(ForIter->Name, "FOR_ITER");
  EXPECT_EQ(ForIter->Caches, 1);
  EXPECT_EQ(ForIter->Jump, JumpKind::ForwardCond);
  // 3.12's CALL: no PRECALL, pops callable, self-or-NULL and the arguments.
  const VersionOpcodeInfo *Call =
      getVersionOpcodeInfo(PythonVersion::V3_12, 171);
  ASSERT_NE(Call, nullptr);
  EXPECT_STREQ(Call->Name, "CALL");
  EXPECT_EQ(Call->stackEffect(2, false), -3);
  EXPECT_EQ(getVersionOpcodeInfo(PythonVersion::V3_12, 166), nullptr)
      << "3.11's PRECALL is gone in 3.12";
  EXPECT_EQ(parsePythonVersion("3.13"), PythonVersion::V3_13);
  EXPECT_EQ(parsePythonVersion("3.14"), PythonVersion::V3_14);
  EXPECT_EQ(parsePythonVersion("3.15"), PythonVersion::V3_15);
  EXPECT_EQ(parsePythonVersion("3.16"), std::nullopt);
  EXPECT_EQ(pythonVersionOfPycMagic(3531), PythonVersion::V3_12);
  EXPECT_EQ(pythonVersionOfPycMagic(3524), std::nullopt) << "a pre-release";
  EXPECT_EQ(pythonVersionOfPycMagic(3600), std::nullopt) << "a 3.14 alpha";
  EXPECT_EQ(pythonVersionOfPycMagic(3627), PythonVersion::V3_14);
  EXPECT_EQ(pythonVersionOfPycMagic(3666), PythonVersion::V3_15) << "3.15.0rc1";
  EXPECT_EQ(pythonVersionOfPycMagic(3665), std::nullopt) << "a 3.15 beta";
}

// python3.12's .pyc of "def f(xs):\n    for x in xs:\n        pass\n
// return None\n" (as in tests/lit/dis/other-versions.py).
std::string pyc312() {
  return llvm::fromHex("cb0d0d0a000000000000000000000000") +
         llvm::fromHex(
             "630000000000000000000000000100000000000000f30a0000009700640084"
             "005a0079012902630100000000000000000000000200000003000000f31200"
             "000097007c0044005d0200007d018c040400790029014ea9002902da027873"
             "da017873020000002020fa07763331322e7079da016672060000000100000073"
             "170000008000d80d0ff20001050d8801d8080cf00301050de00b0ff300000000"
             "4e29017206000000720200000072070000007205000000fa083c6d6f64756c"
             "653e720800000001000000730a000000f003010101f3020301107207000000");
}

TEST(VersionDecode, Reads312ByItsMagic) {
  std::string Bytes = pyc312();
  auto Refused = parseCodeFile("v312.pyc", Bytes);
  ASSERT_FALSE(bool(Refused)) << "3.11 only by default";
  llvm::consumeError(Refused.takeError());
  auto F = parseCodeFile("v312.pyc", Bytes, /*AnyVersion=*/true);
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  const CodeObject &Mod = *F->Roots[0];
  EXPECT_EQ(Mod.Version, PythonVersion::V3_12);
  const CodeObject &Fn = *Mod.children()[0];
  EXPECT_EQ(Fn.Version, PythonVersion::V3_12);
  DecodedCode D = DecodedCode::decode(Fn);
  EXPECT_TRUE(D.Findings.empty());
  // 6 FOR_ITER 2 (one cache unit: to 14), 12 JUMP_BACKWARD 4 (to 6).
  int64_t FI = D.Insts.indexAtOffset(6), JB = D.Insts.indexAtOffset(12);
  ASSERT_GE(FI, 0);
  ASSERT_GE(JB, 0);
  EXPECT_EQ(D.Insts[FI].name(), "FOR_ITER");
  EXPECT_EQ(D.Insts[FI].Target, 14);
  EXPECT_EQ(D.Insts[JB].name(), "JUMP_BACKWARD");
  EXPECT_EQ(D.Insts[JB].Target, 6);
  EXPECT_TRUE(D.Insts[FI].is(Opcode::FOR_ITER));
  // Exhausted, 3.12's FOR_ITER steps over the END_FOR at 14.
  EXPECT_EQ(D.Insts[FI].landing(), 16);
  EXPECT_EQ(D.Insts[D.Insts.indexAtOffset(14)].op(), Opcode::END_FOR);
}

TEST(VersionDecode, Checks312Code) {
  auto F = parseCodeFile("v312.pyc", pyc312(), /*AnyVersion=*/true);
  ASSERT_TRUE(bool(F));
  FileReport R = verifyCodeFile(*F, CheckOptions());
  EXPECT_EQ(R.CodeObjects, 2u);
  EXPECT_TRUE(R.Diags.empty()) << R.Diags[0].Message;
}

/// The FOR_ITER at 6 of pyc312()'s function, retargeted from its END_FOR
/// (at 14) to \p Target: the exhausted loop would skip whatever is there.
TEST(VersionDecode, ForIterMustSkipEndFor) {
  auto F = parseCodeFile("v312.pyc", pyc312(), /*AnyVersion=*/true);
  ASSERT_TRUE(bool(F));
  CodeObject Fn = *F->Roots[0]->children()[0];
  // FOR_ITER's argument counts from after its cache unit (10): 14 is arg 2.
  ASSERT_EQ(uint8_t(Fn.Code[6]), 93);
  std::string Bytes = Fn.Code.str();
  Bytes[7] = 1; // to 12, JUMP_BACKWARD
  Fn.Code = Bytes;
  DecodedCode D = DecodedCode::decode(Fn);
  ASSERT_FALSE(D.Findings.empty());
  EXPECT_EQ(D.Findings[0].Check, CheckId::JumpTargetInvalid);
  EXPECT_NE(D.Findings[0].Message.find("expects to be END_FOR; found "
                                       "JUMP_BACKWARD"),
            std::string::npos)
      << D.Findings[0].Message;
}

/// Every version's opcodes are enumerators of their own names: a pass that
/// asks is(Opcode::X) asks about the same opcode in every version.
TEST(VersionOpcodes, EachOpcodeIsItsName) {
  for (PythonVersion V : AllPythonVersions)
    for (unsigned B = 1; B < 256; ++B)
      if (const OpcodeInfo *I = getVersionOpcodeInfo(V, uint8_t(B))) {
        EXPECT_EQ(getOpcodeName(I->Op), I->Name) << pythonVersionName(V).str();
        EXPECT_EQ(I->Number, B);
      }
  // 3.12's and 3.13's FOR_ITER step over END_FOR (and 3.13's POP_TOP).
  EXPECT_EQ(getVersionOpcodeInfo(PythonVersion::V3_12, 93)->JumpSkip, 1);
  EXPECT_EQ(getVersionOpcodeInfo(PythonVersion::V3_13, 72)->JumpSkip, 2);
  EXPECT_EQ(getOpcodeInfo(Opcode::FOR_ITER).JumpSkip, 0);
}

// The lookup of OperandRules.def (its rows against dis:
// tests/versions/check_operand_rules.py): per version, in the table's order.
TEST(OperandRules, LookupIsPerVersionInTableOrder) {
  for (PythonVersion V : AllPythonVersions) {
    llvm::ArrayRef<OperandRule> G = getOperandRules(V, Opcode::LOAD_GLOBAL);
    ASSERT_EQ(G.size(), 1u);
    EXPECT_EQ(G[0].Bound, OperandBound::Names);
    EXPECT_EQ(G[0].value(0x2B), 0x15u);
    EXPECT_TRUE(getOperandRules(V, Opcode::CALL).empty());
  }
  EXPECT_EQ(getOperandRules(PythonVersion::V3_11, Opcode::LOAD_ATTR)[0].Field,
            OperandField::Arg);
  EXPECT_EQ(getOperandRules(PythonVersion::V3_12, Opcode::LOAD_ATTR)[0].Field,
            OperandField::Shr1);
  EXPECT_TRUE(getOperandRules(PythonVersion::V3_11, Opcode::LOAD_FAST_LOAD_FAST)
                  .empty());
  llvm::ArrayRef<OperandRule> Two =
      getOperandRules(PythonVersion::V3_13, Opcode::STORE_FAST_LOAD_FAST);
  ASSERT_EQ(Two.size(), 2u);
  EXPECT_EQ(Two[0].value(0x93), 9u);
  EXPECT_EQ(Two[1].value(0x93), 3u);
  // COMPARE_OP's operator: 3.11 the argument, 3.12 >> 4, 3.13 >> 5.
  EXPECT_EQ(
      getOperandRules(PythonVersion::V3_11, Opcode::COMPARE_OP)[0].value(5),
      5u);
  EXPECT_EQ(getOperandRules(PythonVersion::V3_12, Opcode::COMPARE_OP)[0].value(
                5 << 4 | 15),
            5u);
  EXPECT_EQ(getOperandRules(PythonVersion::V3_13, Opcode::COMPARE_OP)[0].value(
                5 << 5 | 16),
            5u);
}

} // namespace
