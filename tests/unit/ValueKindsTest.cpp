//===- ValueKindsTest.cpp - NULL on the stack, unbound locals -------------===//
//
// Hand-assembled code of each version (opcode numbers and caches from that
// version's table): a call laid out for another version, a NULL popped, a
// CALL_FUNCTION_EX without its slots, 3.12+'s unchecked LOAD_FAST of an
// unbound local -- each an error, and the correct layout clean. The stdlib
// corpora of 3.11, 3.12 and 3.13 are the no-false-alarm oracle
// (tests/corpus/test_stack_corpus.py runs `check` on each).
//
//===----------------------------------------------------------------------===//

#include "AssembledCode.h"

#include "pyverify/Analysis/ValueKinds.h"
#include "pyverify/Bytecode/VersionOpcodes.h"
#include "pyverify/Check/Verifier.h"

#include "gtest/gtest.h"

#include <string>
#include <utility>
#include <vector>

using namespace pyverify;
using namespace pyverify::test;

namespace {

/// Assembles (name, arg) pairs as \p V's bytecode, caches zeroed.
CodeObject assemble(PythonVersion V,
                    std::vector<std::pair<llvm::StringRef, uint8_t>> Ops,
                    int32_t StackSize, std::vector<std::string> Locals = {},
                    int32_t ArgCount = 0) {
  return test::assembleCode(V, Ops, {StackSize, std::move(Locals), ArgCount});
}

std::vector<std::string> checksOf(const CodeObject &C) {
  std::vector<std::string> Out;
  for (const Finding &F : verifyCode(DecodedCode::decode(C), CheckOptions()))
    Out.push_back(getCheckInfo(F.Check).Name.str() + ": " + F.Message);
  return Out;
}

bool has(const std::vector<std::string> &Fs, llvm::StringRef Check,
         llvm::StringRef Text = "") {
  for (const std::string &F : Fs)
    if (llvm::StringRef(F).startswith(Check) &&
        llvm::StringRef(F).contains(Text))
      return true;
  return false;
}

TEST(ValueKinds, CallLayoutOfAnotherVersion) {
  // 3.13: the callable first, its NULL after (LOAD_GLOBAL g + NULL).
  auto Good13 = checksOf(assemble(
      V313,
      {{"RESUME", 0}, {"LOAD_GLOBAL", 1}, {"CALL", 0}, {"RETURN_VALUE", 0}},
      2));
  EXPECT_TRUE(Good13.empty()) << (Good13.empty() ? "" : Good13[0]);
  // 3.11's and 3.12's layout given to 3.13: the callable slot is NULL.
  auto Bad13 = checksOf(assemble(V313,
                                 {{"RESUME", 0},
                                  {"PUSH_NULL", 0},
                                  {"LOAD_GLOBAL", 0},
                                  {"CALL", 0},
                                  {"RETURN_VALUE", 0}},
                                 2));
  EXPECT_TRUE(has(Bad13, "null-stack-value",
                  "CPython 3.13 calls take the callable first"))
      << (Bad13.empty() ? "" : Bad13[0]);
  // 3.12: NULL first is right; 3.13's order is the error.
  auto Good12 = checksOf(assemble(V312,
                                  {{"RESUME", 0},
                                   {"PUSH_NULL", 0},
                                   {"LOAD_GLOBAL", 0},
                                   {"CALL", 0},
                                   {"RETURN_VALUE", 0}},
                                  2));
  EXPECT_TRUE(Good12.empty()) << (Good12.empty() ? "" : Good12[0]);
  auto Bad12 = checksOf(assemble(V312,
                                 {{"RESUME", 0},
                                  {"LOAD_GLOBAL", 0},
                                  {"PUSH_NULL", 0},
                                  {"CALL", 0},
                                  {"RETURN_VALUE", 0}},
                                 2));
  EXPECT_TRUE(
      has(Bad12, "null-stack-value", "is 3.13's, 3.14's and 3.15's layout"))
      << (Bad12.empty() ? "" : Bad12[0]);
}

TEST(ValueKinds, CallFunctionExWithoutItsSlots) {
  // 3.12: NULL, func, args. Without the NULL the stack underflows; with a
  // NULL where the function goes, the function is NULL.
  auto Good = checksOf(assemble(V312,
                                {{"RESUME", 0},
                                 {"PUSH_NULL", 0},
                                 {"LOAD_GLOBAL", 0},
                                 {"LOAD_FAST", 0},
                                 {"CALL_FUNCTION_EX", 0},
                                 {"RETURN_VALUE", 0}},
                                3, {"args"}, 1));
  EXPECT_TRUE(Good.empty()) << (Good.empty() ? "" : Good[0]);
  auto NoNull = checksOf(assemble(V312,
                                  {{"RESUME", 0},
                                   {"LOAD_GLOBAL", 0},
                                   {"LOAD_FAST", 0},
                                   {"CALL_FUNCTION_EX", 0},
                                   {"RETURN_VALUE", 0}},
                                  3, {"args"}, 1));
  EXPECT_TRUE(has(NoNull, "stack-underflow"));
  auto NullFunc = checksOf(assemble(V313,
                                    {{"RESUME", 0},
                                     {"PUSH_NULL", 0},
                                     {"PUSH_NULL", 0},
                                     {"LOAD_FAST", 0},
                                     {"CALL_FUNCTION_EX", 0},
                                     {"RETURN_VALUE", 0}},
                                    3, {"args"}, 1));
  EXPECT_TRUE(
      has(NullFunc, "null-stack-value", "takes the value it pops first"))
      << (NullFunc.empty() ? "" : NullFunc[0]);
}

TEST(ValueKinds, NullPoppedOrReturned) {
  auto Ret = checksOf(assemble(
      V311, {{"RESUME", 0}, {"PUSH_NULL", 0}, {"RETURN_VALUE", 0}}, 1));
  EXPECT_TRUE(has(Ret, "null-stack-value", "RETURN_VALUE"));
  auto Copy = checksOf(assemble(V312,
                                {{"RESUME", 0},
                                 {"PUSH_NULL", 0},
                                 {"COPY", 1},
                                 {"POP_TOP", 0},
                                 {"POP_TOP", 0},
                                 {"RETURN_CONST", 0}},
                                2));
  EXPECT_TRUE(has(Copy, "null-stack-value", "copies a stack slot"));
}

TEST(ValueKinds, UncheckedLoadOfAnUnboundLocal) {
  // x is not a parameter: 3.12's LOAD_FAST reads NULL; LOAD_FAST_CHECK
  // raises UnboundLocalError (no finding outside a handler); 3.11's
  // LOAD_FAST checks.
  std::vector<std::pair<llvm::StringRef, uint8_t>> Ops = {
      {"RESUME", 0}, {"LOAD_FAST", 0}, {"RETURN_VALUE", 0}};
  EXPECT_TRUE(has(checksOf(assemble(V312, Ops, 1, {"x"})), "local-unbound",
                  "LOAD_FAST does not check"));
  EXPECT_TRUE(has(checksOf(assemble(V313, Ops, 1, {"x"})), "local-unbound"));
  EXPECT_TRUE(checksOf(assemble(V311, Ops, 1, {"x"})).empty());
  EXPECT_TRUE(checksOf(assemble(V312, Ops, 1, {"x"}, /*ArgCount=*/1)).empty());
  Ops[1].first = "LOAD_FAST_CHECK";
  EXPECT_TRUE(checksOf(assemble(V312, Ops, 1, {"x"})).empty());
  // Bound on one path only: a possible finding.
  auto Maybe = checksOf(assemble(V312,
                                 {{"RESUME", 0},
                                  {"LOAD_FAST", 0},
                                  {"POP_JUMP_IF_FALSE", 2},
                                  {"LOAD_CONST", 0},
                                  {"STORE_FAST", 1},
                                  {"LOAD_FAST", 1},
                                  {"RETURN_VALUE", 0}},
                                 1, {"c", "y"}, 1));
  EXPECT_TRUE(has(Maybe, "local-unbound", "unbound on some paths"))
      << (Maybe.empty() ? "" : Maybe[0]);
  // LOAD_FAST_AND_CLEAR saves and clears, STORE_FAST restores: clean.
  auto Saved = checksOf(assemble(V312,
                                 {{"RESUME", 0},
                                  {"LOAD_FAST_AND_CLEAR", 0},
                                  {"LOAD_CONST", 0},
                                  {"STORE_FAST", 0},
                                  {"STORE_FAST", 0},
                                  {"LOAD_FAST", 0},
                                  {"RETURN_VALUE", 0}},
                                 2, {"x"}, 1));
  EXPECT_TRUE(Saved.empty()) << (Saved.empty() ? "" : Saved[0]);
}

// ValueState copies and moves only the slots and locals held (16-byte
// chunks inline, SmallVector's own on the heap): every size on either side
// of the inline capacity comes out equal, whatever the target held.
TEST(ValueKinds, StateCopiesAndMovesKeepEverySlot) {
  auto Make = [](size_t Depth, size_t Locals, uint32_t Seed) {
    ValueState S = ValueState::reached(Depth, Locals);
    for (size_t K = 0; K < Depth; ++K)
      S.Stack[K] = {SlotKinds(1u << ((K + Seed) % 11)), uint32_t(K + Seed)};
    for (size_t K = 0; K < Locals; ++K)
      S.Locals[K] = SlotKinds(1u << ((K * 3 + Seed) % 11));
    S.Handler = Seed & 1;
    return S;
  };
  // Both sides of each inline capacity (ValueState::InlineSlots for the
  // stack, InlineLocals for the locals).
  static_assert(ValueState::InlineSlots == 24 &&
                ValueState::InlineLocals == 64);
  const size_t Sizes[] = {0, 1, 2, 7, 8, 9, 23, 24, 25, 40, 63, 64, 65, 90};
  for (size_t D : Sizes)
    for (size_t L : Sizes) {
      ValueState S = Make(D, L, uint32_t(D + L));
      ValueState Copy(S);
      EXPECT_EQ(Copy, S) << D << " " << L;
      ValueState Moved(std::move(Copy));
      EXPECT_EQ(Moved, S) << D << " " << L;
      for (size_t Old : {size_t(0), size_t(5), size_t(30), size_t(70)}) {
        ValueState A = Make(Old, Old, 7);
        A = S;
        EXPECT_EQ(A, S) << D << " " << L << " over " << Old;
        EXPECT_EQ(A.Stack.size(), D);
        EXPECT_EQ(A.Locals.size(), L);
        ValueState B = Make(Old, Old, 3), Tmp = S;
        B = std::move(Tmp);
        EXPECT_EQ(B, S) << D << " " << L << " over " << Old;
        EXPECT_EQ(B.Stack.size(), D);
        EXPECT_EQ(B.Locals.size(), L);
      }
    }
  ValueState A = Make(5, 5, 1);
  A = ValueState::bottom();
  EXPECT_TRUE(A.isBottom());
  A = Make(30, 30, 2);
  A = ValueState::inconsistent();
  EXPECT_TRUE(A.isInconsistent());
  EXPECT_EQ(ValueState(ValueState::bottom()), ValueState::bottom());
}

} // namespace
