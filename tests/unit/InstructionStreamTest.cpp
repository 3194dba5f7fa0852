//===- InstructionStreamTest.cpp - co_code decoder ------------------------===//
//
// EXTENDED_ARG folding, inline caches, every bytecode-decode problem, the
// bytecode-extended-arg warning, and jump-target resolution, on co_code
// written out unit by unit.
//
//===----------------------------------------------------------------------===//

#include "pyverify/Bytecode/InstructionStream.h"
#include "Opcodes311.h"

#include "gtest/gtest.h"

using namespace pyverify;
using namespace pyverify::test311;
using llvm::StringRef;

namespace {

/// One code unit: opcode byte and argument byte.
struct Unit {
  uint8_t Op, Arg;
  Unit(Opcode O, uint8_t A = 0) : Op(byteOf(O)), Arg(A) {}
  Unit(int O, int A) : Op(uint8_t(O)), Arg(uint8_t(A)) {}
};

std::string code(std::initializer_list<Unit> Units) {
  std::string S;
  for (const Unit &U : Units) {
    S.push_back(char(U.Op));
    S.push_back(char(U.Arg));
  }
  return S;
}

/// \p N zero cache units.
std::string caches(unsigned N) { return std::string(2 * N, '\0'); }

using O = Opcode;

struct Decoded {
  InstructionStream S;
  std::vector<Finding> Findings;

  /// "check-id@offset" per finding, in order.
  std::vector<std::string> ids() const {
    std::vector<std::string> Out;
    for (const Finding &F : Findings)
      Out.push_back(getCheckName(F.Check).str() + "@" +
                    std::to_string(F.Offset));
    return Out;
  }
  /// True if some finding's message contains \p Needle.
  ::testing::AssertionResult says(StringRef Needle) const {
    for (const Finding &F : Findings)
      if (StringRef(F.Message).contains(Needle))
        return ::testing::AssertionSuccess();
    auto R = ::testing::AssertionFailure()
             << "no finding contains '" << Needle.str() << "'; findings:";
    for (const Finding &F : Findings)
      R << "\n  " << F.Message;
    return R;
  }
};

Decoded decode(StringRef Code) {
  Decoded D;
  D.S = InstructionStream::decode(Code, D.Findings);
  return D;
}

using Ids = std::vector<std::string>;

/// Start/Offset/End of every instruction, "S/O/E".
std::vector<std::string> layout(const InstructionStream &S) {
  std::vector<std::string> Out;
  for (const Instruction &I : S.instructions())
    Out.push_back(std::to_string(I.Start) + "/" + std::to_string(I.Offset) +
                  "/" + std::to_string(I.End));
  return Out;
}

//===-- Plain decoding ----------------------------------------------------===//

TEST(InstructionStream, SimpleCode) {
  auto D = decode(code({O::RESUME, {O::LOAD_CONST, 0}, O::RETURN_VALUE}));
  EXPECT_EQ(D.ids(), Ids{});
  EXPECT_FALSE(D.S.hasErrors());
  ASSERT_EQ(D.S.size(), 3u);
  EXPECT_EQ(layout(D.S), (std::vector<std::string>{"0/0/2", "2/2/4", "4/4/6"}));
  EXPECT_EQ(D.S[0].name(), "RESUME");
  EXPECT_TRUE(D.S[1].is(O::LOAD_CONST));
  EXPECT_EQ(D.S[2].op(), O::RETURN_VALUE);
  EXPECT_EQ(D.S[2].units(), 1u);
  EXPECT_EQ(D.S.codeSize(), 6u);
  EXPECT_EQ(D.S[1].Target, -1);
}

TEST(InstructionStream, EmptyCode) {
  auto D = decode("");
  EXPECT_EQ(D.S.size(), 0u);
  EXPECT_EQ(D.ids(), Ids{});
  EXPECT_EQ(D.S.indexContaining(0), -1);
}

TEST(InstructionStream, ArgumentLessOpcodesReadArgZero) {
  auto D = decode(code({O::NOP, O::POP_TOP}));
  EXPECT_EQ(D.S[0].Arg, 0u);
  EXPECT_EQ(D.S[1].Arg, 0u);
  EXPECT_FALSE(D.S[0].info().hasArg());
}

//===-- EXTENDED_ARG ------------------------------------------------------===//

TEST(InstructionStream, OneExtendedArg) {
  auto D = decode(code({{O::EXTENDED_ARG, 1}, {O::LOAD_CONST, 2}}));
  EXPECT_EQ(D.ids(), Ids{});
  ASSERT_EQ(D.S.size(), 1u);
  const Instruction &I = D.S[0];
  EXPECT_EQ(I.Start, 0u);
  EXPECT_EQ(I.Offset, 2u);
  EXPECT_EQ(I.End, 4u);
  EXPECT_EQ(I.Arg, 0x102u);
  EXPECT_EQ(I.NumPrefixes, 1u);
  EXPECT_EQ(I.PrefixArg, 1u);
  EXPECT_EQ(I.prefixRowArg(0), 1u);
  EXPECT_EQ(I.units(), 2u);
  EXPECT_TRUE(I.is(O::LOAD_CONST));
}

TEST(InstructionStream, TwoExtendedArgs) {
  auto D = decode(
      code({{O::EXTENDED_ARG, 1}, {O::EXTENDED_ARG, 2}, {O::LOAD_CONST, 3}}));
  EXPECT_EQ(D.ids(), Ids{});
  ASSERT_EQ(D.S.size(), 1u);
  const Instruction &I = D.S[0];
  EXPECT_EQ(layout(D.S), std::vector<std::string>{"0/4/6"});
  EXPECT_EQ(I.Arg, 0x10203u);
  EXPECT_EQ(I.NumPrefixes, 2u);
  EXPECT_EQ(I.PrefixArg, 0x102u);
  // dis shows the accumulated argument on each prefix row: 1, then 258.
  EXPECT_EQ(I.prefixRowArg(0), 1u);
  EXPECT_EQ(I.prefixRowArg(1), 0x102u);
}

TEST(InstructionStream, ThreeExtendedArgs) {
  auto D = decode(code({{O::NOP, 0},
                        {O::EXTENDED_ARG, 1},
                        {O::EXTENDED_ARG, 2},
                        {O::EXTENDED_ARG, 3},
                        {O::LOAD_CONST, 4},
                        {O::RETURN_VALUE, 0}}));
  EXPECT_EQ(D.ids(), Ids{});
  ASSERT_EQ(D.S.size(), 3u);
  const Instruction &I = D.S[1];
  EXPECT_EQ(layout(D.S),
            (std::vector<std::string>{"0/0/2", "2/8/10", "10/10/12"}));
  EXPECT_EQ(I.Arg, 0x01020304u);
  EXPECT_EQ(I.NumPrefixes, 3u);
  EXPECT_EQ(I.PrefixArg, 0x10203u);
  EXPECT_EQ(I.prefixRowArg(0), 1u);
  EXPECT_EQ(I.prefixRowArg(1), 0x102u);
  EXPECT_EQ(I.prefixRowArg(2), 0x10203u);
  EXPECT_EQ(I.units(), 4u);
  // The largest argument three prefixes can build.
  auto M = decode(code({{O::EXTENDED_ARG, 0xff},
                        {O::EXTENDED_ARG, 0xff},
                        {O::EXTENDED_ARG, 0xff},
                        {O::LOAD_CONST, 0xff}}));
  EXPECT_EQ(M.S[0].Arg, 0xffffffffu);
}

TEST(InstructionStream, FourExtendedArgsIsAnError) {
  auto D = decode(code({{O::EXTENDED_ARG, 1},
                        {O::EXTENDED_ARG, 2},
                        {O::EXTENDED_ARG, 3},
                        {O::EXTENDED_ARG, 4},
                        {O::LOAD_CONST, 5}}));
  EXPECT_EQ(D.ids(), Ids{"bytecode-decode@6"});
  EXPECT_TRUE(D.says("more than three EXTENDED_ARG prefixes"));
  EXPECT_TRUE(D.S.hasErrors());
  // Still one instruction tiling the code.
  EXPECT_EQ(layout(D.S), std::vector<std::string>{"0/8/10"});
}

TEST(InstructionStream, ExtendedArgBeforeArgumentLessOpcode) {
  auto D = decode(code({{O::EXTENDED_ARG, 1}, O::NOP, O::RETURN_VALUE}));
  EXPECT_EQ(D.ids(), Ids{"bytecode-extended-arg@2"});
  EXPECT_EQ(D.Findings[0].Sev, Severity::Warning);
  EXPECT_TRUE(D.says("EXTENDED_ARG before NOP, which takes no argument"));
  // A warning is not an error.
  EXPECT_FALSE(D.S.hasErrors());
  EXPECT_EQ(D.S[0].Arg, 0u);
  EXPECT_EQ(D.S[0].NumPrefixes, 1u);
  EXPECT_EQ(D.S[0].Start, 0u);
}

TEST(InstructionStream, NonZeroArgumentByteOnArgumentLessOpcode) {
  auto D = decode(code({{O::POP_TOP, 7}}));
  EXPECT_EQ(D.ids(), Ids{"bytecode-extended-arg@0"});
  EXPECT_TRUE(D.says("POP_TOP takes no argument but its argument byte is 7"));
  EXPECT_EQ(D.S[0].Arg, 0u);
  EXPECT_FALSE(D.S.hasErrors());
}

TEST(InstructionStream, ExtendedArgAtTheEnd) {
  auto D = decode(code({O::NOP, {O::EXTENDED_ARG, 1}}));
  EXPECT_EQ(D.ids(), Ids{"bytecode-decode@2"});
  EXPECT_TRUE(D.says("truncated instruction: EXTENDED_ARG at the end of the "
                     "code has no opcode to prefix"));
  EXPECT_TRUE(D.S.hasErrors());
  ASSERT_EQ(D.S.size(), 2u);
  EXPECT_FALSE(D.S[1].Valid);
  EXPECT_EQ(layout(D.S), (std::vector<std::string>{"0/0/2", "2/2/4"}));
  // Two trailing prefixes: still one instruction covering both.
  auto E = decode(code({{O::EXTENDED_ARG, 1}, {O::EXTENDED_ARG, 2}}));
  EXPECT_EQ(E.ids(), Ids{"bytecode-decode@2"});
  EXPECT_EQ(layout(E.S), std::vector<std::string>{"0/2/4"});
  EXPECT_EQ(E.S[0].NumPrefixes, 1u);
}

//===-- Inline caches -----------------------------------------------------===//

TEST(InstructionStream, CachesAreSkipped) {
  std::string C = code({{O::LOAD_GLOBAL, 1}}) + caches(5) +
                  code({{O::EXTENDED_ARG, 1}, {O::LOAD_ATTR, 0}}) + caches(4) +
                  code({{O::BINARY_OP, 0}}) + caches(1) +
                  code({O::RETURN_VALUE});
  auto D = decode(C);
  EXPECT_EQ(D.ids(), Ids{});
  EXPECT_EQ(layout(D.S), (std::vector<std::string>{"0/0/12", "12/14/24",
                                                   "24/24/28", "28/28/30"}));
  EXPECT_EQ(D.S[0].units(), 6u);
  EXPECT_EQ(D.S[1].units(), 6u);
  EXPECT_EQ(D.S[1].Arg, 0x100u);
  // Lookups by position.
  EXPECT_EQ(D.S.indexContaining(6), 0);
  EXPECT_EQ(D.S.indexContaining(12), 1);
  EXPECT_EQ(D.S.indexContaining(23), 1);
  EXPECT_EQ(D.S.indexContaining(30), -1);
  EXPECT_EQ(D.S.indexAtStart(12), 1);
  EXPECT_EQ(D.S.indexAtStart(14), -1);
  EXPECT_EQ(D.S.indexAtOffset(14), 1);
  EXPECT_EQ(D.S.indexAtOffset(12), -1);
  EXPECT_EQ(D.S.indexAtOffset(2), -1);
  EXPECT_EQ(D.S.indexAtStart(28), 3);
}

TEST(InstructionStream, EveryCacheCountFromTheNotes) {
  // Section 1.2 of the bytecode notes.
  struct {
    Opcode Op;
    unsigned Caches;
  } Cases[] = {
      {O::BINARY_SUBSCR, 4}, {O::STORE_SUBSCR, 1}, {O::UNPACK_SEQUENCE, 1},
      {O::STORE_ATTR, 4},    {O::LOAD_ATTR, 4},    {O::COMPARE_OP, 2},
      {O::LOAD_GLOBAL, 5},   {O::BINARY_OP, 1},    {O::LOAD_METHOD, 10},
      {O::PRECALL, 1},       {O::CALL, 4},         {O::JUMP_FORWARD, 0}};
  for (const auto &C : Cases) {
    SCOPED_TRACE(getOpcodeName(C.Op).str());
    auto D =
        decode(code({{C.Op, 0}}) + caches(C.Caches) + code({O::RETURN_VALUE}));
    ASSERT_EQ(D.S.size(), 2u);
    EXPECT_EQ(D.S[0].units(), 1 + C.Caches);
    EXPECT_EQ(D.S[1].Start, 2 + 2 * C.Caches);
  }
}

TEST(InstructionStream, NonZeroCacheUnit) {
  std::string C = code({{O::LOAD_ATTR, 0}}) +
                  code({{0, 0}, {0, 1}, {0, 0}, {0, 0}}) +
                  code({O::RETURN_VALUE});
  auto D = decode(C);
  EXPECT_EQ(D.ids(), Ids{"bytecode-decode@4"});
  EXPECT_TRUE(D.says("inline cache unit 1 of LOAD_ATTR at 0 is 00 01, "
                     "expected 00 00"));
  // The instruction keeps its caches.
  EXPECT_EQ(layout(D.S), (std::vector<std::string>{"0/0/10", "10/10/12"}));
}

TEST(InstructionStream, TruncatedCaches) {
  auto D = decode(code({O::NOP, {O::LOAD_GLOBAL, 0}}) + caches(2));
  EXPECT_EQ(D.ids(), Ids{"bytecode-decode@2"});
  EXPECT_TRUE(D.says("truncated instruction: LOAD_GLOBAL needs 5 inline cache "
                     "units, the code ends after 2"));
  EXPECT_TRUE(D.S.hasErrors());
  EXPECT_EQ(layout(D.S), (std::vector<std::string>{"0/0/2", "2/2/8"}));
  // No cache at all.
  auto E = decode(code({{O::CALL, 0}}));
  EXPECT_TRUE(E.says("CALL needs 4 inline cache units, the code ends after 0"));
}

//===-- Bad opcodes -------------------------------------------------------===//

TEST(InstructionStream, OddLength) {
  auto D = decode(code({O::NOP}) + "S");
  EXPECT_EQ(D.ids(), Ids{"bytecode-decode@2"});
  EXPECT_TRUE(D.says("co_code has odd length 3"));
  EXPECT_EQ(D.S.codeSize(), 2u);
  EXPECT_EQ(D.S.size(), 1u);
  EXPECT_TRUE(D.S.hasErrors());
}

TEST(InstructionStream, UnknownOpcode) {
  for (int B : {4 + 177, 200, 254, 255}) {
    SCOPED_TRACE(B);
    auto D = decode(code({O::NOP, {B, 0}, O::RETURN_VALUE}));
    EXPECT_EQ(D.ids(), Ids{"bytecode-decode@2"});
    EXPECT_TRUE(D.says("unknown opcode " + std::to_string(B)));
    ASSERT_EQ(D.S.size(), 3u);
    EXPECT_FALSE(D.S[1].Valid);
    EXPECT_EQ(D.S[1].units(), 1u);
    EXPECT_EQ(D.S[1].name(), "<invalid>");
    EXPECT_TRUE(D.S.hasErrors());
  }
}

TEST(InstructionStream, SpecialisedOpcode) {
  // Byte 3 is BINARY_OP_ADAPTIVE, which only exists in _co_code_adaptive.
  auto D = decode(code({{3, 0}, {0, 0}}));
  EXPECT_EQ(D.ids(), (Ids{"bytecode-decode@0"}));
  EXPECT_TRUE(D.says("specialised opcode BINARY_OP_ADAPTIVE (3) is not valid "
                     "in co_code"));
  EXPECT_EQ(D.S[0].name(), "BINARY_OP_ADAPTIVE");
  EXPECT_FALSE(D.S[0].Valid);
  // It keeps its base opcode's cache layout (BINARY_OP: one unit), so the
  // following 00 00 is its cache, not a second error.
  ASSERT_EQ(D.S.size(), 1u);
  EXPECT_EQ(D.S[0].End, 4u);
  auto E = decode(code({{150, 0}})); // RESUME_QUICK
  EXPECT_TRUE(E.says("specialised opcode RESUME_QUICK (150)"));
}

TEST(InstructionStream, CacheAtInstructionPosition) {
  auto D = decode(code({O::NOP, {0, 0}, O::RETURN_VALUE}));
  EXPECT_EQ(D.ids(), Ids{"bytecode-decode@2"});
  EXPECT_TRUE(D.says("CACHE (0) at an instruction position; CACHE is only "
                     "valid in inline cache slots"));
  EXPECT_EQ(D.S[1].name(), "CACHE");
  EXPECT_FALSE(D.S[1].Valid);
}

TEST(InstructionStream, ManyCacheOpcodesGrowTheBuffer) {
  // N 00 00 opcode units: the count of non-zero units (one) bounds none of
  // them, so the decoder makes room as it meets them -- by what they need:
  // it once doubled the room per unit (fuzz_instructions found 44 bytes
  // that asked for 2.8 GB; 200 units asked for 2^200 instructions).
  for (unsigned N : {9u, 200u}) {
    SCOPED_TRACE(N);
    std::string Code = std::string(2 * N, '\0') + code({O::RETURN_VALUE});
    auto D = decode(Code);
    ASSERT_EQ(D.S.size(), N + 1);
    EXPECT_EQ(D.Findings.size(), N);
    EXPECT_EQ(D.S[N].name(), "RETURN_VALUE");
    EXPECT_EQ(D.S[N].Start, 2 * N);
    for (unsigned K = 0; K < N; ++K)
      EXPECT_EQ(D.S.indexAtStart(2 * K), int64_t(K));
    EXPECT_EQ(D.S.indexContaining(2 * N), int64_t(N));
  }
}

TEST(InstructionStream, CopiesAndMovesKeepInstructionsAndUnitMap) {
  auto D = decode(code({O::RESUME, {O::LOAD_GLOBAL, 1}}) + caches(5) +
                  code({O::RETURN_VALUE}));
  ASSERT_EQ(D.S.size(), 3u);
  InstructionStream Copy(D.S);
  EXPECT_EQ(layout(Copy), layout(D.S));
  for (uint64_t B = 0; B < D.S.codeSize(); B += 2)
    EXPECT_EQ(Copy.indexContaining(B), D.S.indexContaining(B));
  EXPECT_EQ(Copy.indexContaining(D.S.codeSize()), -1);
  InstructionStream Moved(std::move(Copy));
  EXPECT_EQ(layout(Moved), layout(D.S));
  EXPECT_EQ(Moved.indexAtOffset(2), 1);
  EXPECT_EQ(Copy.size(), 0u); // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(Copy.indexContaining(0), -1);
  Copy = Moved;
  EXPECT_EQ(layout(Copy), layout(D.S));
  EXPECT_EQ(Copy.codeSize(), D.S.codeSize());
}

TEST(InstructionStream, ReportsEveryProblem) {
  // Six problems in one stream; each is reported, in code order, followed
  // by the jump-target pass.
  std::string C = code({{O::JUMP_FORWARD, 50}, // 0: jumps outside
                        {200, 0},              // 2: unknown opcode
                        {O::NOP, 1},           // 4: argument byte on NOP
                        {O::LOAD_ATTR, 0}}) +  // 6: non-zero cache unit at 12
                  code({{0, 0}, {0, 0}, {9, 9}, {0, 0}}) +
                  code({{3, 0}}) + // 16: specialised, and its one
                  "x";             // cache unit is cut off: odd length
  auto D = decode(C);
  EXPECT_EQ(D.ids(), (Ids{"bytecode-decode@18", "bytecode-decode@2",
                          "bytecode-extended-arg@4", "bytecode-decode@12",
                          "bytecode-decode@16", "bytecode-decode@16",
                          "jump-target-invalid@0"}));
  EXPECT_TRUE(D.S.hasErrors());
}

//===-- Jumps -------------------------------------------------------------===//

TEST(InstructionStream, ForwardJumpTarget) {
  // target = offset + 2 + 2*arg
  auto D = decode(code({{O::JUMP_FORWARD, 1}, O::NOP, O::RETURN_VALUE}));
  EXPECT_EQ(D.ids(), Ids{});
  EXPECT_EQ(D.S[0].Target, 4);
  EXPECT_TRUE(D.S[0].TargetValid);
  auto F = decode(code({{O::FOR_ITER, 2}, O::NOP, O::NOP, O::RETURN_VALUE}));
  EXPECT_EQ(F.S[0].Target, 6);
  // Non-jumps have no target.
  EXPECT_EQ(F.S[1].Target, -1);
}

TEST(InstructionStream, BackwardJumpTarget) {
  // target = offset + 2 - 2*arg
  auto D = decode(code({O::NOP, O::NOP, {O::JUMP_BACKWARD, 3}}));
  EXPECT_EQ(D.ids(), Ids{});
  EXPECT_EQ(D.S[2].Target, 0);
  auto C = decode(code({O::NOP, {O::POP_JUMP_BACKWARD_IF_TRUE, 1}, O::NOP}));
  EXPECT_EQ(C.S[1].Target, 2); // Its own offset.
  EXPECT_TRUE(C.S[1].TargetValid);
  auto Z = decode(code({O::NOP, {O::JUMP_BACKWARD_NO_INTERRUPT, 0}, O::NOP}));
  EXPECT_EQ(Z.S[1].Target, 4);
}

TEST(InstructionStream, JumpTargetCountsFromTheOpcodeUnit) {
  // The prefix does not move the base: EXTENDED_ARG 0 at 2, JUMP_FORWARD 1
  // at 4 targets 4 + 2 + 2 = 8, not 2 + 2 + 2.
  auto D = decode(code({O::NOP,
                        {O::EXTENDED_ARG, 0},
                        {O::JUMP_FORWARD, 1},
                        O::NOP,
                        O::RETURN_VALUE}));
  EXPECT_EQ(D.ids(), Ids{});
  EXPECT_EQ(D.S[1].Target, 8);
  auto B = decode(
      code({O::NOP, O::NOP, {O::EXTENDED_ARG, 0}, {O::JUMP_BACKWARD, 3}}));
  EXPECT_EQ(B.S[2].Target, 2);
  // A large forward jump through a prefix: 256 units.
  std::string Long = code({{O::EXTENDED_ARG, 1}, {O::JUMP_FORWARD, 0}});
  for (int I = 0; I < 256; ++I)
    Long += code({O::NOP});
  Long += code({O::RETURN_VALUE});
  auto L = decode(Long);
  EXPECT_EQ(L.ids(), Ids{});
  EXPECT_EQ(L.S[0].Target, 2 + 2 + 2 * 256);
  EXPECT_TRUE(L.S[L.S.indexAtStart(L.S[0].Target)].is(O::RETURN_VALUE));
}

TEST(InstructionStream, JumpTargetOutsideTheCode) {
  auto D = decode(code({{O::JUMP_FORWARD, 2}, O::RETURN_VALUE}));
  EXPECT_EQ(D.ids(), Ids{"jump-target-invalid@0"});
  EXPECT_TRUE(D.says("JUMP_FORWARD 2 jumps to byte 6, outside the code "
                     "(0..4)"));
  EXPECT_FALSE(D.S[0].TargetValid);
  EXPECT_TRUE(D.S.hasErrors());
  // Exactly the end of the code is outside too.
  auto E = decode(code({{O::JUMP_FORWARD, 1}, O::RETURN_VALUE}));
  EXPECT_EQ(E.ids(), Ids{"jump-target-invalid@0"});
  // Before the start.
  auto B = decode(code({O::NOP, {O::JUMP_BACKWARD, 3}}));
  EXPECT_EQ(B.ids(), Ids{"jump-target-invalid@2"});
  EXPECT_TRUE(B.says("JUMP_BACKWARD 3 jumps to byte -2, outside the code"));
  EXPECT_EQ(B.S[1].Target, -2);
}

TEST(InstructionStream, JumpIntoCaches) {
  // JUMP_FORWARD 1 at 0 targets 4, a cache unit of the LOAD_ATTR at 2.
  auto D = decode(code({{O::JUMP_FORWARD, 1}, {O::LOAD_ATTR, 0}}) + caches(4) +
                  code({O::RETURN_VALUE}));
  EXPECT_EQ(D.ids(), Ids{"jump-target-invalid@0"});
  EXPECT_TRUE(D.says("JUMP_FORWARD 1 jumps to byte 4, which is inside the "
                     "LOAD_ATTR at 2, not on an instruction start"));
  EXPECT_FALSE(D.S[0].TargetValid);
}

TEST(InstructionStream, JumpOntoTheOpcodeAfterAPrefix) {
  // The target must be the prefix (the instruction's start), not its opcode.
  auto D = decode(code({{O::JUMP_FORWARD, 1},
                        {O::EXTENDED_ARG, 0},
                        {O::LOAD_CONST, 0},
                        O::RETURN_VALUE}));
  EXPECT_EQ(D.ids(), Ids{"jump-target-invalid@0"});
  EXPECT_TRUE(D.says("jumps to byte 4, which is inside the LOAD_CONST at 4"));
  // Jumping to the prefix is fine.
  auto E = decode(code({{O::JUMP_FORWARD, 0},
                        {O::EXTENDED_ARG, 0},
                        {O::LOAD_CONST, 0},
                        O::RETURN_VALUE}));
  EXPECT_EQ(E.ids(), Ids{});
  EXPECT_EQ(E.S[0].Target, 2);
}

TEST(InstructionStream, EveryJumpOpcodeResolves) {
  for (unsigned B = 0; B < 256; ++B) {
    const OpcodeInfo *Info = getOpcodeInfo(uint8_t(B));
    if (!Info || !Info->isJump())
      continue;
    SCOPED_TRACE(Info->Name);
    // NOP x2, the jump with argument 1 at 4, NOP x2.
    auto D = decode(code({O::NOP, O::NOP, {int(B), 1}, O::NOP, O::NOP}));
    EXPECT_EQ(D.ids(), Ids{});
    EXPECT_EQ(D.S[2].Target, Info->isBackwardJump() ? 4 : 8);
  }
}

} // namespace
