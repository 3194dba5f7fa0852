//===- ValueTest.cpp - Value::repr against Python's repr() ----------------===//
//
// Every expected string here is what python3.11's repr() prints for the same
// value (the Python expression is in the comment or the test name).
//
//===----------------------------------------------------------------------===//

#include "TestVersions.h"

#include "pyverify/Bytecode/CodeObject.h"
#include "pyverify/Bytecode/Value.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace pyverify;
using namespace pyverify::test;

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

std::string strRepr(llvm::StringRef Utf8, PythonVersion V = V311) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printPyStrRepr(OS, Utf8, V);
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
  EXPECT_EQ(Value(0.1).repr(V311), "0.1");
}

TEST(ValueRepr, Complex) {
  EXPECT_EQ(cplx(0, 1).repr(V311), "1j");
  EXPECT_EQ(cplx(0, 0).repr(V311), "0j");
  EXPECT_EQ(cplx(0, -1).repr(V311), "-1j");
  EXPECT_EQ(cplx(0, 2.5).repr(V311), "2.5j");
  EXPECT_EQ(cplx(0, 1e-5).repr(V311), "1e-05j");
  EXPECT_EQ(cplx(0, Inf).repr(V311), "infj");
  EXPECT_EQ(cplx(1, 2).repr(V311), "(1+2j)");
  EXPECT_EQ(cplx(-1, -1).repr(V311), "(-1-1j)");
  EXPECT_EQ(cplx(1.5, -2.5).repr(V311), "(1.5-2.5j)");
  EXPECT_EQ(cplx(1e16, 1).repr(V311), "(1e+16+1j)");
  EXPECT_EQ(cplx(1e15, 0.5).repr(V311), "(1000000000000000+0.5j)");
  EXPECT_EQ(cplx(NaN, 1).repr(V311), "(nan+1j)");
  EXPECT_EQ(cplx(1, NaN).repr(V311), "(1+nanj)");
  EXPECT_EQ(cplx(Inf, -Inf).repr(V311), "(inf-infj)");
  // Signed zeros: complex(-0.0, 1), complex(1, -0.0), complex(0.0, -0.0),
  // complex(-0.0, -0.0), complex(-0.0, 0.0).
  EXPECT_EQ(cplx(-0.0, 1).repr(V311), "(-0+1j)");
  EXPECT_EQ(cplx(1, -0.0).repr(V311), "(1-0j)");
  EXPECT_EQ(cplx(0.0, -0.0).repr(V311), "-0j");
  EXPECT_EQ(cplx(-0.0, -0.0).repr(V311), "(-0-0j)");
  EXPECT_EQ(cplx(-0.0, 0.0).repr(V311), "(-0+0j)");
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
  EXPECT_EQ(str("x").repr(V311), "'x'");
}

// Python escapes the non-ASCII code points its Unicode database calls
// unprintable: repr('\x85') is "'\\x85'", repr('\u2028') is "'\\u2028'",
// repr('\ud800') (a lone surrogate, marshal's "surrogatepass" UTF-8) is
// "'\\ud800'", repr('\U0010ffff') is "'\\U0010ffff'"; printable ones stay.
TEST(ValueRepr, StrNonPrintableUnicode) {
  EXPECT_EQ(strRepr("\xc2\x85"), "'\\x85'");
  EXPECT_EQ(strRepr("\xc2\xa0"), "'\\xa0'"); // NBSP: Zs
  EXPECT_EQ(strRepr("\xc2\xad"), "'\\xad'"); // soft hyphen: Cf
  EXPECT_EQ(strRepr("\xe2\x80\xa8"), "'\\u2028'");
  EXPECT_EQ(strRepr("\xed\xa0\x80"), "'\\ud800'");
  EXPECT_EQ(strRepr("\xee\x80\x80"), "'\\ue000'"); // private use
  EXPECT_EQ(strRepr("\xf4\x8f\xbf\xbf"), "'\\U0010ffff'");
  EXPECT_EQ(strRepr("\xf0\x9f\x98\x80"), "'\xf0\x9f\x98\x80'"); // U+1F600
  // Escaped and printable characters among ASCII, quotes chosen as before.
  EXPECT_EQ(strRepr("a'\xc2\x85\xc3\xa9"), "\"a'\\x85\xc3\xa9\"");
}

// Each version's own Unicode database: U+0CF3 is assigned in Unicode 15.0
// (3.12), U+2FFC in 15.1 (3.13), U+0897 in 16.0 (3.14), U+088F in 17.0
// (3.15); an interpreter escapes each before its version (measured: repr()
// of each in python3.11, 3.12.1, 3.13.0, Pyodide's 3.14.2 and 3.15.0rc1).
TEST(ValueRepr, StrPrintableIsPerVersion) {
  struct Case {
    const char *Utf8, *Escaped;
    PythonVersion From;
  } Cases[] = {{"\xe0\xb3\xb3", "'\\u0cf3'", PythonVersion::V3_12},
               {"\xe2\xbf\xbc", "'\\u2ffc'", PythonVersion::V3_13},
               {"\xe0\xa2\x97", "'\\u0897'", PythonVersion::V3_14},
               {"\xe0\xa2\x8f", "'\\u088f'", PythonVersion::V3_15}};
  for (const Case &C : Cases)
    for (PythonVersion V : AllPythonVersions)
      EXPECT_EQ(strRepr(C.Utf8, V),
                V < C.From ? C.Escaped : "'" + std::string(C.Utf8) + "'")
          << C.Escaped << " in " << pythonVersionName(V).str();
  // Containers print their strings by the same version.
  Value T = tuple({str("\xe0\xb3\xb3")});
  EXPECT_EQ(T.repr(V311), "('\\u0cf3',)");
  EXPECT_EQ(T.repr(PythonVersion::V3_12), "('\xe0\xb3\xb3',)");
}

// What no reader makes (each checks UTF-8 with surrogatepass), a Value built
// by hand may hold: a byte that starts no whole, shortest sequence is
// written as \xhh, and the rest goes on.
TEST(ValueRepr, StrNotUtf8) {
  EXPECT_EQ(strRepr("a\x80"
                    "b"),
            "'a\\x80b'");
  EXPECT_EQ(strRepr("\xc3"), "'\\xc3'");
  EXPECT_EQ(strRepr("\xc0\xaf"), "'\\xc0\\xaf'"); // overlong '/'
  EXPECT_EQ(strRepr("\xf5\x80\x80\x80"), "'\\xf5\\x80\\x80\\x80'");
}

TEST(ValueRepr, Bytes) {
  EXPECT_EQ(bytes("").repr(V311), "b''");
  EXPECT_EQ(bytes("hi").repr(V311), "b'hi'");
  EXPECT_EQ(bytes("it's").repr(V311), "b\"it's\"");
  EXPECT_EQ(bytes("a'b\"c").repr(V311), "b'a\\'b\"c'");
  EXPECT_EQ(bytes(llvm::StringRef("\x00\xff\x80\n", 4)).repr(V311),
            "b'\\x00\\xff\\x80\\n'");
  EXPECT_EQ(bytes("\\").repr(V311), "b'\\\\'");
}

TEST(ValueRepr, Tuples) {
  EXPECT_EQ(tuple({}).repr(V311), "()");
  EXPECT_EQ(tuple({i(1)}).repr(V311), "(1,)");
  EXPECT_EQ(tuple({i(1), str("a")}).repr(V311), "(1, 'a')");
  EXPECT_EQ(tuple({tuple({i(1)}), tuple({})}).repr(V311), "((1,), ())");
  EXPECT_EQ(tuple({NoneValue{}, true, false, EllipsisValue{}}).repr(V311),
            "(None, True, False, Ellipsis)");
}

TEST(ValueRepr, SetsAndFrozensets) {
  EXPECT_EQ(seq(SequenceKind::FrozenSet, {}).repr(V311), "frozenset()");
  EXPECT_EQ(seq(SequenceKind::FrozenSet, {i(1), i(2)}).repr(V311),
            "frozenset({1, 2})");
  EXPECT_EQ(seq(SequenceKind::FrozenSet, {str("a")}).repr(V311),
            "frozenset({'a'})");
  EXPECT_EQ(seq(SequenceKind::Set, {i(1)}).repr(V311), "{1}");
  // repr(set()) is 'set()': '{}' would be a dict.
  EXPECT_EQ(seq(SequenceKind::Set, {}).repr(V311), "set()");
}

TEST(ValueRepr, ListsAndDicts) {
  EXPECT_EQ(seq(SequenceKind::List, {}).repr(V311), "[]");
  EXPECT_EQ(seq(SequenceKind::List, {i(1)}).repr(V311), "[1]");
  auto Items = std::make_shared<std::vector<std::pair<Value, Value>>>();
  EXPECT_EQ(Value(DictValue{Items}).repr(V311), "{}");
  Items->push_back({str("k"), i(1)});
  Items->push_back({i(2), tuple({})});
  EXPECT_EQ(Value(DictValue{Items}).repr(V311), "{'k': 1, 2: ()}");
}

TEST(ValueRepr, Singletons) {
  EXPECT_EQ(Value(NoneValue{}).repr(V311), "None");
  EXPECT_EQ(Value(true).repr(V311), "True");
  EXPECT_EQ(Value(false).repr(V311), "False");
  EXPECT_EQ(Value(EllipsisValue{}).repr(V311), "Ellipsis");
  // marshal's 'S' is the StopIteration class: repr(StopIteration).
  EXPECT_EQ(Value(StopIterationValue{}).repr(V311), "<class 'StopIteration'>");
}

TEST(ValueRepr, Ints) {
  EXPECT_EQ(i(0).repr(V311), "0");
  EXPECT_EQ(i(-42).repr(V311), "-42");
  EXPECT_EQ(i(INT64_MAX).repr(V311), "9223372036854775807");
  EXPECT_EQ(i(INT64_MIN).repr(V311), "-9223372036854775808");
  // 2**63 = digits [0, 0, 0, 0, 8] in base 2**15.
  BigInt B;
  B.Digits = {0, 0, 0, 0, 8};
  EXPECT_EQ(Value(B).repr(V311), "9223372036854775808");
  B.Negative = true;
  EXPECT_EQ(Value(B).repr(V311), "-9223372036854775808");
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
  EXPECT_EQ(Value(CodeValue{C}).repr(V311),
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
