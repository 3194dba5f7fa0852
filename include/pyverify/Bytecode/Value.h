//===- Value.h - Python values that marshal can hold ------------*- C++ -*-===//
//
// Contract: Value is an immutable, cheaply copyable model of every object a
// CPython 3.11 marshal stream can hold -- the constants of a code object
// (None, bool, int of any size, float, complex, bytes, str, tuple, frozenset,
// Ellipsis, nested code) and the containers a raw marshal stream may wrap code
// objects in (list, set, dict). Composite payloads are shared, so a marshal
// back-reference costs one pointer, never a copy: memory stays linear in the
// input size.
//
// It is a std::variant so that a switch that forgets a kind fails to compile
// (PREVAIL's asm_syntax). Strings keep the bytes marshal stored (UTF-8, with
// lone surrogates as CPython's "surrogatepass" writes them).
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_VALUE_H
#define PYVERIFY_BYTECODE_VALUE_H

#include "pyverify/Bytecode/PythonVersion.h"

#include "llvm/ADT/StringRef.h"

#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace pyverify {

struct CodeObject;
class Value;

struct NoneValue {
  bool operator==(const NoneValue &) const = default;
};
struct EllipsisValue {
  bool operator==(const EllipsisValue &) const = default;
};
struct StopIterationValue {
  bool operator==(const StopIterationValue &) const = default;
};

/// An int too large for int64_t, as marshal stores it: sign and base-2^15
/// digits, least significant first, no leading zero digit.
struct BigInt {
  bool Negative = false;
  std::vector<uint16_t> Digits;
  bool operator==(const BigInt &) const = default;
  /// Decimal representation, like Python's repr().
  std::string toDecimal() const;
};

struct BytesValue {
  std::shared_ptr<const std::string> Data;
};
struct StrValue {
  std::shared_ptr<const std::string> Utf8;
};

/// Slice: a constant slice(start, stop, step), three items (3.14's marshal
/// type ':', which the compiler's constant slices need).
enum class SequenceKind : uint8_t { Tuple, List, Set, FrozenSet, Slice };

struct SequenceValue {
  SequenceKind Kind;
  std::shared_ptr<const std::vector<Value>> Items;
};

struct DictValue {
  std::shared_ptr<const std::vector<std::pair<Value, Value>>> Items;
};

/// A constant of a type marshal cannot hold (a list, an object, a str
/// subclass...). Only a live code object can carry one (CodeType.replace
/// accepts any tuple as co_consts); it keeps the type name and repr() taken
/// when the object was read.
struct OpaqueValue {
  std::shared_ptr<const std::string> TypeName;
  std::shared_ptr<const std::string> Repr;
};

struct CodeValue {
  std::shared_ptr<const CodeObject> Code;
};

class Value {
public:
  using Storage =
      std::variant<NoneValue, EllipsisValue, StopIterationValue, bool, int64_t,
                   BigInt, double, std::complex<double>, BytesValue, StrValue,
                   SequenceValue, DictValue, CodeValue, OpaqueValue>;

  Value() = delete; // There is no meaningful default Python value.
  template <typename T,
            typename = std::enable_if_t<std::is_constructible_v<Storage, T>>>
  Value(T &&V) : V(std::forward<T>(V)) {}
  Value(const Value &) = default;
  Value(Value &&) = default;
  Value &operator=(const Value &) = default;
  Value &operator=(Value &&) = default;
  /// Uses the same C stack however deeply the value nests (marshal back-
  /// references nest about one level per two input bytes): the last owner
  /// of a container or code object hands it to a per-thread worklist that
  /// the outermost such destructor drains.
  ~Value() {
    if (nestedPayload())
      releaseNested();
  }

  const Storage &get() const { return V; }
  template <typename T> const T *getIf() const { return std::get_if<T>(&V); }
  template <typename T> bool is() const { return std::holds_alternative<T>(V); }

  /// The str payload, if this is a str.
  const std::string *getStr() const {
    auto *S = getIf<StrValue>();
    return S ? S->Utf8.get() : nullptr;
  }
  const CodeObject *getCode() const {
    auto *C = getIf<CodeValue>();
    return C ? C->Code.get() : nullptr;
  }
  /// The items of a tuple (or other sequence kind when \p Kind says so).
  const std::vector<Value> *getSequence(SequenceKind Kind) const {
    auto *S = getIf<SequenceValue>();
    return S && S->Kind == Kind ? S->Items.get() : nullptr;
  }

  /// CPython \p V's repr() of the value, as V's `dis` shows constants. The
  /// version matters for str: which non-ASCII characters repr() escapes is
  /// V's Unicode database (UnicodePrintable.h). Code objects print as
  /// `<code object NAME, file "F", line N>`. At most ReprBudget values are
  /// printed (then "..."), so shared nested tuples cannot blow up. Uses the
  /// same C stack however deeply the value nests.
  void printRepr(llvm::raw_ostream &OS, PythonVersion V) const;
  static constexpr size_t ReprBudget = 10000;
  std::string repr(PythonVersion V) const;

private:
  /// The alternatives that own other Values: SequenceValue, DictValue and
  /// CodeValue (adjacent in Storage).
  static constexpr size_t FirstNested = 10, LastNested = 12;
  static_assert(
      std::is_same_v<std::variant_alternative_t<FirstNested, Storage>,
                     SequenceValue> &&
      std::is_same_v<std::variant_alternative_t<FirstNested + 1, Storage>,
                     DictValue> &&
      std::is_same_v<std::variant_alternative_t<LastNested, Storage>,
                     CodeValue>);
  /// The payload holding other Values, if any (null once moved from).
  const void *nestedPayload() const {
    switch (V.index()) {
    case FirstNested:
      return std::get_if<FirstNested>(&V)->Items.get();
    case FirstNested + 1:
      return std::get_if<FirstNested + 1>(&V)->Items.get();
    case LastNested:
      return std::get_if<LastNested>(&V)->Code.get();
    default:
      return nullptr;
    }
  }
  void releaseNested() noexcept;
  Storage V;
};

/// CPython \p V's repr() of a str given as UTF-8, lone surrogates included
/// (single quotes unless the text holds a single quote and no double quote;
/// escapes as CPython writes them: the ASCII controls, and the non-ASCII
/// characters V's Unicode database calls unprintable).
void printPyStrRepr(llvm::raw_ostream &OS, llvm::StringRef Utf8,
                    PythonVersion V);
/// Python repr() of a float (shortest round-trip form, 'inf', 'nan', '1e+16').
void printPyFloatRepr(llvm::raw_ostream &OS, double D);

} // namespace pyverify

#endif
