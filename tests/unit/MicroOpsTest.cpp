//===- MicroOpsTest.cpp - Instructions lowered to micro-operations --------===//
//
// The lowering (MicroOps.h) against each version's table: every opcode of
// every version lowers, its micro-operations move as many values as its
// table row says on both edges, and the version shapes come out right
// (where the NULL of LOAD_GLOBAL goes, 3.12's method bit, 3.13's paired
// locals and CALL_KW, 3.11's PRECALL).
//
//===----------------------------------------------------------------------===//

#include "pyverify/Analysis/MicroOps.h"
#include "pyverify/Bytecode/VersionOpcodes.h"

#include "gtest/gtest.h"

#include <string>

using namespace pyverify;

namespace {

Instruction inst(PythonVersion V, Opcode Op, uint32_t Arg = 0) {
  const OpcodeInfo *Info = getVersionOpcodeInfo(V, Op);
  EXPECT_NE(Info, nullptr) << getOpcodeName(Op).str();
  Instruction I{};
  I.OpByte = Info ? Info->Number : 0;
  I.Op = Op;
  I.Ver = V;
  I.Arg = Arg;
  return I;
}

/// Pops and pushes of \p Ops run in order: (deepest slot touched, net).
std::pair<int64_t, int64_t> movement(const MicroOps &Ops) {
  int64_t Depth = 0, Deepest = 0;
  auto Pop = [&](int64_t N) {
    Depth -= N;
    Deepest = std::min(Deepest, Depth);
  };
  for (const MicroOp &Op : Ops)
    std::visit(Overloaded{[&](uop::PushNull) { ++Depth; },
                          [&](uop::LoadLocal) { ++Depth; },
                          [&](uop::StoreLocal) { Pop(1); },
                          [&](uop::DeleteLocal) {},
                          [&](uop::LoadGlobal) { ++Depth; },
                          [&](uop::LoadAttr) { Pop(1), ++Depth; },
                          [&](uop::LoadMethod) { Pop(1), Depth += 2; },
                          [&](uop::CallPrepare) {},
                          [&](const uop::Call &C) {
                            Pop(int64_t(C.NArgs) + 2 + C.KwNamesOnTop);
                            ++Depth;
                          },
                          [&](uop::Copy) { ++Depth; }, [&](uop::Swap) {},
                          [&](uop::UnpackSequence U) {
                            Pop(1);
                            Depth += U.N;
                          },
                          [&](uop::Subscript) { Pop(2), ++Depth; },
                          [&](uop::BuildSequence B) {
                            Pop(B.N);
                            ++Depth;
                          },
                          [&](uop::Effect E) {
                            Pop(E.Pops);
                            Depth += E.Pushes;
                          }},
               Op);
  return {Deepest, Depth};
}

TEST(MicroOps, EveryOpcodeMovesWhatItsRowSays) {
  unsigned Rows = 0;
  for (PythonVersion V : AllPythonVersions)
    for (unsigned B = 1; B < 256; ++B) {
      const OpcodeInfo *Info = getVersionOpcodeInfo(V, uint8_t(B));
      if (!Info)
        continue;
      ++Rows;
      for (uint32_t Arg : {0u, 1u, 2u, 3u, 0x21u, 0x1234u}) {
        if (!Info->hasArg() && Arg)
          break;
        Instruction I = inst(V, Info->Op, Arg);
        for (bool Jump : {false, true}) {
          if (Jump && !Info->isJump())
            continue;
          StackIO IO = getStackIO(*Info, Arg, Jump);
          auto [Deepest, Net] = movement(lowerInstruction(I, Jump));
          SCOPED_TRACE(pythonVersionName(V).str() + " " + Info->Name + " " +
                       std::to_string(Arg) + (Jump ? " (jump)" : ""));
          EXPECT_EQ(Net, IO.net());
          // 3.11's PRECALL moves nothing and CALL pops the callable pair.
          EXPECT_GE(-Deepest, 0);
          EXPECT_LE(-Deepest, IO.Pops);
        }
      }
    }
  EXPECT_GT(Rows, 300u);
}

template <class T> bool holds(const MicroOp &Op) {
  return std::holds_alternative<T>(Op);
}

TEST(MicroOps, GlobalNullGoesWhereTheVersionPutsIt) {
  MicroOps Before =
      lowerInstruction(inst(PythonVersion::V3_11, Opcode::LOAD_GLOBAL, 5));
  ASSERT_EQ(Before.size(), 2u);
  EXPECT_TRUE(holds<uop::PushNull>(Before[0]));
  EXPECT_EQ(std::get<uop::LoadGlobal>(Before[1]).Name, 2u);
  MicroOps After =
      lowerInstruction(inst(PythonVersion::V3_13, Opcode::LOAD_GLOBAL, 5));
  ASSERT_EQ(After.size(), 2u);
  EXPECT_EQ(std::get<uop::LoadGlobal>(After[0]).Name, 2u);
  EXPECT_TRUE(holds<uop::PushNull>(After[1]));
  MicroOps Plain =
      lowerInstruction(inst(PythonVersion::V3_12, Opcode::LOAD_GLOBAL, 4));
  ASSERT_EQ(Plain.size(), 1u);
  EXPECT_EQ(std::get<uop::LoadGlobal>(Plain[0]).Name, 2u);
}

TEST(MicroOps, MethodLoads) {
  EXPECT_EQ(std::get<uop::LoadMethod>(
                lowerInstruction(
                    inst(PythonVersion::V3_11, Opcode::LOAD_METHOD, 3))[0])
                .Name,
            3u);
  EXPECT_EQ(
      std::get<uop::LoadAttr>(
          lowerInstruction(inst(PythonVersion::V3_11, Opcode::LOAD_ATTR, 3))[0])
          .Name,
      3u);
  for (PythonVersion V : {PythonVersion::V3_12, PythonVersion::V3_13}) {
    EXPECT_EQ(std::get<uop::LoadMethod>(
                  lowerInstruction(inst(V, Opcode::LOAD_ATTR, 7))[0])
                  .Name,
              3u);
    EXPECT_EQ(std::get<uop::LoadAttr>(
                  lowerInstruction(inst(V, Opcode::LOAD_ATTR, 6))[0])
                  .Name,
              3u);
  }
}

TEST(MicroOps, CallsAndTheirLayout) {
  EXPECT_TRUE(holds<uop::CallPrepare>(
      lowerInstruction(inst(PythonVersion::V3_11, Opcode::PRECALL, 1))[0]));
  EXPECT_TRUE(isCallPrepare(inst(PythonVersion::V3_12, Opcode::KW_NAMES, 0)));
  uop::Call C11 = std::get<uop::Call>(
      lowerInstruction(inst(PythonVersion::V3_11, Opcode::CALL, 2))[0]);
  EXPECT_FALSE(C11.NullAfterCallable);
  EXPECT_EQ(C11.calleeSlot(/*DeeperIsNull=*/true), 1u);
  EXPECT_EQ(C11.calleeSlot(/*DeeperIsNull=*/false), 0u);
  uop::Call C13 = std::get<uop::Call>(
      lowerInstruction(inst(PythonVersion::V3_13, Opcode::CALL, 2))[0]);
  EXPECT_TRUE(C13.NullAfterCallable);
  EXPECT_EQ(C13.calleeSlot(true), 0u);
  uop::Call Kw = std::get<uop::Call>(
      lowerInstruction(inst(PythonVersion::V3_13, Opcode::CALL_KW, 1))[0]);
  EXPECT_TRUE(Kw.KwNamesOnTop);
  EXPECT_EQ(Kw.NArgs, 1u);
}

TEST(MicroOps, PairedLocals) {
  MicroOps L = lowerInstruction(
      inst(PythonVersion::V3_13, Opcode::LOAD_FAST_LOAD_FAST, 0x12));
  ASSERT_EQ(L.size(), 2u);
  EXPECT_EQ(std::get<uop::LoadLocal>(L[0]).Local, 1u);
  EXPECT_EQ(std::get<uop::LoadLocal>(L[1]).Local, 2u);
  MicroOps S = lowerInstruction(
      inst(PythonVersion::V3_13, Opcode::STORE_FAST_STORE_FAST, 0x12));
  ASSERT_EQ(S.size(), 2u);
  EXPECT_EQ(std::get<uop::StoreLocal>(S[0]).Local, 1u); // the top first
  EXPECT_EQ(std::get<uop::StoreLocal>(S[1]).Local, 2u);
  MicroOps SL = lowerInstruction(
      inst(PythonVersion::V3_13, Opcode::STORE_FAST_LOAD_FAST, 0x12));
  EXPECT_EQ(std::get<uop::StoreLocal>(SL[0]).Local, 1u);
  EXPECT_EQ(std::get<uop::LoadLocal>(SL[1]).Local, 2u);
  MicroOps C = lowerInstruction(
      inst(PythonVersion::V3_12, Opcode::LOAD_FAST_AND_CLEAR, 4));
  EXPECT_EQ(std::get<uop::LoadLocal>(C[0]).Local, 4u);
  EXPECT_EQ(std::get<uop::DeleteLocal>(C[1]).Local, 4u);
}

} // namespace
