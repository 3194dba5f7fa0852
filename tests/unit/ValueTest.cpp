//===- ValueTest.cpp - Value::repr against Python's repr() ----------------===//
//
// Every expected string here is what python3.11's repr() prints for the same
// value (the Python expression is in the comment or the test name).
//
//===----------------------------------------------------------------------===//

#include "pyverify/Bytecode/Value.h"
#include "pyverify/Bytecode/CodeObject.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace pyverify;

namespace {

const double Inf = std::numeric_limits<double>::infinity();
const double NaN = std::numeric_limits<double>::quiet_NaN();

Value str(llvm::StringRef S) {
  return StrValue{std::make_shared<const std::string>(S.str())};
}
Value bytes(llvm::StringRef S) {
  return BytesValue{std::make_shared<const std::string>(S.str())};
}
Value seq(SequenceKind K, std::vector<Value> Items) {
  return SequenceValue{
      K, std::make_shared<const std::vector<Value>>(std::move(Items))};
}
Value tuple(std::vector<Value> Items) {
  return seq(SequenceKind::Tuple, std::move(Items));
}
Value cplx(double Re, double Im) { return std::complex<double>(Re, Im); }
Value i(int64_t V) { return V; }

std::string floatRepr(double D) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printPyFloatRepr(OS, D);
  return S;
}

std::string strRepr(llvm::StringRef Utf8) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printPyStrRepr(OS, Utf8);
  return S;
}

TEST(ValueRepr, Floats) {
  EXPECT_EQ(floatRepr(0.1), "0.1");
  EXPECT_EQ(floatRepr(1e16), "1e+16");
  EXPECT_EQ(floatRepr(1e15), "1000000000000000.0");
  EXPECT_EQ(floatRepr(1e-5), "1e-05");
  EXPECT_EQ(floatRepr(0.0001), "0.0001");
  EXPECT_EQ(floatRepr(0.00001234), "1.234e-05");
  EXPECT_EQ(floatRepr(123456789.0), "123456789.0");
  EXPECT_EQ(floatRepr(100.0), "100.0");
  EXPECT_EQ(floatRepr(0.0), "0.0");
  EXPECT_EQ(floatRepr(-0.0), "-0.0");
  EXPECT_EQ(floatRepr(Inf), "inf");
  EXPECT_EQ(floatRepr(-Inf), "-inf");
  EXPECT_EQ(floatRepr(NaN), "nan");
  EXPECT_EQ(floatRepr(-NaN), "nan");
  EXPECT_EQ(floatRepr(2.5), "2.5");
  EXPECT_EQ(floatRepr(-2.5), "-2.5");
  EXPECT_EQ(floatRepr(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(floatRepr(1e22), "1e+22");
  EXPECT_EQ(floatRepr(1e100), "1e+100");
  EXPECT_EQ(floatRepr(1.5e300), "1.5e+300");
  EXPECT_EQ(floatRepr(5e-324), "5e-324");
  EXPECT_EQ(floatRepr(12345678901234567.0), "1.2345678901234568e+16");
  EXPECT_EQ(floatRepr(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(Value(0.1).repr(), "0.1");
}

TEST(ValueRepr, Complex) {
  EXPECT_EQ(cplx(0, 1).repr(), "1j");
  EXPECT_EQ(cplx(0, 0).repr(), "0j");
  EXPECT_EQ(cplx(0, -1).repr(), "-1j");
  EXPECT_EQ(cplx(0, 2.5).repr(), "2.5j");
  EXPECT_EQ(cplx(0, 1e-5).repr(), "1e-05j");
  EXPECT_EQ(cplx(0, Inf).repr(), "infj");
  EXPECT_EQ(cplx(1, 2).repr(), "(1+2j)");
  EXPECT_EQ(cplx(-1, -1).repr(), "(-1-1j)");
  EXPECT_EQ(cplx(1.5, -2.5).repr(), "(1.5-2.5j)");
  EXPECT_EQ(cplx(1e16, 1).repr(), "(1e+16+1j)");
  EXPECT_EQ(cplx(1e15, 0.5).repr(), "(1000000000000000+0.5j)");
  EXPECT_EQ(cplx(NaN, 1).repr(), "(nan+1j)");
  EXPECT_EQ(cplx(1, NaN).repr(), "(1+nanj)");
  EXPECT_EQ(cplx(Inf, -Inf).repr(), "(inf-infj)");
  // Signed zeros: complex(-0.0, 1), complex(1, -0.0), complex(0.0, -0.0),
  // complex(-0.0, -0.0), complex(-0.0, 0.0).
  EXPECT_EQ(cplx(-0.0, 1).repr(), "(-0+1j)");
  EXPECT_EQ(cplx(1, -0.0).repr(), "(1-0j)");
  EXPECT_EQ(cplx(0.0, -0.0).repr(), "-0j");
  EXPECT_EQ(cplx(-0.0, -0.0).repr(), "(-0-0j)");
  EXPECT_EQ(cplx(-0.0, 0.0).repr(), "(-0+0j)");
}

TEST(ValueRepr, StrQuoting) {
  EXPECT_EQ(strRepr("abc"), "'abc'");
  EXPECT_EQ(strRepr(""), "''");
  EXPECT_EQ(strRepr("it's"), "\"it's\"");
  EXPECT_EQ(strRepr("a\"b"), "'a\"b'");
  // Both quotes: single quotes, the single one escaped.
  EXPECT_EQ(strRepr("a'b\"c"), "'a\\'b\"c'");
  EXPECT_EQ(strRepr("\n\t\r\\"), "'\\n\\t\\r\\\\'");
  EXPECT_EQ(strRepr(llvm::StringRef("\x00\x01\x1f\x7f", 4)),
            "'\\x00\\x01\\x1f\\x7f'");
  // Printable non-ASCII stays as is: repr('h\u00e9') == "'hé'".
  EXPECT_EQ(strRepr("h\xc3\xa9"), "'h\xc3\xa9'");
  EXPECT_EQ(str("x").repr(), "'x'");
}

// Python escapes non-printable non-ASCII code points: repr('\x85') is
// "'\\x85'", repr('\u2028') is "'\\u2028'", repr('\ud800') is "'\\ud800'".
// printPyStrRepr copies every byte >= 0x80 through, which needs Unicode
// printability tables (unicodedata) to fix. Disabled until then.
TEST(ValueRepr, DISABLED_StrNonPrintableUnicode) {
  EXPECT_EQ(strRepr("\xc2\x85"), "'\\x85'");
  EXPECT_EQ(strRepr("\xe2\x80\xa8"), "'\\u2028'");
  EXPECT_EQ(strRepr("\xed\xa0\x80"), "'\\ud800'");
}

TEST(ValueRepr, Bytes) {
  EXPECT_EQ(bytes("").repr(), "b''");
  EXPECT_EQ(bytes("hi").repr(), "b'hi'");
  EXPECT_EQ(bytes("it's").repr(), "b\"it's\"");
  EXPECT_EQ(bytes("a'b\"c").repr(), "b'a\\'b\"c'");
  EXPECT_EQ(bytes(llvm::StringRef("\x00\xff\x80\n", 4)).repr(),
            "b'\\x00\\xff\\x80\\n'");
  EXPECT_EQ(bytes("\\").repr(), "b'\\\\'");
}

TEST(ValueRepr, Tuples) {
  EXPECT_EQ(tuple({}).repr(), "()");
  EXPECT_EQ(tuple({i(1)}).repr(), "(1,)");
  EXPECT_EQ(tuple({i(1), str("a")}).repr(), "(1, 'a')");
  EXPECT_EQ(tuple({tuple({i(1)}), tuple({})}).repr(), "((1,), ())");
  EXPECT_EQ(tuple({NoneValue{}, true, false, EllipsisValue{}}).repr(),
            "(None, True, False, Ellipsis)");
}

TEST(ValueRepr, SetsAndFrozensets) {
  EXPECT_EQ(seq(SequenceKind::FrozenSet, {}).repr(), "frozenset()");
  EXPECT_EQ(seq(SequenceKind::FrozenSet, {i(1), i(2)}).repr(),
            "frozenset({1, 2})");
  EXPECT_EQ(seq(SequenceKind::FrozenSet, {str("a")}).repr(),
            "frozenset({'a'})");
  EXPECT_EQ(seq(SequenceKind::Set, {i(1)}).repr(), "{1}");
  // repr(set()) is 'set()': '{}' would be a dict.
  EXPECT_EQ(seq(SequenceKind::Set, {}).repr(), "set()");
}

TEST(ValueRepr, ListsAndDicts) {
  EXPECT_EQ(seq(SequenceKind::List, {}).repr(), "[]");
  EXPECT_EQ(seq(SequenceKind::List, {i(1)}).repr(), "[1]");
  auto Items = std::make_shared<std::vector<std::pair<Value, Value>>>();
  EXPECT_EQ(Value(DictValue{Items}).repr(), "{}");
  Items->push_back({str("k"), i(1)});
  Items->push_back({i(2), tuple({})});
  EXPECT_EQ(Value(DictValue{Items}).repr(), "{'k': 1, 2: ()}");
}

TEST(ValueRepr, Singletons) {
  EXPECT_EQ(Value(NoneValue{}).repr(), "None");
  EXPECT_EQ(Value(true).repr(), "True");
  EXPECT_EQ(Value(false).repr(), "False");
  EXPECT_EQ(Value(EllipsisValue{}).repr(), "Ellipsis");
  // marshal's 'S' is the StopIteration class: repr(StopIteration).
  EXPECT_EQ(Value(StopIterationValue{}).repr(), "<class 'StopIteration'>");
}

TEST(ValueRepr, Ints) {
  EXPECT_EQ(i(0).repr(), "0");
  EXPECT_EQ(i(-42).repr(), "-42");
  EXPECT_EQ(i(INT64_MAX).repr(), "9223372036854775807");
  EXPECT_EQ(i(INT64_MIN).repr(), "-9223372036854775808");
  // 2**63 = digits [0, 0, 0, 0, 8] in base 2**15.
  BigInt B;
  B.Digits = {0, 0, 0, 0, 8};
  EXPECT_EQ(Value(B).repr(), "9223372036854775808");
  B.Negative = true;
  EXPECT_EQ(Value(B).repr(), "-9223372036854775808");
  // 10**4 boundaries of the decimal conversion: 10**8 = 3051*2**15 + 24832.
  BigInt C;
  C.Digits = {24832, 3051};
  EXPECT_EQ(C.toDecimal(), "100000000");
}

TEST(ValueRepr, CodeObject) {
  auto C = std::make_shared<CodeObject>();
  C->Name = "f";
  C->Filename = "t.py";
  C->FirstLineNo = 3;
  // Python adds " at 0x..."; we leave the address out.
  EXPECT_EQ(Value(CodeValue{C}).repr(),
            "<code object f, file \"t.py\", line 3>");
}

TEST(ValueAccessors, TypedViews) {
  Value S = str("s");
  ASSERT_NE(S.getStr(), nullptr);
  EXPECT_EQ(*S.getStr(), "s");
  EXPECT_EQ(S.getCode(), nullptr);
  EXPECT_EQ(S.getSequence(SequenceKind::Tuple), nullptr);
  Value T = tuple({i(1)});
  EXPECT_EQ(T.getStr(), nullptr);
  ASSERT_NE(T.getSequence(SequenceKind::Tuple), nullptr);
  EXPECT_EQ(T.getSequence(SequenceKind::FrozenSet), nullptr);
  EXPECT_TRUE(T.is<SequenceValue>());
  EXPECT_FALSE(T.is<DictValue>());
}

} // namespace
