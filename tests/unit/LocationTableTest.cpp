//===- LocationTableTest.cpp - PEP 657 co_linetable decoder ---------------===//
//
// Each entry form (short 0-9, one-line 10-12, no-columns 13, long 14, none
// 15), the varint/svarint examples of the bytecode notes (section 8), two
// tables from python3.11 with their co_positions(), and the errors.
//
//===----------------------------------------------------------------------===//

#include "ParserTest.h"

#include "pyverify/Bytecode/LocationTable.h"

#include "llvm/ADT/StringExtras.h"

#include "gtest/gtest.h"

using namespace pyverify;
using namespace pyverify::test;
using llvm::StringRef;

namespace {

/// A position as co_positions() prints it: "(1, 1, 4, 5)", None for absent.
std::string show(const Position &P) {
  auto F = [](const std::optional<int32_t> &V) {
    return V ? std::to_string(*V) : std::string("None");
  };
  return "(" + F(P.Line) + ", " + F(P.EndLine) + ", " + F(P.Col) + ", " +
         F(P.EndCol) + ")";
}

/// Decodes \p Hex covering \p Units code units; "error: ..." on failure.
std::vector<std::string> decode(StringRef Hex, int32_t FirstLine,
                                uint32_t Units) {
  auto R = decodeLocationTable(unhex(Hex), FirstLine, Units);
  if (!R)
    return {"error: " + llvm::toString(R.takeError())};
  std::vector<std::string> Out;
  for (const Position &P : *R)
    Out.push_back(show(P));
  return Out;
}

using Ps = std::vector<std::string>;

//===-- Forms -------------------------------------------------------------===//

TEST(LocationTable, ShortForms) {
  // First byte 1 CCCC LLL; second byte: col = code*8 + bits 4-6, end_col =
  // col + bits 0-3.
  for (unsigned Code = 0; Code <= 9; ++Code) {
    SCOPED_TRACE(Code);
    char First = char(0x80 | (Code << 3)); // length 1
    std::string T = std::string(1, First) + "\x23";
    auto R = decodeLocationTable(T, 5, 1);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    ASSERT_EQ(R->size(), 1u);
    Position Want;
    Want.Line = Want.EndLine = 5;
    Want.Col = int32_t(Code * 8 + 2);
    Want.EndCol = int32_t(Code * 8 + 2 + 3);
    EXPECT_EQ((*R)[0], Want) << show((*R)[0]);
  }
  // The extremes: code 9, column bits 7, width 15.
  EXPECT_EQ(decode("c8 7f", 1, 1), Ps{"(1, 1, 79, 94)"});
  EXPECT_EQ(decode("80 00", 1, 1), Ps{"(1, 1, 0, 0)"});
  // A function's RESUME: `80 00` at co_firstlineno.
  EXPECT_EQ(decode("80 00", 42, 1), Ps{"(42, 42, 0, 0)"});
}

TEST(LocationTable, EntryLengths) {
  // Length = (b & 7) + 1 units, 1 to 8, all with the same position.
  EXPECT_EQ(decode("87 12", 3, 8), Ps(8, "(3, 3, 1, 3)"));
  EXPECT_EQ(decode("82 12 80 00", 3, 4), (Ps{"(3, 3, 1, 3)", "(3, 3, 1, 3)",
                                             "(3, 3, 1, 3)", "(3, 3, 0, 0)"}));
}

TEST(LocationTable, OneLineForms) {
  // Codes 10, 11, 12: line delta 0, 1, 2, then start and end column bytes.
  EXPECT_EQ(decode("d0 05 09", 10, 1), Ps{"(10, 10, 5, 9)"});
  EXPECT_EQ(decode("d8 05 09", 10, 1), Ps{"(11, 11, 5, 9)"});
  EXPECT_EQ(decode("e0 05 09", 10, 1), Ps{"(12, 12, 5, 9)"});
  // Deltas accumulate across entries; columns up to 127.
  EXPECT_EQ(decode("e0 00 7f d8 7f 00 d0 01 02", 1, 3),
            (Ps{"(3, 3, 0, 127)", "(4, 4, 127, 0)", "(4, 4, 1, 2)"}));
}

TEST(LocationTable, NoColumnsForm) {
  // Code 13: line + svarint, no columns. svarint 7 = -(7 >> 1) = -3.
  EXPECT_EQ(decode("e8 07", 10, 1), Ps{"(7, 7, None, None)"});
  EXPECT_EQ(decode("e8 04", 10, 1), Ps{"(12, 12, None, None)"});
  EXPECT_EQ(decode("e8 00", 10, 1), Ps{"(10, 10, None, None)"});
}

TEST(LocationTable, LongForm) {
  // Code 14: line + svarint, end line = line + varint, col + 1, end col + 1.
  EXPECT_EQ(decode("f0 02 03 06 0b", 10, 1), Ps{"(11, 14, 5, 10)"});
  // Column varints of 0 mean "no column".
  EXPECT_EQ(decode("f0 00 00 00 00", 10, 1), Ps{"(10, 10, None, None)"});
  EXPECT_EQ(decode("f0 00 01 01 00", 10, 1), Ps{"(10, 11, 0, None)"});
}

TEST(LocationTable, ModuleResume) {
  // A module's RESUME is on line 0: svarint 3 = -1 from co_firstlineno 1;
  // end line 0 + 1, columns 0-0. co_positions() yields (0, 1, 0, 0).
  EXPECT_EQ(decode("f0 03 01 01 01", 1, 1), Ps{"(0, 1, 0, 0)"});
}

TEST(LocationTable, NoLocationForm) {
  // Code 15 yields all None and leaves the line alone.
  EXPECT_EQ(decode("f8 d8 01 02", 7, 2),
            (Ps{"(None, None, None, None)", "(8, 8, 1, 2)"}));
  EXPECT_EQ(decode("fa", 7, 3), Ps(3, "(None, None, None, None)"));
}

TEST(LocationTable, Varints) {
  // 63 = 3f (one chunk), 200 = 48 03 (8 | continue, then 3: 8 + 3*64).
  EXPECT_EQ(decode("f0 00 3f 01 01", 1, 1), Ps{"(1, 64, 0, 0)"});
  EXPECT_EQ(decode("f0 00 48 03 01 01", 1, 1), Ps{"(1, 201, 0, 0)"});
  // Column 199 is varint 200.
  EXPECT_EQ(decode("f0 00 00 48 03 48 03", 1, 1), Ps{"(1, 1, 199, 199)"});
  // Three chunks: 5000 = 8 + 14*64 + 1*4096 -> 48 4e 01.
  EXPECT_EQ(decode("f0 00 48 4e 01 01 01", 1, 1), Ps{"(1, 5001, 0, 0)"});
}

TEST(LocationTable, SignedVarints) {
  // svarint: v << 1 for v >= 0, (-v << 1) | 1 for v < 0.
  // +100 = 200 = 48 03; -100 = 201 = 49 03.
  EXPECT_EQ(decode("e8 48 03", 1, 1), Ps{"(101, 101, None, None)"});
  EXPECT_EQ(decode("e8 49 03", 200, 1), Ps{"(100, 100, None, None)"});
  EXPECT_EQ(decode("f0 49 03 00 01 01", 200, 1), Ps{"(100, 100, 0, 0)"});
  // svarint 1 is "-0": no change.
  EXPECT_EQ(decode("e8 01", 5, 1), Ps{"(5, 5, None, None)"});
}

TEST(LocationTable, RealModule) {
  // c = compile('x = 1\n', 't.py', 'exec')
  // c.co_linetable.hex() == 'f003010101d80405800180018001', 5 code units
  // list(c.co_positions()):
  EXPECT_EQ(decode("f003010101d80405800180018001", 1, 5),
            (Ps{"(0, 1, 0, 0)", "(1, 1, 4, 5)", "(1, 1, 0, 1)", "(1, 1, 0, 1)",
                "(1, 1, 0, 1)"}));
}

TEST(LocationTable, RealFunction) {
  // src = 'def f(a):\n    if a:\n        return a.b + 1\n    return [\n'
  //       '        a,\n        a]\n'
  // f = compile(src, 't.py', 'exec').co_consts[0]
  // f.co_linetable.hex(), 17 code units, list(f.co_positions()):
  EXPECT_EQ(
      decode("8000d80708f000010517d80f108c7390518977880ee00809d80809f005020c0b"
             "f00002050b",
             1, 17),
      (Ps{"(1, 1, 0, 0)", "(2, 2, 7, 8)", "(2, 3, 4, 22)", "(3, 3, 15, 16)",
          "(3, 3, 15, 18)", "(3, 3, 15, 18)", "(3, 3, 15, 18)",
          "(3, 3, 15, 18)", "(3, 3, 15, 18)", "(3, 3, 21, 22)",
          "(3, 3, 15, 22)", "(3, 3, 15, 22)", "(3, 3, 8, 22)", "(5, 5, 8, 9)",
          "(6, 6, 8, 9)", "(4, 6, 11, 10)", "(4, 6, 4, 10)"}));
}

TEST(LocationTable, EmptyTableForEmptyCode) {
  EXPECT_EQ(decode("", 1, 0), Ps{});
}

//===-- Errors ------------------------------------------------------------===//

TEST(LocationTable, Truncated) {
  EXPECT_TRUE(failsWith(decodeLocationTable(unhex("80"), 1, 1),
                        "at byte 1: truncated location table: expected "
                        "short-form column byte"));
  EXPECT_TRUE(failsWith(decodeLocationTable(unhex("d0 05"), 1, 1),
                        "at byte 2: truncated location table: expected end "
                        "column"));
  EXPECT_TRUE(failsWith(decodeLocationTable(unhex("e8"), 1, 1),
                        "at byte 1: truncated location table: expected line "
                        "delta"));
  EXPECT_TRUE(failsWith(decodeLocationTable(unhex("f0 02 03 06"), 1, 1),
                        "at byte 4: truncated location table: expected end "
                        "column"));
  // Inside a varint whose last byte has the continue bit.
  EXPECT_TRUE(failsWith(decodeLocationTable(unhex("f0 02 48"), 1, 1),
                        "at byte 3: truncated location table: expected end "
                        "line delta"));
  // Every proper prefix of a real table fails.
  std::string Full = unhex("8000d80708f000010517d80f108c7390518977880ee00809"
                           "d80809f005020c0bf00002050b");
  for (size_t N = 0; N < Full.size(); ++N) {
    SCOPED_TRACE(N);
    EXPECT_TRUE(
        failsWith(decodeLocationTable(Full.substr(0, N), 1, 17), "at byte"));
  }
}

TEST(LocationTable, EntryMustStartWithBit7) {
  EXPECT_TRUE(failsWith(decodeLocationTable(unhex("05 00"), 1, 1),
                        "at byte 0: location-table entry must start with a "
                        "byte that has bit 7 set, found 05"));
  // A stray byte after a complete entry.
  EXPECT_TRUE(failsWith(decodeLocationTable(unhex("80 00 12"), 1, 2),
                        "at byte 2: location-table entry must start"));
}

TEST(LocationTable, EntryEndsEarly) {
  // The one-line form's end column is replaced by the next entry's first
  // byte.
  EXPECT_TRUE(failsWith(decodeLocationTable(unhex("d0 05 80 00"), 1, 2),
                        "at byte 2: location-table entry ends early: byte 80 "
                        "starts a new entry where end column was expected"));
}

TEST(LocationTable, TooFewUnits) {
  EXPECT_TRUE(failsWith(decodeLocationTable(unhex("80 00"), 1, 2),
                        "at byte 2: location table covers 1 code units, the "
                        "code has 2"));
  EXPECT_TRUE(failsWith(decodeLocationTable("", 1, 3),
                        "at byte 0: location table covers 0 code units, the "
                        "code has 3"));
}

TEST(LocationTable, TooManyUnits) {
  EXPECT_TRUE(failsWith(decodeLocationTable(unhex("87 00"), 1, 4),
                        "at byte 0: location table covers more than the 4 "
                        "code units"));
  EXPECT_TRUE(failsWith(decodeLocationTable(unhex("80 00 80 00"), 1, 1),
                        "at byte 2: location table covers more than the 1 "
                        "code units"));
}

TEST(LocationTable, OverlongVarint) {
  EXPECT_TRUE(
      failsWith(decodeLocationTable(unhex("e8 40 40 40 40 40 40 01"), 1, 1),
                "at byte 1: location-table varint for line delta is too long"));
}

//===-- validateLocationTable agrees with decoding
//-------------------------===//

/// validate's verdict and error for \p Table, as decode would give them.
void expectSameVerdict(const std::string &Table, uint32_t Units) {
  auto Decoded = decodeLocationTable(Table, 1, Units);
  llvm::Error Valid = validateLocationTable(Table, 1, Units);
  std::string D = Decoded ? "ok" : llvm::toString(Decoded.takeError());
  std::string V = Valid ? llvm::toString(std::move(Valid)) : "ok";
  EXPECT_EQ(V, D) << llvm::toHex(Table) << " over " << Units << " units";
}

TEST(LocationTable, ValidateAgreesWithDecode) {
  // Every form (short, one-line, no-columns, long with multi-chunk varints,
  // no location), then every truncation, every unit count near the real
  // one, and every byte replaced by a value that changes its role (bit 7,
  // the varint continue bit, an entry code).
  std::string Full = unhex("8000d80708f000010517d80f108c7390518977880ee00809"
                           "d80809f005020c0bf00002050b" // RealFunction: 17
                           "f8"
                           "e8 01"
                           "f0 4a 48 01 41 02 05 06");
  const uint32_t Units = 17 + 1 + 1 + 1;
  expectSameVerdict(Full, Units);
  for (uint32_t U = 0; U < Units + 10; ++U)
    expectSameVerdict(Full, U);
  for (size_t N = 0; N < Full.size(); ++N)
    expectSameVerdict(Full.substr(0, N), Units);
  for (size_t I = 0; I < Full.size(); ++I)
    for (uint8_t B :
         {0x00, 0x3f, 0x40, 0x7f, 0x80, 0xa7, 0xd0, 0xe8, 0xf0, 0xf8, 0xff}) {
      std::string M = Full;
      M[I] = char(B);
      expectSameVerdict(M, Units);
    }
  // Varints of six chunks are accepted, seven are too long.
  expectSameVerdict(unhex("e8 40 40 40 40 40 01 00 00 00"), 1);
  expectSameVerdict(unhex("e8 40 40 40 40 40 40 01 00 00 00"), 1);
}

} // namespace
