//===- MarshalTest.cpp - marshal v4 and .pyc reader -----------------------===//
//
// Every type code python3.11's marshal reads, back-references in pre-order
// numbering, and each malformed-input error with the byte it names. Streams
// are built by hand with the small encoders below; the real-data streams are
// marshal.dumps output pasted as hex, with the Python that made them.
//
//===----------------------------------------------------------------------===//

#include "ParserTest.h"

#include "pyverify/Bytecode/Marshal.h"
// Its PrintTo for CodeObject: every test file that prints one in an
// assertion must see the same printer (Matchers.h says why).
#include "pyverify/Testing/Matchers.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"

#include "SmallStack.h"

#include "gtest/gtest.h"

#include <pthread.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <type_traits>

using namespace pyverify;
using namespace pyverify::test;
using llvm::StringRef;

namespace {

//===-- Encoders ----------------------------------------------------------===//

constexpr uint8_t Ref = 0x80;

std::string i32(int32_t V) {
  char B[4];
  llvm::support::endian::write32le(B, uint32_t(V));
  return std::string(B, 4);
}
std::string i16(uint16_t V) {
  char B[2];
  llvm::support::endian::write16le(B, V);
  return std::string(B, 2);
}
std::string f64(double D) {
  uint64_t Bits;
  std::memcpy(&Bits, &D, 8);
  char B[8];
  llvm::support::endian::write64le(B, Bits);
  return std::string(B, 8);
}
std::string type(char C, bool Flag = false) {
  return std::string(1, char(uint8_t(C) | (Flag ? Ref : 0)));
}

std::string mNone() { return "N"; }
std::string mInt(int32_t V, bool Flag = false) {
  return type('i', Flag) + i32(V);
}
std::string mRef(int32_t Index) { return "r" + i32(Index); }
std::string mBytes(StringRef S, bool Flag = false) {
  return type('s', Flag) + i32(int32_t(S.size())) + S.str();
}
/// A str as 'z' (short ASCII), the form 3.11 writes for identifiers.
std::string mStr(StringRef S, bool Flag = false) {
  return type('z', Flag) + char(S.size()) + S.str();
}
std::string mStrAs(char Type, StringRef S, bool Flag = false) {
  if (Type == 'z' || Type == 'Z')
    return type(Type, Flag) + char(S.size()) + S.str();
  return type(Type, Flag) + i32(int32_t(S.size())) + S.str();
}
std::string join(const std::vector<std::string> &Items) {
  std::string Out;
  for (const std::string &I : Items)
    Out += I;
  return Out;
}
/// A tuple as ')' (small tuple, 1-byte count).
std::string mTuple(const std::vector<std::string> &Items, bool Flag = false) {
  return type(')', Flag) + char(Items.size()) + join(Items);
}
/// A container with an int32 count: '(' '[' '<' '>'.
std::string mSeq(char Type, const std::vector<std::string> &Items,
                 bool Flag = false) {
  return type(Type, Flag) + i32(int32_t(Items.size())) + join(Items);
}

/// The 16 fields of a 3.11 code object, each nested field as marshal bytes.
/// The defaults are a valid module: RESUME 0; LOAD_CONST 0; RETURN_VALUE.
struct CodeParts {
  int32_t ArgCount = 0, PosOnlyArgCount = 0, KwOnlyArgCount = 0;
  int32_t StackSize = 1, Flags = 0;
  std::string Code = mBytes(unhex("97 00 64 00 53 00"));
  std::string Consts = mTuple({mNone()});
  std::string Names = mTuple({});
  std::string LocalsPlusNames = mTuple({});
  std::string LocalsPlusKinds = mBytes("");
  std::string Filename = mStr("t.py");
  std::string Name = mStr("<module>");
  std::string QualName = mStr("<module>");
  int32_t FirstLineNo = 1;
  std::string LineTable = mBytes(unhex("f0 03 01 01 01 81 00"));
  std::string ExceptionTable = mBytes("");

  std::string encode(bool Flag = false) const {
    return type('c', Flag) + i32(ArgCount) + i32(PosOnlyArgCount) +
           i32(KwOnlyArgCount) + i32(StackSize) + i32(Flags) + Code + Consts +
           Names + LocalsPlusNames + LocalsPlusKinds + Filename + Name +
           QualName + i32(FirstLineNo) + LineTable + ExceptionTable;
  }
};

/// The .pyc header for 3.11 with flags 0, mtime 0x01020304, size 0x10.
std::string pycHeader(uint32_t Flags = 0) {
  return unhex("a7 0d 0d 0a") + i32(int32_t(Flags)) + i32(0x01020304) +
         i32(0x10);
}

//===-- Real streams from python3.11 --------------------------------------===//

// import marshal, types
// src = 'def f(a, b=2):\n    def g():\n        return a\n    return g\n'
// co = compile(src, 't.py', 'exec')
// f = [c for c in co.co_consts if isinstance(c, types.CodeType)][0]
// marshal.dumps(f).hex()
//
// Slots, in pre-order: 0 f (reserved before its fields), 1 f.co_code,
// 2 g.co_code, 3 (), 4 'a', 5 't.py', 6 'g', 7 b'', 8 'b', 9 'f'. f's
// co_names is `r 3`, its co_filename `r 5` and its co_exceptiontable `r 7`.
const char *const NestedFunctionHex =
    "e30200000000000000000000000200000003000000f312000000870097008800660164"
    "0184087d027c02530029024e6300000000000000000000000001000000130000"
    "00f308000000950197008900530029014ea9002901da0161730100000080fa04742e7079"
    "da01677a0c662e3c6c6f63616c733e2e67020000007308000000f88000d80f108808f3"
    "00000000720300000029037204000000da0162720600000073030000006020207205"
    "000000da01667209000000010000007321000000f88000f002010511f000010511f000"
    "010511f000010511f000010511e00b0c80487207000000";

// marshal.dumps(compile('x = 1\n', 't.py', 'exec')).hex()
const char *const ModuleHex =
    "e30000000000000000000000000100000000000000f30a000000970064005a0064015300"
    "2902e9010000004e2901da0178a900f300000000fa04742e7079fa083c6d6f64756c65"
    "3e720700000001000000730e000000f003010101d804058001800180017205000000";

//===-- Assertions --------------------------------------------------------===//

/// Reads \p Bytes, which must be valid.
Value readOk(StringRef Bytes) {
  auto V = readMarshal(Bytes);
  if (!V) {
    ADD_FAILURE() << llvm::toString(V.takeError());
    return NoneValue{};
  }
  return std::move(*V);
}

/// Reads \p Bytes and returns 3.11's repr() of the value, or "error:
/// <message>".
std::string reprOf(StringRef Bytes) {
  auto V = readMarshal(Bytes);
  if (!V)
    return "error: " + llvm::toString(V.takeError());
  return V->repr(PythonVersion::V3_11);
}

//===-- Singletons and numbers --------------------------------------------===//

TEST(Marshal, Singletons) {
  EXPECT_TRUE(readOk("N").is<NoneValue>());
  EXPECT_TRUE(readOk(".").is<EllipsisValue>());
  EXPECT_TRUE(readOk("S").is<StopIterationValue>());
  auto F = readMarshal("F");
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  ASSERT_TRUE(F->is<bool>());
  EXPECT_FALSE(*F->getIf<bool>());
  auto T = readMarshal("T");
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  ASSERT_TRUE(T->is<bool>());
  EXPECT_TRUE(*T->getIf<bool>());
}

TEST(Marshal, Int32) {
  EXPECT_EQ(reprOf(mInt(0)), "0");
  EXPECT_EQ(reprOf(mInt(1)), "1");
  EXPECT_EQ(reprOf(mInt(-1)), "-1");
  EXPECT_EQ(reprOf(mInt(INT32_MAX)), "2147483647");
  // marshal.dumps(-2**31).hex() == 'e900000080'
  auto V = readMarshal(unhex("e900000080"));
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  ASSERT_TRUE(V->is<int64_t>());
  EXPECT_EQ(*V->getIf<int64_t>(), int64_t(INT32_MIN));
}

TEST(Marshal, LegacyInt64) {
  // 'I' (TYPE_INT64) is no longer written but still read.
  std::string S = "I" + i32(0) + i32(1); // 2**32
  auto V = readMarshal(S);
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  ASSERT_TRUE(V->is<int64_t>());
  EXPECT_EQ(*V->getIf<int64_t>(), int64_t(1) << 32);
  EXPECT_EQ(reprOf("I" + i32(-1) + i32(-1)), "-1");
  EXPECT_TRUE(failsWith(readMarshal("I" + i32(0)), "at byte 1: truncated"));
}

TEST(Marshal, LongThatFitsInInt64) {
  // marshal.dumps(2**31).hex() == 'ec03000000000000000200' (with FLAG_REF).
  auto V = readMarshal(unhex("ec03000000000000000200"));
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  ASSERT_TRUE(V->is<int64_t>());
  EXPECT_EQ(*V->getIf<int64_t>(), int64_t(1) << 31);
  // Zero digits is 0; a negative count is a negative value.
  EXPECT_EQ(reprOf("l" + i32(0)), "0");
  EXPECT_EQ(reprOf("l" + i32(-2) + i16(0) + i16(1)), "-32768");
  // Four digits (60 bits) still fold into int64: 2**60 - 1.
  std::string Max60 =
      "l" + i32(4) + i16(0x7fff) + i16(0x7fff) + i16(0x7fff) + i16(0x7fff);
  auto W = readMarshal(Max60);
  ASSERT_TRUE(bool(W)) << llvm::toString(W.takeError());
  ASSERT_TRUE(W->is<int64_t>());
  EXPECT_EQ(*W->getIf<int64_t>(), (int64_t(1) << 60) - 1);
}

TEST(Marshal, BigInts) {
  // marshal.dumps(10**30).hex()
  auto V = readMarshal(unhex("ec0700000000000000a937a733044d93652703"));
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  ASSERT_TRUE(V->is<BigInt>());
  EXPECT_FALSE(V->getIf<BigInt>()->Negative);
  EXPECT_EQ(V->getIf<BigInt>()->Digits.size(), 7u);
  EXPECT_EQ(V->getIf<BigInt>()->toDecimal(), "1000000000000000000000000000000");
  EXPECT_EQ(V->repr(PythonVersion::V3_11), "1000000000000000000000000000000");

  // marshal.dumps(-(2**100)).hex()
  auto N = readMarshal(unhex("6cf9ffffff0000000000000000000000000004"));
  ASSERT_TRUE(bool(N)) << llvm::toString(N.takeError());
  ASSERT_TRUE(N->is<BigInt>());
  EXPECT_TRUE(N->getIf<BigInt>()->Negative);
  EXPECT_EQ(N->getIf<BigInt>()->toDecimal(),
            "-1267650600228229401496703205376");

  // 2**60 needs five digits and stays a BigInt.
  std::string P60 = "l" + i32(5) + i16(0) + i16(0) + i16(0) + i16(0) + i16(1);
  auto B = readMarshal(P60);
  ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
  ASSERT_TRUE(B->is<BigInt>());
  EXPECT_EQ(B->getIf<BigInt>()->toDecimal(), "1152921504606846976");

  // Decimal groups with inner zeros: 10**8 + 1 = 0x5F5E101 -> digits
  // (0x6101 & 0x7fff, ...). Built from its base-2^15 digits: 100000001 =
  // 3051*32768 + 24833.
  BigInt Small;
  Small.Digits = {24833, 3051};
  EXPECT_EQ(Small.toDecimal(), "100000001");
  EXPECT_EQ(BigInt{}.toDecimal(), "0");
}

TEST(Marshal, Floats) {
  // marshal.dumps(1.5).hex() == 'e7000000000000f83f'
  auto V = readMarshal(unhex("e7000000000000f83f"));
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  ASSERT_TRUE(V->is<double>());
  EXPECT_EQ(*V->getIf<double>(), 1.5);
  EXPECT_EQ(reprOf("g" + f64(-0.0)), "-0.0");
  // Legacy text float 'f': marshal.dumps(1.5, 1).hex() == '6603312e35'.
  EXPECT_EQ(reprOf(unhex("6603312e35")), "1.5");
  EXPECT_EQ(reprOf("f\x03inf"), "inf");
  EXPECT_EQ(reprOf("f\x04-inf"), "-inf");
  EXPECT_EQ(reprOf("f\x03nan"), "nan");
  EXPECT_EQ(reprOf("f\x05"
                   "1e+16"),
            "1e+16");
  EXPECT_TRUE(failsWith(readMarshal("f\x03"
                                    "abc"),
                        "at byte 1: malformed text float 'abc'"));
  EXPECT_TRUE(failsWith(readMarshal("f\x05"
                                    "1.5"),
                        "at byte 2: truncated"));
  EXPECT_TRUE(failsWith(readMarshal("g" + std::string(7, '\0')),
                        "at byte 1: truncated"));
}

TEST(Marshal, Complex) {
  // marshal.dumps(1+2j).hex()
  auto V = readMarshal(unhex("f9000000000000f03f0000000000000040"));
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  ASSERT_TRUE(V->is<std::complex<double>>());
  EXPECT_EQ(*V->getIf<std::complex<double>>(), std::complex<double>(1, 2));
  // Legacy text complex 'x': marshal.dumps(1+2j, 1).hex() == '7801310132'.
  EXPECT_EQ(reprOf(unhex("7801310132")), "(1+2j)");
  EXPECT_TRUE(failsWith(readMarshal("y" + f64(1.0)), "at byte 9: truncated"));
  EXPECT_TRUE(failsWith(readMarshal("x\x01"
                                    "1"),
                        "at byte 3: truncated"));
}

//===-- Strings and bytes -------------------------------------------------===//

TEST(Marshal, Bytes) {
  // marshal.dumps(b'hi').hex() == 'f3020000006869'
  auto V = readMarshal(unhex("f3020000006869"));
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  ASSERT_TRUE(V->is<BytesValue>());
  EXPECT_EQ(*V->getIf<BytesValue>()->Data, "hi");
  EXPECT_EQ(reprOf(mBytes("")), "b''");
  EXPECT_EQ(reprOf(mBytes(StringRef("\0\xff", 2))), "b'\\x00\\xff'");
}

TEST(Marshal, StrTypeCodes) {
  for (char T : {'u', 't', 'a', 'A', 'z', 'Z'}) {
    SCOPED_TRACE(std::string("type code ") + T);
    auto V = readMarshal(mStrAs(T, "abc"));
    ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
    ASSERT_NE(V->getStr(), nullptr);
    EXPECT_EQ(*V->getStr(), "abc");
    EXPECT_EQ(reprOf(mStrAs(T, "")), "''");
  }
}

TEST(Marshal, Utf8Str) {
  // marshal.dumps('h\u00e9').hex() == 'f50300000068c3a9'
  auto V = readMarshal(unhex("f50300000068c3a9"));
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  EXPECT_EQ(*V->getStr(), "h\xc3\xa9");
  // A lone surrogate, as "surrogatepass" writes it:
  // marshal.dumps('h\ud800').hex() == 'f50400000068eda080'
  auto S = readMarshal(unhex("f50400000068eda080"));
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  EXPECT_EQ(*S->getStr(), "h\xed\xa0\x80");
  // Four-byte sequences are fine.
  EXPECT_TRUE(bool(readMarshal(mStrAs('u', "\xf0\x9f\x98\x80"))));
}

TEST(Marshal, InvalidUtf8) {
  // Offsets: type byte 0, length 1-4, data from 5.
  EXPECT_TRUE(failsWith(readMarshal(mStrAs('u', "a\xff")),
                        "at byte 6: invalid UTF-8 in str"));
  EXPECT_TRUE(
      failsWith(readMarshal(mStrAs('u', "\x80")), "at byte 5: invalid UTF-8"));
  // Overlong encoding of '/'.
  EXPECT_TRUE(failsWith(readMarshal(mStrAs('t', "\xc0\xaf")),
                        "at byte 5: invalid UTF-8"));
  // Truncated two-byte sequence at the end of the string.
  EXPECT_TRUE(failsWith(readMarshal(mStrAs('u', "ab\xc3")),
                        "at byte 7: invalid UTF-8"));
  // ED A0 needs a continuation byte to be a surrogate.
  EXPECT_TRUE(failsWith(readMarshal(mStrAs('u', "\xed\xa0")),
                        "at byte 5: invalid UTF-8"));
}

TEST(Marshal, NonAsciiInAsciiStr) {
  EXPECT_TRUE(failsWith(readMarshal(mStrAs('a', "ab\xe9")),
                        "at byte 7: non-ASCII byte in an ASCII str"));
  EXPECT_TRUE(
      failsWith(readMarshal(mStrAs('A', "\x80")), "at byte 5: non-ASCII"));
  EXPECT_TRUE(
      failsWith(readMarshal(mStrAs('z', "x\xc3\xa9")), "at byte 3: non-ASCII"));
  EXPECT_TRUE(
      failsWith(readMarshal(mStrAs('Z', "\xff")), "at byte 2: non-ASCII"));
}

//===-- Containers --------------------------------------------------------===//

TEST(Marshal, Tuples) {
  EXPECT_EQ(reprOf(mSeq('(', {})), "()");
  EXPECT_EQ(reprOf(mSeq('(', {mInt(1)})), "(1,)");
  EXPECT_EQ(reprOf(mSeq('(', {mInt(1), mNone(), mStr("a")})), "(1, None, 'a')");
  EXPECT_EQ(reprOf(mTuple({})), "()");
  EXPECT_EQ(reprOf(mTuple({mTuple({mInt(1)}), "T"})), "((1,), True)");
  auto V = readMarshal(mTuple({mInt(7)}));
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  ASSERT_NE(V->getSequence(SequenceKind::Tuple), nullptr);
  EXPECT_EQ(V->getSequence(SequenceKind::List), nullptr);
}

TEST(Marshal, ListsSetsFrozensets) {
  // marshal.dumps([1,'x']).hex() == '5b02000000e901000000da0178'
  EXPECT_EQ(reprOf(unhex("5b02000000e901000000da0178")), "[1, 'x']");
  auto L = readMarshal(unhex("5b02000000e901000000da0178"));
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  EXPECT_NE(L->getSequence(SequenceKind::List), nullptr);
  // marshal.dumps(set()).hex() == '3c00000000'
  auto S = readMarshal(unhex("3c00000000"));
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  ASSERT_NE(S->getSequence(SequenceKind::Set), nullptr);
  EXPECT_TRUE(S->getSequence(SequenceKind::Set)->empty());
  EXPECT_EQ(reprOf(mSeq('<', {mInt(1), mInt(2)})), "{1, 2}");
  // marshal.dumps(frozenset()).hex() == '3e00000000'
  EXPECT_EQ(reprOf(unhex("3e00000000")), "frozenset()");
  auto FS = readMarshal(mSeq('>', {mStr("a"), mStr("b")}));
  ASSERT_TRUE(bool(FS)) << llvm::toString(FS.takeError());
  ASSERT_NE(FS->getSequence(SequenceKind::FrozenSet), nullptr);
  EXPECT_EQ(FS->repr(PythonVersion::V3_11), "frozenset({'a', 'b'})");
}

TEST(Marshal, Dicts) {
  // marshal.dumps({1:2}).hex() == '7be901000000e90200000030'
  auto V = readMarshal(unhex("7be901000000e90200000030"));
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  ASSERT_TRUE(V->is<DictValue>());
  EXPECT_EQ(V->getIf<DictValue>()->Items->size(), 1u);
  EXPECT_EQ(V->repr(PythonVersion::V3_11), "{1: 2}");
  EXPECT_EQ(reprOf("{0"), "{}");
  EXPECT_EQ(reprOf("{" + mStr("k") + mTuple({}) + mInt(3) + "N0"),
            "{'k': (), 3: None}");
  // A dict needs its NULL terminator.
  EXPECT_TRUE(failsWith(readMarshal("{" + mInt(1) + mInt(2)),
                        "at byte 11: truncated: expected a dict key or the "
                        "NULL terminator"));
  // A key without a value.
  EXPECT_TRUE(failsWith(readMarshal("{" + mInt(1)), "at byte 6: truncated"));
}

TEST(Marshal, NullOutsideADict) {
  EXPECT_TRUE(failsWith(readMarshal("0"),
                        "at byte 0: unexpected NULL object (type code '0')"));
  EXPECT_TRUE(failsWith(readMarshal(mTuple({"N", "0"})),
                        "at byte 3: unexpected NULL object"));
}

//===-- FLAG_REF and back-references --------------------------------------===//

TEST(Marshal, FlagRefAcceptedOnEveryType) {
  // Each object, flagged, then a reference to it: both items print the same.
  std::vector<std::string> Objects = {
      "N",
      "F",
      "T",
      "S",
      ".",
      mInt(5),
      "I" + i32(1) + i32(0),
      "l" + i32(1) + i16(3),
      "g" + f64(0.5),
      "f\x03"
      "2.5",
      "y" + f64(1) + f64(-1),
      "x\x01"
      "1\x01"
      "2",
      mBytes("b"),
      mStrAs('u', "u"),
      mStrAs('t', "t"),
      mStrAs('a', "a"),
      mStrAs('A', "A"),
      mStrAs('z', "z"),
      mStrAs('Z', "Z"),
      mSeq('(', {mInt(1)}),
      mTuple({mInt(2)}),
      mSeq('[', {mInt(3)}),
      mSeq('<', {mInt(4)}),
      mSeq('>', {mInt(5)}),
      "{" + mInt(6) + mInt(7) + "0",
      CodeParts().encode(),
  };
  for (std::string Obj : Objects) {
    SCOPED_TRACE("object " + llvm::toHex(Obj));
    std::string Plain = reprOf(Obj);
    ASSERT_EQ(Plain.find("error"), std::string::npos) << Plain;
    Obj[0] = char(uint8_t(Obj[0]) | Ref);
    auto V = readMarshal(mTuple({Obj, mRef(0)}));
    ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
    EXPECT_EQ(V->repr(PythonVersion::V3_11), "(" + Plain + ", " + Plain + ")");
  }
}

TEST(Marshal, RefToEarlierTupleItem) {
  // a = 'abc' * 2; marshal.dumps((a, a)).hex(): the str is flagged ('Z'|REF
  // = da) and the second item is `r 0`.
  auto V = readMarshal(unhex("2902da066162636162637200000000"));
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  EXPECT_EQ(V->repr(PythonVersion::V3_11), "('abcabc', 'abcabc')");
  // The reference shares the payload; it is not a copy.
  const auto &Items = *V->getSequence(SequenceKind::Tuple);
  EXPECT_EQ(Items[0].getIf<StrValue>()->Utf8.get(),
            Items[1].getIf<StrValue>()->Utf8.get());
}

TEST(Marshal, RefsArePreOrder) {
  // [REF] list slot 0 holding 'a' (slot 1) and a tuple (slot 2) holding 'b'
  // (slot 3). Containers take their slot before their items, so the tuple is
  // 2 and 'b' is 3 (post-order numbering would swap them).
  std::string S = mSeq('[',
                       {mStr("a", true), mTuple({mStr("b", true)}, true),
                        mRef(3), mRef(2), mRef(1)},
                       true);
  EXPECT_EQ(reprOf(S), "['a', ('b',), 'b', ('b',), 'a']");
  // The list itself is complete once read and may be referenced after it.
  EXPECT_EQ(reprOf(mTuple({mSeq('[', {mInt(1)}, true), mRef(0)})),
            "([1], [1])");
}

TEST(Marshal, CodeObjectReservesItsSlotFirst) {
  auto V = readMarshal(unhex(NestedFunctionHex));
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  const CodeObject *F = V->getCode();
  ASSERT_NE(F, nullptr);
  // These fields are back-references (`r 3`, `r 5`, `r 4`/`r 6`, `r 9`) that
  // only resolve correctly when f took slot 0 before its fields.
  EXPECT_TRUE(F->Names.empty());
  EXPECT_EQ(F->Filename, "t.py");
  EXPECT_EQ(std::vector<std::string>(F->LocalsPlusNames.begin(),
                                     F->LocalsPlusNames.end()),
            (std::vector<std::string>{"a", "b", "g"}));
  EXPECT_EQ(F->Name, "f");
  EXPECT_EQ(F->QualName, "f");
  EXPECT_EQ(F->ExceptionTable, "");

  // A flagged code object inside a tuple, then referenced: slot 0 is the
  // code object, reserved before the strings inside it.
  std::string Code = CodeParts().encode(/*Flag=*/true);
  auto T = readMarshal(mTuple({Code, mRef(0)}));
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  const auto &Items = *T->getSequence(SequenceKind::Tuple);
  EXPECT_EQ(Items[0].getCode(), Items[1].getCode());

  // With its name flagged too, the name is slot 1 and the code slot 0.
  CodeParts P;
  P.Name = mStr("n", true);
  auto U = readMarshal(mTuple({P.encode(true), mRef(1), mRef(0)}));
  ASSERT_TRUE(bool(U)) << llvm::toString(U.takeError());
  const auto &UI = *U->getSequence(SequenceKind::Tuple);
  EXPECT_EQ(UI[1].repr(PythonVersion::V3_11), "'n'");
  EXPECT_NE(UI[2].getCode(), nullptr);
}

TEST(Marshal, RefOutOfRange) {
  EXPECT_TRUE(failsWith(readMarshal(mRef(0)),
                        "at byte 0: reference 0 out of range (table has 0 "
                        "entries)"));
  EXPECT_TRUE(failsWith(readMarshal(mTuple({mInt(1, true), mRef(1)})),
                        "at byte 7: reference 1 out of range (table has 1 "
                        "entries)"));
  EXPECT_TRUE(failsWith(readMarshal(mTuple({mInt(1, true), mRef(-1)})),
                        "at byte 7: reference -1 out of range"));
  EXPECT_TRUE(failsWith(readMarshal("r\x01"), "at byte 1: truncated"));
}

TEST(Marshal, RefToObjectUnderConstruction) {
  // A tuple that contains itself. (CPython inserts a tuple into its table
  // before reading the items and would build a cycle; we reject it, so the
  // result is always acyclic.)
  EXPECT_TRUE(
      failsWith(readMarshal(mTuple({mRef(0)}, true)),
                "at byte 2: reference 0 to an object still being read"));
  EXPECT_TRUE(failsWith(readMarshal(mSeq('[', {mInt(1), mRef(0)}, true)),
                        "reference 0 to an object still being read"));
  // A code object whose co_consts refers to itself (CPython: "bad marshal
  // data (invalid reference)").
  CodeParts P;
  P.Consts = mTuple({mRef(0)});
  EXPECT_TRUE(failsWith(readMarshal(P.encode(true)),
                        "reference 0 to an object still being read"));
}

//===-- Malformed streams -------------------------------------------------===//

TEST(Marshal, UnknownTypeCode) {
  EXPECT_TRUE(failsWith(readMarshal("Q"),
                        "at byte 0: unknown marshal type code 'Q' (0x51)"));
  EXPECT_TRUE(failsWith(readMarshal(mTuple({"N", "\x01"})),
                        "at byte 3: unknown marshal type code 0x01 where a "
                        "container item was expected"));
  // 0xff is FLAG_REF | 0x7f.
  EXPECT_TRUE(failsWith(readMarshal("\xff"), "unknown marshal type code 0x7f"));
  // The 3.14 slice type ':' does not exist in version 4 (3.11-3.13).
  EXPECT_TRUE(failsWith(readMarshal(":"), "unknown marshal type code ':'"));
}

TEST(Marshal, SliceIsMarshalVersion5) {
  // marshal.dumps(slice(1, 2, None)) in 3.14.2.
  std::string Bytes = unhex("3ae901000000e9020000004e");
  auto V = readMarshal(Bytes, 0, PythonVersion::V3_14);
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  const SequenceValue *S = V->getIf<SequenceValue>();
  ASSERT_NE(S, nullptr);
  EXPECT_EQ(S->Kind, SequenceKind::Slice);
  EXPECT_EQ(V->repr(PythonVersion::V3_11), "slice(1, 2, None)");
  EXPECT_TRUE(failsWith(readMarshal(Bytes, 0, PythonVersion::V3_13),
                        "(marshal version 4, 3.13's, has no slices)"));
}

TEST(Marshal, NegativeLength) {
  EXPECT_TRUE(failsWith(readMarshal("s" + i32(-1)),
                        "at byte 1: negative bytes length -1"));
  EXPECT_TRUE(failsWith(readMarshal("u" + i32(-5) + "abc"),
                        "at byte 1: negative string length -5"));
  EXPECT_TRUE(failsWith(readMarshal("a" + i32(INT32_MIN)),
                        "at byte 1: negative string length"));
  EXPECT_TRUE(failsWith(readMarshal("(" + i32(-1)),
                        "at byte 1: negative container size -1"));
  EXPECT_TRUE(failsWith(readMarshal("[" + i32(-2)), "negative container"));
  EXPECT_TRUE(failsWith(readMarshal("<" + i32(-3)), "negative container"));
  EXPECT_TRUE(failsWith(readMarshal(">" + i32(-4)), "negative container"));
}

TEST(Marshal, LengthBeyondTheEnd) {
  EXPECT_TRUE(failsWith(readMarshal("s" + i32(16) + "ab"),
                        "at byte 1: bytes length 16 exceeds the 2 bytes left"));
  EXPECT_TRUE(failsWith(readMarshal("u" + i32(3) + "ab"),
                        "at byte 1: string length 3 exceeds the 2 bytes left"));
  EXPECT_TRUE(failsWith(readMarshal(std::string("z\x05"
                                                "abc")),
                        "at byte 2: truncated: expected string payload"));
  EXPECT_TRUE(failsWith(readMarshal("(" + i32(1000) + "NN"),
                        "at byte 1: container size 1000 exceeds the 2 bytes "
                        "left"));
  EXPECT_TRUE(failsWith(readMarshal("[" + i32(INT32_MAX)),
                        "container size 2147483647 exceeds the 0 bytes left"));
  EXPECT_TRUE(
      failsWith(readMarshal(std::string(")\x09"
                                        "NN")),
                "at byte 1: tuple of 9 items exceeds the 2 bytes left"));
  EXPECT_TRUE(failsWith(readMarshal("l" + i32(-100) + i16(1)),
                        "at byte 1: long with 100 digits exceeds the 2 bytes "
                        "left"));
  EXPECT_TRUE(failsWith(readMarshal("l" + i32(INT32_MIN)),
                        "long with 2147483648 digits"));
}

TEST(Marshal, UnnormalizedLong) {
  EXPECT_TRUE(failsWith(readMarshal("l" + i32(2) + i16(1) + i16(0)),
                        "at byte 7: unnormalized long data"));
  EXPECT_TRUE(failsWith(readMarshal("l" + i32(-1) + i16(0)),
                        "at byte 5: unnormalized long"));
}

TEST(Marshal, LongDigitOutOfRange) {
  EXPECT_TRUE(failsWith(readMarshal("l" + i32(1) + i16(0x8000)),
                        "at byte 5: digit out of range in long"));
  EXPECT_TRUE(failsWith(readMarshal("l" + i32(2) + i16(1) + i16(0xffff)),
                        "at byte 7: digit out of range"));
  // 0x7fff is the largest digit.
  EXPECT_EQ(reprOf("l" + i32(1) + i16(0x7fff)), "32767");
}

TEST(Marshal, TrailingBytes) {
  EXPECT_TRUE(failsWith(readMarshal("NN"),
                        "at byte 1: 1 trailing bytes after the object"));
  EXPECT_TRUE(
      failsWith(readMarshal(mInt(1) + "xyz"), "at byte 5: 3 trailing bytes"));
}

TEST(Marshal, BaseOffsetShiftsMessages) {
  EXPECT_TRUE(failsWith(readMarshal("Q", 100), "at byte 100: unknown"));
  EXPECT_TRUE(failsWith(readMarshal("NN", 16), "at byte 17: 1 trailing"));
}

TEST(Marshal, EveryPrefixOfAValidStreamIsTruncated) {
  std::vector<std::string> Streams = {
      unhex(ModuleHex),
      unhex(NestedFunctionHex),
      unhex("2902da066162636162637200000000"),
      unhex("ec0700000000000000a937a733044d93652703"),
      unhex("f9000000000000f03f0000000000000040"),
      unhex("7be901000000e90200000030"),
      unhex("7801310132"),
      "I" + i32(1) + i32(2),
      mSeq('>', {mStrAs('u', "\xc3\xa9"), mStrAs('A', "A")}),
  };
  for (const std::string &S : Streams) {
    ASSERT_TRUE(bool(readMarshal(S))) << llvm::toHex(S);
    for (size_t N = 0; N < S.size(); ++N) {
      SCOPED_TRACE("prefix of " + std::to_string(N) + " bytes of " +
                   llvm::toHex(S));
      auto V = readMarshal(StringRef(S).take_front(N));
      ASSERT_FALSE(bool(V));
      std::string Msg = llvm::toString(V.takeError());
      EXPECT_NE(Msg.find("at byte"), std::string::npos) << Msg;
    }
  }
}

TEST(Marshal, DepthLimit) {
  // CPython's MAX_MARSHAL_STACK_DEPTH is 2000 objects: 1999 nested tuples
  // around None load, 2000 do not ("recursion limit exceeded").
  auto Nested = [](size_t N) {
    std::string S;
    for (size_t I = 0; I < N; ++I)
      S += std::string(")\x01");
    return S + "N";
  };
  EXPECT_TRUE(bool(readMarshal(Nested(1999))));
  EXPECT_TRUE(failsWith(readMarshal(Nested(2000)),
                        "at byte 4000: nesting deeper than 2000 objects"));
  EXPECT_TRUE(failsWith(readMarshal(Nested(2001)), "nesting deeper"));
  // Far deeper input errors the same way instead of exhausting the stack.
  EXPECT_TRUE(failsWith(readMarshal(Nested(200000)), "nesting deeper"));
  // '(' with an int32 count nests the same.
  std::string Wide;
  for (int I = 0; I < 2001; ++I)
    Wide += "(" + i32(1);
  EXPECT_TRUE(failsWith(readMarshal(Wide + "N"), "nesting deeper"));
  // Dicts too.
  std::string Dicts;
  for (int I = 0; I < 2001; ++I)
    Dicts += "{N";
  EXPECT_TRUE(failsWith(readMarshal(Dicts), "nesting deeper"));
}

TEST(Marshal, DepthLimitThroughCodeObjects) {
  // Each code object costs two levels (itself and its co_consts tuple), and
  // the innermost None one more. python3.11 loads 999 such nested code
  // objects and rejects 1000 ("recursion limit exceeded"); so do we.
  auto Nested = [](unsigned N) {
    std::string S = mNone();
    for (unsigned I = 0; I < N; ++I) {
      CodeParts P;
      P.Consts = mTuple({S});
      S = P.encode();
    }
    return S;
  };
  auto Ok = readMarshal(Nested(999));
  ASSERT_TRUE(bool(Ok)) << llvm::toString(Ok.takeError());
  unsigned Count = 0;
  forEachCodeObject(*Ok->getCode(),
                    [&](const CodeObject &, unsigned) { ++Count; });
  EXPECT_EQ(Count, 999u);
  EXPECT_TRUE(
      failsWith(readMarshal(Nested(1000)), "nesting deeper than 2000 objects"));
}

//===-- Code objects ------------------------------------------------------===//

TEST(Marshal, CodeObjectFields) {
  auto V = readMarshal(unhex(NestedFunctionHex));
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  const CodeObject &F = *V->getCode();
  // f.co_argcount .. f.co_flags == 2 0 0 2 3
  EXPECT_EQ(F.ArgCount, 2);
  EXPECT_EQ(F.PosOnlyArgCount, 0);
  EXPECT_EQ(F.KwOnlyArgCount, 0);
  EXPECT_EQ(F.StackSize, 2);
  EXPECT_EQ(F.Flags, 3);
  EXPECT_EQ(llvm::toHex(F.Code, /*LowerCase=*/true),
            "8700970088006601640184087d027c025300");
  EXPECT_EQ(F.LocalsPlusKinds.str(), "\x60\x20\x20");
  EXPECT_EQ(F.getVarNames(), (std::vector<std::string>{"a", "b", "g"}));
  EXPECT_EQ(F.getCellVars(), (std::vector<std::string>{"a"}));
  EXPECT_TRUE(F.getFreeVars().empty());
  EXPECT_EQ(F.getNumLocals(), 3u);
  // A slot a message names: its name, or its index past the names.
  EXPECT_EQ(F.describeLocal(2), "g");
  EXPECT_EQ(F.describeLocal(3), "#3");
  EXPECT_EQ(F.FirstLineNo, 1);
  EXPECT_EQ(
      llvm::toHex(F.LineTable, true),
      "f88000f002010511f000010511f000010511f000010511f000010511e00b0c8048");
  ASSERT_EQ(F.Consts.size(), 2u);
  EXPECT_TRUE(F.Consts[0].is<NoneValue>());
  ASSERT_EQ(F.children().size(), 1u);

  const CodeObject &G = *F.children()[0];
  EXPECT_EQ(G.Name.str(), "g");
  EXPECT_EQ(G.QualName.str(), "f.<locals>.g");
  EXPECT_EQ(G.Filename.str(), "t.py");
  EXPECT_EQ(G.FirstLineNo, 2);
  EXPECT_EQ(G.Flags, 19);
  EXPECT_EQ(G.getFreeVars(), (std::vector<std::string>{"a"}));
  EXPECT_TRUE(G.getVarNames().empty());
  EXPECT_EQ(G.getNumLocals(), 0u);
  EXPECT_EQ(F.Consts[1].repr(PythonVersion::V3_11),
            "<code object g, file \"t.py\", line 2>");

  std::vector<std::string> Order;
  forEachCodeObject(F, [&](const CodeObject &C, unsigned Depth) {
    Order.push_back(C.QualName.str() + "@" + std::to_string(Depth));
  });
  EXPECT_EQ(Order, (std::vector<std::string>{"f@0", "f.<locals>.g@1"}));
}

TEST(Marshal, HandBuiltCodeObject) {
  CodeParts P;
  P.ArgCount = 1;
  P.StackSize = 3;
  P.Flags = 0x43;
  P.LocalsPlusNames = mTuple({mStr("x")});
  P.LocalsPlusKinds = mBytes("\x20");
  P.Names = mTuple({mStrAs('u', "print")});
  P.FirstLineNo = 7;
  P.ExceptionTable = mBytes(unhex("82 01 02 00"));
  auto V = readMarshal(P.encode());
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  const CodeObject &C = *V->getCode();
  EXPECT_EQ(C.ArgCount, 1);
  EXPECT_EQ(C.StackSize, 3);
  EXPECT_EQ(C.Flags, 0x43);
  EXPECT_EQ(std::vector<std::string>(C.Names.begin(), C.Names.end()),
            (std::vector<std::string>{"print"}));
  EXPECT_EQ(C.getVarNames(), (std::vector<std::string>{"x"}));
  EXPECT_EQ(C.FirstLineNo, 7);
  EXPECT_EQ(C.ExceptionTable.str(), unhex("82 01 02 00"));
  EXPECT_FALSE(C.isGeneratorLike());
}

TEST(Marshal, CodeObjectFieldOfWrongType) {
  {
    CodeParts P;
    P.Code = mStr("not bytes");
    EXPECT_TRUE(failsWith(readMarshal(P.encode()),
                          "at byte 21: code object field co_code must be "
                          "bytes"));
  }
  {
    CodeParts P;
    P.Consts = mSeq('[', {});
    EXPECT_TRUE(
        failsWith(readMarshal(P.encode()), "co_consts must be a tuple"));
  }
  {
    CodeParts P;
    P.Names = mTuple({mInt(1)});
    EXPECT_TRUE(
        failsWith(readMarshal(P.encode()), "co_names must hold only str"));
  }
  {
    CodeParts P;
    P.LocalsPlusNames = mTuple({mBytes("x")});
    P.LocalsPlusKinds = mBytes("\x20");
    EXPECT_TRUE(failsWith(readMarshal(P.encode()),
                          "co_localsplusnames must hold only str"));
  }
  {
    CodeParts P;
    P.LocalsPlusKinds = mTuple({});
    EXPECT_TRUE(
        failsWith(readMarshal(P.encode()), "co_localspluskinds must be bytes"));
  }
  {
    CodeParts P;
    P.Filename = mBytes("t.py");
    EXPECT_TRUE(
        failsWith(readMarshal(P.encode()), "co_filename must be a str"));
  }
  {
    CodeParts P;
    P.Name = "N";
    EXPECT_TRUE(failsWith(readMarshal(P.encode()), "co_name must be a str"));
  }
  {
    CodeParts P;
    P.QualName = mInt(3);
    EXPECT_TRUE(
        failsWith(readMarshal(P.encode()), "co_qualname must be a str"));
  }
  {
    CodeParts P;
    P.LineTable = mTuple({});
    EXPECT_TRUE(
        failsWith(readMarshal(P.encode()), "co_linetable must be bytes"));
  }
  {
    CodeParts P;
    P.ExceptionTable = "N";
    EXPECT_TRUE(
        failsWith(readMarshal(P.encode()), "co_exceptiontable must be bytes"));
  }
  {
    // A field that is itself malformed reports its own error.
    CodeParts P;
    P.Consts = "Q";
    EXPECT_TRUE(failsWith(readMarshal(P.encode()),
                          "unknown marshal type code 'Q' (0x51) where "
                          "co_consts was expected"));
  }
}

TEST(Marshal, LocalsPlusLengthMismatch) {
  CodeParts P;
  P.LocalsPlusNames = mTuple({mStr("a"), mStr("b")});
  P.LocalsPlusKinds = mBytes("\x20");
  P.QualName = mStr("q");
  EXPECT_TRUE(failsWith(readMarshal(P.encode()),
                        "at byte 0: code object 'q': 2 localsplus names but "
                        "1 kind bytes"));
}

TEST(Marshal, CollectTopLevelCode) {
  std::string C = CodeParts().encode();
  auto V = readMarshal(mSeq('[', {C, mInt(1), C}));
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  EXPECT_EQ(collectTopLevelCode(*V).size(), 2u);
  auto D = readMarshal("{" + mStr("k") + C + C + mInt(1) + "0");
  ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
  EXPECT_EQ(collectTopLevelCode(*D).size(), 2u);
  auto Single = readMarshal(C);
  ASSERT_TRUE(bool(Single)) << llvm::toString(Single.takeError());
  EXPECT_EQ(collectTopLevelCode(*Single).size(), 1u);
  EXPECT_TRUE(collectTopLevelCode(readOk("N")).empty());
}

//===-- Input-controlled depth on a small stack ---------------------------===//
//
// `import pyverify` reads marshal data on whatever thread calls it, and a
// Python thread can have a 32 KiB stack (threading.stack_size). Reading,
// printing, walking and destroying a value must not use C stack in
// proportion to its nesting: these run on a 64 KiB thread, where a
// recursion per level overflows after a few hundred levels. Nesting written
// out is capped at 2000 levels (the DepthLimit tests); back-references to
// finished objects nest without that cap, about one level per 2 input bytes.

using pyverify::testing::onSmallStack;

/// \p Levels nested copies of \p Open around \p Inner, then \p Close each.
std::string nest(size_t Levels, StringRef Open, StringRef Inner,
                 StringRef Close = "") {
  std::string S;
  S.reserve(Levels * (Open.size() + Close.size()) + Inner.size());
  for (size_t I = 0; I < Levels; ++I)
    S += Open;
  S += Inner;
  for (size_t I = 0; I < Levels; ++I)
    S += Close;
  return S;
}

TEST(MarshalSmallStack, DeepOpenersErrorCleanly) {
  // 100,000 openers of each container kind, dict keys and values, and nested
  // code objects (the fuzzer's marshal-deep-dicts.bin is 1,100 dict openers).
  std::string Code = CodeParts().encode();
  size_t ConstsAt = Code.find(CodeParts().Consts);
  std::string CodeOpen = Code.substr(0, ConstsAt) + ")\x01";
  std::string CodeClose = Code.substr(ConstsAt + CodeParts().Consts.size());
  std::vector<std::string> Inputs = {
      nest(100000, ")\x01", "N"),
      nest(100000, "(" + i32(1), "N"),
      nest(100000, "[" + i32(1), "N"),
      nest(100000, "<" + i32(1), "N"),
      nest(100000, ">" + i32(1), "N"),
      nest(100000, "{", "N", "N0"),          // nested in keys
      nest(100000, "{N", "N", "0"),          // nested in values
      nest(50000, CodeOpen, "N", CodeClose), // co_consts of co_consts
  };
  std::vector<std::string> Errors(Inputs.size());
  onSmallStack([&] {
    for (size_t I = 0; I < Inputs.size(); ++I) {
      auto V = readMarshal(Inputs[I]);
      Errors[I] = V ? "read" : llvm::toString(V.takeError());
    }
  });
  for (size_t I = 0; I < Inputs.size(); ++I)
    EXPECT_TRUE(StringRef(Errors[I]).contains("nesting deeper than 2000"))
        << "input " << I << ": " << Errors[I];
}

TEST(MarshalSmallStack, DeepestAllowedNesting) {
  // 1999 levels load; the value is printed and destroyed on the same stack.
  std::string Repr;
  onSmallStack([&] {
    auto V = readMarshal(nest(1999, "[" + i32(1), "N"));
    Repr = V ? V->repr(PythonVersion::V3_11) : llvm::toString(V.takeError());
  });
  EXPECT_EQ(Repr, nest(1999, "[", "None", "]"));
}

/// A list of \p Chunks tuples, each \p PerChunk levels deep, whose innermost
/// item is a back-reference to the previous chunk: the last is nested
/// Chunks * PerChunk levels deep.
std::string chainedTuples(unsigned Chunks, unsigned PerChunk) {
  std::string S = "[" + i32(int32_t(Chunks));
  for (unsigned K = 0; K < Chunks; ++K) {
    S += type(')', /*Flag=*/true) + char(1); // Slot K.
    S += nest(PerChunk - 1, ")\x01", K ? mRef(int32_t(K - 1)) : mNone());
  }
  return S;
}

TEST(MarshalSmallStack, DeepValuesThroughBackReferences) {
  // 100,000 nested tuples: read, repr()'d, and destroyed on the small stack.
  std::string Input = chainedTuples(100, 1000);
  std::string Repr;
  size_t Depth = 0;
  onSmallStack([&] {
    auto V = readMarshal(Input);
    if (!V) {
      Repr = llvm::toString(V.takeError());
      return;
    }
    const Value *X = &V->getSequence(SequenceKind::List)->back();
    for (; auto *T = X->getSequence(SequenceKind::Tuple); X = &T->front())
      ++Depth;
    Repr = V->repr(PythonVersion::V3_11);
  });
  EXPECT_EQ(Depth, 100000u);
  // repr() stops after ReprBudget (10,000) values: the list, chunks 0 to 2
  // (1001, 2001 and 3001 values), then 3996 of chunk 3's tuples.
  std::string Expected = "[";
  for (unsigned K = 0; K < 3; ++K)
    Expected += nest(1000 * (K + 1), "(", "None", ",)") + ", ";
  Expected += nest(3996, "(", "...", ",)") + "]";
  EXPECT_EQ(Repr, Expected);
}

TEST(MarshalSmallStack, DeepCodeObjectsThroughBackReferences) {
  // 20,000 code objects, each the only constant of the next.
  constexpr unsigned N = 20000;
  std::string Input = "[" + i32(int32_t(N));
  for (unsigned K = 0; K < N; ++K) {
    CodeParts P;
    P.Consts = mTuple({K ? mRef(int32_t(K - 1)) : mNone()});
    Input += P.encode(/*Flag=*/true); // Slot K.
  }
  unsigned Visited = 0, MaxDepth = 0;
  std::string Error;
  onSmallStack([&] {
    auto V = readMarshal(Input);
    if (!V) {
      Error = llvm::toString(V.takeError());
      return;
    }
    const Value &Last = V->getSequence(SequenceKind::List)->back();
    forEachCodeObject(*Last.getCode(), [&](const CodeObject &, unsigned D) {
      ++Visited;
      MaxDepth = std::max(MaxDepth, D);
    });
  });
  EXPECT_EQ(Error, "");
  EXPECT_EQ(Visited, N);
  EXPECT_EQ(MaxDepth, N - 1);
}

//===-- .pyc files --------------------------------------------------------===//

TEST(Pyc, ReadsHeaderAndCode) {
  auto F = readPyc(pycHeader() + unhex(ModuleHex));
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  EXPECT_EQ(F->Header.Magic, PycMagic311);
  EXPECT_EQ(F->Header.Flags, 0u);
  EXPECT_FALSE(F->Header.isHashBased());
  EXPECT_EQ(F->Header.Word2, 0x01020304u);
  EXPECT_EQ(F->Header.Word3, 0x10u);
  ASSERT_NE(F->Code, nullptr);
  EXPECT_EQ(F->Code->Name.str(), "<module>");
  EXPECT_EQ(
      std::vector<std::string>(F->Code->Names.begin(), F->Code->Names.end()),
      (std::vector<std::string>{"x"}));
  EXPECT_TRUE(hasPyc311Magic(pycHeader()));
}

/// Whether \p S views memory inside \p Buf.
static bool inside(llvm::StringRef S, llvm::StringRef Buf) {
  return S.data() >= Buf.data() &&
         S.data() + S.size() <= Buf.data() + Buf.size();
}

TEST(Pyc, CodeObjectsOutliveTheirInputWithoutAnOwner) {
  std::string Bytes = pycHeader() + unhex(ModuleHex);
  auto F = readPyc(Bytes);
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  // A copy of the input, in the code objects' storage: overwriting (and
  // freeing) the caller's bytes changes nothing.
  EXPECT_FALSE(inside(F->Code->Code, Bytes));
  std::string Code = F->Code->Code.str();
  Bytes.assign(Bytes.size(), 'X');
  Bytes = std::string();
  EXPECT_EQ(F->Code->Name.str(), "<module>");
  EXPECT_EQ(F->Code->Names.at(0).str(), "x");
  EXPECT_EQ(F->Code->Code.str(), Code);
  ASSERT_NE(F->Code->Storage, nullptr);
  EXPECT_EQ(F->Code->Storage->Input, nullptr);
}

TEST(Pyc, AnOwnedInputIsViewedAndKept) {
  auto Bytes = std::make_shared<std::string>(pycHeader() + unhex(ModuleHex));
  std::weak_ptr<std::string> Weak = Bytes;
  auto F = readPyc(*Bytes, /*AnyVersion=*/false, Bytes);
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  // No copy: the fields view the owner's bytes, which the code objects
  // keep alive.
  EXPECT_TRUE(inside(F->Code->Code, *Bytes));
  EXPECT_TRUE(inside(F->Code->Names.at(0), *Bytes));
  EXPECT_TRUE(inside(F->Code->LineTable, *Bytes));
  Bytes.reset();
  EXPECT_FALSE(Weak.expired());
  EXPECT_EQ(F->Code->Name.str(), "<module>");
  F->Code.reset();
  EXPECT_TRUE(Weak.expired());
}

TEST(Pyc, ABorrowedInputIsViewed) {
  std::string Bytes = pycHeader() + unhex(ModuleHex);
  auto F = readPyc(Bytes, /*AnyVersion=*/false, borrowedInput(Bytes));
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  EXPECT_TRUE(inside(F->Code->Code, Bytes));
  EXPECT_TRUE(inside(F->Code->QualName, Bytes));
}

TEST(CodeObject, CopiesShareWhatItOwns) {
  // A ByteView is never made from a temporary string: it would dangle.
  static_assert(!std::is_constructible_v<ByteView, std::string &&>);
  static_assert(!std::is_assignable_v<ByteView &, std::string &&>);
  static_assert(std::is_assignable_v<ByteView &, const std::string &>);
  std::optional<CodeObject> C(std::in_place);
  C->Code = C->own(std::string("\x97\x00", 2));
  C->QualName = C->own(std::string("f.<locals>.g"));
  CodeObject Copy = *C;
  C.reset();
  EXPECT_EQ(Copy.Code.str(), std::string("\x97\x00", 2));
  EXPECT_EQ(Copy.QualName.str(), "f.<locals>.g");
  EXPECT_EQ(Copy.own("").size(), 0u);
}

TEST(Pyc, HashBasedFlags) {
  for (uint32_t Flags : {1u, 3u}) {
    auto F = readPyc(pycHeader(Flags) + unhex(ModuleHex));
    ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
    EXPECT_TRUE(F->Header.isHashBased());
    EXPECT_EQ(F->Header.Flags, Flags);
  }
  // Flag 2 alone (check_source without hash) is not rejected either: only
  // bits above 1 are invalid.
  EXPECT_TRUE(bool(readPyc(pycHeader(2) + unhex(ModuleHex))));
}

TEST(Pyc, BadMagic) {
  // 3.12's importlib.util.MAGIC_NUMBER is cb 0d 0d 0a (3531).
  std::string P312 =
      unhex("cb 0d 0d 0a") + std::string(12, '\0') + unhex(ModuleHex);
  EXPECT_FALSE(hasPyc311Magic(P312));
  EXPECT_TRUE(failsWith(readPyc(P312),
                        "at byte 0: bad .pyc magic 3531 (bytes cb 0d 0d 0a)"));
  // 3.10 (3439).
  std::string P310 =
      unhex("6f 0d 0d 0a") + std::string(12, '\0') + unhex(ModuleHex);
  EXPECT_TRUE(failsWith(readPyc(P310), "bad .pyc magic 3439"));
  // The right number without "\r\n".
  std::string NoCrLf =
      unhex("a7 0d 00 00") + std::string(12, '\0') + unhex(ModuleHex);
  EXPECT_TRUE(failsWith(readPyc(NoCrLf), "bad .pyc magic"));
}

TEST(Pyc, BadFlags) {
  EXPECT_TRUE(failsWith(readPyc(pycHeader(4) + unhex(ModuleHex)),
                        "at byte 4: invalid .pyc flags 0x4"));
  EXPECT_TRUE(failsWith(readPyc(pycHeader(0x80000001) + unhex(ModuleHex)),
                        "invalid .pyc flags 0x80000001"));
}

TEST(Pyc, TruncatedHeader) {
  std::string H = pycHeader();
  for (size_t N = 0; N < 16; ++N)
    EXPECT_TRUE(failsWith(readPyc(H.substr(0, N)),
                          "at byte " + std::to_string(N) +
                              ": truncated .pyc: header needs 16 bytes"));
  // A complete header with no payload is a truncated marshal stream.
  EXPECT_TRUE(failsWith(readPyc(H), "at byte 16: truncated"));
}

TEST(Pyc, PayloadNotCode) {
  EXPECT_TRUE(failsWith(readPyc(pycHeader() + "N"),
                        "at byte 16: .pyc payload is not a code object"));
  EXPECT_TRUE(failsWith(readPyc(pycHeader() + mTuple({CodeParts().encode()})),
                        "not a code object"));
  // Marshal errors in the payload carry file offsets.
  EXPECT_TRUE(failsWith(readPyc(pycHeader() + "NN"), "at byte 17: 1 trailing"));
}

} // namespace
