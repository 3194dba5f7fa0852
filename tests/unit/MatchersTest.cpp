//===- MatchersTest.cpp - pyverify/Testing/Matchers.h ---------------------===//
//
// The GoogleTest matchers on a module python3.11 compiles at test time and
// on copies of it broken by hand (co_stacksize = 0 on the module, or on the
// nested function only). Explanations are asserted verbatim: they are the
// CLI's text output (`pyverify check` on the same code prints the same
// lines), so a change of wording shows up here as it does in the lit tests.
//
//   1     0 RESUME 0                       <module>
//         2 LOAD_CONST 0 (<code add>) ... 6 STORE_NAME add
//   4     8 PUSH_NULL, 10 LOAD_NAME add, 12 LOAD_CONST 1, 14 LOAD_CONST 2
//         (depth 4), 16 PRECALL 2, 20 CALL 2, 30 STORE_NAME x, ...
//   add:  0 RESUME 0, 2 LOAD_FAST a, 4 LOAD_FAST b (depth 2), 6 BINARY_OP +
//
//===----------------------------------------------------------------------===//

#include "CompiledCode.h"

#include "pyverify/Bytecode/CodeFile.h"
#include "pyverify/Check/CheckOptions.h"
#include "pyverify/Testing/Matchers.h"

#include "gmock/gmock.h"
#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"

#include <memory>
#include <string>

using namespace pyverify;
using namespace pyverify::test;
using pyverify::testing::HasFinding;
using pyverify::testing::Verifies;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

constexpr const char *Source = "def add(a, b):\n"
                               "    return a + b\n"
                               "\n"
                               "x = add(1, 2)\n";

constexpr const char *ModuleTooSmall =
    "test.py:4:12: error: the stack reaches depth 4 at LOAD_CONST 2 but "
    "co_stacksize is 0; the frame is too small and the interpreter will write "
    "past it (co_stacksize must be at least 4) [stacksize-too-small]\n"
    "  in <module> (line 1) at offset 14: LOAD_CONST 2\n";

constexpr const char *AddTooSmall =
    "test.py:2:16: error: the stack reaches depth 2 at LOAD_FAST 1 but "
    "co_stacksize is 0; the frame is too small and the interpreter will write "
    "past it (co_stacksize must be at least 2) [stacksize-too-small]\n"
    "  in add (line 1) at offset 4: LOAD_FAST 1\n";

/// Whether \p Matcher matches \p Value, and its explanation.
template <typename M, typename T>
std::pair<bool, std::string> explain(const M &Matcher, const T &Value) {
  ::testing::StringMatchResultListener Listener;
  bool Matched = ::testing::ExplainMatchResult(Matcher, Value, &Listener);
  return {Matched, Listener.str()};
}

class MatchersTest : public ::testing::Test {
protected:
  void SetUp() override {
    Module = CompiledModule::compile(Source);
    ASSERT_TRUE(Module);
    ASSERT_NE(Module->code("add"), nullptr);
  }

  /// The module with co_stacksize = 0.
  CodeObject brokenModule() const {
    CodeObject C = Module->module();
    C.StackSize = 0;
    return C;
  }

  /// The module whose nested `add` has co_stacksize = 0.
  CodeObject brokenNested() const {
    CodeObject C = Module->module();
    for (Value &V : C.Consts)
      if (const CodeObject *Child = V.getCode()) {
        auto Broken = std::make_shared<CodeObject>(*Child);
        Broken->StackSize = 0;
        V = CodeValue{std::move(Broken)};
      }
    return C;
  }

  std::unique_ptr<CompiledModule> Module;
};

TEST_F(MatchersTest, CleanCodeVerifies) {
  EXPECT_THAT(Module->module(), Verifies());
  EXPECT_THAT(*Module->code("add"), Verifies());
  EXPECT_THAT(Module->module(), Not(HasFinding("stacksize-too-small")));

  auto [Matched, Why] = explain(Verifies(), Module->module());
  EXPECT_TRUE(Matched);
  EXPECT_EQ(Why, "which has no error-severity finding in 2 code object(s)");
}

TEST_F(MatchersTest, BrokenStackSizeFailsWithTheCLIText) {
  CodeObject Broken = brokenModule();
  EXPECT_THAT(Broken, Not(Verifies()));
  EXPECT_THAT(Broken, HasFinding("stacksize-too-small"));
  EXPECT_THAT(Broken, HasFinding(CheckId::StacksizeTooSmall));
  EXPECT_THAT(Broken, Not(HasFinding("stack-underflow")));

  auto [Matched, Why] = explain(Verifies(), Broken);
  EXPECT_FALSE(Matched);
  EXPECT_EQ(Why, std::string("which has 1 error-severity finding(s) in 2 code "
                             "object(s):\n") +
                     ModuleTooSmall);

  auto [Found, FoundWhy] = explain(HasFinding("stacksize-too-small"), Broken);
  EXPECT_TRUE(Found);
  EXPECT_EQ(FoundWhy,
            std::string("which reports 1 [stacksize-too-small] finding(s):\n") +
                ModuleTooSmall);

  auto [Other, OtherWhy] = explain(HasFinding("stack-underflow"), Broken);
  EXPECT_FALSE(Other);
  EXPECT_EQ(OtherWhy, std::string("which reports no [stack-underflow] finding "
                                  "in 2 code object(s); it reports:\n") +
                          ModuleTooSmall);
}

TEST_F(MatchersTest, FailedExpectationPrintsTheCodeObjectAndFindings) {
  CodeObject Broken = brokenModule();
  // gmock prints the value (PrintTo in Matchers.h, not a byte dump), then the
  // explanation.
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(Broken, Verifies()),
                          "Actual: <code object <module>, file \"test.py\", "
                          "line 1> (of type pyverify::CodeObject), which has 1 "
                          "error-severity finding(s) in 2 code object(s):\n"
                          "test.py:4:12: error: ");
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(Broken, Verifies()),
                          "[stacksize-too-small]\n  in <module> (line 1) at "
                          "offset 14: LOAD_CONST 2");
  EXPECT_NONFATAL_FAILURE(
      EXPECT_THAT(Module->module(), HasFinding("stacksize-too-small")),
      "Expected: has a [stacksize-too-small] finding\n");
}

TEST_F(MatchersTest, NestedCodeObjectsAreChecked) {
  CodeObject Broken = brokenNested();
  auto [Matched, Why] = explain(Verifies(), Broken);
  EXPECT_FALSE(Matched);
  EXPECT_EQ(Why, std::string("which has 1 error-severity finding(s) in 2 code "
                             "object(s):\n") +
                     AddTooSmall);
  EXPECT_THAT(Broken, HasFinding("stacksize-too-small"));
}

TEST_F(MatchersTest, SharedPointersAndCodeFiles) {
  auto Clean = std::make_shared<const CodeObject>(Module->module());
  auto Broken = std::make_shared<const CodeObject>(brokenModule());
  EXPECT_THAT(Clean, Verifies());
  EXPECT_THAT(Broken, Not(Verifies()));
  EXPECT_THAT(Broken, HasFinding("stacksize-too-small"));
  const CodeObject *Raw = Broken.get();
  EXPECT_THAT(Raw, HasFinding("stacksize-too-small"));

  std::shared_ptr<const CodeObject> Null;
  auto [Matched, Why] = explain(Verifies(), Null);
  EXPECT_FALSE(Matched);
  EXPECT_EQ(Why, "which is a null code object");
  EXPECT_THAT(Null, Not(HasFinding("stacksize-too-small")));

  // A CodeFile names its own path in the diagnostics.
  auto File = parseCodeFile("module.marshal", Module->bytes());
  ASSERT_TRUE(bool(File)) << llvm::toString(File.takeError());
  EXPECT_THAT(*File, Verifies());
  File->Roots = {Broken};
  auto [FileMatched, FileWhy] = explain(Verifies(), *File);
  EXPECT_FALSE(FileMatched);
  EXPECT_THAT(FileWhy, HasSubstr("module.marshal:4:12: error: the stack "
                                 "reaches depth 4 at LOAD_CONST 2"));
  EXPECT_THAT(*File, HasFinding("stacksize-too-small"));
}

TEST_F(MatchersTest, CheckSpecsAndOptions) {
  CodeObject Broken = brokenModule();
  EXPECT_THAT(Broken, Verifies("-stacksize-too-small"));
  EXPECT_THAT(Broken, Verifies("-stack*"));
  EXPECT_THAT(Broken, Not(Verifies("-*,stacksize-too-small")));

  CheckOptions Off;
  Off.set(CheckId::StacksizeTooSmall, false);
  EXPECT_THAT(Broken, Verifies(Off));
  // HasFinding enables the check it asks about on top of the options.
  EXPECT_THAT(Broken, HasFinding("stacksize-too-small", Off));

  EXPECT_EQ(::testing::DescribeMatcher<CodeObject>(Verifies("-stack*")),
            "verifies: no enabled check reports an error-severity finding "
            "(with checks \"-stack*\")");
  EXPECT_EQ(::testing::DescribeMatcher<CodeObject>(Verifies(), true),
            "fails verification: an enabled check reports an error-severity "
            "finding");
}

TEST_F(MatchersTest, RemarksDoNotFailVerification) {
  // stacksize-larger-than-needed is a remark, off by default: HasFinding
  // turns it on; Verifies lists it but still matches.
  CodeObject Roomy = Module->module();
  Roomy.StackSize = 10;
  EXPECT_THAT(Roomy, HasFinding("stacksize-larger-than-needed"));
  auto [Matched, Why] =
      explain(Verifies("stacksize-larger-than-needed"), Roomy);
  EXPECT_TRUE(Matched);
  EXPECT_THAT(Why, HasSubstr("which has no error-severity finding in 2 code "
                             "object(s), only:\ntest.py:"));
  EXPECT_THAT(Why, HasSubstr(" remark: "));
  EXPECT_THAT(Why, HasSubstr("[stacksize-larger-than-needed]"));
}

TEST_F(MatchersTest, BadSpecOrIdFailsTheTestAndMatchesNothing) {
  const CodeObject &Clean = Module->module();
  auto BadSpec = [&] {
    auto [Matched, Why] = explain(Verifies("no-such-check"), Clean);
    EXPECT_FALSE(Matched);
    EXPECT_THAT(Why, HasSubstr("'no-such-check' names no check"));
  };
  EXPECT_NONFATAL_FAILURE(
      BadSpec(),
      "Verifies(\"no-such-check\"): --checks: 'no-such-check' names no check");

  auto BadId = [&] {
    auto [Matched, Why] = explain(HasFinding("stacksize-to-small"), Clean);
    EXPECT_FALSE(Matched);
    EXPECT_EQ(Why, "which cannot be checked: "
                   "HasFinding(\"stacksize-to-small\"): no check has this id "
                   "(see Checks.def)");
  };
  EXPECT_NONFATAL_FAILURE(
      BadId(), "HasFinding(\"stacksize-to-small\"): no check has this id");
}

} // namespace
