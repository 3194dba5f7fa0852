//===- GeneratorChecksTest.cpp - generator-frame's paths ------------------===//
//
// checkGeneratorFrame() on hand-assembled 3.13 code: a YIELD_VALUE no
// RETURN_GENERATOR precedes is definite, one that only some paths reach
// through RETURN_GENERATOR is possible, and one after RETURN_GENERATOR --
// first, or after instructions that run before it -- is not reported; a
// RETURN_GENERATOR after one is reported the same way.
//
//===----------------------------------------------------------------------===//

#include "pyverify/Check/GeneratorChecks.h"

#include "AssembledCode.h"

#include "pyverify/CFG/CFG.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace pyverify;
using namespace pyverify::test;

namespace {

std::vector<Finding>
generatorFindings(const std::vector<std::pair<llvm::StringRef, uint8_t>> &Ops,
                  int32_t Flags = CoOptimized | CoNewLocals) {
  CodeObject C = assembleCode(V313, Ops, {4, {"a"}, 1});
  C.Flags = Flags;
  DecodedAssembly A = decodeAssembled(std::move(C));
  CFG G = CFG::build(A.D);
  std::vector<Finding> Out;
  checkGeneratorFrame(G, Out);
  for (const Finding &F : Out)
    EXPECT_EQ(F.Check, CheckId::GeneratorFrame);
  return Out;
}

// LOAD_FAST a; YIELD_VALUE 0; RESUME 5; POP_TOP; RETURN_CONST 0
const std::vector<std::pair<llvm::StringRef, uint8_t>> YieldA = {
    {"LOAD_FAST", 0},
    {"YIELD_VALUE", 0},
    {"RESUME", 5},
    {"POP_TOP", 0},
    {"RETURN_CONST", 0}};

std::vector<std::pair<llvm::StringRef, uint8_t>>
concat(std::vector<std::pair<llvm::StringRef, uint8_t>> A,
       const std::vector<std::pair<llvm::StringRef, uint8_t>> &B) {
  A.insert(A.end(), B.begin(), B.end());
  return A;
}

TEST(GeneratorFrame, YieldWithoutReturnGeneratorIsDefinite) {
  auto Out = generatorFindings(concat({{"RESUME", 0}}, YieldA));
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Offset, 4u);
  EXPECT_EQ(Out[0].Cert, Certainty::Definite);
  EXPECT_NE(Out[0].Message.find("no path from the code's start"),
            std::string::npos)
      << Out[0].Message;
  // The same with the generator flag: the flag makes no generator.
  auto Flagged = generatorFindings(concat({{"RESUME", 0}}, YieldA),
                                   CoOptimized | CoNewLocals | CoGenerator);
  ASSERT_EQ(Flagged.size(), 1u);
  EXPECT_EQ(Flagged[0].Cert, Certainty::Definite);
}

TEST(GeneratorFrame, ReturnGeneratorFirstOrAfterOtherCode) {
  EXPECT_TRUE(
      generatorFindings(
          concat({{"RETURN_GENERATOR", 0}, {"POP_TOP", 0}, {"RESUME", 0}},
                 YieldA),
          CoOptimized | CoNewLocals | CoGenerator)
          .empty());
  // 3.15's generator expressions take their iterator first: code before
  // RETURN_GENERATOR is no finding.
  EXPECT_TRUE(generatorFindings(concat({{"RESUME", 0},
                                        {"LOAD_FAST", 0},
                                        {"POP_TOP", 0},
                                        {"RETURN_GENERATOR", 0},
                                        {"POP_TOP", 0}},
                                       YieldA),
                                CoOptimized | CoNewLocals | CoGenerator)
                  .empty());
}

TEST(GeneratorFrame, SomePathsWithoutReturnGeneratorArePossible) {
  // LOAD_FAST a; TO_BOOL; POP_JUMP_IF_FALSE +2 (over RETURN_GENERATOR;
  // POP_TOP); then the yield.
  auto Out = generatorFindings(concat({{"RESUME", 0},
                                       {"LOAD_FAST", 0},
                                       {"TO_BOOL", 0},
                                       {"POP_JUMP_IF_FALSE", 2},
                                       {"RETURN_GENERATOR", 0},
                                       {"POP_TOP", 0}},
                                      YieldA));
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Cert, Certainty::Possible);
  EXPECT_NE(Out[0].Message.find("a path from the code's start to it ran no "
                                "RETURN_GENERATOR"),
            std::string::npos)
      << Out[0].Message;
}

TEST(GeneratorFrame, ReturnGeneratorAgainIsReported) {
  // Every path runs the second after the first: definite, at offset 4.
  auto Out = generatorFindings(concat({{"RETURN_GENERATOR", 0},
                                       {"POP_TOP", 0},
                                       {"RETURN_GENERATOR", 0},
                                       {"POP_TOP", 0},
                                       {"RESUME", 0}},
                                      YieldA),
                               CoOptimized | CoNewLocals | CoGenerator);
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Offset, 4u);
  EXPECT_EQ(Out[0].Cert, Certainty::Definite);
  EXPECT_NE(Out[0].Message.find("runs again in a frame a generator already "
                                "owns"),
            std::string::npos)
      << Out[0].Message;
  // Only the path that ran the first: possible.
  auto Some = generatorFindings({{"RESUME", 0},
                                 {"LOAD_FAST", 0},
                                 {"TO_BOOL", 0},
                                 {"POP_JUMP_IF_FALSE", 2},
                                 {"RETURN_GENERATOR", 0},
                                 {"POP_TOP", 0},
                                 {"RETURN_GENERATOR", 0},
                                 {"POP_TOP", 0},
                                 {"RETURN_CONST", 0}});
  ASSERT_EQ(Some.size(), 1u);
  EXPECT_EQ(Some[0].Cert, Certainty::Possible);
}

TEST(GeneratorFrame, NoYieldNoFinding) {
  EXPECT_TRUE(
      generatorFindings({{"RESUME", 0}, {"LOAD_FAST", 0}, {"RETURN_VALUE", 0}},
                        CoOptimized | CoNewLocals | CoGenerator)
          .empty());
}

} // namespace
