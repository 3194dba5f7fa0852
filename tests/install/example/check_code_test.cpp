//===- check_code_test.cpp - The GoogleTest matchers, installed -----------===//
//
// pyverify/Testing/Matchers.h from an installed pyverify, on a code object
// built by hand: `pass` at module level, as python3.11 compiles it
// (compile("pass", "<example>", "exec")).
//
//===----------------------------------------------------------------------===//

#include "pyverify/Bytecode/CodeObject.h"
#include "pyverify/Bytecode/VersionOpcodes.h"
#include "pyverify/Testing/Matchers.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <string>

using pyverify::testing::HasFinding;
using pyverify::testing::Verifies;

namespace {

pyverify::CodeObject passModule() {
  using pyverify::Opcode;
  // An opcode's byte is its version's (the enum is its identity).
  auto B = [](Opcode Op) {
    return char(*pyverify::opcodeByte(pyverify::PythonVersion::V3_11, Op));
  };
  pyverify::CodeObject C;
  C.StackSize = 1;
  // A code object views its bytes; own() copies them into storage that it
  // (and its copies) keep.
  C.Code = C.own(std::string{B(Opcode::RESUME), 0, B(Opcode::LOAD_CONST), 0,
                             B(Opcode::RETURN_VALUE), 0});
  C.Consts.push_back(pyverify::NoneValue{});
  C.Filename = "<example>";
  C.Name = C.QualName = "<module>";
  C.FirstLineNo = 1;
  C.LineTable = llvm::StringRef("\xf0\x03\x01\x01\x01\xd8\x00\x04\x80\x04", 10);
  return C;
}

TEST(InstalledMatchers, PassVerifies) { EXPECT_THAT(passModule(), Verifies()); }

TEST(InstalledMatchers, ZeroStackSizeIsFound) {
  pyverify::CodeObject C = passModule();
  C.StackSize = 0;
  EXPECT_THAT(C, ::testing::Not(Verifies()));
  EXPECT_THAT(C, HasFinding("stacksize-too-small"));

  ::testing::StringMatchResultListener Why;
  EXPECT_FALSE(::testing::ExplainMatchResult(Verifies(), C, &Why));
  EXPECT_THAT(Why.str(), ::testing::HasSubstr("[stacksize-too-small]\n"
                                              "  in <module> (line 1) at "
                                              "offset 2: LOAD_CONST 0"));
}

} // namespace
