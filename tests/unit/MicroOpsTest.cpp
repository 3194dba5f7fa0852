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

#include <optional>
#include <string>
#include <vector>

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

/// What \p Ops do to the stack, run in order on symbolic inputs: how many
/// values they pop (Pops) and push (Pushes) in all, and which popped and
/// pushed values may be NULL (bit 0 = the deepest), as a table row says.
struct Movement {
  int64_t Pops = 0, Pushes = 0;
  uint64_t NullIn = 0, NullOut = 0;
};

Movement simulate(const MicroOps &Ops) {
  // A slot: an input (Input >= 0, numbered from the top, 0 = top) or a
  // pushed value that may or may not be NULL.
  struct Val {
    int64_t Input;
    bool MayBeNull;
  };
  std::vector<Val> Stack;
  const int64_t Inputs = 512; // more than any argument here pops
  for (int64_t K = Inputs; K-- > 0;)
    Stack.push_back({K, false});
  std::vector<std::pair<int64_t, bool>> Popped; // input, NULL allowed
  auto Pop = [&](bool NullOk) {
    Val V = Stack.back();
    Stack.pop_back();
    if (V.Input >= 0)
      Popped.push_back({V.Input, NullOk});
  };
  auto Push = [&](bool MayBeNull) { Stack.push_back({-1, MayBeNull}); };
  for (const MicroOp &Op : Ops)
    std::visit(
        Overloaded{
            [&](uop::PushNull) { Push(true); },
            [&](uop::LoadLocal L) { Push(L.Read == uop::LocalRead::Saved); },
            [&](uop::StoreLocal L) { Pop(L.NullOk); },
            [&](uop::DeleteLocal) {},
            [&](uop::LoadConst) { Push(false); },
            [&](uop::MakeCell) {},
            [&](uop::CopyFreeVars) {},
            [&](uop::PopExcept) { Pop(false); },
            [&](uop::LoadGlobal) { Push(false); },
            [&](uop::LoadAttr) {
              Pop(false);
              Push(false);
            },
            [&](const OneOf<uop::LoadMethod, uop::LoadSpecial> auto &M) {
              Pop(false);
              Push(M.nullSlot() == 0);
              Push(M.nullSlot() == 1);
            },
            [&](uop::CallPrepare) {},
            [&](const uop::Call &C) {
              if (C.KwNamesOnTop)
                Pop(false);
              for (uint32_t K = 0; K < C.NArgs; ++K)
                Pop(false);
              Pop(C.nullSlot() == 1);
              Pop(C.nullSlot() == 0);
              Push(false);
            },
            [&](uop::Copy C) {
              Push(false);
              (void)C;
            },
            [&](uop::Swap W) {
              if (W.N >= 1 && W.N <= Stack.size())
                std::swap(Stack.back(), Stack[Stack.size() - W.N]);
            },
            [&](uop::UnpackSequence U) {
              Pop(false);
              for (uint32_t K = 0; K < U.N; ++K)
                Push(false);
            },
            [&](uop::Subscript) {
              Pop(false);
              Pop(false);
              Push(false);
            },
            [&](uop::BuildSequence B) {
              for (uint32_t K = 0; K < B.N; ++K)
                Pop(false);
              Push(false);
            },
            [&](const OneOf<
                uop::Test, uop::Next, uop::Return, uop::Raise, uop::EnterWith,
                uop::ExitCallStart, uop::PushExcInfo, uop::ExcMatch, uop::Not,
                uop::ToBool, uop::LoadCell, uop::StoreCell, uop::Nop> auto &O) {
              uop::Effect E = movementOf(O);
              for (int64_t K = E.Pops; K-- > 0;)
                Pop(K < 64 && ((E.NullIn >> K) & 1));
              for (int64_t K = 0; K < E.Pushes; ++K)
                Push(K < 64 && ((E.NullOut >> K) & 1));
            },
            [&](uop::Effect E) {
              for (int64_t K = E.Pops; K-- > 0;)
                Pop(K < 64 && ((E.NullIn >> K) & 1));
              for (int64_t K = 0; K < E.Pushes; ++K)
                Push(K < 64 && ((E.NullOut >> K) & 1));
            }},
        Op);
  Movement M;
  // The inputs gone: the deepest of them is popped value 0.
  int64_t Deepest = -1;
  for (auto [In, Ok] : Popped)
    Deepest = std::max(Deepest, In);
  M.Pops = Deepest + 1;
  for (auto [In, Ok] : Popped)
    if (Ok && Deepest - In < 64)
      M.NullIn |= uint64_t(1) << (Deepest - In);
  // The slots above the remaining inputs: what was pushed.
  size_t FirstOut = Stack.size();
  while (FirstOut > 0 && Stack[FirstOut - 1].Input < 0)
    --FirstOut;
  M.Pushes = int64_t(Stack.size() - FirstOut);
  for (size_t K = FirstOut; K < Stack.size(); ++K)
    if (Stack[K].MayBeNull && K - FirstOut < 64)
      M.NullOut |= uint64_t(1) << (K - FirstOut);
  return M;
}

TEST(MicroOps, EveryOpcodeMovesWhatItsRowSays) {
  unsigned Rows = 0;
  for (PythonVersion V : AllPythonVersions)
    for (unsigned B = 1; B < 256; ++B) {
      const OpcodeInfo *Info = getVersionOpcodeInfo(V, uint8_t(B));
      if (!Info)
        continue;
      ++Rows;
      for (uint32_t Arg : {0u, 1u, 2u, 3u, 0x21u, 0x30u}) {
        if (!Info->hasArg() && Arg)
          break;
        Instruction I = inst(V, Info->Op, Arg);
        for (bool Jump : {false, true}) {
          if (Jump && !Info->isJump())
            continue;
          StackIO IO = getStackIO(*Info, Arg, Jump);
          Movement M = simulate(lowerInstruction(I, Jump));
          SCOPED_TRACE(pythonVersionName(V).str() + " " + Info->Name + " " +
                       std::to_string(Arg) + (Jump ? " (jump)" : ""));
          EXPECT_EQ(M.Pushes - M.Pops, IO.net());
          // PRECALL moves nothing it pops; SWAP and COPY reorder or copy.
          if (Info->Op == Opcode::PRECALL || Info->Op == Opcode::SWAP ||
              Info->Op == Opcode::COPY)
            continue;
          EXPECT_EQ(M.Pops, IO.Pops);
          EXPECT_EQ(M.Pushes, IO.Pushes);
          EXPECT_EQ(M.NullIn, IO.NullIn);
          EXPECT_EQ(M.NullOut, IO.NullOut);
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

// The filters the passes search with (mayLowerTo, versionMayLowerTo,
// isBorrowingLoad) against the lowering itself: for every opcode of every
// version and a spread of arguments, an instruction whose fall-through
// lowering holds a micro-operation of a class passes that class's filter
// (a filter that said no to a real one would hide a with's enter or a
// borrow from every pass that skips on it), and a filter that says yes has
// the micro-operation for some argument.
TEST(MicroOps, ClassFiltersAgreeWithTheLowering) {
  auto ClassOf = [](const MicroOp &Op) -> std::optional<LowersTo> {
    if (holds<uop::EnterWith>(Op))
      return LowersTo::EnterWith;
    if (holds<uop::Call>(Op))
      return LowersTo::Call;
    if (holds<uop::LoadSpecial>(Op))
      return LowersTo::LoadSpecial;
    if (const auto *L = std::get_if<uop::LoadLocal>(&Op); L && L->Borrowed)
      return LowersTo::BorrowedLoad;
    return std::nullopt;
  };
  const LowersTo All[] = {LowersTo::EnterWith, LowersTo::Call,
                          LowersTo::LoadSpecial, LowersTo::BorrowedLoad};
  unsigned Seen[4] = {0, 0, 0, 0};
  for (PythonVersion V : AllPythonVersions) {
    bool InVersion[4] = {false, false, false, false};
    for (unsigned B = 1; B < 256; ++B) {
      const OpcodeInfo *Info = getVersionOpcodeInfo(V, uint8_t(B));
      if (!Info)
        continue;
      bool Found[4] = {false, false, false, false};
      for (uint32_t Arg : {0u, 1u, 2u, 3u, 4u, 5u, 0x21u, 0x30u, 255u}) {
        if (!Info->hasArg() && Arg)
          break;
        Instruction I = inst(V, Info->Op, Arg);
        for (const MicroOp &Op : lowerInstruction(I))
          if (std::optional<LowersTo> C = ClassOf(Op)) {
            SCOPED_TRACE(pythonVersionName(V).str() + " " + Info->Name + " " +
                         std::to_string(Arg));
            EXPECT_TRUE(mayLowerTo(I, *C));
            Found[unsigned(*C)] = true;
          }
      }
      Instruction I = inst(V, Info->Op, 0);
      for (LowersTo C : All) {
        SCOPED_TRACE(pythonVersionName(V).str() + " " + Info->Name);
        EXPECT_EQ(mayLowerTo(I, C), Found[unsigned(C)]);
        InVersion[unsigned(C)] |= Found[unsigned(C)];
        Seen[unsigned(C)] += Found[unsigned(C)];
      }
      EXPECT_EQ(isBorrowingLoad(I), Found[unsigned(LowersTo::BorrowedLoad)]);
    }
    for (LowersTo C : All)
      EXPECT_EQ(versionMayLowerTo(V, C), InVersion[unsigned(C)])
          << pythonVersionName(V).str();
  }
  for (unsigned C = 0; C < 4; ++C)
    EXPECT_GT(Seen[C], 0u) << "class " << C << " never lowered";
  // An invalid instruction passes no filter.
  Instruction Bad = inst(PythonVersion::V3_11, Opcode::CALL, 0);
  Bad.Valid = false;
  EXPECT_FALSE(mayLowerTo(Bad, LowersTo::Call));
}
