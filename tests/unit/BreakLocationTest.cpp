//===- BreakLocationTest.cpp - The break's result flow, on the engine -----===//
//
// flowsIntoResumeCall() runs on the Fixpoint engine over the frame's normal
// edges with BreakFlowState as its domain. On hand-assembled 3.11 frames:
// the result flows through a local stored on one branch only -- whichever
// branch a walk takes first -- and a flow is not claimed where there is
// none; paths from the result that meet at different stack depths make the
// answer unknown (an error), and a break that needs it to be told apart is
// not located, saying why. BreakFlowState obeys the lattice laws
// (LatticeLaws.h), with states of different heights and of one value
// spelled two ways (a slot below the start written out or not).
//
//===----------------------------------------------------------------------===//

#include "AssembledCode.h"
#include "LatticeLaws.h"

#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Check/BreakLocation.h"

#include "gtest/gtest.h"

#include <string>
#include <utility>
#include <vector>

using namespace pyverify;
using namespace pyverify::test;

namespace {

using Ops = std::vector<std::pair<llvm::StringRef, uint8_t>>;

DecodedAssembly frame(const Ops &Code) {
  AssembledOptions O;
  O.Names = {"__resume_at_1_2"};
  O.Locals = {"x"};
  return decodeAssembled(assembleCode(V311, Code, O));
}

/// The result of instruction 1 is stored in x on the \p StoreOnJump edge's
/// path only and dropped on the other; after the join the resume function
/// is called with x (\p PassX) or with None.
DecodedAssembly storedOnOneBranch(bool StoreOnJump, bool PassX = true) {
  std::pair<llvm::StringRef, uint8_t> Store{"STORE_FAST", 0},
      Drop{"POP_TOP", 0};
  return frame({{"RESUME", 0},
                {"LOAD_CONST", 0}, // 1: the result
                {"LOAD_CONST", 0},
                {"POP_JUMP_FORWARD_IF_NONE", 2},
                StoreOnJump ? Drop : Store,
                {"JUMP_FORWARD", 1},
                StoreOnJump ? Store : Drop,
                {"PUSH_NULL", 0}, // 7: the join
                {"LOAD_GLOBAL", 0},
                PassX ? std::pair<llvm::StringRef, uint8_t>{"LOAD_FAST", 0}
                      : std::pair<llvm::StringRef, uint8_t>{"LOAD_CONST", 0},
                {"PRECALL", 1},
                {"CALL", 1},
                {"RETURN_VALUE", 0}});
}

TEST(BreakLocation, FlowThroughALocalStoredOnEitherBranch) {
  // A walk that keeps the first path to reach the join finds the flow on
  // one of these only (the fall-through is walked first).
  for (bool OnJump : {false, true}) {
    llvm::Expected<bool> F =
        flowsIntoResumeCall(storedOnOneBranch(OnJump).D, 1);
    ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
    EXPECT_TRUE(*F) << "stored on the " << (OnJump ? "jump" : "fall-through");
  }
}

TEST(BreakLocation, NoFlowIsNotClaimed) {
  llvm::Expected<bool> F =
      flowsIntoResumeCall(storedOnOneBranch(true, /*PassX=*/false).D, 1);
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  EXPECT_FALSE(*F);
}

/// The result of instruction 1 meets at offset 10 with one more value on
/// the fall-through; \p Name is the original's instruction.
const Ops DepthsDiffer = {{"RESUME", 0},     {"LOAD_CONST", 0},
                          {"LOAD_CONST", 0}, {"POP_JUMP_FORWARD_IF_NONE", 1},
                          {"LOAD_CONST", 0}, {"RETURN_VALUE", 0}};

TEST(BreakLocation, DepthsThatDifferMakeTheFlowUnknown) {
  llvm::Expected<bool> F = flowsIntoResumeCall(frame(DepthsDiffer).D, 1);
  ASSERT_FALSE(bool(F)) << "answered " << *F;
  EXPECT_EQ(llvm::toString(F.takeError()),
            "paths from the result of LOAD_CONST at offset 2 meet at offset "
            "10 with stacks of different depths");
}

TEST(BreakLocation, AnUnknownFlowLeavesTheBreakUnlocated) {
  DecodedAssembly Frame = frame(DepthsDiffer);
  DecodedAssembly Original =
      frame({{"RESUME", 0}, {"LOAD_CONST", 0}, {"RETURN_VALUE", 0}});
  BreakLocation L = locateFrameBreak(Frame.D, Original.D, 1, std::nullopt);
  EXPECT_FALSE(L.found());
  EXPECT_EQ(L.Why, "3 instructions of the frame are the original's "
                   "LOAD_CONST 0, and whether the one at offset 2 flows into "
                   "the resume call is unknown: paths from the result of "
                   "LOAD_CONST at offset 2 meet at offset 10 with stacks of "
                   "different depths (name it with frame_break_offset)");
}

// --- BreakFlowState's lattice laws ------------------------------------------

BreakFlowState state(std::vector<uint8_t> Stack, int64_t Below,
                     std::vector<uint32_t> Locals = {}) {
  BreakFlowState S = BreakFlowState::start();
  S.Stack.assign(Stack.begin(), Stack.end());
  S.Below = Below;
  S.Locals.assign(Locals.begin(), Locals.end());
  return S;
}

} // namespace

template <> struct pyverify::test::LatticeSamples<BreakFlowState> {
  static BreakFlowState bottom() { return BreakFlowState::bottom(); }
  static BreakFlowState top() { return BreakFlowState::inconsistent(); }
  static std::vector<BreakFlowState> values() {
    using S = BreakFlowState;
    return {
        BreakFlowState::start(),
        state({}, 2), // popped two values below the start
        state({S::Break}, 0),
        state({S::Other, S::Break}, 1), // the same value as the one above
        state({S::Other}, 0),
        state({S::Null, S::Resume, S::Break}, 0),
        state({S::Null | S::Other, S::Resume, S::Other}, 0),
        state({S::Resume, S::Other}, 1, {0}),
        state({S::Other}, 0, {0, 3}),
        state({S::Other}, 0, {3, 0}), // the same value
        state({S::Break | S::Other}, 0, {1}),
        BreakFlowState::inconsistent(),
    };
  }
  static std::string show(const BreakFlowState &S) {
    if (S.isBottom())
      return "bottom";
    if (S.isInconsistent())
      return "inconsistent";
    std::string Out = "height " + std::to_string(S.height()) + " [";
    for (uint8_t V : S.Stack)
      Out += " " + std::to_string(V);
    Out += " ] locals";
    for (uint32_t L : S.Locals)
      Out += " " + std::to_string(L);
    return Out;
  }
};

namespace pyverify::test {
INSTANTIATE_TYPED_TEST_SUITE_P(BreakFlowStateLattice, LatticeLaws,
                               BreakFlowState);
} // namespace pyverify::test
