//===- CFGTest.cpp - The CFG of real 3.11 code objects --------------------===//
//
// The functions below are compiled by python3.11 at test time (see
// CompiledCode.h); the offsets the tests name are those `dis` shows for them
// (reproduced in the comments). Checked: blocks tile the instructions, edge
// kinds of if/else, for and try/except, exception edges with their table
// entry and handler depth, MayRaise, the eval-breaker edge of a backward
// jump, reachability of dead handlers, LLVM's graph traversals over the
// GraphTraits specialisations, and computeStackDepth against co_stacksize.
//
//===----------------------------------------------------------------------===//

#include "CompiledCode.h"

#include "pyverify/Analysis/StackDepth.h"
#include "pyverify/CFG/CFG.h"
#include "pyverify/CFG/CFGGraphTraits.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/SCCIterator.h"
#include "llvm/ADT/STLExtras.h"

#include "gtest/gtest.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

using namespace pyverify;
using namespace pyverify::test;

namespace {

const char *const Source = R"py(
def ifelse(x):
    if x:
        y = 1
    else:
        y = 2
    return y

def forloop(xs):
    t = 0
    for x in xs:
        t += x
    return t

def tryexc(f):
    try:
        f()
    except ValueError:
        return 1
    return 0

def loop_in_try(n):
    try:
        while n:
            n -= 1
    except KeyError:
        pass
    return n

def loop_try_continue(xs, g):
    try:
        for x in xs:
            try:
                g(x)
            except ValueError:
                continue
    except KeyError:
        pass

def cannot_raise():
    try:
        x = 1
    except ValueError:
        x = 2
    return x

def try_pass():
    try:
        pass
    except ValueError:
        return 2
    return 1

def gen(n):
    for i in range(n):
        yield i

async def coro(a, b):
    return await a + await b

async def agen(xs):
    async for x in xs:
        yield [x, x, x]

def nested(a):
    def inner(b):
        return [a, b, (a, b, {a: b})]
    return inner
)py";

class CFGTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { Module = CompiledModule::compile(Source); }
  static void TearDownTestSuite() {
    Cache.clear();
    Module.reset();
  }

  /// The decoded code object \p QualName with its CFG (built once).
  static const CodeUnderTest &get(llvm::StringRef QualName) {
    auto It = Cache.find(QualName.str());
    if (It != Cache.end())
      return *It->second;
    const CodeObject *C = Module ? Module->code(QualName) : nullptr;
    if (!C) {
      ADD_FAILURE() << "no code object " << QualName.str();
      C = &Empty;
    }
    auto U = std::make_unique<CodeUnderTest>(*C);
    EXPECT_TRUE(U->D.isWellFormed()) << QualName.str();
    return *(Cache[QualName.str()] = std::move(U));
  }

  /// Every code object of the module.
  static std::vector<const CodeUnderTest *> everything() {
    std::vector<const CodeUnderTest *> Out;
    if (Module)
      for (const CodeObject *C : Module->all())
        Out.push_back(&get(C->QualName));
    return Out;
  }

  static std::unique_ptr<CompiledModule> Module;
  static std::map<std::string, std::unique_ptr<CodeUnderTest>> Cache;
  static const CodeObject Empty;
};

std::unique_ptr<CompiledModule> CFGTest::Module;
std::map<std::string, std::unique_ptr<CodeUnderTest>> CFGTest::Cache;
const CodeObject CFGTest::Empty;

/// The successor edges of \p B, in stored order.
std::vector<const CFGEdge *> succs(const CFG &G, const BasicBlock &B) {
  std::vector<const CFGEdge *> Out;
  for (unsigned E : B.Succs)
    Out.push_back(&G.edge(E));
  return Out;
}

/// The normal (non-exception) successor edges of \p B.
std::vector<const CFGEdge *> normalSuccs(const CFG &G, const BasicBlock &B) {
  std::vector<const CFGEdge *> Out;
  for (const CFGEdge *E : succs(G, B))
    if (!E->isException())
      Out.push_back(E);
  return Out;
}

std::vector<const CFGEdge *> exceptionSuccs(const CFG &G, const BasicBlock &B) {
  std::vector<const CFGEdge *> Out;
  for (const CFGEdge *E : succs(G, B))
    if (E->isException())
      Out.push_back(E);
  return Out;
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

TEST_F(CFGTest, ModuleCompiled) {
  ASSERT_NE(Module, nullptr);
  EXPECT_EQ(Module->all().size(), 13u);
}

TEST_F(CFGTest, BlocksTileTheInstructions) {
  for (const CodeUnderTest *U : everything()) {
    SCOPED_TRACE(U->Code->QualName.str());
    const CFG &G = U->G;
    ASSERT_GT(G.size(), 0u);
    uint32_t Next = 0;
    for (unsigned I = 0; I < G.size(); ++I) {
      const BasicBlock &B = G.block(I);
      EXPECT_EQ(B.Id, I);
      EXPECT_EQ(B.Owner, G.block(0).Owner);
      EXPECT_EQ(B.Begin, Next) << "block " << I << " leaves a gap or overlaps";
      EXPECT_LT(B.Begin, B.End) << "block " << I << " is empty";
      for (uint32_t K = B.Begin; K < B.End; ++K)
        EXPECT_EQ(G.blockOf(K), I) << "instruction " << K;
      Next = B.End;
    }
    EXPECT_EQ(Next, U->D.Insts.size());
    EXPECT_EQ(&G.entry(), &G.block(0));
    EXPECT_EQ(G.entry().Begin, 0u);
  }
}

TEST_F(CFGTest, EdgeListsAgree) {
  for (const CodeUnderTest *U : everything()) {
    SCOPED_TRACE(U->Code->QualName.str());
    const CFG &G = U->G;
    size_t NumSuccs = 0, NumPreds = 0;
    for (const BasicBlock &B : G.blocks()) {
      for (unsigned E : B.Succs)
        EXPECT_EQ(G.edge(E).Source, B.Id);
      for (unsigned E : B.Preds)
        EXPECT_EQ(G.edge(E).Target, B.Id);
      NumSuccs += B.Succs.size();
      NumPreds += B.Preds.size();
    }
    EXPECT_EQ(NumSuccs, G.edges().size());
    EXPECT_EQ(NumPreds, G.edges().size());
    for (unsigned I = 0; I < G.edges().size(); ++I) {
      const CFGEdge &E = G.edge(I);
      EXPECT_TRUE(llvm::is_contained(G.block(E.Source).Succs, I));
      EXPECT_TRUE(llvm::is_contained(G.block(E.Target).Preds, I));
      if (E.isException()) {
        ASSERT_GE(E.Entry, 0);
        ASSERT_LT(size_t(E.Entry), U->D.Table.size());
        EXPECT_EQ(U->offsetOf(G.block(E.Target)), U->D.Table[E.Entry].Target)
            << "an exception edge leads to its entry's handler";
      } else {
        EXPECT_EQ(E.Entry, -1);
        EXPECT_FALSE(E.MayRaise);
        EXPECT_FALSE(E.FromBackEdge);
      }
    }
  }
}

/// Records a failure for anything \p A and \p B (two CFGs of code with
/// \p NumInsts instructions) do not share.
void expectSameCFG(const CFG &A, const CFG &B, size_t NumInsts) {
  ASSERT_EQ(A.size(), B.size());
  for (unsigned I = 0; I < A.size(); ++I) {
    const BasicBlock &X = A.block(I), &Y = B.block(I);
    EXPECT_EQ(X.Id, Y.Id);
    EXPECT_EQ(X.Begin, Y.Begin);
    EXPECT_EQ(X.End, Y.End);
    EXPECT_EQ(X.Succs.vec(), Y.Succs.vec());
    EXPECT_EQ(X.Preds.vec(), Y.Preds.vec());
  }
  ASSERT_EQ(A.edges().size(), B.edges().size());
  for (unsigned I = 0; I < A.edges().size(); ++I) {
    const CFGEdge &X = A.edge(I), &Y = B.edge(I);
    EXPECT_EQ(X.Kind, Y.Kind);
    EXPECT_EQ(X.Source, Y.Source);
    EXPECT_EQ(X.Target, Y.Target);
    EXPECT_EQ(X.Entry, Y.Entry);
    EXPECT_EQ(X.MayRaise, Y.MayRaise);
    EXPECT_EQ(X.FromBackEdge, Y.FromBackEdge);
  }
  for (uint32_t K = 0; K < NumInsts; ++K) {
    EXPECT_EQ(A.blockOf(K), B.blockOf(K));
    EXPECT_EQ(A.coverOf(K), B.coverOf(K));
    EXPECT_EQ(A.mayRaiseAt(K), B.mayRaiseAt(K));
  }
  EXPECT_EQ(A.reachable(), B.reachable());
}

// CFG::build in an earlier CFG's storage (CodeAnalysis hands it the
// thread's last): each code object's CFG built in the storage of the one
// before it, larger or smaller, equals the one built afresh, and its blocks
// name the storage they live in.
TEST_F(CFGTest, BuiltInAnotherCFGsStorage) {
  std::unique_ptr<CFGStorage> Storage;
  for (const CodeUnderTest *U : everything()) {
    SCOPED_TRACE(U->Code->QualName.str());
    const CFGStorage *Was = Storage.get();
    CFG G = CFG::build(U->D, std::move(Storage));
    expectSameCFG(G, CFG::build(U->D), U->D.Insts.size());
    if (Was)
      EXPECT_EQ(G.block(0).Owner, Was);
    Storage = std::move(G).releaseStorage();
  }
}

// "A covered instruction that may raise always ends its block", and all the
// instructions of a block share one cover.
TEST_F(CFGTest, BlocksAreMaximalStraightLineRegions) {
  // A block shares one cover; it ends only at a jump or terminator, before
  // a jump or handler target, or where the cover changes -- never merely
  // because an instruction may raise. Checked both ways: every boundary has
  // one of those reasons, and no block holds one inside it.
  unsigned RaisingInside = 0;
  for (const CodeUnderTest *U : everything()) {
    SCOPED_TRACE(U->Code->QualName.str());
    const CFG &G = U->G;
    const InstructionStream &Insts = U->D.Insts;
    std::set<uint32_t> Targets;
    for (const Instruction &I : Insts.instructions())
      if (I.Valid && I.info().isJump())
        Targets.insert(uint32_t(I.Target));
    std::set<uint32_t> TableEdges;
    for (const ExceptionTableEntry &E : U->D.Table) {
      TableEdges.insert(E.Start);
      TableEdges.insert(E.End);
      Targets.insert(E.Target);
    }
    auto Reason = [&](uint32_t K) {
      const Instruction &Prev = Insts[K - 1];
      return Prev.info().isJump() || Prev.info().Terminator ||
             Targets.count(Insts[K].Start) || TableEdges.count(Insts[K].Start);
    };
    for (const BasicBlock &B : G.blocks()) {
      if (B.Begin > 0)
        EXPECT_TRUE(Reason(B.Begin))
            << "block " << B.Id << " at " << Insts[B.Begin].Offset
            << " starts for no reason";
      for (uint32_t K = B.Begin; K < B.End; ++K) {
        EXPECT_EQ(G.coverOf(K), G.coverOf(B.Begin))
            << "offset " << Insts[K].Offset << " in block " << B.Id;
        if (K > B.Begin)
          EXPECT_FALSE(Reason(K))
              << "offset " << Insts[K].Offset << " should start a block";
        if (K + 1 < B.End && G.coverOf(K) >= 0 && G.mayRaiseAt(K))
          ++RaisingInside;
      }
    }
  }
  EXPECT_GT(RaisingInside, 0u) << "covered raising instructions inside "
                                  "blocks (the cases under test have some)";
}

TEST_F(CFGTest, RaisePointOfAnExceptionEdge) {
  // tryexc's body block 4..22 has one exception edge; it is described as
  // unwinding from the block's last instruction that may raise.
  const CodeUnderTest &U = get("tryexc");
  const CFG &G = U.G;
  auto Ex = exceptionSuccs(G, U.blockAt(12));
  ASSERT_EQ(Ex.size(), 1u);
  uint32_t P = G.raisePointOf(*Ex[0]);
  EXPECT_TRUE(G.mayRaiseAt(P));
  const BasicBlock &B = U.blockAt(12);
  for (uint32_t K = P + 1; K < B.End; ++K)
    EXPECT_FALSE(G.mayRaiseAt(K));
}

TEST_F(CFGTest, CoverIsCPythonsLookup) {
  // tryexc's table: 4 to 22 -> 26 [0]; 26 to 44 -> 54 [1] lasti;
  // 52 to 52 -> 54 [1] lasti.
  const CodeUnderTest &U = get("tryexc");
  ASSERT_EQ(U.D.Table.size(), 3u);
  EXPECT_EQ(U.G.coverOf(U.inst(0)), -1);  // RESUME
  EXPECT_EQ(U.G.coverOf(U.inst(2)), -1);  // NOP
  EXPECT_EQ(U.G.coverOf(U.inst(12)), 0);  // CALL
  EXPECT_EQ(U.G.coverOf(U.inst(22)), 0);  // POP_TOP
  EXPECT_EQ(U.G.coverOf(U.inst(24)), -1); // JUMP_FORWARD
  EXPECT_EQ(U.G.coverOf(U.inst(26)), 1);  // PUSH_EXC_INFO
  EXPECT_EQ(U.G.coverOf(U.inst(52)), 2);  // RERAISE 0
  EXPECT_EQ(U.G.coverOf(U.inst(60)), -1);
}

//===----------------------------------------------------------------------===//
// Edge kinds
//===----------------------------------------------------------------------===//

//   0 RESUME; 2 LOAD_FAST x; 4 POP_JUMP_FORWARD_IF_FALSE (to 12)
//   6 LOAD_CONST 1; 8 STORE_FAST y; 10 JUMP_FORWARD (to 16)
//  12 LOAD_CONST 2; 14 STORE_FAST y
//  16 LOAD_FAST y; 18 RETURN_VALUE
TEST_F(CFGTest, IfElse) {
  const CodeUnderTest &U = get("ifelse");
  const CFG &G = U.G;
  ASSERT_EQ(G.size(), 4u);
  EXPECT_EQ(U.offsetOf(G.block(1)), 6u);
  EXPECT_EQ(U.offsetOf(G.block(2)), 12u);
  EXPECT_EQ(U.offsetOf(G.block(3)), 16u);

  auto S0 = succs(G, G.block(0));
  ASSERT_EQ(S0.size(), 2u);
  EXPECT_EQ(S0[0]->Kind, EdgeKind::BranchTaken);
  EXPECT_EQ(S0[0]->Target, 2u);
  EXPECT_EQ(S0[1]->Kind, EdgeKind::BranchNotTaken);
  EXPECT_EQ(S0[1]->Target, 1u);

  auto S1 = succs(G, G.block(1));
  ASSERT_EQ(S1.size(), 1u);
  EXPECT_EQ(S1[0]->Kind, EdgeKind::Jump);
  EXPECT_EQ(S1[0]->Target, 3u);

  auto S2 = succs(G, G.block(2));
  ASSERT_EQ(S2.size(), 1u);
  EXPECT_EQ(S2[0]->Kind, EdgeKind::FallThrough);
  EXPECT_EQ(S2[0]->Target, 3u);

  EXPECT_TRUE(succs(G, G.block(3)).empty()) << "RETURN_VALUE is a terminator";
  EXPECT_EQ(G.block(3).Preds.size(), 2u);
  EXPECT_TRUE(G.reachable().all());
  EXPECT_EQ(getEdgeKindName(EdgeKind::BranchTaken), "taken");
  EXPECT_EQ(getEdgeKindName(EdgeKind::BranchNotTaken), "not-taken");
}

//   0 RESUME; 2 LOAD_CONST 0; 4 STORE_FAST t; 6 LOAD_FAST xs; 8 GET_ITER
//  10 FOR_ITER (to 26)
//  12 STORE_FAST x; ... 24 JUMP_BACKWARD (to 10)
//  26 LOAD_FAST t; 28 RETURN_VALUE
TEST_F(CFGTest, ForLoop) {
  const CodeUnderTest &U = get("forloop");
  const CFG &G = U.G;
  ASSERT_EQ(G.size(), 4u);
  const BasicBlock &Head = U.blockAt(10);
  EXPECT_EQ(Head.size(), 1u) << "FOR_ITER is a jump target and a branch";

  auto SE = succs(G, G.entry());
  ASSERT_EQ(SE.size(), 1u);
  EXPECT_EQ(SE[0]->Kind, EdgeKind::FallThrough);
  EXPECT_EQ(SE[0]->Target, Head.Id);

  auto SH = succs(G, Head);
  ASSERT_EQ(SH.size(), 2u);
  EXPECT_EQ(SH[0]->Kind, EdgeKind::BranchTaken) << "exhausted: to the exit";
  EXPECT_EQ(SH[0]->Target, U.blockAt(26).Id);
  EXPECT_EQ(SH[1]->Kind, EdgeKind::BranchNotTaken) << "next item: the body";
  EXPECT_EQ(SH[1]->Target, U.blockAt(12).Id);

  auto SB = succs(G, U.blockAt(12));
  ASSERT_EQ(SB.size(), 1u);
  EXPECT_EQ(SB[0]->Kind, EdgeKind::Jump);
  EXPECT_EQ(SB[0]->Target, Head.Id);

  for (const CFGEdge &E : G.edges())
    EXPECT_FALSE(E.isException()) << "no exception table, no such edges";
}

//   0 RESUME; 2 NOP
//   4 PUSH_NULL; 6 LOAD_FAST f; 8 PRECALL 0; 12 CALL 0; 22 POP_TOP
//  24 JUMP_FORWARD (to 60)
//  26 PUSH_EXC_INFO; 28 LOAD_GLOBAL ValueError; 40 CHECK_EXC_MATCH;
//  42 POP_JUMP_FORWARD_IF_FALSE (to 52); 44 POP_TOP; 46 POP_EXCEPT;
//  48 LOAD_CONST 1; 50 RETURN_VALUE
//  52 RERAISE 0
//  54 COPY 3; 56 POP_EXCEPT; 58 RERAISE 1
//  60 LOAD_CONST 0; 62 RETURN_VALUE
// ExceptionTable:
//   4 to 22 -> 26 [0]; 26 to 44 -> 54 [1] lasti; 52 to 52 -> 54 [1] lasti
TEST_F(CFGTest, TryExceptEdges) {
  const CodeUnderTest &U = get("tryexc");
  const CFG &G = U.G;
  ASSERT_EQ(U.D.Table.size(), 3u);
  const ExceptionTableEntry &Body = U.D.Table[0];
  EXPECT_EQ(Body.Start, 4u);
  EXPECT_EQ(Body.Target, 26u);
  EXPECT_EQ(Body.Depth, 0u);
  EXPECT_FALSE(Body.Lasti);
  const ExceptionTableEntry &Handler = U.D.Table[1];
  EXPECT_EQ(Handler.Target, 54u);
  EXPECT_EQ(Handler.Depth, 1u);
  EXPECT_TRUE(Handler.Lasti);

  const BasicBlock &Except = U.blockAt(26);
  const BasicBlock &Cleanup = U.blockAt(54);
  EXPECT_EQ(U.offsetOf(Except), 26u);
  EXPECT_EQ(U.offsetOf(Cleanup), 54u);

  std::set<int32_t> EntriesSeen;
  for (const BasicBlock &B : G.blocks()) {
    int32_t Cover = G.coverOf(B.Begin);
    auto Ex = exceptionSuccs(G, B);
    SCOPED_TRACE("block at offset " + std::to_string(U.offsetOf(B)));
    if (Cover < 0) {
      EXPECT_TRUE(Ex.empty());
      continue;
    }
    ASSERT_EQ(Ex.size(), 1u) << "one edge to the covering entry's handler";
    EXPECT_EQ(Ex[0]->Entry, Cover);
    EXPECT_FALSE(Ex[0]->FromBackEdge);
    EXPECT_EQ(Ex[0]->Target, Cover == 0 ? Except.Id : Cleanup.Id);
    EntriesSeen.insert(Cover);
  }
  EXPECT_EQ(EntriesSeen, (std::set<int32_t>{0, 1, 2}));

  // The CALL may raise: its block's edge says so.
  auto CallEx = exceptionSuccs(G, U.blockAt(12));
  ASSERT_EQ(CallEx.size(), 1u);
  EXPECT_TRUE(CallEx[0]->MayRaise);
  EXPECT_EQ(U.blockAt(4).Id, U.blockAt(12).Id)
      << "the try body is one block: CALL does not end it";

  // The handlers are entered at depth + lasti + 1, whatever the source.
  auto Depth = computeStackDepth(G);
  ASSERT_TRUE(bool(Depth)) << llvm::toString(Depth.takeError());
  EXPECT_TRUE(Depth->BlockIn[Except.Id] == DepthValue::of(1));
  EXPECT_TRUE(Depth->BlockIn[Cleanup.Id] == DepthValue::of(3));
  EXPECT_EQ(Depth->Before[U.inst(28)], 2) << "PUSH_EXC_INFO pushes one";
  EXPECT_TRUE(Depth->Conflicts.empty());
  EXPECT_TRUE(Depth->Underflows.empty());
}

//   0 RESUME; 2 NOP; 4 LOAD_CONST 1; 6 STORE_FAST x; 8 JUMP_FORWARD (to 46)
//  10 PUSH_EXC_INFO ...
// ExceptionTable: 4 to 6 -> 10 [0]; ...
TEST_F(CFGTest, BlockThatCannotRaise) {
  const CodeUnderTest &U = get("cannot_raise");
  const CFG &G = U.G;
  const BasicBlock &B = U.blockAt(4);
  EXPECT_EQ(B.End, U.inst(8)) << "the entry's end splits the block";
  auto Ex = exceptionSuccs(G, B);
  ASSERT_EQ(Ex.size(), 1u) << "the covered block still has its edge";
  EXPECT_EQ(Ex[0]->Entry, 0);
  EXPECT_FALSE(Ex[0]->MayRaise) << "LOAD_CONST and STORE_FAST cannot raise";
  EXPECT_EQ(Ex[0]->Target, U.blockAt(10).Id);

  // The handler is reachable over all edges, but not by a raise.
  const BasicBlock &H = U.blockAt(10);
  EXPECT_TRUE(G.reachable().test(H.Id));
  EXPECT_FALSE(G.reachableFollowing(true).test(H.Id));
  EXPECT_TRUE(G.reachableFollowing(true).test(U.blockAt(46).Id));
  EXPECT_EQ(G.reachableFollowing(false), G.reachable());
}

//   0 RESUME; 2 NOP; 4 JUMP_FORWARD (to 40)
//   6 PUSH_EXC_INFO ... 38 RERAISE 1      (no entry covers anything
//  40 LOAD_CONST 1; 42 RETURN_VALUE         before 6)
TEST_F(CFGTest, DeadHandlerIsUnreachable) {
  const CodeUnderTest &U = get("try_pass");
  const CFG &G = U.G;
  for (const BasicBlock &B : G.blocks()) {
    uint32_t Off = U.offsetOf(B);
    bool Live = Off < 6 || Off >= 40;
    EXPECT_EQ(G.reachable().test(B.Id), Live) << "block at " << Off;
    EXPECT_EQ(G.reachableFollowing(true).test(B.Id), Live)
        << "block at " << Off;
  }
  // The dead handler's blocks still have their own edges (its cleanup).
  auto Ex = exceptionSuccs(G, U.blockAt(6));
  ASSERT_EQ(Ex.size(), 1u);
  EXPECT_EQ(Ex[0]->Target, U.blockAt(34).Id);
}

// loop_in_try: the backward conditional jump at 20 (to 8) is covered by the
// same entry as its target - 1 (4 to 20 -> 24 [0]): one exception edge.
TEST_F(CFGTest, BackwardJumpUnderItsOwnEntry) {
  const CodeUnderTest &U = get("loop_in_try");
  const CFG &G = U.G;
  for (const CFGEdge &E : G.edges())
    EXPECT_FALSE(E.FromBackEdge);
  const BasicBlock &B = U.blockAt(20);
  EXPECT_EQ(B.last(), U.inst(20));
  auto N = normalSuccs(G, B);
  ASSERT_EQ(N.size(), 2u);
  EXPECT_EQ(N[0]->Kind, EdgeKind::BranchTaken);
  EXPECT_EQ(N[0]->Target, U.blockAt(8).Id);
  EXPECT_EQ(N[1]->Kind, EdgeKind::BranchNotTaken);
  auto Ex = exceptionSuccs(G, B);
  ASSERT_EQ(Ex.size(), 1u);
  EXPECT_EQ(Ex[0]->Entry, 0);
  EXPECT_TRUE(Ex[0]->MayRaise) << "the eval breaker runs on the back edge";
  EXPECT_EQ(Ex[0]->Target, U.blockAt(24).Id);
}

// loop_try_continue, a for loop in a try with a try inside the loop:
//   4 LOAD_FAST xs; 6 GET_ITER; 8 FOR_ITER (to 70) ...
//  36 JUMP_BACKWARD (to 8)         (covered by 36 to 36 -> 74 [0], entry 2)
//  58 POP_EXCEPT; 60 JUMP_BACKWARD (to 8)   (58 to 60 -> 74 [0], entry 4)
//  74 PUSH_EXC_INFO ...            (the outer handler)
// ExceptionTable: 4 to 10 -> 74 [0] (entry 0); ...
// The eval breaker of each JUMP_BACKWARD looks the handler up at target - 1
// (offset 6, entry 0), not at the jump itself: a second edge, FromBackEdge.
TEST_F(CFGTest, BackEdgeExceptionEdgeForLoopInsideTry) {
  const CodeUnderTest &U = get("loop_try_continue");
  const CFG &G = U.G;
  ASSERT_GE(U.D.Table.size(), 5u);
  EXPECT_EQ(U.D.Table[0].Start, 4u);
  EXPECT_EQ(U.D.Table[0].Target, 74u);
  const BasicBlock &Outer = U.blockAt(74);

  for (uint32_t JumpAt : {36u, 60u}) {
    SCOPED_TRACE("JUMP_BACKWARD at " + std::to_string(JumpAt));
    const BasicBlock &B = U.blockAt(JumpAt);
    ASSERT_EQ(B.last(), U.inst(JumpAt));
    ASSERT_TRUE(U.D.Insts[B.last()].is(Opcode::JUMP_BACKWARD));
    int32_t Own = G.coverOf(B.last());
    ASSERT_GE(Own, 0);
    EXPECT_NE(Own, 0);

    auto Ex = exceptionSuccs(G, B);
    ASSERT_EQ(Ex.size(), 2u);
    EXPECT_EQ(Ex[0]->Entry, Own);
    EXPECT_FALSE(Ex[0]->FromBackEdge);
    // Nothing in the block raises under its own cover: an unconditional
    // backward jump raises only from the eval breaker (the other entry), and
    // POP_EXCEPT cannot raise.
    EXPECT_FALSE(Ex[0]->MayRaise);
    EXPECT_EQ(Ex[1]->Entry, 0);
    EXPECT_TRUE(Ex[1]->FromBackEdge);
    EXPECT_TRUE(Ex[1]->MayRaise);
    EXPECT_EQ(Ex[1]->Target, Outer.Id);
  }
  EXPECT_EQ(U.blockAt(36).size(), 1u) << "its own entry starts at 36";

  // Normal edges of the jump: back to the FOR_ITER.
  auto N = normalSuccs(G, U.blockAt(60));
  ASSERT_EQ(N.size(), 1u);
  EXPECT_EQ(N[0]->Kind, EdgeKind::Jump);
  EXPECT_EQ(N[0]->Target, U.blockAt(8).Id);
}

TEST_F(CFGTest, GeneratorStartsEmpty) {
  //   0 RETURN_GENERATOR; 2 POP_TOP; 4 RESUME 0 ... 42 YIELD_VALUE; 44 RESUME 1
  const CodeUnderTest &U = get("gen");
  EXPECT_TRUE(U.Code->isGeneratorLike());
  EXPECT_EQ(entryStackDepth(*U.Code), 0);
  auto S = succs(U.G, U.G.entry());
  ASSERT_FALSE(S.empty()) << "RETURN_GENERATOR falls through";
  EXPECT_EQ(S[0]->Kind, EdgeKind::FallThrough);
  auto Depth = computeStackDepth(U.G);
  ASSERT_TRUE(bool(Depth)) << llvm::toString(Depth.takeError());
  EXPECT_TRUE(Depth->BlockIn[0] == DepthValue::of(0));
  // dis.stack_effect(RETURN_GENERATOR) is 0 in 3.11 (its compiler counts
  // the value in the start depth); the frame, resumed by its generator,
  // gets the value sent pushed, which the next POP_TOP pops: the table
  // counts it at RETURN_GENERATOR, so the frame starts empty.
  EXPECT_EQ(Depth->Before[U.inst(0)], 0);
  EXPECT_EQ(Depth->Before[U.inst(2)], 1);
  EXPECT_EQ(Depth->Before[U.inst(4)], 0);
  EXPECT_EQ(entryStackDepth(*get("ifelse").Code), 0);
}

//===----------------------------------------------------------------------===//
// Stack depth against co_stacksize
//===----------------------------------------------------------------------===//

TEST_F(CFGTest, MaxDepthIsCoStacksize) {
  unsigned Checked = 0;
  for (const CodeUnderTest *U : everything()) {
    SCOPED_TRACE(U->Code->QualName.str());
    auto Depth = computeStackDepth(U->G);
    ASSERT_TRUE(bool(Depth)) << llvm::toString(Depth.takeError());
    if (U->Code->QualName == "try_pass") {
      // CPython sized the frame while the SETUP_FINALLY pseudo-instruction
      // still led to the handler it then left unreachable: co_stacksize is
      // 4, what the reachable code needs is 1.
      EXPECT_EQ(Depth->MaxDepth, 1);
      EXPECT_EQ(U->Code->StackSize, 4);
    } else {
      EXPECT_EQ(Depth->MaxDepth, U->Code->StackSize);
    }
    EXPECT_TRUE(Depth->Conflicts.empty());
    EXPECT_TRUE(Depth->Underflows.empty());
    EXPECT_TRUE(Depth->BlockIn[0] == DepthValue::of(entryStackDepth(*U->Code)));
    // The maximum is reached where the result says.
    uint32_t At = Depth->MaxDepthInst;
    ASSERT_LT(At, U->D.Insts.size());
    EXPECT_TRUE(Depth->Before[At] == Depth->MaxDepth ||
                Depth->After[At] == Depth->MaxDepth ||
                U->D.Insts[At].info().isJump());
    ++Checked;
  }
  EXPECT_EQ(Checked, 13u);
  // Spot values, from co_stacksize.
  EXPECT_EQ(get("gen").Code->StackSize, 3);
  EXPECT_EQ(get("coro").Code->StackSize, 3);
  EXPECT_EQ(get("agen").Code->StackSize, 4);
  EXPECT_EQ(get("nested.<locals>.inner").Code->StackSize, 6);
}

TEST_F(CFGTest, StackDepthPerInstruction) {
  // forloop: 6 LOAD_FAST xs (0 -> 1); 8 GET_ITER (1 -> 1); 10 FOR_ITER (1 ->
  // 2 into the body, 0 at the exit); 24 JUMP_BACKWARD at 1.
  const CodeUnderTest &U = get("forloop");
  auto Depth = computeStackDepth(U.G);
  ASSERT_TRUE(bool(Depth)) << llvm::toString(Depth.takeError());
  EXPECT_EQ(Depth->Before[U.inst(6)], 0);
  EXPECT_EQ(Depth->Before[U.inst(10)], 1);
  EXPECT_EQ(Depth->Before[U.inst(12)], 2);
  EXPECT_EQ(Depth->After[U.inst(10)], 0) << "the lower of the two edges";
  EXPECT_EQ(Depth->Before[U.inst(24)], 1);
  EXPECT_EQ(Depth->Before[U.inst(26)], 0);
  EXPECT_EQ(Depth->MaxDepth, 3);
}

TEST_F(CFGTest, UnreachableCodeHasNoDepth) {
  const CodeUnderTest &U = get("try_pass");
  auto Depth = computeStackDepth(U.G);
  ASSERT_TRUE(bool(Depth)) << llvm::toString(Depth.takeError());
  EXPECT_TRUE(Depth->BlockIn[U.blockAt(6).Id].isBottom());
  EXPECT_FALSE(Depth->Before[U.inst(6)].has_value());
  EXPECT_EQ(Depth->Before[U.inst(40)], 0);
}

//===----------------------------------------------------------------------===//
// GraphTraits: LLVM's traversals
//===----------------------------------------------------------------------===//

template <typename Range> std::vector<unsigned> ids(Range &&R) {
  std::vector<unsigned> Out;
  for (const BasicBlock *B : R)
    Out.push_back(B->Id);
  return Out;
}

std::set<unsigned> reachableSet(const CFG &G) {
  std::set<unsigned> Out;
  for (unsigned I = 0; I < G.size(); ++I)
    if (G.reachable().test(I))
      Out.insert(I);
  return Out;
}

/// Blocks from which \p To can be reached, by brute force.
std::set<unsigned> reaching(const CFG &G, unsigned To) {
  std::set<unsigned> Out{To};
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const CFGEdge &E : G.edges())
      if (Out.count(E.Target) && Out.insert(E.Source).second)
        Changed = true;
  }
  return Out;
}

TEST_F(CFGTest, TraversalsVisitEveryReachableBlockOnce) {
  for (const CodeUnderTest *U : everything()) {
    SCOPED_TRACE(U->Code->QualName.str());
    const CFG *G = &U->G;
    std::set<unsigned> Want = reachableSet(*G);

    auto DF = ids(llvm::depth_first(G));
    auto PO = ids(llvm::post_order(G));
    llvm::ReversePostOrderTraversal<const CFG *> RPOT(G);
    auto RPO = ids(llvm::make_range(RPOT.begin(), RPOT.end()));
    for (const auto *Order : {&DF, &PO, &RPO}) {
      EXPECT_EQ(Order->size(), Want.size()) << "a block visited twice";
      EXPECT_EQ(std::set<unsigned>(Order->begin(), Order->end()), Want);
    }
    ASSERT_FALSE(RPO.empty());
    EXPECT_EQ(RPO.front(), 0u);
    EXPECT_EQ(DF.front(), 0u);
    EXPECT_EQ(PO.back(), 0u);
    EXPECT_EQ(std::vector<unsigned>(PO.rbegin(), PO.rend()), RPO);

    // Strongly connected components partition the reachable blocks.
    std::set<unsigned> InSCC;
    for (auto I = llvm::scc_begin(G); !I.isAtEnd(); ++I)
      for (const BasicBlock *B : *I)
        EXPECT_TRUE(InSCC.insert(B->Id).second);
    EXPECT_EQ(InSCC, Want);

    // Every node, reachable or not, through nodes().
    EXPECT_EQ(llvm::size(llvm::nodes(G)), G->size());
    EXPECT_EQ(llvm::GraphTraits<const CFG *>::size(G), G->size());
  }
}

TEST_F(CFGTest, InverseTraversalsWalkPredecessors) {
  for (const CodeUnderTest *U : everything()) {
    SCOPED_TRACE(U->Code->QualName.str());
    const CFG &G = U->G;
    for (const BasicBlock &B : G.blocks()) {
      auto Inv = ids(llvm::inverse_depth_first(&B));
      EXPECT_EQ(std::set<unsigned>(Inv.begin(), Inv.end()), reaching(G, B.Id))
          << "from block " << B.Id;
      auto InvPO = ids(llvm::inverse_post_order(&B));
      EXPECT_EQ(InvPO.size(), Inv.size());
    }
    // From the whole graph: the entry has no predecessors in these
    // functions (nothing jumps to offset 0).
    auto FromEntry = ids(llvm::depth_first(llvm::Inverse<const CFG *>(&G)));
    EXPECT_EQ(FromEntry, std::vector<unsigned>{0});
  }
}

TEST_F(CFGTest, ChildIteratorsExposeTheirEdge) {
  const CodeUnderTest &U = get("tryexc");
  using GT = llvm::GraphTraits<const CFG *>;
  using IGT = llvm::GraphTraits<llvm::Inverse<const CFG *>>;
  for (const BasicBlock &B : U.G.blocks()) {
    unsigned K = 0;
    for (auto I = GT::child_begin(&B), E = GT::child_end(&B); I != E;
         ++I, ++K) {
      EXPECT_EQ(&I.edge(), &U.G.edge(B.Succs[K]));
      EXPECT_EQ((*I)->Id, I.edge().Target);
    }
    EXPECT_EQ(K, B.Succs.size());
    K = 0;
    for (auto I = IGT::child_begin(&B), E = IGT::child_end(&B); I != E;
         ++I, ++K) {
      EXPECT_EQ(&I.edge(), &U.G.edge(B.Preds[K]));
      EXPECT_EQ((*I)->Id, I.edge().Source);
    }
    EXPECT_EQ(K, B.Preds.size());
  }
}

TEST_F(CFGTest, LoopsAreNonTrivialSCCs) {
  auto CyclicSCCs = [](const CFG &G) {
    std::vector<std::set<unsigned>> Out;
    for (auto I = llvm::scc_begin(&G); !I.isAtEnd(); ++I)
      if (I.hasCycle()) {
        std::set<unsigned> S;
        for (const BasicBlock *B : *I)
          S.insert(B->Id);
        Out.push_back(S);
      }
    return Out;
  };
  EXPECT_TRUE(CyclicSCCs(get("ifelse").G).empty());

  const CodeUnderTest &F = get("forloop");
  auto Loops = CyclicSCCs(F.G);
  ASSERT_EQ(Loops.size(), 1u);
  EXPECT_EQ(Loops[0], (std::set<unsigned>{F.blockAt(10).Id, F.blockAt(12).Id}));
}

//===----------------------------------------------------------------------===//
// Determinism and ownership
//===----------------------------------------------------------------------===//

TEST_F(CFGTest, BuildIsDeterministic) {
  for (const CodeUnderTest *U : everything()) {
    SCOPED_TRACE(U->Code->QualName.str());
    expectSameCFG(CFG::build(U->D), U->G, U->D.Insts.size());
  }
}

TEST_F(CFGTest, BlockPointersSurviveMovingTheCFG) {
  const CodeUnderTest &U = get("forloop");
  CFG G = CFG::build(U.D);
  const BasicBlock *Entry = &G.entry();
  auto Before = ids(llvm::depth_first(static_cast<const CFG *>(&G)));
  CFG Moved = std::move(G);
  EXPECT_EQ(&Moved.entry(), Entry);
  EXPECT_EQ(Entry->Owner, Moved.entry().Owner);
  // Traversal from a block pointer taken before the move still works.
  EXPECT_EQ(ids(llvm::depth_first(Entry)), Before);
  EXPECT_EQ(ids(llvm::depth_first(static_cast<const CFG *>(&Moved))), Before);
}

} // namespace
