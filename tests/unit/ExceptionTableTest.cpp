//===- ExceptionTableTest.cpp - co_exceptiontable codec and checks --------===//
//
// The worked examples of the bytecode notes (section 2.2), minimal encodings
// at every chunk boundary, each strict-decoding error, one finding per
// validation check on small hand-made co_code, CPython's lookup order, and
// flattening of nested protected ranges.
//
//===----------------------------------------------------------------------===//

#include "ParserTest.h"

#include "pyverify/Bytecode/ExceptionTable.h"
#include "pyverify/Bytecode/InstructionStream.h"

#include "llvm/ADT/StringExtras.h"

#include "gtest/gtest.h"

using namespace pyverify;
using namespace pyverify::test;
using llvm::StringRef;

namespace {

std::string hex(StringRef Bytes) {
  std::string Out;
  for (size_t I = 0; I < Bytes.size(); ++I) {
    if (I)
      Out += ' ';
    Out += llvm::toHex(Bytes.substr(I, 1), /*LowerCase=*/true);
  }
  return Out;
}

/// An entry in byte offsets: [Start, End) -> Target, Depth, Lasti.
ExceptionTableEntry entry(uint32_t Start, uint32_t End, uint32_t Target,
                          uint32_t Depth, bool Lasti) {
  ExceptionTableEntry E;
  E.Start = Start;
  E.End = End;
  E.Target = Target;
  E.Depth = Depth;
  E.Lasti = Lasti;
  return E;
}

/// "[Start, End) -> Target dDepth[ L]" in bytes, for readable comparisons.
std::string show(const ExceptionTableEntry &E) {
  return "[" + std::to_string(E.Start) + "," + std::to_string(E.End) + ")->" +
         std::to_string(E.Target) + " d" + std::to_string(E.Depth) +
         (E.Lasti ? " L" : "");
}
std::vector<std::string> show(llvm::ArrayRef<ExceptionTableEntry> Es) {
  std::vector<std::string> Out;
  for (const ExceptionTableEntry &E : Es)
    Out.push_back(show(E));
  return Out;
}

std::vector<ExceptionTableEntry> decodeOk(StringRef Bytes) {
  auto R = decodeExceptionTable(Bytes);
  if (!R) {
    ADD_FAILURE() << llvm::toString(R.takeError());
    return {};
  }
  return std::move(*R);
}

//===-- Decoding and encoding ---------------------------------------------===//

TEST(ExceptionTable, DesignNotesExample) {
  // start 20 units, length 8, target 100, depth 3, no lasti.
  std::string Bytes = unhex("94 08 41 24 06");
  auto Es = decodeOk(Bytes);
  ASSERT_EQ(Es.size(), 1u);
  EXPECT_EQ(Es[0].Start, 40u);
  EXPECT_EQ(Es[0].End, 56u);
  EXPECT_EQ(Es[0].Target, 200u);
  EXPECT_EQ(Es[0].Depth, 3u);
  EXPECT_FALSE(Es[0].Lasti);
  EXPECT_EQ(Es[0].TableOffset, 0u);
  EXPECT_EQ(Es[0].handlerDepth(), 4u);
  EXPECT_EQ(hex(encodeExceptionTable(Es)), "94 08 41 24 06");
}

TEST(ExceptionTable, WithStatementExample) {
  // `with cm as x: body(x)`: units [3,19)->32 d1 L, [32,36)->36 d3 L,
  // [39,40)->36 d3 L; dis prints the first as `6 to 36 -> 64 [1] lasti`.
  std::string Bytes = unhex("83 10 20 03 | a0 04 24 07 | a7 01 24 07");
  auto Es = decodeOk(Bytes);
  EXPECT_EQ(show(Es),
            (std::vector<std::string>{"[6,38)->64 d1 L", "[64,72)->72 d3 L",
                                      "[78,80)->72 d3 L"}));
  ASSERT_EQ(Es.size(), 3u);
  EXPECT_EQ(Es[0].TableOffset, 0u);
  EXPECT_EQ(Es[1].TableOffset, 4u);
  EXPECT_EQ(Es[2].TableOffset, 8u);
  EXPECT_EQ(encodeExceptionTable(Es), Bytes);
}

TEST(ExceptionTable, TwoByteStart) {
  // c1 05 = 1*64 + 5 = unit 69 = byte 138.
  auto Es = decodeOk(unhex("c1 05 01 02 00"));
  ASSERT_EQ(Es.size(), 1u);
  EXPECT_EQ(Es[0].Start, 138u);
  EXPECT_EQ(Es[0].End, 140u);
  EXPECT_EQ(Es[0].Target, 4u);
  EXPECT_EQ(hex(encodeExceptionTable(Es)), "c1 05 01 02 00");
}

TEST(ExceptionTable, EmptyTable) {
  EXPECT_TRUE(decodeOk("").empty());
  EXPECT_EQ(encodeExceptionTable({}), "");
}

TEST(ExceptionTable, RoundTrip) {
  for (StringRef Hex : {"94 08 41 24 06", "83 10 20 03 a0 04 24 07 a7 01 24 07",
                        "c1 05 01 02 00", "80 01 02 00 82 01 04 03",
                        "ff 7f 7f 7f 3f 7f 7f 7f 7f 3f 7f 7f 7f 7f 3f 7f 7f "
                        "7f 7f 3f"}) {
    SCOPED_TRACE(Hex.str());
    std::string Bytes = unhex(Hex);
    EXPECT_EQ(hex(encodeExceptionTable(decodeOk(Bytes))), hex(Bytes));
  }
}

TEST(ExceptionTable, MinimalEncodingAtChunkBoundaries) {
  struct Case {
    uint32_t V;
    const char *AsStart; ///< With the 0x80 start bit.
    const char *Other;   ///< Any later field.
  } Cases[] = {
      {0, "80", "00"},
      {63, "bf", "3f"},
      {64, "c1 00", "41 00"},
      {4095, "ff 3f", "7f 3f"},
      {4096, "c1 40 00", "41 40 00"},
      {(1u << 30) - 1, "ff 7f 7f 7f 3f", "7f 7f 7f 7f 3f"},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE("value " + std::to_string(C.V));
    std::string S(C.AsStart), O(C.Other);
    // As start (length 1, target 0, depth 0).
    std::string AsStart = S + " 01 00 00";
    auto E1 = entry(2 * C.V, 2 * C.V + 2, 0, 0, false);
    EXPECT_EQ(hex(encodeExceptionTable({E1})), AsStart);
    EXPECT_EQ(show(decodeOk(unhex(AsStart))),
              std::vector<std::string>{show(E1)});
    // As length.
    std::string AsLength = "80 " + O + " 00 00";
    auto E2 = entry(0, 2 * C.V, 0, 0, false);
    EXPECT_EQ(hex(encodeExceptionTable({E2})), AsLength);
    EXPECT_EQ(show(decodeOk(unhex(AsLength))),
              std::vector<std::string>{show(E2)});
    // As target.
    std::string AsTarget = "80 01 " + O + " 00";
    auto E3 = entry(0, 2, 2 * C.V, 0, false);
    EXPECT_EQ(hex(encodeExceptionTable({E3})), AsTarget);
    EXPECT_EQ(show(decodeOk(unhex(AsTarget))),
              std::vector<std::string>{show(E3)});
    // As depth<<1|lasti.
    std::string AsDepth = "80 01 00 " + O;
    auto E4 = entry(0, 2, 0, C.V >> 1, C.V & 1);
    EXPECT_EQ(hex(encodeExceptionTable({E4})), AsDepth);
    EXPECT_EQ(show(decodeOk(unhex(AsDepth))),
              std::vector<std::string>{show(E4)});
  }
}

TEST(ExceptionTable, MissingStartBit) {
  EXPECT_TRUE(failsWith(decodeExceptionTable(unhex("14 08 41 24 06")),
                        "at byte 0: exception-table entry must start with a "
                        "byte that has the 0x80 start bit, found 14"));
  // On the second entry.
  EXPECT_TRUE(failsWith(decodeExceptionTable(unhex("94 08 41 24 06 14 08 41 "
                                                   "24 06")),
                        "at byte 5: exception-table entry must start"));
}

TEST(ExceptionTable, StartBitInsideAnEntry) {
  // In the length field.
  EXPECT_TRUE(failsWith(decodeExceptionTable(unhex("94 88 41 24 06")),
                        "at byte 1: unexpected start bit (byte 88) inside the "
                        "length varint of the entry at byte 0"));
  // In a continuation chunk of the target.
  EXPECT_TRUE(failsWith(decodeExceptionTable(unhex("94 08 41 a4 06")),
                        "at byte 3: unexpected start bit (byte a4) inside the "
                        "target varint"));
  // A new entry starting where depth was expected: the first is truncated.
  EXPECT_TRUE(failsWith(decodeExceptionTable(unhex("94 08 41 24 94 08 41 24 "
                                                   "06")),
                        "at byte 4: unexpected start bit (byte 94) inside the "
                        "depth/lasti varint"));
}

TEST(ExceptionTable, TruncatedEntry) {
  EXPECT_TRUE(failsWith(decodeExceptionTable(unhex("94 08 41 24")),
                        "at byte 4: truncated exception-table entry (started "
                        "at byte 0): expected a byte of its depth/lasti "
                        "varint"));
  // Inside a varint whose last byte still has the continue bit.
  EXPECT_TRUE(failsWith(decodeExceptionTable(unhex("94 08 41")),
                        "at byte 3: truncated exception-table entry (started "
                        "at byte 0): expected a byte of its target varint"));
  EXPECT_TRUE(failsWith(decodeExceptionTable(unhex("80 01 02 00 c1")),
                        "at byte 5: truncated exception-table entry (started "
                        "at byte 4): expected a byte of its start varint"));
  // Every proper prefix of a valid table is an error.
  std::string Full = unhex("83 10 20 03 a0 04 24 07 a7 01 24 07");
  for (size_t N = 1; N < Full.size(); ++N) {
    if (N % 4 == 0)
      continue; // Whole entries: a valid shorter table.
    SCOPED_TRACE(N);
    EXPECT_TRUE(failsWith(decodeExceptionTable(Full.substr(0, N)), "at byte"));
  }
}

TEST(ExceptionTable, SixChunkVarint) {
  // Five chunks (2^30-1) are the most a value may have.
  EXPECT_EQ(decodeOk(unhex("ff 7f 7f 7f 3f 00 00 00")).size(), 1u);
  EXPECT_TRUE(
      failsWith(decodeExceptionTable(unhex("c1 41 41 41 41 01 00 00 "
                                           "00")),
                "at byte 0: start varint has more than 5 6-bit chunks"));
  EXPECT_TRUE(failsWith(decodeExceptionTable(unhex("80 01 02 40 40 40 40 40 "
                                                   "00")),
                        "at byte 3: depth/lasti varint has more than 5"));
}

TEST(ExceptionTable, NonCanonicalVarints) {
  // c0 02: a leading zero chunk. CPython decodes it as 2; it never writes it.
  std::vector<uint32_t> NonCanonical;
  auto Es = decodeExceptionTable(unhex("c0 02 02 04 02"), &NonCanonical);
  ASSERT_TRUE(bool(Es)) << llvm::toString(Es.takeError());
  ASSERT_EQ(Es->size(), 1u);
  EXPECT_EQ(show((*Es)[0]), "[4,8)->8 d1");
  EXPECT_EQ(NonCanonical, std::vector<uint32_t>{0});
  // Re-encoding drops the leading zero.
  EXPECT_EQ(hex(encodeExceptionTable(*Es)), "82 02 04 02");

  // One report per non-minimal varint, at its table offset.
  NonCanonical.clear();
  auto Es2 = decodeExceptionTable(unhex("82 40 02 04 40 40 01 82 01 04 00"),
                                  &NonCanonical);
  ASSERT_TRUE(bool(Es2)) << llvm::toString(Es2.takeError());
  EXPECT_EQ(show(*Es2),
            (std::vector<std::string>{"[4,8)->8 d0 L", "[4,6)->8 d0"}));
  EXPECT_EQ(NonCanonical, (std::vector<uint32_t>{1, 4}));

  // Minimal tables report nothing; without the out-parameter nothing happens.
  NonCanonical.clear();
  auto Es3 =
      decodeExceptionTable(unhex("83 10 20 03 a0 04 24 07"), &NonCanonical);
  ASSERT_TRUE(bool(Es3)) << llvm::toString(Es3.takeError());
  EXPECT_TRUE(NonCanonical.empty());
  EXPECT_EQ(decodeOk(unhex("c0 02 02 04 02")).size(), 1u);
}

//===-- Validation --------------------------------------------------------===//

/// co_code for the validation tests, with byte offsets:
///    0  NOP
///    2  LOAD_CONST 0
///    4  BINARY_SUBSCR      caches 6..13
///   14  EXTENDED_ARG 1     (prefix of the next)
///   16  LOAD_CONST 256     instruction spans 14..18
///   18  POP_TOP
///   20  PUSH_EXC_INFO
///   22  RETURN_VALUE
///   24  (end)
const char *const ValidationCode = "09 00 64 00 19 00 00 00 00 00 00 00 00 00 "
                                   "90 01 64 00 01 00 23 00 53 00";

class Validate : public ::testing::Test {
protected:
  void SetUp() override {
    std::vector<Finding> DecodeFindings;
    Insts = InstructionStream::decode(unhex(ValidationCode), DecodeFindings);
    ASSERT_TRUE(DecodeFindings.empty());
    ASSERT_EQ(Insts.size(), 7u);
    ASSERT_EQ(Insts.codeSize(), 24u);
  }

  /// Check ids of the findings for \p Entries, in order.
  std::vector<std::string> check(std::vector<ExceptionTableEntry> Entries,
                                 int64_t StackSize = 4) {
    Findings.clear();
    validateExceptionTable(Entries, Insts, StackSize, Findings);
    std::vector<std::string> Ids;
    for (const Finding &F : Findings)
      Ids.push_back(getCheckName(F.Check).str());
    return Ids;
  }
  using Ids = std::vector<std::string>;

  /// The message of the only finding.
  std::string message() {
    EXPECT_EQ(Findings.size(), 1u);
    return Findings.empty() ? "" : Findings[0].Message;
  }

  InstructionStream Insts;
  std::vector<Finding> Findings;
};

TEST_F(Validate, WellFormedTables) {
  EXPECT_EQ(check({entry(0, 20, 20, 0, false)}, 1), Ids{});
  EXPECT_EQ(check({entry(0, 4, 20, 0, false), entry(4, 14, 22, 1, true),
                   entry(14, 18, 20, 2, false)}),
            Ids{});
  // Gaps are fine; the end of the code is a boundary.
  EXPECT_EQ(check({entry(2, 4, 20, 0, false), entry(22, 24, 20, 0, false)}),
            Ids{});
  // Two consecutive entries with the same handler are allowed (Dynamo).
  EXPECT_EQ(check({entry(0, 2, 20, 0, false), entry(2, 4, 20, 0, false)}),
            Ids{});
}

TEST_F(Validate, ZeroLength) {
  EXPECT_EQ(check({entry(2, 2, 20, 0, false)}),
            Ids{"exception-table-zero-length"});
  EXPECT_EQ(Findings[0].Offset, 2u);
  EXPECT_NE(
      message().find("'2 to 2 (empty) -> 20 [0]' (table byte 0) has length 0"),
      std::string::npos)
      << message();
}

TEST_F(Validate, Unsorted) {
  EXPECT_EQ(check({entry(4, 14, 20, 0, false), entry(0, 2, 20, 0, false)}),
            Ids{"exception-table-unsorted"});
  EXPECT_NE(message().find("starts before the previous entry"),
            std::string::npos);
  ASSERT_EQ(Findings[0].Notes.size(), 1u);
  EXPECT_EQ(Findings[0].Notes[0].Offset, 4u);
}

TEST_F(Validate, Overlap) {
  EXPECT_EQ(check({entry(0, 14, 20, 0, false), entry(2, 18, 22, 0, false)}),
            Ids{"exception-table-overlap"});
  EXPECT_NE(message().find("'2 to 16 -> 22 [0]' (table byte 0) overlaps entry "
                           "'0 to 12 -> 20 [0]'"),
            std::string::npos)
      << message();
  // Overlap with an entry that is not the previous one (the furthest
  // reaching earlier entry is what counts).
  EXPECT_EQ(check({entry(0, 20, 20, 0, false), entry(2, 4, 22, 0, false)}),
            Ids{"exception-table-overlap"});
}

TEST_F(Validate, BoundsStartInsideAnInstruction) {
  // Inside the caches of BINARY_SUBSCR.
  EXPECT_EQ(check({entry(6, 14, 20, 0, false)}), Ids{"exception-table-bounds"});
  EXPECT_NE(message().find("starts at byte 6, inside the BINARY_SUBSCR at 4 "
                           "(which starts at 4)"),
            std::string::npos)
      << message();
  // Between the EXTENDED_ARG prefix at 14 and its LOAD_CONST at 16.
  EXPECT_EQ(check({entry(16, 18, 20, 0, false)}),
            Ids{"exception-table-bounds"});
  EXPECT_NE(message().find("starts at byte 16, inside the LOAD_CONST at 16 "
                           "(which starts at 14)"),
            std::string::npos)
      << message();
}

TEST_F(Validate, BoundsEndInsideCaches) {
  EXPECT_EQ(check({entry(0, 8, 20, 0, false)}), Ids{"exception-table-bounds"});
  EXPECT_NE(message().find("ends at byte 8, inside the BINARY_SUBSCR at 4 "
                           "(which spans 4..14)"),
            std::string::npos)
      << message();
  // Ending between a prefix and its opcode.
  EXPECT_EQ(check({entry(0, 16, 20, 0, false)}), Ids{"exception-table-bounds"});
}

TEST_F(Validate, BoundsPastTheEnd) {
  EXPECT_EQ(check({entry(2, 26, 0, 0, false)}), Ids{"exception-table-bounds"});
  EXPECT_NE(message().find("extends past the end of the code (24 bytes)"),
            std::string::npos);
  EXPECT_EQ(check({entry(100, 102, 20, 0, false)}),
            Ids{"exception-table-bounds"});
  // Anchored at the last instruction when the start is outside the code.
  EXPECT_EQ(Findings[0].Offset, 22u);
}

TEST_F(Validate, TargetNotInstruction) {
  // Outside the code (the end of the code is not an instruction).
  EXPECT_EQ(check({entry(0, 2, 24, 0, false)}),
            Ids{"exception-table-target-not-instruction"});
  EXPECT_NE(message().find("handler target 24 outside the code (24 bytes)"),
            std::string::npos)
      << message();
  EXPECT_EQ(check({entry(0, 2, 1000, 0, false)}),
            Ids{"exception-table-target-not-instruction"});
  // Inside caches.
  EXPECT_EQ(check({entry(0, 2, 8, 0, false)}),
            Ids{"exception-table-target-not-instruction"});
  EXPECT_NE(message().find("handler target 8 inside the inline caches of the "
                           "BINARY_SUBSCR at 4"),
            std::string::npos)
      << message();
  // Mid-instruction: on the opcode unit after an EXTENDED_ARG prefix.
  EXPECT_EQ(check({entry(0, 2, 16, 0, false)}),
            Ids{"exception-table-target-not-instruction"});
  EXPECT_NE(message().find("handler target 16 mid-instruction: the LOAD_CONST "
                           "at 16 starts at 14"),
            std::string::npos)
      << message();
  // Inside its own range.
  EXPECT_EQ(check({entry(0, 20, 2, 0, false)}),
            Ids{"exception-table-target-not-instruction"});
  EXPECT_NE(message().find("has its handler inside its own range"),
            std::string::npos);
  ASSERT_EQ(Findings[0].Notes.size(), 1u);
  EXPECT_EQ(Findings[0].Notes[0].Offset, 2u);
  // The instruction right after the range is outside it.
  EXPECT_EQ(check({entry(0, 20, 20, 0, false)}), Ids{});
}

TEST_F(Validate, DepthExceedsStacksize) {
  // depth 1 + lasti 1 + exception 1 = 3 > 2.
  EXPECT_EQ(check({entry(0, 20, 20, 1, true)}, 2),
            Ids{"exception-table-depth-exceeds-stacksize"});
  EXPECT_NE(message().find("enters its handler at depth 3 (depth 1 + lasti 1 "
                           "+ exception 1), above co_stacksize 2"),
            std::string::npos)
      << message();
  EXPECT_EQ(check({entry(0, 20, 20, 1, true)}, 3), Ids{});
  EXPECT_EQ(check({entry(0, 20, 20, 0, false)}, 0),
            Ids{"exception-table-depth-exceeds-stacksize"});
}

TEST_F(Validate, SeveralProblemsAllReported) {
  EXPECT_EQ(check({entry(6, 6, 8, 5, false), entry(0, 2, 20, 0, false)}, 1),
            (Ids{"exception-table-depth-exceeds-stacksize",
                 "exception-table-zero-length",
                 "exception-table-bounds", // start 6 inside caches
                 "exception-table-bounds", // end 6 inside caches
                 "exception-table-target-not-instruction",
                 "exception-table-unsorted"}));
}

//===-- Lookup ------------------------------------------------------------===//

/// CPython's lookup as a linear scan (the first entry in order whose range
/// holds the key, stopping at the first that starts past it): the reference
/// lookupHandler()'s binary search must match on validated tables.
const ExceptionTableEntry *linearLookup(llvm::ArrayRef<ExceptionTableEntry> Es,
                                        uint64_t Key) {
  for (const ExceptionTableEntry &E : Es) {
    if (E.Start > Key)
      return nullptr;
    if (E.End > Key)
      return &E;
  }
  return nullptr;
}

TEST(ExceptionTable, LookupMatchesTheLinearScanOnValidatedTables) {
  // Sorted, non-overlapping tables of 0 to 9 entries: adjacent entries,
  // gaps, zero-length entries (a validation error, but sorted: the lookup
  // must still skip them), each key from before the first to past the last.
  EXPECT_EQ(lookupHandler({}, 0), nullptr);
  uint32_t Seed = 1;
  auto Next = [&](uint32_t N) {
    Seed = Seed * 1103515245u + 12345u;
    return (Seed >> 16) % N;
  };
  unsigned Keys = 0;
  for (unsigned T = 0; T < 200; ++T) {
    std::vector<ExceptionTableEntry> Es;
    uint32_t At = 2 * Next(3);
    for (unsigned K = Next(10); K > 0; --K) {
      uint32_t Len = 2 * Next(4); // 0 (zero length) to 6 bytes
      Es.push_back(entry(At, At + Len, 100 + K, 0, false));
      At += Len + 2 * Next(2); // adjacent or a gap
    }
    for (uint64_t Key = 0; Key < At + 4; Key += 2, ++Keys) {
      SCOPED_TRACE(testing::Message() << "table " << T << " key " << Key);
      EXPECT_EQ(lookupHandler(Es, Key), linearLookup(Es, Key));
    }
  }
  EXPECT_GT(Keys, 1000u);
  // Spot values: [0, 4) -> 100, [4, 4) (zero length), [4, 10) -> 300.
  std::vector<ExceptionTableEntry> Es = {entry(0, 4, 100, 0, false),
                                         entry(4, 4, 200, 0, false),
                                         entry(4, 10, 300, 0, false)};
  EXPECT_EQ(lookupHandler(Es, 2)->Target, 100u);
  EXPECT_EQ(lookupHandler(Es, 4)->Target, 300u);
  EXPECT_EQ(lookupHandler(Es, 8)->Target, 300u);
  EXPECT_EQ(lookupHandler(Es, 10), nullptr); // End is exclusive
}

//===-- Flattening --------------------------------------------------------===//

std::vector<std::string> flattenOk(std::vector<ProtectedRange> Ranges) {
  auto R = flattenExceptionRanges(Ranges);
  if (!R) {
    ADD_FAILURE() << llvm::toString(R.takeError());
    return {};
  }
  return show(*R);
}

TEST(ExceptionTable, FlattenNestedInnermostWins) {
  // try: [0, 20) -> 100; inside it a with body [4, 8) -> 200.
  EXPECT_EQ(flattenOk({{0, 20, 100, 0, false}, {4, 8, 200, 2, true}}),
            (std::vector<std::string>{"[0,4)->100 d0", "[4,8)->200 d2 L",
                                      "[8,20)->100 d0"}));
  // Input order does not matter for properly nested ranges.
  EXPECT_EQ(flattenOk({{4, 8, 200, 2, true}, {0, 20, 100, 0, false}}),
            (std::vector<std::string>{"[0,4)->100 d0", "[4,8)->200 d2 L",
                                      "[8,20)->100 d0"}));
  // Three levels, sharing starts and ends.
  EXPECT_EQ(
      flattenOk(
          {{0, 30, 1, 0, false}, {0, 20, 2, 1, false}, {10, 20, 3, 2, false}}),
      (std::vector<std::string>{"[0,10)->2 d1", "[10,20)->3 d2",
                                "[20,30)->1 d0"}));
  // Equal extents: the later range is the inner one.
  EXPECT_EQ(flattenOk({{0, 10, 1, 0, false}, {0, 10, 2, 0, false}}),
            (std::vector<std::string>{"[0,10)->2 d0"}));
}

TEST(ExceptionTable, FlattenMergesAdjacentSameHandler) {
  EXPECT_EQ(flattenOk({{0, 4, 100, 1, true}, {4, 8, 100, 1, true}}),
            (std::vector<std::string>{"[0,8)->100 d1 L"}));
  // An inner range with the outer's handler disappears.
  EXPECT_EQ(flattenOk({{0, 20, 100, 0, false}, {4, 8, 100, 0, false}}),
            (std::vector<std::string>{"[0,20)->100 d0"}));
  // Same target but another depth or lasti is another handler.
  EXPECT_EQ(flattenOk({{0, 4, 100, 1, true}, {4, 8, 100, 1, false}}),
            (std::vector<std::string>{"[0,4)->100 d1 L", "[4,8)->100 d1"}));
  // Gaps are kept.
  EXPECT_EQ(flattenOk({{0, 4, 100, 0, false}, {8, 12, 100, 0, false}}),
            (std::vector<std::string>{"[0,4)->100 d0", "[8,12)->100 d0"}));
  // Empty ranges vanish.
  EXPECT_EQ(flattenOk({{4, 4, 100, 0, false}}), std::vector<std::string>{});
  EXPECT_EQ(flattenOk({}), std::vector<std::string>{});
}

TEST(ExceptionTable, FlattenPartialOverlapIsAnError) {
  EXPECT_TRUE(failsWith(
      flattenExceptionRanges({{0, 10, 100, 0, false}, {6, 16, 200, 0, false}}),
      "at byte 6: range 6..16 -> 200 partially overlaps range 0..10 -> 100; "
      "ranges must nest"));
  // Detected against an inner range too.
  EXPECT_TRUE(failsWith(
      flattenExceptionRanges(
          {{0, 20, 1, 0, false}, {2, 8, 2, 0, false}, {4, 12, 3, 0, false}}),
      "range 4..12 -> 3 partially overlaps range 2..8 -> 2"));
  EXPECT_TRUE(failsWith(flattenExceptionRanges({{10, 4, 1, 0, false}}),
                        "at byte 10: range 0 ends at 4, before it starts"));
}

TEST(ExceptionTable, FlattenThenEncodeRoundTrips) {
  auto Flat = flattenExceptionRanges(
      {{6, 80, 64, 1, true}, {64, 72, 72, 3, true}, {72, 78, 64, 1, true}});
  ASSERT_TRUE(bool(Flat)) << llvm::toString(Flat.takeError());
  std::string Bytes = encodeExceptionTable(*Flat);
  EXPECT_EQ(show(decodeOk(Bytes)), show(*Flat));
  EXPECT_EQ(show(*Flat),
            (std::vector<std::string>{"[6,64)->64 d1 L", "[64,72)->72 d3 L",
                                      "[72,80)->64 d1 L"}));
}

} // namespace
