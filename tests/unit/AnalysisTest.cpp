//===- AnalysisTest.cpp - Real stack effects, block stack, contexts, checks
//===//
//
// StackIO (the real stack columns of Opcodes.def) against the compiler's
// accounting for every opcode; the block stack and context balance on functions
// python3.11 compiles at test time (offsets as `dis` shows them, reproduced in
// the comments); CodeAnalysis (each pass once, results that stay put, the
// reason a pass has no input); parseCheckSpec; and a determinism test in the
// style of LLVM's FlowSensitive DeterminismTest: verifyCode run 20 times and
// from 4 threads at once must give exactly the same findings.
//
//===----------------------------------------------------------------------===//

#include "CompiledCode.h"
#include "Opcodes311.h"

#include "pyverify/Analysis/BlockStack.h"
#include "pyverify/Analysis/CodeAnalysis.h"
#include "pyverify/Analysis/ContextBalance.h"
#include "pyverify/Analysis/StackDepth.h"
#include "pyverify/Bytecode/CodeFile.h"
#include "pyverify/Bytecode/Opcode.h"
#include "pyverify/CFG/CFG.h"
#include "pyverify/Check/CheckOptions.h"
#include "pyverify/Check/DiagnosticPrinter.h"
#include "pyverify/Check/Verifier.h"
#include "pyverify/Support/Check.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <latch>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace pyverify;
using namespace pyverify::test311;
using namespace pyverify::test;

namespace {

//===----------------------------------------------------------------------===//
// StackIO: the real stack columns of Opcodes.def
//===----------------------------------------------------------------------===//

TEST(StackIO, NetIsTheCompilersEffectExceptForCallsAndResumption) {
  // Small arguments, every byte boundary, and the bit fields some opcodes
  // decode (UNPACK_EX's two bytes, MAKE_FUNCTION's flags, FORMAT_VALUE's
  // spec bit, LOAD_GLOBAL's push-null bit).
  const uint32_t Args[] = {
      0,   1,      2,      3,       4,       5,        6,        7,   8,
      9,   15,     16,     17,      31,      255,      256,      257, 258,
      511, 0x1234, 0xFFFF, 0x10000, 0x10101, 0xFFFFFF, 0x1000000};
  unsigned Opcodes = 0;
  for (unsigned B = 0; B < 256; ++B) {
    const OpcodeInfo *Info = getOpcodeInfo(uint8_t(B));
    if (!Info)
      continue;
    ++Opcodes;
    Opcode Op = opcodeOf(B);
    for (uint32_t Arg : Args) {
      if (!Info->hasArg() && Arg)
        break;
      for (bool Jump : {false, true}) {
        if (Jump && !Info->isJump())
          continue;
        SCOPED_TRACE(std::string(Info->Name) + " " + std::to_string(Arg) +
                     (Jump ? " (jump)" : ""));
        StackIO R = getStackIO(Op, Arg, Jump);
        EXPECT_GE(R.Pops, 0);
        EXPECT_GE(R.Pushes, 0);
        if (Op == Opcode::PRECALL) {
          EXPECT_EQ(R.Pops, 0);
          EXPECT_EQ(R.Pushes, 0);
        } else if (Op == Opcode::CALL) {
          EXPECT_EQ(R.Pops, int64_t(Arg) + 2);
          EXPECT_EQ(R.Pushes, 1);
        } else if (Op == Opcode::RETURN_GENERATOR) {
          // The value the generator's first resumption sends, which 3.11's
          // compiler counts in the code's start depth instead (0 in dis).
          EXPECT_EQ(R.Pops, 0);
          EXPECT_EQ(R.Pushes, 1);
          EXPECT_EQ(getStackEffect(Op, Arg, Jump), 0);
        } else {
          EXPECT_EQ(R.net(), getStackEffect(Op, Arg, Jump));
        }
      }
    }
  }
  EXPECT_GE(Opcodes, 100u) << "the opcode table looks empty";
}

TEST(StackIO, PrecallAndCallTogetherNetTheSame) {
  for (uint32_t N : {0u, 1u, 2u, 3u, 10u, 255u, 300u}) {
    int64_t Real = getStackIO(Opcode::PRECALL, N, false).net() +
                   getStackIO(Opcode::CALL, N, false).net();
    int64_t Compiler = getStackEffect(Opcode::PRECALL, N, false) +
                       getStackEffect(Opcode::CALL, N, false);
    EXPECT_EQ(Real, Compiler) << "PRECALL " << N << "; CALL " << N;
    EXPECT_EQ(Real, -int64_t(N) - 1);
  }
}

TEST(StackIO, ReadsCoverPopsAndPeeks) {
  for (unsigned B = 0; B < 256; ++B) {
    const OpcodeInfo *Info = getOpcodeInfo(uint8_t(B));
    if (!Info)
      continue;
    for (uint32_t Arg : {0u, 1u, 2u, 3u, 7u, 300u})
      for (bool Jump : {false, true}) {
        StackIO R = getStackIO(opcodeOf(B), Arg, Jump);
        EXPECT_GE(R.Reads, R.Pops) << Info->Name << " " << Arg;
        // NULL masks name only values that exist.
        EXPECT_EQ(R.NullIn >> std::min<int64_t>(R.Pops, 63), 0u) << Info->Name;
        EXPECT_EQ(R.NullOut >> std::min<int64_t>(R.Pushes, 63), 0u)
            << Info->Name;
      }
  }
  // PRECALL n tests PEEK(n + 2) for a method (is_method) and moves nothing.
  StackIO Pre = getStackIO(Opcode::PRECALL, 1, false);
  EXPECT_EQ(Pre.Pops, 0);
  EXPECT_EQ(Pre.Reads, 3);
  // LIST_APPEND i: v = POP(); list = PEEK(i).
  EXPECT_EQ(getStackIO(Opcode::LIST_APPEND, 2, false).Reads, 3);
  // MAP_ADD i: two pops, then PEEK(i).
  EXPECT_EQ(getStackIO(Opcode::MAP_ADD, 1, false).Reads, 3);
  // WITH_EXCEPT_START calls PEEK(4), pushes the result.
  StackIO W = getStackIO(Opcode::WITH_EXCEPT_START, 0, false);
  EXPECT_EQ(W.Pops, 0);
  EXPECT_EQ(W.Reads, 4);
  EXPECT_EQ(getStackIO(Opcode::SWAP, 3, false).Reads, 3);
  EXPECT_EQ(getStackIO(Opcode::COPY, 2, false).Reads, 2);
}

TEST(StackIO, NullableSlots) {
  // CALL n: [method-or-NULL, self-or-callable, args...]; only the deepest
  // may be NULL.
  EXPECT_EQ(getStackIO(Opcode::CALL, 2, false).NullIn, 1u);
  EXPECT_EQ(getStackIO(Opcode::CALL_FUNCTION_EX, 1, false).NullIn, 1u);
  EXPECT_EQ(getStackIO(Opcode::PUSH_NULL, 0, false).NullOut, 1u);
  // LOAD_GLOBAL pushes NULL below the global only when bit 0 is set.
  EXPECT_EQ(getStackIO(Opcode::LOAD_GLOBAL, 5, false).NullOut, 1u);
  EXPECT_EQ(getStackIO(Opcode::LOAD_GLOBAL, 4, false).NullOut, 0u);
  EXPECT_EQ(getStackIO(Opcode::LOAD_GLOBAL, 4, false).Pushes, 1);
  // LOAD_METHOD: [meth, self] or [NULL, attr].
  EXPECT_EQ(getStackIO(Opcode::LOAD_METHOD, 0, false).NullOut, 1u);
  EXPECT_EQ(getStackIO(Opcode::POP_TOP, 0, false).NullIn, 0u);
}

TEST(StackIO, SlotsThatMatter) {
  // BEFORE_WITH consumes the manager and pushes __exit__ and the result.
  StackIO W = getStackIO(Opcode::BEFORE_WITH, 0, false);
  EXPECT_EQ(W.Pops, 1);
  EXPECT_EQ(W.Pushes, 2);
  // FOR_ITER keeps the iterator on the fall-through, pops it at the end.
  StackIO Next = getStackIO(Opcode::FOR_ITER, 7, false);
  StackIO Done = getStackIO(Opcode::FOR_ITER, 7, true);
  EXPECT_EQ(Next.Pops, 0);
  EXPECT_EQ(Next.Pushes, 1);
  EXPECT_EQ(Done.Pops, 1);
  EXPECT_EQ(Done.Pushes, 0);
}

//===----------------------------------------------------------------------===//
// Block stack and context balance on compiled functions
//===----------------------------------------------------------------------===//

const char *const BlocksSource = R"py(
def with_f(cm, g):
    with cm as x:
        g(x)

async def awith_f(cm, g):
    async with cm as x:
        await g(x)

def try_as(g):
    try:
        g()
    except ValueError as e:
        g(e)

def exstar(g):
    try:
        g()
    except* TypeError as eg:
        g(eg)

async def afor(it, g):
    async for x in it:
        g(x)

def nested_try(g):
    try:
        g()
        try:
            g()
        except ValueError:
            pass
    except KeyError:
        pass

def two_withs(a, b, g):
    with a:
        with b:
            g()

def manual_ok(m):
    m.__enter__()
    m.__exit__(None, None, None)

def manual_leak(m, c):
    m.__enter__()
    if c:
        return 1
    m.__exit__(None, None, None)

def manual_start(m):
    m.__enter__()
    return m
)py";

/// A code object with its CFG, stack depths and block stack, from its
/// CodeAnalysis; contexts() is the context-balance result.
struct Analysed {
  explicit Analysed(const CodeObject &C) : U(C) {
    EXPECT_TRUE(U.D.isWellFormed()) << C.QualName.str();
    auto R = U.A.blockStack();
    if (!R) {
      ADD_FAILURE() << llvm::toString(R.takeError());
      return;
    }
    Depth = &llvm::cantFail(U.A.stackDepth());
    Blocks = &*R;
  }

  llvm::Expected<const ContextBalanceResult &> contexts() const {
    return U.A.contexts();
  }

  std::vector<BlockKind> kindsAt(uint32_t Offset) const {
    std::vector<BlockKind> Out;
    for (const Block &B : Blocks->blocksAt(U.inst(Offset)))
      Out.push_back(B.Kind);
    return Out;
  }
  std::vector<uint32_t> handlersAt(uint32_t Offset) const {
    std::vector<uint32_t> Out;
    for (const Block &B : Blocks->blocksAt(U.inst(Offset)))
      Out.push_back(B.Handler);
    return Out;
  }

  CodeUnderTest U;
  const StackDepthResult *Depth = nullptr;
  const BlockStack *Blocks = nullptr;
};

class AnalysisTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    Module = CompiledModule::compile(BlocksSource, "blocks.py");
  }
  static void TearDownTestSuite() {
    Cache.clear();
    Module.reset();
  }

  static Analysed &get(llvm::StringRef QualName) {
    auto It = Cache.find(QualName.str());
    if (It != Cache.end())
      return *It->second;
    const CodeObject *C = Module ? Module->code(QualName) : nullptr;
    if (!C) {
      ADD_FAILURE() << "no code object " << QualName.str();
      C = &Empty;
    }
    return *(Cache[QualName.str()] = std::make_unique<Analysed>(*C));
  }

  static std::unique_ptr<CompiledModule> Module;
  static std::map<std::string, std::unique_ptr<Analysed>> Cache;
  static const CodeObject Empty;
};

std::unique_ptr<CompiledModule> AnalysisTest::Module;
std::map<std::string, std::unique_ptr<Analysed>> AnalysisTest::Cache;
const CodeObject AnalysisTest::Empty;

using K = BlockKind;
using Kinds = std::vector<BlockKind>;

//   2 LOAD_FAST cm; 4 BEFORE_WITH; 6 STORE_FAST x; ... 18 CALL 1; 28 POP_TOP
//  30..34 LOAD_CONST None x3; 36 PRECALL 2; 40 CALL 2; 50 POP_TOP; ...
//  56 PUSH_EXC_INFO; 58 WITH_EXCEPT_START; ...; 64 COPY 3; 66 POP_EXCEPT;
//  68 RERAISE 1
// ExceptionTable: 6 to 28 -> 56 [1] lasti; 56 to 62 -> 64 [3] lasti; ...
TEST_F(AnalysisTest, With) {
  Analysed &A = get("with_f");
  ASSERT_TRUE(A.Blocks);
  EXPECT_EQ(A.kindsAt(2), Kinds{});
  EXPECT_EQ(A.kindsAt(18), Kinds{K::With});
  EXPECT_EQ(A.handlersAt(18), std::vector<uint32_t>{56});
  EXPECT_EQ(A.Blocks->blocksAt(A.U.inst(18))[0].Enter, 4u);
  EXPECT_EQ(A.kindsAt(40), Kinds{}) << "the exit call is outside the body";
  EXPECT_EQ(A.kindsAt(58), Kinds{K::Cleanup});
  EXPECT_TRUE(A.Blocks->problems().empty());

  ASSERT_EQ(A.Blocks->withSites().size(), 1u);
  const WithSite &W = A.Blocks->withSites()[0];
  EXPECT_EQ(W.EnterInst, A.U.inst(4));
  EXPECT_FALSE(W.Async);
  EXPECT_EQ(W.FirstProtected, A.U.inst(6));
  EXPECT_EQ(W.ExitSlot, 0) << "__exit__ sits where the manager was";
  EXPECT_EQ(W.BodyEntry, 0);
  EXPECT_EQ(W.Handler, 56u);
  EXPECT_EQ(A.Blocks->siteForHandler(56), &W);
  EXPECT_EQ(A.Blocks->siteForHandler(64), nullptr);
}

//   8 BEFORE_ASYNC_WITH; 10 GET_AWAITABLE 1; 12 LOAD_CONST; 14 SEND (to 22)
//  ... 22 STORE_FAST x; ... 34 CALL 1; ... 68 CALL 2 ...
// ExceptionTable: 22 to 56 -> 96 [1] lasti; 96 to 114 -> 116 [3] lasti; ...
TEST_F(AnalysisTest, AsyncWith) {
  Analysed &A = get("awith_f");
  ASSERT_TRUE(A.Blocks);
  EXPECT_EQ(A.kindsAt(34), Kinds{K::AsyncWith});
  EXPECT_EQ(A.kindsAt(14), Kinds{}) << "awaiting __aenter__ is unprotected";
  EXPECT_EQ(A.kindsAt(98), Kinds{K::Cleanup});
  ASSERT_EQ(A.Blocks->withSites().size(), 1u);
  const WithSite &W = A.Blocks->withSites()[0];
  EXPECT_TRUE(W.Async);
  EXPECT_EQ(W.EnterInst, A.U.inst(8));
  EXPECT_EQ(W.FirstProtected, A.U.inst(22)) << "the SEND's target";
  EXPECT_EQ(W.Handler, 96u);
  EXPECT_EQ(W.ExitSlot, 0);
  EXPECT_EQ(getBlockKindName(K::AsyncWith), "async with");
}

//  12 CALL 0 (the try body); 28 PUSH_EXC_INFO; 30 LOAD_GLOBAL ValueError ...
//  46 STORE_FAST e; 58 CALL 1 (the except body); 82 LOAD_CONST None;
//  84 STORE_FAST e; 86 DELETE_FAST e; 88 RERAISE 1; 92 COPY 3 ...
// ExceptionTable: 4 to 22 -> 28 [0]; 28 to 46 -> 92 [1] lasti;
//   48 to 68 -> 82 [1] lasti; 82 to 90 -> 92 [1] lasti
TEST_F(AnalysisTest, TryAndExceptAs) {
  Analysed &A = get("try_as");
  ASSERT_TRUE(A.Blocks);
  EXPECT_EQ(A.kindsAt(12), Kinds{K::Try});
  EXPECT_EQ(A.kindsAt(30), Kinds{K::Cleanup});
  EXPECT_EQ(A.kindsAt(58), (Kinds{K::Cleanup, K::ExceptAs}));
  EXPECT_EQ(A.handlersAt(58), (std::vector<uint32_t>{92, 82}));
  EXPECT_EQ(A.kindsAt(84), Kinds{K::Cleanup});
  EXPECT_TRUE(A.Blocks->withSites().empty());
  EXPECT_TRUE(A.Blocks->problems().empty());
}

// except* compiles differently across 3.11 patch releases (3.11.2 and 3.11.7
// differ), so this test finds its instructions instead of naming offsets:
//   try body: CALL 0; the except* body: CALL 1 (g(eg));
//   its handler: LOAD_CONST None; STORE_FAST eg; DELETE_FAST eg; LIST_APPEND 3
//   the cleanup: COPY 3; POP_EXCEPT; RERAISE 1
TEST_F(AnalysisTest, ExceptStar) {
  Analysed &A = get("exstar");
  ASSERT_TRUE(A.Blocks);
  const InstructionStream &Insts = A.U.D.Insts;
  auto Find = [&](Opcode Op, uint32_t Arg) -> uint32_t {
    for (uint32_t I = 0; I < Insts.size(); ++I)
      if (Insts[I].is(Op) && Insts[I].Arg == Arg)
        return Insts[I].Offset;
    ADD_FAILURE() << getOpcodeName(Op).str() << " " << Arg << " not found";
    return 0;
  };
  uint32_t TryCall = Find(Opcode::CALL, 0);
  uint32_t BodyCall = Find(Opcode::CALL, 1);
  uint32_t Append = Find(Opcode::LIST_APPEND, 3);
  uint32_t Cleanup = Find(Opcode::COPY, 3);
  uint32_t AsHandler = Insts[A.U.inst(Append) - 3].Offset;
  EXPECT_TRUE(Insts[A.U.inst(AsHandler)].is(Opcode::LOAD_CONST));

  EXPECT_EQ(A.kindsAt(TryCall), Kinds{K::Try});
  EXPECT_EQ(A.kindsAt(BodyCall), (Kinds{K::Cleanup, K::ExceptStar}));
  EXPECT_EQ(A.handlersAt(BodyCall),
            (std::vector<uint32_t>{Cleanup, AsHandler}));
  EXPECT_EQ(getBlockKindName(K::ExceptStar), "except*");
}

//   8 GET_AITER; 10 GET_ANEXT; 12 LOAD_CONST; 14 SEND (to 22) ...
//  22 STORE_FAST x; ... 34 CALL 1; 46 JUMP_BACKWARD (to 10); 48 END_ASYNC_FOR
// ExceptionTable: 10 to 20 -> 48 [1]
TEST_F(AnalysisTest, AsyncFor) {
  Analysed &A = get("afor");
  ASSERT_TRUE(A.Blocks);
  EXPECT_EQ(A.kindsAt(10), Kinds{K::AsyncFor});
  EXPECT_EQ(A.kindsAt(14), Kinds{K::AsyncFor});
  EXPECT_EQ(A.kindsAt(34), Kinds{}) << "the loop body is unprotected";
  EXPECT_EQ(getBlockKindName(K::AsyncFor), "async for");
}

//   4..12 CALL 0; 22 POP_TOP; 24 NOP (inner `try:`, uncovered);
//  26..34 CALL 0; ... 50 PUSH_EXC_INFO (inner handler) ...
//  84 PUSH_EXC_INFO (outer handler)
// ExceptionTable: 4 to 22 -> 84 [0]; 26 to 44 -> 50 [0];
//   50 to 68 -> 78 [1] lasti; 70 to 70 -> 84 [0]; 76 to 76 -> 78 [1] lasti;
//   78 to 82 -> 84 [0]; ...
TEST_F(AnalysisTest, NestedTryAndTheUncoveredNop) {
  Analysed &A = get("nested_try");
  ASSERT_TRUE(A.Blocks);
  EXPECT_EQ(A.kindsAt(12), Kinds{K::Try});
  EXPECT_EQ(A.handlersAt(12), std::vector<uint32_t>{84});
  // The inner handler runs under the outer one: outer(inner entry) is the
  // entry covering the inner handler's cleanup target (78 -> 84).
  EXPECT_EQ(A.kindsAt(34), (Kinds{K::Try, K::Try}));
  EXPECT_EQ(A.handlersAt(34), (std::vector<uint32_t>{84, 50}));
  // The NOP at 24 is covered by nothing, but control reaches it from the
  // outer try body: it takes that block stack.
  EXPECT_EQ(A.U.G.coverOf(A.U.inst(24)), -1);
  EXPECT_EQ(A.handlersAt(24), std::vector<uint32_t>{84});
  EXPECT_TRUE(A.Blocks->problems().empty());
}

//   4 BEFORE_WITH (a); 10 BEFORE_WITH (b); 22 CALL 0; 44 CALL 2 (b's exit);
//  58 PUSH_EXC_INFO (b's handler) ...; 90 CALL 2 (a's exit);
//  106 PUSH_EXC_INFO (a's handler)
TEST_F(AnalysisTest, NestedWiths) {
  Analysed &A = get("two_withs");
  ASSERT_TRUE(A.Blocks);
  EXPECT_EQ(A.kindsAt(22), (Kinds{K::With, K::With}));
  EXPECT_EQ(A.handlersAt(22), (std::vector<uint32_t>{106, 58}));
  auto Bs = A.Blocks->blocksAt(A.U.inst(22));
  EXPECT_EQ(Bs[0].Enter, 4u);
  EXPECT_EQ(Bs[1].Enter, 10u);
  EXPECT_EQ(A.kindsAt(44), Kinds{K::With}) << "b's exit runs inside a";
  ASSERT_EQ(A.Blocks->withSites().size(), 2u);
  EXPECT_EQ(A.Blocks->withSites()[0].ExitSlot, 0);
  EXPECT_EQ(A.Blocks->withSites()[1].ExitSlot, 1);
}

TEST_F(AnalysisTest, CleanWithHasBalancedContexts) {
  Analysed &A = get("with_f");
  ASSERT_TRUE(A.Blocks);
  auto R = A.contexts();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  for (const Finding &F : R->Findings)
    ADD_FAILURE() << getCheckName(F.Check).str() << " at " << F.Offset << ": "
                  << F.Message;
  ASSERT_EQ(A.Blocks->withSites().size(), 1u);
  ASSERT_EQ(R->NormalExits.size(), 1u) << "one list per with site";
  const auto &Exits = R->NormalExits[0];
  ASSERT_EQ(Exits.size(), 1u);
  EXPECT_EQ(Exits[0], A.U.inst(40)) << "CALL 2, __exit__(None, ...)";
  EXPECT_TRUE(A.U.D.Insts[Exits[0]].is(Opcode::CALL));
  EXPECT_EQ(R->BlockIn.size(), A.U.G.size()) << "a final state per block";

  uint32_t Enter = A.U.inst(4);
  using Active = std::vector<uint32_t>;
  EXPECT_EQ(R->activeBefore(A.U.inst(2)).vec(), Active{});
  EXPECT_EQ(R->activeBefore(A.U.inst(18)).vec(), Active{Enter});
  EXPECT_EQ(R->activeBefore(A.U.inst(40)).vec(), Active{Enter});
  EXPECT_EQ(R->activeBefore(A.U.inst(50)).vec(), Active{}) << "exited";
}

TEST_F(AnalysisTest, NestedWithsExitInOrder) {
  Analysed &A = get("two_withs");
  ASSERT_TRUE(A.Blocks);
  auto R = A.contexts();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(R->Findings.empty());
  ASSERT_EQ(A.Blocks->withSites().size(), 2u);
  ASSERT_EQ(R->NormalExits.size(), 2u);
  EXPECT_EQ(R->NormalExits[0], (llvm::SmallVector<uint32_t, 2>{A.U.inst(90)}));
  EXPECT_EQ(R->NormalExits[1], (llvm::SmallVector<uint32_t, 2>{A.U.inst(44)}));
  using Active = std::vector<uint32_t>;
  EXPECT_EQ(R->activeBefore(A.U.inst(22)).vec(),
            (Active{A.U.inst(4), A.U.inst(10)}));
}

TEST_F(AnalysisTest, AsyncWithHasBalancedContexts) {
  Analysed &A = get("awith_f");
  ASSERT_TRUE(A.Blocks);
  auto R = A.contexts();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(R->Findings.empty());
  ASSERT_EQ(A.Blocks->withSites().size(), 1u);
  ASSERT_EQ(R->NormalExits.size(), 1u);
  EXPECT_EQ(R->NormalExits[0], (llvm::SmallVector<uint32_t, 2>{A.U.inst(68)}));
}

TEST_F(AnalysisTest, ExplicitEnterAndExit) {
  Analysed &Ok = get("manual_ok");
  ASSERT_TRUE(Ok.Blocks);
  auto R = Ok.contexts();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(R->Findings.empty());

  //   2 LOAD_FAST m; 4 LOAD_METHOD __enter__; 26 PRECALL 0; 30 CALL 0;
  //  40 POP_TOP; 42 LOAD_FAST c; 44 POP_JUMP_FORWARD_IF_FALSE (to 50);
  //  46 LOAD_CONST 1; 48 RETURN_VALUE; 50 LOAD_FAST m; 52 LOAD_METHOD __exit__
  //  ...; 84 CALL 3 ...
  // The return at 48 leaves m entered, and so does an exception from the
  // test of c (42, 44): three definite errors, each naming the enter.
  Analysed &Leak = get("manual_leak");
  ASSERT_TRUE(Leak.Blocks);
  auto L = Leak.contexts();
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  std::vector<uint32_t> Offsets;
  for (const Finding &F : L->Findings) {
    EXPECT_EQ(F.Check, CheckId::ContextNotExited) << F.Message;
    EXPECT_EQ(F.Sev, Severity::Error) << F.Message;
    ASSERT_FALSE(F.Notes.empty()) << F.Message;
    EXPECT_EQ(F.Notes[0].Offset, 30u) << "the note points at the enter";
    Offsets.push_back(F.Offset);
  }
  EXPECT_EQ(Offsets, (std::vector<uint32_t>{42, 44, 48}));
  EXPECT_EQ(L->activeBefore(Leak.U.inst(48)).vec(),
            std::vector<uint32_t>{Leak.U.inst(30)});

  // A lone `m.__enter__()` (a start() API) is an ordinary call: only locals
  // whose __enter__ and __exit__ the code both loads are tracked.
  Analysed &Start = get("manual_start");
  ASSERT_TRUE(Start.Blocks);
  auto S = Start.contexts();
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  EXPECT_TRUE(S->Findings.empty());
}

//===----------------------------------------------------------------------===//
// CodeAnalysis
//===----------------------------------------------------------------------===//

TEST_F(AnalysisTest, CodeAnalysisRunsEachPassOnce) {
  const CodeObject *C = Module ? Module->code("two_withs") : nullptr;
  ASSERT_NE(C, nullptr);
  CodeAnalysis A(*C);
  const DecodedCode &D = A.decoded();
  EXPECT_EQ(&A.decoded(), &D);
  ASSERT_NE(A.cfg(), nullptr);
  EXPECT_EQ(A.cfg(), A.cfg());
  EXPECT_EQ(&A.cfg()->code(), &D) << "the CFG is built on the kept decode";
  auto Depth = A.stackDepth();
  ASSERT_TRUE(bool(Depth)) << llvm::toString(Depth.takeError());
  auto Blocks = A.blockStack();
  ASSERT_TRUE(bool(Blocks)) << llvm::toString(Blocks.takeError());
  auto Contexts = A.contexts();
  ASSERT_TRUE(bool(Contexts)) << llvm::toString(Contexts.takeError());
  EXPECT_EQ(&*Depth, &llvm::cantFail(A.stackDepth()));
  EXPECT_EQ(&*Blocks, &llvm::cantFail(A.blockStack()));
  EXPECT_EQ(&*Contexts, &llvm::cantFail(A.contexts()));
  EXPECT_EQ(Contexts->NormalExits.size(), Blocks->withSites().size());

  // A move keeps every result where it is.
  CodeAnalysis Moved = std::move(A);
  EXPECT_EQ(&Moved.decoded(), &D);
  EXPECT_EQ(&llvm::cantFail(Moved.contexts()), &*Contexts);

  // verifyCode on the analysis is verifyCode on the decode, and asking
  // again changes nothing.
  CheckOptions O;
  ASSERT_FALSE(bool(O.parseCheckSpec("*")));
  auto Render = [](const std::vector<Finding> &Fs) {
    std::vector<std::string> Out;
    for (const Finding &F : Fs)
      Out.push_back(std::to_string(F.Offset) + " " + F.Message);
    return Out;
  };
  auto Want = Render(verifyCode(D, O));
  EXPECT_EQ(Render(verifyCode(Moved, O)), Want);
  EXPECT_EQ(Render(verifyCode(Moved, O)), Want);
}

TEST(CodeAnalysis, PassesWithoutACFGFailWithTheReason) {
  CodeObject C;
  C.QualName = "broken";
  C.Code = llvm::StringRef("\x09\x00\x53\x00", 4); // NOP; RETURN_VALUE
  C.StackSize = 1;
  C.ExceptionTable = "\x80"; // a varint cut short
  CodeAnalysis A(C);
  ASSERT_FALSE(A.decoded().isWellFormed());
  EXPECT_EQ(A.cfg(), nullptr);
  for (int Round = 0; Round < 2; ++Round) {
    auto Depth = A.stackDepth();
    ASSERT_FALSE(bool(Depth));
    EXPECT_EQ(llvm::toString(Depth.takeError()),
              "the code object is not well-formed");
    auto Contexts = A.contexts();
    ASSERT_FALSE(bool(Contexts));
    EXPECT_EQ(llvm::toString(Contexts.takeError()),
              "the code object is not well-formed")
        << "a pass fails with its input's reason";
  }
}

//===----------------------------------------------------------------------===//
// CheckOptions
//===----------------------------------------------------------------------===//

/// The enabled check names, in Checks.def order.
std::vector<std::string> enabled(const CheckOptions &O) {
  std::vector<std::string> Out;
  for (const CheckInfo &C : allChecks())
    if (O.isEnabled(C.Id))
      Out.push_back(C.Name.str());
  return Out;
}

/// The check names starting with \p Prefix.
std::vector<std::string> named(llvm::StringRef Prefix) {
  std::vector<std::string> Out;
  for (const CheckInfo &C : allChecks())
    if (C.Name.startswith(Prefix))
      Out.push_back(C.Name.str());
  return Out;
}

CheckOptions parsed(llvm::StringRef Spec) {
  CheckOptions O;
  if (llvm::Error E = O.parseCheckSpec(Spec))
    ADD_FAILURE() << "'" << Spec.str() << "': " << llvm::toString(std::move(E));
  return O;
}

std::string parseError(llvm::StringRef Spec) {
  CheckOptions O;
  llvm::Error E = O.parseCheckSpec(Spec);
  if (!E) {
    ADD_FAILURE() << "'" << Spec.str() << "' was accepted";
    return "";
  }
  return llvm::toString(std::move(E));
}

TEST(CheckOptions, DefaultsFollowChecksDef) {
  CheckOptions O;
  for (const CheckInfo &C : allChecks())
    EXPECT_EQ(O.isEnabled(C.Id), C.EnabledByDefault) << C.Name.str();
  EXPECT_TRUE(O.isEnabled(CheckId::StackUnderflow));
  EXPECT_FALSE(O.isEnabled(CheckId::StacksizeLargerThanNeeded));
  EXPECT_FALSE(O.isEnabled(CheckId::UnreachableCode));
  // An empty spec (or empty entries) changes nothing.
  EXPECT_EQ(enabled(parsed("")), enabled(O));
  EXPECT_EQ(enabled(parsed(",,")), enabled(O));
}

TEST(CheckOptions, AllAndNone) {
  EXPECT_EQ(enabled(parsed("*")).size(), allChecks().size());
  EXPECT_EQ(enabled(parsed("all")).size(), allChecks().size());
  EXPECT_EQ(enabled(parsed("+*")).size(), allChecks().size());
  EXPECT_TRUE(enabled(parsed("-*")).empty());
  EXPECT_TRUE(enabled(parsed("-all")).empty());
}

TEST(CheckOptions, SingleIdsLeftToRight) {
  EXPECT_EQ(enabled(parsed("-*,stack-underflow")),
            std::vector<std::string>{"stack-underflow"});
  EXPECT_EQ(enabled(parsed("-*,+unreachable-code")),
            std::vector<std::string>{"unreachable-code"});
  EXPECT_EQ(enabled(parsed(" -* , stack-underflow ")),
            std::vector<std::string>{"stack-underflow"})
      << "entries are trimmed";
  EXPECT_TRUE(enabled(parsed("-*,stack-underflow,-stack-underflow")).empty());
  CheckOptions O = parsed("-stack-underflow");
  EXPECT_FALSE(O.isEnabled(CheckId::StackUnderflow));
  EXPECT_TRUE(O.isEnabled(CheckId::StackDepthConflict));
  // Later entries override earlier ones, "-*" included.
  EXPECT_TRUE(enabled(parsed("stack-underflow,-*")).empty());
}

TEST(CheckOptions, Prefixes) {
  auto Stack = named("stack-");
  ASSERT_FALSE(Stack.empty());
  EXPECT_EQ(enabled(parsed("-*,stack-*")), Stack);
  auto Context = named("context-");
  ASSERT_GE(Context.size(), 4u);
  CheckOptions O = parsed("*,-context-*");
  for (const CheckInfo &C : allChecks())
    EXPECT_EQ(O.isEnabled(C.Id), !C.Name.startswith("context-"))
        << C.Name.str();
  // "stack-*" does not reach "stacksize-..." (the prefix keeps its '-').
  EXPECT_FALSE(parsed("-*,stack-*").isEnabled(CheckId::StacksizeTooSmall));
  // A prefix without the '-' does.
  EXPECT_TRUE(parsed("-*,stack*").isEnabled(CheckId::StacksizeTooSmall));
}

TEST(CheckOptions, ErrorsNameTheBadEntry) {
  EXPECT_EQ(parseError("nonsense"),
            "--checks: 'nonsense' names no check (see 'pyverify check "
            "--list-checks')");
  EXPECT_EQ(parseError("-*,-bogus"),
            "--checks: 'bogus' names no check (see 'pyverify check "
            "--list-checks')");
  EXPECT_NE(parseError("zzz-*").find("'zzz-*'"), std::string::npos);
  EXPECT_NE(parseError("stack-underflo").find("'stack-underflo'"),
            std::string::npos)
      << "ids match exactly, not by prefix";
  EXPECT_NE(parseError("STACK-UNDERFLOW").find("names no check"),
            std::string::npos)
      << "ids are case-sensitive";
}

//===----------------------------------------------------------------------===//
// Determinism
//===----------------------------------------------------------------------===//

// Functions whose findings span the passes: explicit __enter__/__exit__
// misuse (context balance), a dead handler (unreachable-code remark), and
// clean code of every shape. Copies of a few code objects with a shrunken
// co_stacksize add stack findings.
const char *const DeterminismSource = R"py(
def leak(m, c):
    m.__enter__()
    if c:
        return 1
    m.__exit__(None, None, None)

def twice(m):
    m.__enter__()
    m.__exit__(None, None, None)
    m.__exit__(None, None, None)

def exit_only(m, c):
    if c:
        m.__exit__(None, None, None)
    m.__enter__()
    m.__exit__(None, None, None)

def order(a, b):
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)
    b.__exit__(None, None, None)

def maybe(m, c):
    if c:
        m.__enter__()
    m.__exit__(None, None, None)

def try_pass():
    try:
        pass
    except ValueError:
        return 2
    return 1

def with_f(cm, g):
    with cm as x:
        g(x)

async def agen(xs, cm):
    async with cm:
        async for x in xs:
            yield [x, x, x]

def loops(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        while total < i:
            total += 1
            if total > 100:
                break
        else:
            total -= 1
    return total if total else None

def matching(v):
    match v:
        case [a, b, *rest]:
            return a + b
        case {"k": x}:
            return x
        case _:
            return None
)py";

std::string render(const Finding &F) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << getCheckName(F.Check) << ' ' << getSeverityName(F.Sev) << " @"
     << F.Offset << ": " << F.Message;
  for (const FindingNote &N : F.Notes)
    OS << " | note @" << N.Offset << ": " << N.Message;
  return OS.str();
}

/// Every finding of every code object, rendered, in order.
using AllFindings = std::vector<std::vector<std::string>>;

AllFindings verifyAll(const std::vector<const CodeObject *> &Codes,
                      const CheckOptions &O) {
  AllFindings Out;
  for (const CodeObject *C : Codes) {
    DecodedCode D = DecodedCode::decode(*C);
    std::vector<std::string> Fs;
    for (const Finding &F : verifyCode(D, O))
      Fs.push_back(render(F));
    Out.push_back(std::move(Fs));
  }
  return Out;
}

std::string renderFile(llvm::StringRef Bytes, const CheckOptions &O) {
  auto F = parseCodeFile("determinism.py", Bytes);
  if (!F) {
    ADD_FAILURE() << llvm::toString(F.takeError());
    return "";
  }
  FileReport R = verifyCodeFile(*F, O);
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << R.CodeObjects << " code objects\n";
  for (const Diagnostic &D : R.Diags) {
    printDiagnostic(OS, D);
    OS << llvm::json::Value(diagnosticToJSON(D)) << '\n';
  }
  return OS.str();
}

class Determinism : public ::testing::Test {
protected:
  void SetUp() override {
    Module = CompiledModule::compile(DeterminismSource, "determinism.py");
    ASSERT_NE(Module, nullptr);
    ASSERT_FALSE(bool(Options.parseCheckSpec("*")));
    for (const CodeObject *C : Module->all())
      Codes.push_back(C);
    // Shrunken copies: every function without an exception table, with
    // co_stacksize 1 (the table would make the input malformed instead).
    for (const CodeObject *C : Module->all())
      if (C->ExceptionTable.empty() && C->StackSize > 1) {
        auto Copy = std::make_unique<CodeObject>(*C);
        Copy->StackSize = 1;
        Codes.push_back(Copy.get());
        Shrunk.push_back(std::move(Copy));
      }
  }

  std::unique_ptr<CompiledModule> Module;
  std::vector<std::unique_ptr<CodeObject>> Shrunk;
  std::vector<const CodeObject *> Codes;
  CheckOptions Options;
};

TEST_F(Determinism, TheInputsHaveFindings) {
  // Guard against a vacuous comparison: the inputs must exercise the checks.
  AllFindings R = verifyAll(Codes, Options);
  std::set<std::string> Checks;
  for (const auto &Fs : R)
    for (const std::string &F : Fs)
      Checks.insert(F.substr(0, F.find(' ')));
  for (const char *Want :
       {"context-not-exited", "context-exited-twice", "context-exit-order",
        "context-exit-without-enter", "stacksize-too-small", "unreachable-code",
        "stacksize-larger-than-needed"})
    EXPECT_TRUE(Checks.count(Want)) << "no " << Want << " finding";
}

TEST_F(Determinism, RepeatedRunsAgree) {
  AllFindings First = verifyAll(Codes, Options);
  for (int I = 1; I < 20; ++I)
    ASSERT_EQ(verifyAll(Codes, Options), First) << "run " << I;
  std::string File = renderFile(Module->bytes(), Options);
  EXPECT_FALSE(File.empty());
  for (int I = 1; I < 20; ++I)
    ASSERT_EQ(renderFile(Module->bytes(), Options), File) << "run " << I;
}

TEST_F(Determinism, ConcurrentRunsAgree) {
  // Plain threads released together by a latch, so the four runs overlap
  // (a pool could run them one after another on one worker).
  AllFindings Want = verifyAll(Codes, Options);
  std::string WantFile = renderFile(Module->bytes(), Options);
  const unsigned NumThreads = 4, Rounds = 5;
  std::vector<std::vector<AllFindings>> Got(NumThreads);
  std::vector<std::vector<std::string>> GotFile(NumThreads);
  std::latch Start(NumThreads);
  std::vector<std::thread> Threads;
  for (unsigned T = 0; T < NumThreads; ++T)
    Threads.emplace_back([&, T] {
      Start.arrive_and_wait();
      for (unsigned I = 0; I < Rounds; ++I) {
        Got[T].push_back(verifyAll(Codes, Options));
        GotFile[T].push_back(renderFile(Module->bytes(), Options));
      }
    });
  for (std::thread &T : Threads)
    T.join();
  for (unsigned T = 0; T < NumThreads; ++T)
    for (unsigned I = 0; I < Rounds; ++I) {
      EXPECT_EQ(Got[T][I], Want) << "thread " << T << ", round " << I;
      EXPECT_EQ(GotFile[T][I], WantFile) << "thread " << T << ", round " << I;
    }
}

} // namespace
