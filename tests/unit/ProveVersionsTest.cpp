//===- ProveVersionsTest.cpp - prove on each version's bundles ------------===//
//
// The prover runs one interpreter's bytecode at a time: a bundle (built
// through the API, where nothing checks the labels) whose code objects are
// of two versions gets no verdict but unknown, naming both, for every
// target; one of a single version other than the default is proved as that
// version's code (tests/prove/test_prove.py runs the fixture corpus of each).
//
//===----------------------------------------------------------------------===//

#include "CompiledCode.h"

#include "pyverify/SMT/Prover.h"

#include "gtest/gtest.h"

using namespace pyverify;
using namespace pyverify::test;

namespace {

Bundle bundleOf(const CodeObject &Original, const CodeObject &Frame) {
  Bundle B;
  B.Path = "mixed.pvb";
  B.Original = std::make_shared<CodeObject>(Original);
  B.Frame = std::make_shared<CodeObject>(Frame);
  return B;
}

TEST(ProveVersions, MixedVersionsGetNoVerdict) {
  auto M = CompiledModule::compile("def f(cm, g):\n"
                                   "    with cm:\n"
                                   "        return g()\n");
  ASSERT_TRUE(M);
  const CodeObject *F = M->code("f");
  ASSERT_NE(F, nullptr);
  // The same 3.11 code, once as itself: proved.
  std::vector<ProofResult> Same = proveBundle(bundleOf(*F, *F), {});
  ASSERT_EQ(Same.size(), 1u);
  EXPECT_EQ(Same[0].V, Verdict::Proved) << Same[0].Reason;
  // The frame labelled 3.12: unknown, naming both versions.
  CodeObject Other = *F;
  Other.Version = PythonVersion::V3_12;
  std::vector<ProofResult> Mixed = proveBundle(bundleOf(*F, Other), {});
  ASSERT_EQ(Mixed.size(), 1u);
  EXPECT_EQ(Mixed[0].V, Verdict::Unknown);
  EXPECT_EQ(Mixed[0].Reason, "the bundle mixes CPython 3.11 and 3.12 code "
                             "objects: one interpreter runs them all");
}

} // namespace
