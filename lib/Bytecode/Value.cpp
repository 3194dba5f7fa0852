//===- Value.cpp - Python values that marshal can hold --------------------===//

#include "pyverify/Bytecode/Value.h"
#include "pyverify/Bytecode/CodeObject.h"
#include "pyverify/Bytecode/SurrogatePass.h"
#include "pyverify/Bytecode/UnicodePrintable.h"
#include "pyverify/Support/Overloaded.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/ErrorHandling.h"
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

/// The quote repr() puts around \p Text (str or bytes): single unless the
/// text holds a single quote and no double quote.
static char reprQuote(llvm::StringRef Text) {
  return Text.contains('\'') && !Text.contains('"') ? '"' : '\'';
}

/// ASCII byte \p C as repr() writes it inside \p Quote, in a str or bytes
/// alike: the quote and the backslash escaped, \n \r \t, the other controls
/// and DEL as \xhh.
static void printAsciiRepr(llvm::raw_ostream &OS, unsigned char C, char Quote) {
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

void pyverify::printPyStrRepr(llvm::raw_ostream &OS, llvm::StringRef Utf8,
                              PythonVersion V) {
  char Quote = reprQuote(Utf8);
  OS << Quote;
  const unsigned char *P = Utf8.bytes_begin(), *End = Utf8.bytes_end();
  while (P != End) {
    unsigned char C = *P;
    if (C < 0x80) {
      printAsciiRepr(OS, C, Quote);
      ++P;
      continue;
    }
    // A code point of the text (SurrogatePass.h), written as is where V's
    // repr() would, else escaped as CPython escapes it. A byte that starts
    // no sequence (a Value built by hand; the readers accept no such str) is
    // written as \xhh.
    uint32_t CP;
    unsigned Len = decodeSurrogatePass(P, End, CP);
    if (!Len) {
      OS << llvm::format("\\x%02x", C);
      ++P;
      continue;
    }
    if (isPrintableCodePoint(V, CP))
      OS.write(reinterpret_cast<const char *>(P), Len);
    else if (CP < 0x100)
      OS << llvm::format("\\x%02x", CP);
    else if (CP < 0x10000)
      OS << llvm::format("\\u%04x", CP);
    else
      OS << llvm::format("\\U%08x", CP);
    P += Len;
  }
  OS << Quote;
}

static void printBytesRepr(llvm::raw_ostream &OS, llvm::StringRef Data) {
  char Quote = reprQuote(Data);
  OS << 'b' << Quote;
  for (unsigned char C : Data) {
    if (C < 0x80)
      printAsciiRepr(OS, C, Quote);
    else
      OS << llvm::format("\\x%02x", C);
  }
  OS << Quote;
}

/// repr() of a value that holds no other values (every kind but sequences
/// and dicts; a code object prints as one line).
static void printLeafRepr(llvm::raw_ostream &OS, const Value::Storage &X,
                          PythonVersion Ver) {
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
          [&](const StrValue &S) { printPyStrRepr(OS, *S.Utf8, Ver); },
          [&](const OpaqueValue &O) { OS << *O.Repr; },
          [&](const SequenceValue &) {
            llvm_unreachable("containers are printed by printRepr");
          },
          [&](const DictValue &) {
            llvm_unreachable("containers are printed by printRepr");
          },
          [&](const CodeValue &C) {
            OS << "<code object " << C.Code->Name << ", file \""
               << C.Code->Filename << "\", line " << C.Code->FirstLineNo << ">";
          },
      },
      X);
}

void Value::printRepr(llvm::raw_ostream &OS, PythonVersion Ver) const {
  // Back-references make a small stream describe a huge tree of nested
  // tuples: print at most ReprBudget values, then "...". The containers
  // being printed are an explicit stack, so a deep value costs heap, not C
  // stack: after an item (a dict's value), its container prints ", " and the
  // next, or its closing text once the items or the budget run out.
  struct Open {
    const Value *V;
    size_t Next = 0;      ///< The item (dict: pair) to print next.
    bool InValue = false; ///< Dict: the value of pair Next - 1 is next.
  };
  llvm::SmallVector<Open, 16> Stack;
  size_t Budget = ReprBudget;
  auto Print = [&](const Value &X) {
    if (Budget == 0) {
      OS << "...";
      return;
    }
    --Budget;
    if (auto *S = X.getIf<SequenceValue>()) {
      if (S->Items->empty() && S->Kind == SequenceKind::FrozenSet)
        OS << "frozenset()";
      else if (S->Items->empty() && S->Kind == SequenceKind::Set)
        OS << "set()";
      else {
        OS << (S->Kind == SequenceKind::List        ? "["
               : S->Kind == SequenceKind::Set       ? "{"
               : S->Kind == SequenceKind::FrozenSet ? "frozenset({"
               : S->Kind == SequenceKind::Slice     ? "slice("
                                                    : "(");
        Stack.push_back({&X});
      }
    } else if (X.is<DictValue>()) {
      OS << '{';
      Stack.push_back({&X});
    } else {
      printLeafRepr(OS, X.get(), Ver);
    }
  };
  Print(*this);
  while (!Stack.empty()) {
    Open &Top = Stack.back();
    if (auto *D = Top.V->getIf<DictValue>()) {
      if (Top.InValue) {
        Top.InValue = false;
        OS << ": ";
        Print((*D->Items)[Top.Next - 1].second);
      } else if (Top.Next == D->Items->size() || (Top.Next && Budget == 0)) {
        OS << '}';
        Stack.pop_back();
      } else {
        if (Top.Next)
          OS << ", ";
        Top.InValue = true;
        Print((*D->Items)[Top.Next++].first);
      }
      continue;
    }
    const SequenceValue &S = *Top.V->getIf<SequenceValue>();
    if (Top.Next == S.Items->size() || (Top.Next && Budget == 0)) {
      if (S.Kind == SequenceKind::Tuple && S.Items->size() == 1)
        OS << ',';
      OS << (S.Kind == SequenceKind::List        ? "]"
             : S.Kind == SequenceKind::Set       ? "}"
             : S.Kind == SequenceKind::FrozenSet ? "})"
                                                 : ")"); // tuple, slice
      Stack.pop_back();
      continue;
    }
    if (Top.Next)
      OS << ", ";
    Print((*S.Items)[Top.Next++]);
  }
}

void Value::releaseNested() noexcept {
  // The payload's owner pointer leaves this Value. If another Value still
  // shares it, dropping ours frees nothing. Otherwise it goes on the
  // thread's worklist, whose items are freed one at a time by the outermost
  // call: freeing one destroys the Values it holds, whose payloads join the
  // worklist instead of being freed inside this one. (Were a concurrent
  // release on another thread to make ours the last reference after the
  // check, the payload is freed here, and its items still go through the
  // worklist: the C stack stays bounded either way.)
  std::shared_ptr<const void> P;
  if (auto *S = std::get_if<SequenceValue>(&V))
    P = std::move(S->Items);
  else if (auto *D = std::get_if<DictValue>(&V))
    P = std::move(D->Items);
  else if (auto *C = std::get_if<CodeValue>(&V))
    P = std::move(C->Code);
  if (!P || P.use_count() != 1)
    return;
  // A plain pointer, so that the worklist needs no thread_local destructor
  // (a Value destroyed during static destruction still finds it null).
  static thread_local llvm::SmallVectorImpl<std::shared_ptr<const void>>
      *Pending = nullptr;
  if (Pending) {
    Pending->push_back(std::move(P));
    return;
  }
  llvm::SmallVector<std::shared_ptr<const void>, 8> Work;
  Work.push_back(std::move(P));
  Pending = &Work;
  while (!Work.empty())
    Work.pop_back_val().reset();
  Pending = nullptr;
}

std::string Value::repr(PythonVersion Ver) const {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printRepr(OS, Ver);
  return S;
}
