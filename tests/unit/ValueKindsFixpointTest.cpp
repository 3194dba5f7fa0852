//===- ValueKindsFixpointTest.cpp - Value kinds on the Fixpoint engine ----===//
//
// The value-kind pass runs on the Fixpoint engine with ValueState as its
// domain. Here: paths that meet at different stack depths (a branch that
// pushes on one side only, a loop that pushes once per iteration) make the
// pass an error -- it could not run -- never an empty list of issues, and
// the check pipeline names the value checks as not run; ValueState obeys
// the lattice laws (LatticeLaws.h) on states of different stack heights,
// locals, identities and handler bits, bottom and Inconsistent included.
//
//===----------------------------------------------------------------------===//

#include "AssembledCode.h"
#include "LatticeLaws.h"

#include "pyverify/Analysis/ValueKinds.h"
#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/CFG/CFG.h"
#include "pyverify/Check/Verifier.h"

#include "llvm/ADT/STLExtras.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace pyverify;
using namespace pyverify::test;

namespace {

/// The value-kind pass on \p C: its issues, or its error's text.
std::string valueKindsOf(const CodeObject &C, size_t *NumIssues = nullptr) {
  DecodedAssembly A = decodeAssembled(C);
  CFG G = CFG::build(A.D);
  auto Issues = analyzeValueKinds(G);
  if (!Issues)
    return llvm::toString(Issues.takeError());
  if (NumIssues)
    *NumIssues = Issues->size();
  return "";
}

/// Two paths to offset 8: the taken jump at depth 0, the fall-through after
/// one more LOAD_CONST at depth 1.
CodeObject branchPushingOnOneSide() {
  return assembleCode(V311, {{"RESUME", 0},
                             {"LOAD_CONST", 0},
                             {"POP_JUMP_FORWARD_IF_NONE", 1},
                             {"LOAD_CONST", 0},
                             {"LOAD_CONST", 0}, // offset 8: the join
                             {"RETURN_VALUE", 0}});
}

TEST(ValueKindsFixpoint, JoinAtDifferentDepthsIsAnError) {
  size_t N = 0;
  std::string Err = valueKindsOf(branchPushingOnOneSide(), &N);
  EXPECT_EQ(Err, "two paths reach offset 8 with stacks of different depths")
      << N << " issue(s) instead";
}

TEST(ValueKindsFixpoint, LoopThatGrowsTheStackIsAnError) {
  // Offset 2 is the loop head: depth 0 from the entry, one more per
  // iteration from the back edge.
  CodeObject C = assembleCode(
      V311, {{"RESUME", 0}, {"LOAD_CONST", 0}, {"JUMP_BACKWARD", 2}});
  EXPECT_EQ(valueKindsOf(C),
            "two paths reach offset 2 with stacks of different depths");
}

TEST(ValueKindsFixpoint, ConsistentDepthsStillRun) {
  // The same branch, popping what it pushed: one depth at the join.
  CodeObject C = assembleCode(V311, {{"RESUME", 0},
                                     {"LOAD_CONST", 0},
                                     {"POP_JUMP_FORWARD_IF_NONE", 2},
                                     {"LOAD_CONST", 0},
                                     {"POP_TOP", 0},
                                     {"LOAD_CONST", 0},
                                     {"RETURN_VALUE", 0}});
  size_t N = 1;
  EXPECT_EQ(valueKindsOf(C, &N), "");
  EXPECT_EQ(N, 0u);
}

TEST(ValueKindsFixpoint, CheckNamesTheValueChecksNotRun) {
  DecodedAssembly A = decodeAssembled(branchPushingOnOneSide());
  std::vector<Finding> Fs = verifyCode(A.D, CheckOptions());
  const Finding *NotRun = nullptr;
  for (const Finding &F : Fs)
    if (llvm::is_contained(F.NotRun, CheckId::NullStackValue))
      NotRun = &F;
  ASSERT_NE(NotRun, nullptr) << "the value checks are not named as not run";
  EXPECT_EQ(NotRun->Check, CheckId::ChecksNotRun);
  for (CheckId Id : {CheckId::LocalUnbound, CheckId::ExceptionSlotType,
                     CheckId::ValueKindMismatch})
    EXPECT_TRUE(llvm::is_contained(NotRun->NotRun, Id));
}

// --- ValueState's lattice laws ----------------------------------------------

ValueState state(std::vector<ValueSlot> Stack, std::vector<SlotKinds> Locals,
                 bool Handler = false) {
  ValueState S = ValueState::reached(0, 0);
  S.Stack.assign(Stack.begin(), Stack.end());
  S.Locals.assign(Locals.begin(), Locals.end());
  S.Handler = Handler;
  return S;
}

} // namespace

template <> struct pyverify::test::LatticeSamples<ValueState> {
  static ValueState bottom() { return ValueState::bottom(); }
  static ValueState top() { return ValueState::inconsistent(); }
  static std::vector<ValueState> values() {
    return {
        state({}, {}),
        state({}, {KNull}),
        state({}, {KUnknown}),
        state({}, {KNull | KUnknown}, /*Handler=*/true),
        state({{KUnknown, 8}}, {KNull}),
        state({{KUnknown, 9}}, {KNull}),
        state({{KNull, 8}}, {KUnknown}),
        state({{KUnknown, 0}}, {KNull}),
        state({{KNone | KExc, 16}, {KLasti, 0}}, {KNull}),
        state({{KExc, 16}, {KLasti, 0}}, {KNull}, /*Handler=*/true),
        state({{KUnknown, 8}, {KNull, 17}, {KUnknown, 0}}, {KNull}),
        state({{KUnknown, 8}}, {KNull, KCell}),
        ValueState::inconsistent(),
    };
  }
  static std::string show(const ValueState &S) {
    if (S.isBottom())
      return "bottom";
    if (S.isInconsistent())
      return "inconsistent";
    std::string Out = S.Handler ? "handler [" : "[";
    for (const ValueSlot &V : S.Stack)
      Out += " " + std::to_string(V.K) + "#" + std::to_string(V.Id);
    Out += " ] locals";
    for (SlotKinds K : S.Locals)
      Out += " " + std::to_string(K);
    return Out;
  }
};

namespace pyverify::test {
INSTANTIATE_TYPED_TEST_SUITE_P(ValueStateLattice, LatticeLaws, ValueState);
} // namespace pyverify::test
