//===- DepthSolverTest.cpp - The one-sweep depth solver is the fixpoint ---===//
//
// computeStackDepth() takes one sweep over the blocks in code order when
// that reaches the fixpoint, and falls back to the worklist engine where it
// cannot know (an edge back to a swept block that changes it, a block reached
// at two depths). This compares the two solvers field by field:
//
//   * on every code object of large stdlib modules, compiled at test time
//     (loops, handlers, with blocks, generators, comprehensions), and
//   * on broken copies of them: one instruction without caches or argument
//     at a time replaced by NOP, POP_TOP or PUSH_NULL, which moves the depth
//     of everything after it, so that joins disagree (conflicts), loop back
//     edges bring new depths and stacks underflow -- the cases the sweep
//     must hand to the engine.
//
//===----------------------------------------------------------------------===//

#include "CompiledCode.h"
#include "Opcodes311.h"
#include "pyverify/Analysis/StackDepth.h"

#include "llvm/ADT/StringExtras.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace pyverify;
using namespace pyverify::test311;
using namespace pyverify::test;

namespace {

/// Records a failure for any field of \p A and \p B that differs.
void expectSameDepths(const StackDepthResult &A, const StackDepthResult &B) {
  EXPECT_EQ(A.Before, B.Before);
  EXPECT_EQ(A.After, B.After);
  EXPECT_EQ(A.MaxDepth, B.MaxDepth);
  EXPECT_EQ(A.MaxDepthInst, B.MaxDepthInst);
  EXPECT_TRUE(A.BlockIn == B.BlockIn);
  EXPECT_EQ(A.Underflows, B.Underflows);
  EXPECT_EQ(A.Conflicts, B.Conflicts);
}

/// Both solvers on \p D (well-formed); records a failure for any field
/// that differs. Each solver also runs in the buffers of its previous
/// result (computeStackDepth's Storage, as CodeAnalysis hands it the
/// thread's last one: a larger object's, or one with conflicts and
/// underflows), which must change nothing. Returns the result, for
/// counting.
std::optional<StackDepthResult> compareSolvers(const DecodedCode &D) {
  static StackDepthResult LastSweep, LastWork;
  CFG G = CFG::build(D);
  auto Sweep = computeStackDepth(G, DepthSolver::Auto);
  auto Work = computeStackDepth(G, DepthSolver::Worklist);
  auto SweepReused =
      computeStackDepth(G, DepthSolver::Auto, std::move(LastSweep));
  auto WorkReused =
      computeStackDepth(G, DepthSolver::Worklist, std::move(LastWork));
  EXPECT_EQ(bool(Sweep), bool(Work));
  EXPECT_EQ(bool(Sweep), bool(SweepReused));
  EXPECT_EQ(bool(Work), bool(WorkReused));
  if (!Sweep || !Work || !SweepReused || !WorkReused) {
    llvm::consumeError(Sweep.takeError());
    llvm::consumeError(Work.takeError());
    llvm::consumeError(SweepReused.takeError());
    llvm::consumeError(WorkReused.takeError());
    return std::nullopt;
  }
  expectSameDepths(*Sweep, *Work);
  expectSameDepths(*SweepReused, *Sweep);
  expectSameDepths(*WorkReused, *Work);
  EXPECT_EQ(SweepReused->Visits, Sweep->Visits);
  EXPECT_EQ(WorkReused->Visits, Work->Visits);
  LastSweep = std::move(*SweepReused);
  LastWork = std::move(*WorkReused);
  return std::move(*Sweep);
}

/// A stdlib module compiled by python3.11 at test time (by path: the source
/// is too long for compile_source.py's command line). Its root code object,
/// kept alive by the returned Value.
std::optional<Value> compileStdlib(llvm::StringRef Name) {
  std::string Path = "/usr/lib/python3.11/" + Name.str();
  std::string Hex = runCommand(
      std::string("PYTHONHASHSEED=0 ") + PYVERIFY_PYTHON +
      " -c 'import marshal, sys; p = sys.argv[1]; "
      "sys.stdout.write(marshal.dumps(compile(open(p).read(), p, \"exec\"))"
      ".hex())' " +
      Path);
  auto V = readMarshal(llvm::fromHex(llvm::StringRef(Hex).trim()));
  if (!V || !V->getCode()) {
    ADD_FAILURE() << "cannot compile " << Path << ": "
                  << (V ? "not code" : llvm::toString(V.takeError()));
    return std::nullopt;
  }
  return std::move(*V);
}

/// Every code object under \p Root, in pre-order.
std::vector<const CodeObject *> allCode(const Value &Root) {
  std::vector<const CodeObject *> Out;
  forEachCodeObject(*Root.getCode(),
                    [&](const CodeObject &C, unsigned) { Out.push_back(&C); });
  return Out;
}

const char *const Modules[] = {"inspect.py", "asyncio/base_events.py",
                               "contextlib.py", "tarfile.py"};

TEST(DepthSolver, SameResultOnStdlibCode) {
  unsigned Objects = 0;
  for (const char *Name : Modules) {
    auto M = compileStdlib(Name);
    ASSERT_TRUE(M);
    for (const CodeObject *C : allCode(*M)) {
      SCOPED_TRACE(std::string(Name) + ":" + C->QualName.str());
      DecodedCode D = DecodedCode::decode(*C);
      ASSERT_TRUE(D.isWellFormed());
      auto R = compareSolvers(D);
      ASSERT_TRUE(R);
      EXPECT_TRUE(R->Conflicts.empty());
      EXPECT_EQ(R->MaxDepth, C->StackSize);
      ++Objects;
    }
  }
  EXPECT_GT(Objects, 500u);
}

TEST(DepthSolver, SameResultOnBrokenCode) {
  unsigned Mutants = 0, WithConflicts = 0, WithUnderflows = 0;
  const uint8_t Replacements[] = {byteOf(Opcode::NOP), byteOf(Opcode::POP_TOP),
                                  byteOf(Opcode::PUSH_NULL)};
  for (const char *Name : {"contextlib.py", "asyncio/base_events.py"}) {
    auto M = compileStdlib(Name);
    ASSERT_TRUE(M);
    for (const CodeObject *C : allCode(*M)) {
      DecodedCode Orig = DecodedCode::decode(*C);
      // Every third plain instruction of each code object, to bound the
      // test's time; the three replacements at each.
      unsigned Seen = 0;
      for (const Instruction &In : Orig.Insts.instructions()) {
        if (In.NumPrefixes || In.units() != 1 || In.info().hasArg() ||
            Seen++ % 3)
          continue;
        for (uint8_t Op : Replacements) {
          if (Op == In.OpByte)
            continue;
          CodeObject Broken = *C;
          std::string Bytes = Broken.Code.str();
          Bytes[In.Offset] = char(Op); // a 3.11 byte
          Broken.Code = Bytes;
          DecodedCode D = DecodedCode::decode(Broken);
          if (!D.isWellFormed())
            continue;
          SCOPED_TRACE(std::string(Name) + ":" + C->QualName.str() + " @" +
                       std::to_string(In.Offset) + " -> " + std::to_string(Op));
          auto R = compareSolvers(D);
          ASSERT_TRUE(R);
          ++Mutants;
          WithConflicts += !R->Conflicts.empty();
          WithUnderflows += !R->Underflows.empty();
        }
      }
    }
  }
  // The broken copies reach the engine's side of the solver.
  EXPECT_GT(Mutants, 1000u);
  EXPECT_GT(WithConflicts, 100u);
  EXPECT_GT(WithUnderflows, 100u);
}

} // namespace
