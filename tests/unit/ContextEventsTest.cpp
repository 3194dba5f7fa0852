//===- ContextEventsTest.cpp - The context-event recogniser, the environment
//===//
//
// The one recogniser of context events and the one table of rewriter
// globals (Environment.def): what each instruction means given its slots,
// and which names are trusted -- the whole name, never a substring.
//
//===----------------------------------------------------------------------===//

#include "pyverify/Analysis/ContextEvents.h"
#include "Opcodes311.h"
#include "pyverify/Analysis/Environment.h"
#include "pyverify/Bytecode/DecodedCode.h"

#include "CompiledCode.h"

#include "gtest/gtest.h"

using namespace pyverify;
using namespace pyverify::test311;
using namespace pyverify::test;

namespace {

Instruction inst(Opcode Op, uint32_t Arg = 0) {
  Instruction I{};
  I.OpByte = byteOf(Op); // a 3.11 opcode
  I.Op = Op;
  I.Arg = Arg;
  return I;
}

template <class T> bool is(const ContextEvent &E) {
  return std::holds_alternative<T>(E);
}

TEST(Environment, WholeNamesOnly) {
  EXPECT_NE(lookupGlobal("__resume_at_24_0"), nullptr);
  EXPECT_EQ(lookupGlobal("__resume_at_24_0")->Role, GlobalRole::ResumeFunction);
  EXPECT_EQ(lookupGlobal("__compiled_fn_nested_20_3")->Role,
            GlobalRole::CompiledGraph);
  EXPECT_EQ(lookupGlobal("__compiled_fn_7")->Role, GlobalRole::CompiledGraph);
  EXPECT_EQ(lookupGlobal("__import_pyverify_rewriter_dot_modestack")->Role,
            GlobalRole::ModeStackModule);
  // Substrings, prefixes and look-alikes are arbitrary globals.
  for (const char *N :
       {"torch", "my_torch_helpers", "numpy", "__resume_at_24_", "__resume_at_",
        "x__resume_at_1_2", "__resume_at_1_2x", "__resume_at_a_1",
        "__compiled_fn_", "modestack", "__import_torch", "__pyverify_",
        "__pyverify_capture2", ""})
    EXPECT_EQ(lookupGlobal(N), nullptr) << N;
}

TEST(Environment, PatternGrammar) {
  EXPECT_TRUE(matchesEnvPattern("a{int}b", "a123b"));
  EXPECT_FALSE(matchesEnvPattern("a{int}b", "ab"));
  EXPECT_FALSE(matchesEnvPattern("a{int}b", "a1x2b"));
  // {name} backtracks: it may end where the rest of the pattern begins.
  EXPECT_TRUE(matchesEnvPattern("f_{name}_{int}_{int}", "f_my_fn_2_3_4"));
  EXPECT_FALSE(matchesEnvPattern("f_{name}_{int}_{int}", "f_my_fn_2"));
}

TEST(Environment, ResumeGlobalOffset) {
  EXPECT_EQ(resumeGlobalOffset("__resume_at_72_1"),
            std::optional<uint32_t>(72));
  EXPECT_EQ(resumeGlobalOffset("__resume_at_0_12"), std::optional<uint32_t>(0));
  EXPECT_EQ(resumeGlobalOffset("__resume_at_72"), std::nullopt);
  EXPECT_EQ(resumeGlobalOffset("__resume_at_4294967296_1"), std::nullopt);
  EXPECT_EQ(resumeGlobalOffset("__compiled_fn_3"), std::nullopt);
  EXPECT_EQ(resumeGlobalOffset("x__resume_at_72_1"), std::nullopt);
}

TEST(Environment, ModeOperations) {
  const EnvGlobal *M = lookupGlobal("__import_pyverify_rewriter_dot_modestack");
  ASSERT_NE(M, nullptr);
  EXPECT_EQ(lookupModeOp(*M, "push"), ModeEffect::Push);
  EXPECT_EQ(lookupModeOp(*M, "set_stack"), ModeEffect::SetStack);
  EXPECT_EQ(lookupModeOp(*M, "relu"), std::nullopt);
  const EnvGlobal *D = lookupGlobal("__import_torch_dot__dynamo_dot_utils");
  ASSERT_NE(D, nullptr);
  EXPECT_EQ(lookupModeOp(*D, "_pop_torch_function_stack"), ModeEffect::Pop);
  // Another module's operation names are not this one's.
  EXPECT_EQ(lookupModeOp(*D, "pop"), std::nullopt);
  // Only mode-stack modules have operations.
  EXPECT_EQ(lookupModeOp(*lookupGlobal("__resume_at_1_1"), "push"),
            std::nullopt);
}

TEST(ContextEvents, Enters) {
  EXPECT_TRUE(is<ctxev::EnterWith>(
      recogniseContextEvent(inst(Opcode::BEFORE_WITH), {})));
  ContextEvent A = recogniseContextEvent(inst(Opcode::BEFORE_ASYNC_WITH), {});
  ASSERT_TRUE(is<ctxev::EnterWith>(A));
  EXPECT_TRUE(std::get<ctxev::EnterWith>(A).Async);
  SlotFacts Jump;
  Jump.JumpEdge = true;
  EXPECT_TRUE(is<ctxev::AsyncEnterDone>(
      recogniseContextEvent(inst(Opcode::SEND, 4), Jump)));
  EXPECT_TRUE(
      is<ctxev::NoEvent>(recogniseContextEvent(inst(Opcode::SEND, 4), {})));
  SlotFacts Enter;
  Enter.Callee = SlotRole::EnterMethod;
  EXPECT_TRUE(is<ctxev::EnterExplicit>(
      recogniseContextEvent(inst(Opcode::CALL, 0), Enter)));
}

TEST(ContextEvents, Exits) {
  SlotFacts F;
  F.Callee = SlotRole::BoundExit;
  EXPECT_TRUE(
      is<ctxev::ExitBound>(recogniseContextEvent(inst(Opcode::CALL, 2), F)));
  EXPECT_TRUE(is<ctxev::ExitBound>(
      recogniseContextEvent(inst(Opcode::WITH_EXCEPT_START), F)));
  F.Callee = SlotRole::CalledExit;
  EXPECT_TRUE(
      is<ctxev::ExitAgain>(recogniseContextEvent(inst(Opcode::CALL, 2), F)));
  F.Callee = SlotRole::MaybeBoundExit;
  EXPECT_TRUE(is<ctxev::ExitMaybe>(
      recogniseContextEvent(inst(Opcode::WITH_EXCEPT_START), F)));
  // WITH_EXCEPT_START always calls an __exit__; an ordinary CALL of an
  // ordinary value is no event unless it is the compiler's exit sequence.
  SlotFacts Other;
  EXPECT_TRUE(is<ctxev::ExitUnbound>(
      recogniseContextEvent(inst(Opcode::WITH_EXCEPT_START), Other)));
  EXPECT_TRUE(
      is<ctxev::NoEvent>(recogniseContextEvent(inst(Opcode::CALL, 2), Other)));
  Other.ExitSequence = true;
  EXPECT_TRUE(is<ctxev::ExitUnbound>(
      recogniseContextEvent(inst(Opcode::CALL, 2), Other)));
  SlotFacts Method;
  Method.Callee = SlotRole::ExitMethod;
  EXPECT_TRUE(is<ctxev::ExitExplicit>(
      recogniseContextEvent(inst(Opcode::CALL, 3), Method)));
}

TEST(ContextEvents, ModeStackAndRewriterGlobals) {
  SlotFacts F;
  F.Callee = SlotRole::ModeOp;
  F.Mode = ModeEffect::Push;
  EXPECT_TRUE(
      is<ctxev::ModePush>(recogniseContextEvent(inst(Opcode::CALL, 1), F)));
  F.Mode = ModeEffect::Pop;
  EXPECT_TRUE(
      is<ctxev::ModePop>(recogniseContextEvent(inst(Opcode::CALL, 0), F)));
  F.Mode = ModeEffect::GetStack;
  EXPECT_TRUE(
      is<ctxev::ModeSave>(recogniseContextEvent(inst(Opcode::CALL, 0), F)));
  F.Mode = ModeEffect::SetStack;
  F.NumArgs = 1;
  F.FirstArg = ArgRole::SavedModes;
  EXPECT_TRUE(
      is<ctxev::ModeRestore>(recogniseContextEvent(inst(Opcode::CALL, 1), F)));
  F.FirstArg = ArgRole::GraphOutput;
  ContextEvent R = recogniseContextEvent(inst(Opcode::CALL, 1), F);
  ASSERT_TRUE(is<ctxev::ModeReplay>(R));
  EXPECT_TRUE(std::get<ctxev::ModeReplay>(R).Exact);
  F.FirstArg = ArgRole::Other;
  R = recogniseContextEvent(inst(Opcode::CALL, 1), F);
  ASSERT_TRUE(is<ctxev::ModeReplay>(R));
  EXPECT_FALSE(std::get<ctxev::ModeReplay>(R).Exact)
      << "an unrecognised argument is an approximation";
  // A mode operation is never an __exit__.
  F.Mode = ModeEffect::Pop;
  EXPECT_TRUE(is<ctxev::ExitUnbound>(
      recogniseContextEvent(inst(Opcode::WITH_EXCEPT_START), F)));

  SlotFacts G;
  G.Callee = SlotRole::EnvGlobal;
  G.Global = lookupGlobal("__resume_at_10_0");
  EXPECT_TRUE(
      is<ctxev::HandOver>(recogniseContextEvent(inst(Opcode::CALL, 2), G)));
  G.Global = lookupGlobal("__compiled_fn_f_10_0");
  EXPECT_TRUE(
      is<ctxev::GraphCall>(recogniseContextEvent(inst(Opcode::CALL, 2), G)));
  G.Global = lookupGlobal("__pyverify_capture");
  EXPECT_TRUE(
      is<ctxev::NoEvent>(recogniseContextEvent(inst(Opcode::CALL, 2), G)));
}

TEST(ContextEvents, ProtocolNames) {
  for (const char *N : {"__enter__", "__exit__", "__aenter__", "__aexit__"})
    EXPECT_TRUE(isContextProtocolName(N)) << N;
  EXPECT_TRUE(isEnterName("__aenter__"));
  EXPECT_FALSE(isEnterName("__exit__"));
  EXPECT_FALSE(isContextProtocolName("__enter"));
  EXPECT_FALSE(isContextProtocolName("enter"));
}

} // namespace

// --- Which explicit enters and exits are events (delegation) -------------

namespace {

/// The indices of D's LOAD_ATTR / LOAD_METHOD of \p Name.
std::vector<uint32_t> loadsOf(const DecodedCode &D, llvm::StringRef Name) {
  std::vector<uint32_t> Out;
  for (uint32_t K = 0; K < D.Insts.size(); ++K) {
    const Instruction &I = D.Insts[K];
    if ((I.is(Opcode::LOAD_ATTR) || I.is(Opcode::LOAD_METHOD)) &&
        I.Arg < D.Code->Names.size() && D.Code->Names[I.Arg] == Name)
      Out.push_back(K);
  }
  return Out;
}

} // namespace

TEST(ExplicitManagers, PlainCodeTracksPairedLocalsOnly) {
  auto M = CompiledModule::compile("def paired(cm, g):\n"
                                   "    cm.__enter__()\n"
                                   "    g()\n"
                                   "    cm.__exit__(None, None, None)\n"
                                   "def lone_enter(cm):\n"
                                   "    return cm.__enter__()\n"
                                   "def attribute(self):\n"
                                   "    self.lock.__enter__()\n"
                                   "    self.lock.__exit__(None, None, None)\n"
                                   "def stored(cls, cm):\n"
                                   "    e = cls.__enter__\n"
                                   "    x = cls.__exit__\n"
                                   "    return e(cm), x\n");
  ASSERT_TRUE(M);
  auto Decode = [&](llvm::StringRef Q) {
    const CodeObject *C = M->code(Q);
    EXPECT_NE(C, nullptr) << Q.str();
    return DecodedCode::decode(*C);
  };
  DecodedCode Paired = Decode("paired"), Lone = Decode("lone_enter"),
              Attr = Decode("attribute"), Stored = Decode("stored");
  EXPECT_EQ(pairedManagerLocals(Paired).size(), 1u);
  EXPECT_TRUE(pairedManagerLocals(Lone).empty());
  EXPECT_TRUE(pairedManagerLocals(Attr).empty());
  EXPECT_TRUE(pairedManagerLocals(Stored).empty());
  for (llvm::StringRef N : {"__enter__", "__exit__"}) {
    for (uint32_t K : loadsOf(Paired, N)) {
      EXPECT_TRUE(isTrackedManagerAttribute(Paired, K, CodeRole::Plain));
      EXPECT_TRUE(isTrackedManagerAttribute(Paired, K, CodeRole::Emitted));
    }
    // An attribute manager: delegation in plain code, the original's own
    // code (not an event) in emitted code too.
    for (uint32_t K : loadsOf(Attr, N)) {
      EXPECT_FALSE(isTrackedManagerAttribute(Attr, K, CodeRole::Plain));
      EXPECT_FALSE(isTrackedManagerAttribute(Attr, K, CodeRole::Emitted));
    }
    // Loaded and stored, never called as a method here: plain code hands
    // it on; emitted code tracks every local manager.
    for (uint32_t K : loadsOf(Stored, N)) {
      EXPECT_FALSE(isTrackedManagerAttribute(Stored, K, CodeRole::Plain));
      EXPECT_TRUE(isTrackedManagerAttribute(Stored, K, CodeRole::Emitted));
    }
  }
  ASSERT_EQ(loadsOf(Lone, "__enter__").size(), 1u);
  uint32_t K = loadsOf(Lone, "__enter__")[0];
  EXPECT_FALSE(isTrackedManagerAttribute(Lone, K, CodeRole::Plain));
  EXPECT_TRUE(isTrackedManagerAttribute(Lone, K, CodeRole::Emitted));
}
