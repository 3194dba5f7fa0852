//===- Value.cpp - Python values that marshal can hold --------------------===//

#include "pyverify/Bytecode/Value.h"
#include "pyverify/Bytecode/CodeObject.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <charconv>
#include <cmath>

using namespace pyverify;

std::string BigInt::toDecimal() const {
  // Repeated division of the base-2^15 magnitude by 10^4.
  std::vector<uint32_t> Mag(Digits.begin(), Digits.end());
  std::string Rev;
  while (!Mag.empty()) {
    uint32_t Rem = 0;
    for (size_t I = Mag.size(); I-- > 0;) {
      uint32_t Cur = (Rem << 15) | Mag[I];
      Mag[I] = Cur / 10000;
      Rem = Cur % 10000;
    }
    while (!Mag.empty() && Mag.back() == 0)
      Mag.pop_back();
    for (int K = 0; K < 4; ++K) {
      Rev.push_back(char('0' + Rem % 10));
      Rem /= 10;
      if (Mag.empty() && Rem == 0)
        break;
    }
  }
  if (Rev.empty())
    Rev = "0";
  if (Negative)
    Rev.push_back('-');
  return std::string(Rev.rbegin(), Rev.rend());
}

void pyverify::printPyFloatRepr(llvm::raw_ostream &OS, double D) {
  if (std::isnan(D)) {
    OS << "nan";
    return;
  }
  if (std::isinf(D)) {
    OS << (D < 0 ? "-inf" : "inf");
    return;
  }
  // Shortest round-trip digits, then Python's float_repr_style rules:
  // positional when -4 <= exponent < 16, else scientific with 2+ digit
  // exponent.
  char Buf[64];
  auto R =
      std::to_chars(Buf, Buf + sizeof Buf, D, std::chars_format::scientific);
  std::string S(Buf, R.ptr);
  bool Neg = S[0] == '-';
  if (Neg)
    S.erase(0, 1);
  size_t EPos = S.find('e');
  std::string Mant = S.substr(0, EPos);
  int Exp = std::stoi(S.substr(EPos + 1));
  std::string DigitsStr;
  for (char C : Mant)
    if (C != '.')
      DigitsStr.push_back(C);
  if (Neg)
    OS << '-';
  if (Exp >= -4 && Exp < 16) {
    int Point = Exp + 1; // digits before the decimal point
    if (Point <= 0) {
      OS << "0." << std::string(-Point, '0') << DigitsStr;
    } else if (size_t(Point) >= DigitsStr.size()) {
      OS << DigitsStr << std::string(Point - DigitsStr.size(), '0') << ".0";
    } else {
      OS << DigitsStr.substr(0, Point) << '.' << DigitsStr.substr(Point);
    }
    return;
  }
  OS << DigitsStr[0];
  if (DigitsStr.size() > 1)
    OS << '.' << DigitsStr.substr(1);
  OS << 'e' << (Exp < 0 ? '-' : '+');
  int AbsExp = Exp < 0 ? -Exp : Exp;
  if (AbsExp < 10)
    OS << '0';
  OS << AbsExp;
}

void pyverify::printPyStrRepr(llvm::raw_ostream &OS, llvm::StringRef Utf8) {
  bool HasSingle = Utf8.contains('\'');
  bool HasDouble = Utf8.contains('"');
  char Quote = HasSingle && !HasDouble ? '"' : '\'';
  OS << Quote;
  for (unsigned char C : Utf8) {
    if (C == Quote || C == '\\')
      OS << '\\' << C;
    else if (C == '\n')
      OS << "\\n";
    else if (C == '\r')
      OS << "\\r";
    else if (C == '\t')
      OS << "\\t";
    else if (C < 0x20 || C == 0x7f)
      OS << llvm::format("\\x%02x", C);
    else
      OS << C;
  }
  OS << Quote;
}

static void printBytesRepr(llvm::raw_ostream &OS, llvm::StringRef Data) {
  bool HasSingle = Data.contains('\'');
  bool HasDouble = Data.contains('"');
  char Quote = HasSingle && !HasDouble ? '"' : '\'';
  OS << 'b' << Quote;
  for (unsigned char C : Data) {
    if (C == Quote || C == '\\')
      OS << '\\' << C;
    else if (C == '\n')
      OS << "\\n";
    else if (C == '\r')
      OS << "\\r";
    else if (C == '\t')
      OS << "\\t";
    else if (C < 0x20 || C >= 0x7f)
      OS << llvm::format("\\x%02x", C);
    else
      OS << C;
  }
  OS << Quote;
}

namespace {
template <class... Ts> struct Overloaded : Ts... { using Ts::operator()...; };
template <class... Ts> Overloaded(Ts...) -> Overloaded<Ts...>;
} // namespace

void Value::printRepr(llvm::raw_ostream &OS) const {
  // Back-references make a small stream describe a huge tree of nested
  // tuples: print at most ReprBudget values, then "...".
  size_t Budget = ReprBudget;
  printReprLimited(OS, Budget);
}

void Value::printReprLimited(llvm::raw_ostream &OS, size_t &Budget) const {
  if (Budget == 0) {
    OS << "...";
    return;
  }
  --Budget;
  std::visit(
      Overloaded{
          [&](const NoneValue &) { OS << "None"; },
          [&](const EllipsisValue &) { OS << "Ellipsis"; },
          [&](const StopIterationValue &) { OS << "<class 'StopIteration'>"; },
          [&](bool B) { OS << (B ? "True" : "False"); },
          [&](int64_t I) { OS << I; },
          [&](const BigInt &B) { OS << B.toDecimal(); },
          [&](double D) { printPyFloatRepr(OS, D); },
          [&](const std::complex<double> &C) {
            // Python: '1j', '(1+2j)', '(-0-1j)'.
            auto Part = [&](double X) {
              if (X == 0)
                OS << (std::signbit(X) ? "-0" : "0");
              else if (X == std::floor(X) && std::isfinite(X) &&
                       std::fabs(X) < 1e16)
                OS << static_cast<long long>(X);
              else
                printPyFloatRepr(OS, X);
            };
            if (C.real() == 0 && !std::signbit(C.real())) {
              Part(C.imag());
              OS << 'j';
              return;
            }
            OS << '(';
            Part(C.real());
            if (!std::signbit(C.imag()) || std::isnan(C.imag()))
              OS << '+';
            Part(C.imag());
            OS << "j)";
          },
          [&](const BytesValue &B) { printBytesRepr(OS, *B.Data); },
          [&](const StrValue &S) { printPyStrRepr(OS, *S.Utf8); },
          [&](const OpaqueValue &O) { OS << *O.Repr; },
          [&](const SequenceValue &S) {
            const char *Open = "(", *Close = ")";
            switch (S.Kind) {
            case SequenceKind::Tuple:
              break;
            case SequenceKind::List:
              Open = "[";
              Close = "]";
              break;
            case SequenceKind::Set:
              Open = "{";
              Close = "}";
              break;
            case SequenceKind::FrozenSet:
              Open = "frozenset({";
              Close = "})";
              break;
            }
            if (S.Items->empty() && S.Kind == SequenceKind::FrozenSet) {
              OS << "frozenset()";
              return;
            }
            if (S.Items->empty() && S.Kind == SequenceKind::Set) {
              OS << "set()";
              return;
            }
            OS << Open;
            for (size_t I = 0; I < S.Items->size(); ++I) {
              if (I)
                OS << ", ";
              (*S.Items)[I].printReprLimited(OS, Budget);
              if (Budget == 0)
                break;
            }
            if (S.Kind == SequenceKind::Tuple && S.Items->size() == 1)
              OS << ',';
            OS << Close;
          },
          [&](const DictValue &D) {
            OS << '{';
            for (size_t I = 0; I < D.Items->size(); ++I) {
              if (I)
                OS << ", ";
              (*D.Items)[I].first.printReprLimited(OS, Budget);
              OS << ": ";
              (*D.Items)[I].second.printReprLimited(OS, Budget);
              if (Budget == 0)
                break;
            }
            OS << '}';
          },
          [&](const CodeValue &C) {
            OS << "<code object " << C.Code->Name << ", file \""
               << C.Code->Filename << "\", line " << C.Code->FirstLineNo << ">";
          },
      },
      V);
}

std::string Value::repr() const {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printRepr(OS);
  return S;
}
