//===- FindingTest.cpp - Findings: one root cause reported once -----------===//

#include "pyverify/Support/Finding.h"

#include "gtest/gtest.h"

using namespace pyverify;

namespace {

Finding make(CheckId C, uint32_t Off, std::string Cause,
             Certainty Cert = Certainty::Definite) {
  Finding F(C, Off, "at " + std::to_string(Off));
  F.Cause = std::move(Cause);
  F.Cert = Cert;
  return F;
}

TEST(Finding, MergeRootCausesKeepsOnePerCause) {
  std::vector<Finding> Fs;
  Fs.push_back(make(CheckId::HandlerDepthExceedsStack, 8, "entry 0"));
  Fs.push_back(make(CheckId::StacksizeTooSmall, 9, ""));
  Fs.push_back(make(CheckId::HandlerDepthExceedsStack, 4, "entry 0"));
  Fs.push_back(make(CheckId::HandlerDepthExceedsStack, 6, "entry 1"));
  Fs.back().AlsoNote = "brief";
  Fs.push_back(make(CheckId::HandlerDepthExceedsStack, 12, "entry 1"));
  // Another check with the same cause text is another root cause.
  Fs.push_back(make(CheckId::ContextNotExited, 2, "entry 0"));
  mergeRootCauses(Fs);
  ASSERT_EQ(Fs.size(), 4u);
  // Kept in place: the first of each cause; the others as notes in offset
  // order.
  EXPECT_EQ(Fs[0].Offset, 8u);
  EXPECT_EQ(Fs[0].Message, "at 8 (the same cause at 1 more place, in the "
                           "notes)");
  ASSERT_EQ(Fs[0].Notes.size(), 1u);
  EXPECT_EQ(Fs[0].Notes[0].Offset, 4u);
  EXPECT_EQ(Fs[0].Notes[0].Message, "also: at 4");
  EXPECT_EQ(Fs[1].Check, CheckId::StacksizeTooSmall);
  EXPECT_EQ(Fs[1].Message, "at 9");
  EXPECT_EQ(Fs[2].Offset, 6u);
  ASSERT_EQ(Fs[2].Notes.size(), 1u);
  EXPECT_EQ(Fs[2].Notes[0].Message, "also: at 12");
  EXPECT_EQ(Fs[3].Check, CheckId::ContextNotExited);
  EXPECT_TRUE(Fs[3].Notes.empty());
}

TEST(Finding, MergeRootCausesPrefersADefiniteOne) {
  std::vector<Finding> Fs;
  Fs.push_back(make(CheckId::ContextNotExited, 4, "c", Certainty::Possible));
  Fs.push_back(make(CheckId::ContextNotExited, 10, "c", Certainty::Definite));
  Fs.back().AlsoNote = "unused: it is kept";
  mergeRootCauses(Fs);
  ASSERT_EQ(Fs.size(), 1u);
  EXPECT_EQ(Fs[0].Offset, 10u);
  EXPECT_EQ(Fs[0].Cert, Certainty::Definite);
  ASSERT_EQ(Fs[0].Notes.size(), 1u);
  EXPECT_EQ(Fs[0].Notes[0].Offset, 4u);
}

TEST(Finding, MergeRootCausesLeavesUncausedAlone) {
  std::vector<Finding> Fs;
  Fs.push_back(make(CheckId::StackUnderflow, 4, ""));
  Fs.push_back(make(CheckId::StackUnderflow, 4, ""));
  mergeRootCauses(Fs);
  EXPECT_EQ(Fs.size(), 2u);
  EXPECT_EQ(Fs[0].Message, "at 4");
}

} // namespace
