//===- FrameModesTest.cpp - The modes a frame holds, on the engine --------===//
//
// frameModesBefore() runs on the Fixpoint engine over the frame's normal
// edges (FrameInstructionGraph) with ModeState as its domain. On
// hand-assembled 3.11 frames: a mode pushed is counted with the ordinary
// contexts below it; a push on one path only, a loop that pushes once per
// iteration and paths that meet at different stack depths make the modes
// unknown (Known false, saying why), never a count; ModeState obeys the
// lattice laws (LatticeLaws.h), bottom and Broken included.
//
//===----------------------------------------------------------------------===//

#include "AssembledCode.h"
#include "LatticeLaws.h"

#include "pyverify/Analysis/Environment.h"
#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Check/FrameModes.h"

#include "gtest/gtest.h"

#include <string>
#include <utility>
#include <vector>

using namespace pyverify;
using namespace pyverify::test;

namespace {

using Ops = std::vector<std::pair<llvm::StringRef, uint8_t>>;

/// modestack.push(): seven instructions.
const Ops PushMode = {{"PUSH_NULL", 0}, {"LOAD_GLOBAL", 0}, {"LOAD_ATTR", 1},
                      {"PRECALL", 0},   {"CALL", 0},        {"POP_TOP", 0}};

Ops concat(std::initializer_list<Ops> Parts) {
  Ops Out;
  for (const Ops &P : Parts)
    Out.insert(Out.end(), P.begin(), P.end());
  return Out;
}

/// The modes before instruction \p Index of the frame \p Code; the ordinary
/// contexts before instruction I are I (so a mode shows where it was
/// pushed).
FrameModes modesOf(const Ops &Code, uint32_t Index) {
  AssembledOptions O;
  O.Names = {"__import_pyverify_rewriter_dot_modestack", "push"};
  DecodedAssembly A = decodeAssembled(assembleCode(V311, Code, O));
  return frameModesBefore(A.D, Index, 0, [](uint32_t I) { return I; });
}

TEST(FrameModes, APushIsCounted) {
  FrameModes M = modesOf(concat({{{"RESUME", 0}},
                                 PushMode,
                                 {{"LOAD_CONST", 0}, {"RETURN_VALUE", 0}}}),
                         7);
  EXPECT_TRUE(M.Known) << M.Why;
  EXPECT_EQ(M.OrdinaryBelow, std::vector<uint32_t>{5}); // pushed by the CALL
}

TEST(FrameModes, PushOnOnePathIsUnknown) {
  FrameModes M =
      modesOf(concat({{{"RESUME", 0},
                       {"LOAD_CONST", 0},
                       {"POP_JUMP_FORWARD_IF_NONE", codeUnits(V311, PushMode)}},
                      PushMode,
                      {{"LOAD_CONST", 0}, {"RETURN_VALUE", 0}}}),
              9);
  EXPECT_FALSE(M.Known);
  EXPECT_EQ(M.Why, "paths reaching it hold different modes");
}

TEST(FrameModes, LoopPushingModesIsUnknown) {
  FrameModes M = modesOf(
      concat({{{"RESUME", 0}},
              PushMode,
              {{"JUMP_BACKWARD", uint8_t(codeUnits(V311, PushMode) + 1)}}}),
      1);
  EXPECT_FALSE(M.Known);
  EXPECT_EQ(M.Why, "paths reaching it hold different modes");
}

TEST(FrameModes, DepthsThatDifferAreUnknown) {
  FrameModes M = modesOf({{"RESUME", 0},
                          {"LOAD_CONST", 0},
                          {"POP_JUMP_FORWARD_IF_NONE", 1},
                          {"LOAD_CONST", 0},
                          {"LOAD_CONST", 0},
                          {"RETURN_VALUE", 0}},
                         4);
  EXPECT_FALSE(M.Known);
  EXPECT_EQ(M.Why, "paths reach it with operand stacks of different depths");
}

TEST(FrameModes, UnreachedIsUnknown) {
  FrameModes M = modesOf(
      {{"RESUME", 0}, {"LOAD_CONST", 0}, {"RETURN_VALUE", 0}, {"NOP", 0}}, 3);
  EXPECT_FALSE(M.Known);
  EXPECT_EQ(M.Why, "no normal path from the entry reaches it");
}

// --- ModeState's lattice laws -----------------------------------------------

ModeTag env() {
  return {ModeTag::Kind::Env,
          lookupGlobal("__import_pyverify_rewriter_dot_modestack"),
          std::nullopt};
}
ModeTag op(ModeEffect E) { return {ModeTag::Kind::ModeOp, nullptr, E}; }
ModeTag kind(ModeTag::Kind K) { return {K, nullptr, std::nullopt}; }

ModeState state(std::vector<ModeTag> Stack, std::vector<ModeTag> Locals,
                std::vector<uint32_t> Modes, bool Differ = false) {
  ModeState S = ModeState::entry(0);
  S.Stack = std::move(Stack);
  S.Locals = std::move(Locals);
  S.Modes = std::move(Modes);
  S.ModesDiffer = Differ;
  return S;
}

} // namespace

template <> struct pyverify::test::LatticeSamples<ModeState> {
  static ModeState bottom() { return ModeState::bottom(); }
  static ModeState top() { return ModeState::broken(); }
  static std::vector<ModeState> values() {
    using K = ModeTag::Kind;
    ModeTag List{K::List, nullptr, std::nullopt, 2, true};
    return {
        ModeState::entry(0),
        ModeState::entry(1),
        state({}, {}, {0}),
        state({}, {}, {0, 1}),
        state({}, {}, {}, /*Differ=*/true),
        state({}, {}, {3}, /*Differ=*/true), // the same value: a representative
        state({env()}, {kind(K::Other)}, {}),
        state({op(ModeEffect::Push)}, {kind(K::Other)}, {}),
        state({op(ModeEffect::Pop)}, {kind(K::Saved)}, {}),
        state({kind(K::Null), kind(K::GraphOut)}, {kind(K::Other)}, {0}),
        state({kind(K::Null), List}, {kind(K::Other)}, {0}),
        state({kind(K::Other), kind(K::GraphOut)}, {kind(K::Other)}, {0}),
        ModeState::broken(),
    };
  }
  static std::string show(const ModeState &S) {
    if (S.isBottom())
      return "bottom";
    if (S.isBroken())
      return "broken";
    auto Tags = [](const std::vector<ModeTag> &Ts) {
      std::string Out;
      for (const ModeTag &T : Ts)
        Out += " " + std::to_string(int(T.K)) +
               (T.Effect ? "/" + std::to_string(int(*T.Effect)) : "");
      return Out;
    };
    std::string Out = "[" + Tags(S.Stack) + " ] locals" + Tags(S.Locals);
    if (S.ModesDiffer)
      return Out + " modes differ";
    Out += " modes";
    for (uint32_t M : S.Modes)
      Out += " " + std::to_string(M);
    return Out;
  }
};

namespace pyverify::test {
INSTANTIATE_TYPED_TEST_SUITE_P(ModeStateLattice, LatticeLaws, ModeState);
} // namespace pyverify::test
