//===- Marshal.cpp - Reading .pyc files and marshal streams ---------------===//
//
// Mirrors r_object() in CPython 3.11's Python/marshal.c. Every read checks
// the remaining length first, and every count is checked against the bytes
// left before anything is allocated, so memory stays linear in the input.
//
//===----------------------------------------------------------------------===//

#include "pyverify/Bytecode/Marshal.h"
#include "pyverify/Support/InputError.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include <optional>

using namespace pyverify;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

constexpr uint8_t FlagRef = 0x80;

std::string describeTypeCode(uint8_t C) {
  if (C >= 0x20 && C < 0x7f)
    return llvm::formatv("'{0}' (0x{1:x-2})", char(C), unsigned(C)).str();
  return llvm::formatv("0x{0:x-2}", unsigned(C)).str();
}

class MarshalReader {
public:
  MarshalReader(StringRef Bytes, uint64_t Base) : Bytes(Bytes), Base(Base) {}

  Expected<Value> readTop() {
    auto V = readObject("an object");
    if (!V)
      return V.takeError();
    if (Pos != Bytes.size())
      return err(Pos, llvm::formatv("{0} trailing bytes after the object",
                                    Bytes.size() - Pos));
    return V;
  }

private:
  StringRef Bytes;
  uint64_t Base;
  size_t Pos = 0;
  unsigned Depth = 0;
  /// Back-reference table. std::nullopt marks a slot reserved by an object
  /// still being read.
  std::vector<std::optional<Value>> Refs;

  Error err(size_t At, const llvm::Twine &Msg) {
    return makeInputError(Base + At, Msg);
  }

  size_t remaining() const { return Bytes.size() - Pos; }

  Error need(size_t N, StringRef What) {
    if (remaining() < N)
      return err(Pos, llvm::formatv("truncated: expected {0} ({1} bytes), "
                                    "found {2} bytes before the end",
                                    What, N, remaining()));
    return Error::success();
  }

  Expected<uint8_t> readByte(StringRef What) {
    if (Error E = need(1, What))
      return E;
    return uint8_t(Bytes[Pos++]);
  }

  Expected<int32_t> readInt32(StringRef What) {
    if (Error E = need(4, What))
      return E;
    int32_t V = llvm::support::endian::read32le(Bytes.data() + Pos);
    Pos += 4;
    return V;
  }

  /// Reads an int32 count/length, checking it is non-negative and that at
  /// least \p MinBytesEach * count bytes remain.
  Expected<size_t> readCount(StringRef What, size_t MinBytesEach) {
    size_t At = Pos;
    auto N = readInt32(What);
    if (!N)
      return N.takeError();
    if (*N < 0)
      return err(At, llvm::formatv("negative {0} {1}", What, *N));
    if (MinBytesEach && size_t(*N) > remaining() / MinBytesEach)
      return err(At, llvm::formatv("{0} {1} exceeds the {2} bytes left", What,
                                   *N, remaining()));
    return size_t(*N);
  }

  Expected<StringRef> readBytes(size_t N, StringRef What) {
    if (Error E = need(N, What))
      return E;
    StringRef S = Bytes.substr(Pos, N);
    Pos += N;
    return S;
  }

  Expected<double> readBinaryFloat(StringRef What) {
    if (Error E = need(8, What))
      return E;
    uint64_t Bits = llvm::support::endian::read64le(Bytes.data() + Pos);
    Pos += 8;
    double D;
    std::memcpy(&D, &Bits, sizeof D);
    return D;
  }

  Expected<double> readTextFloat(StringRef What) {
    size_t At = Pos;
    auto Len = readByte(What);
    if (!Len)
      return Len.takeError();
    auto Text = readBytes(*Len, What);
    if (!Text)
      return Text.takeError();
    double D;
    if (Text->trim().getAsDouble(D, /*AllowInexact=*/true)) {
      StringRef T = Text->trim();
      if (T.equals_insensitive("inf") || T.equals_insensitive("+inf"))
        return std::numeric_limits<double>::infinity();
      if (T.equals_insensitive("-inf"))
        return -std::numeric_limits<double>::infinity();
      if (T.equals_insensitive("nan") || T.equals_insensitive("-nan"))
        return std::numeric_limits<double>::quiet_NaN();
      return err(At, "malformed text float '" + *Text + "'");
    }
    return D;
  }

  Expected<Value> readObject(StringRef Expected) {
    if (Depth >= MaxMarshalDepth)
      return err(Pos, llvm::formatv("nesting deeper than {0} objects",
                                    MaxMarshalDepth));
    ++Depth;
    auto R = readObjectImpl(Expected);
    --Depth;
    return R;
  }

  Expected<Value> readObjectImpl(StringRef What);
  Expected<StringRef> readStrPayload(uint8_t Type);
  Expected<size_t> readContainerSize(uint8_t Type);
  Error readItems(size_t N, std::vector<Value> &Items);

  /// The type byte at Pos when the object there can be read straight into a
  /// code object field: it has no FLAG_REF (so it needs no back-reference
  /// slot, hence no shared Value) and the nesting limit leaves room for it.
  /// 0 otherwise. The fast paths that use it read exactly what
  /// readObject() would, with the same checks and messages; they only skip
  /// building a shared Value that the field would copy out of again.
  uint8_t peekUnsharedType() const {
    if (Pos == Bytes.size() || Depth >= MaxMarshalDepth)
      return 0;
    uint8_t B = Bytes[Pos];
    return B & FlagRef ? 0 : B;
  }
  Expected<Value> readCode(size_t At, std::optional<size_t> Slot);
  /// Bytes copied out of shared values into code-object fields. A back-
  /// reference costs 5 bytes but can name a large str, so copies are
  /// charged against a budget linear in the input.
  uint64_t Copied = 0;
  uint64_t copyBudget() const {
    return 16 * uint64_t(Bytes.size()) + (1u << 20);
  }
  Error charge(size_t N, size_t At) {
    Copied += N;
    if (Copied > copyBudget())
      return err(At, llvm::formatv("back-references expand the code-object "
                                   "fields past {0} bytes ({1} times the "
                                   "input); refusing to copy more",
                                   copyBudget(), 16));
    return Error::success();
  }
  Expected<std::string> readStrField(StringRef Field);
  Expected<std::string> readBytesField(StringRef Field);
  Expected<std::vector<Value>> readTupleField(StringRef Field);
  Expected<std::vector<std::string>> readStrTupleField(StringRef Field);

  /// Reserves a back-reference slot when the type byte had FLAG_REF.
  std::optional<size_t> reserve(bool Flag) {
    if (!Flag)
      return std::nullopt;
    Refs.emplace_back(std::nullopt);
    return Refs.size() - 1;
  }
  Value fill(std::optional<size_t> Slot, Value V) {
    if (Slot)
      Refs[*Slot] = V;
    return V;
  }
};

Expected<Value> MarshalReader::readObjectImpl(StringRef What) {
  size_t At = Pos;
  auto TypeByte = readByte(What);
  if (!TypeByte)
    return TypeByte.takeError();
  bool Flag = *TypeByte & FlagRef;
  uint8_t Type = *TypeByte & ~FlagRef;

  switch (Type) {
  case 'N':
    return fill(reserve(Flag), NoneValue{});
  case 'F':
    return fill(reserve(Flag), false);
  case 'T':
    return fill(reserve(Flag), true);
  case 'S':
    return fill(reserve(Flag), StopIterationValue{});
  case '.':
    return fill(reserve(Flag), EllipsisValue{});
  case 'i': {
    auto Slot = reserve(Flag);
    auto V = readInt32("int32 payload of an int");
    if (!V)
      return V.takeError();
    return fill(Slot, int64_t(*V));
  }
  case 'I': {
    auto Slot = reserve(Flag);
    if (Error E = need(8, "int64 payload"))
      return E;
    int64_t V = int64_t(llvm::support::endian::read64le(Bytes.data() + Pos));
    Pos += 8;
    return fill(Slot, V);
  }
  case 'l': {
    auto Slot = reserve(Flag);
    size_t CountAt = Pos;
    auto N = readInt32("digit count of a long");
    if (!N)
      return N.takeError();
    int64_t Count = *N < 0 ? -int64_t(*N) : int64_t(*N);
    if (uint64_t(Count) > remaining() / 2)
      return err(CountAt, llvm::formatv("long with {0} digits exceeds the {1} "
                                        "bytes left",
                                        Count, remaining()));
    BigInt B;
    B.Negative = *N < 0;
    B.Digits.reserve(Count);
    for (int64_t I = 0; I < Count; ++I) {
      uint16_t D = llvm::support::endian::read16le(Bytes.data() + Pos);
      if (D >= (1u << 15))
        return err(Pos, "digit out of range in long");
      B.Digits.push_back(D);
      Pos += 2;
    }
    if (Count && B.Digits.back() == 0)
      return err(Pos - 2, "unnormalized long data (leading zero digit)");
    // Fold values that fit in int64 (up to 4 digits = 60 bits).
    if (B.Digits.size() <= 4) {
      int64_t V = 0;
      for (size_t I = B.Digits.size(); I-- > 0;)
        V = (V << 15) | B.Digits[I];
      return fill(Slot, B.Negative ? -V : V);
    }
    return fill(Slot, std::move(B));
  }
  case 'g': {
    auto Slot = reserve(Flag);
    auto D = readBinaryFloat("binary float");
    if (!D)
      return D.takeError();
    return fill(Slot, *D);
  }
  case 'f': {
    auto Slot = reserve(Flag);
    auto D = readTextFloat("text float");
    if (!D)
      return D.takeError();
    return fill(Slot, *D);
  }
  case 'y': {
    auto Slot = reserve(Flag);
    auto Re = readBinaryFloat("binary complex real part");
    if (!Re)
      return Re.takeError();
    auto Im = readBinaryFloat("binary complex imaginary part");
    if (!Im)
      return Im.takeError();
    return fill(Slot, std::complex<double>(*Re, *Im));
  }
  case 'x': {
    auto Slot = reserve(Flag);
    auto Re = readTextFloat("text complex real part");
    if (!Re)
      return Re.takeError();
    auto Im = readTextFloat("text complex imaginary part");
    if (!Im)
      return Im.takeError();
    return fill(Slot, std::complex<double>(*Re, *Im));
  }
  case 's': {
    auto Slot = reserve(Flag);
    auto N = readCount("bytes length", 1);
    if (!N)
      return N.takeError();
    auto S = readBytes(*N, "bytes payload");
    if (!S)
      return S.takeError();
    return fill(Slot, BytesValue{std::make_shared<const std::string>(*S)});
  }
  case 'u':
  case 't':
  case 'a':
  case 'A':
  case 'z':
  case 'Z': {
    auto Slot = reserve(Flag);
    auto S = readStrPayload(Type);
    if (!S)
      return S.takeError();
    return fill(Slot, StrValue{std::make_shared<const std::string>(*S)});
  }
  case '(':
  case ')':
  case '[':
  case '<':
  case '>': {
    auto Slot = reserve(Flag);
    auto N = readContainerSize(Type);
    if (!N)
      return N.takeError();
    auto Items = std::make_shared<std::vector<Value>>();
    if (Error E = readItems(*N, *Items))
      return E;
    SequenceKind Kind = Type == '['   ? SequenceKind::List
                        : Type == '<' ? SequenceKind::Set
                        : Type == '>' ? SequenceKind::FrozenSet
                                      : SequenceKind::Tuple;
    return fill(Slot, SequenceValue{Kind, std::move(Items)});
  }
  case '{': {
    auto Slot = reserve(Flag);
    auto Items = std::make_shared<std::vector<std::pair<Value, Value>>>();
    while (true) {
      if (Error E = need(1, "a dict key or the NULL terminator"))
        return E;
      if (Bytes[Pos] == '0') {
        ++Pos;
        break;
      }
      auto K = readObject("a dict key");
      if (!K)
        return K.takeError();
      auto V = readObject("a dict value");
      if (!V)
        return V.takeError();
      Items->emplace_back(std::move(*K), std::move(*V));
    }
    return fill(Slot, DictValue{std::move(Items)});
  }
  case 'r': {
    auto Index = readInt32("reference index");
    if (!Index)
      return Index.takeError();
    if (*Index < 0 || size_t(*Index) >= Refs.size())
      return err(At, llvm::formatv("reference {0} out of range (table has {1} "
                                   "entries)",
                                   *Index, Refs.size()));
    if (!Refs[*Index])
      return err(At, llvm::formatv("reference {0} to an object still being "
                                   "read (cyclic data)",
                                   *Index));
    return *Refs[*Index];
  }
  case 'c':
    return readCode(At, reserve(Flag));
  case '0':
    return err(At, "unexpected NULL object (type code '0') where " + What +
                       " was expected");
  default:
    return err(At, "unknown marshal type code " + describeTypeCode(Type) +
                       " where " + What + " was expected");
  }
}

/// A str payload (after the type byte), validated as CPython decodes it.
Expected<StringRef> MarshalReader::readStrPayload(uint8_t Type) {
  size_t N;
  if (Type == 'z' || Type == 'Z') {
    auto L = readByte("short string length");
    if (!L)
      return L.takeError();
    N = *L;
  } else {
    auto L = readCount("string length", 1);
    if (!L)
      return L.takeError();
    N = *L;
  }
  size_t DataAt = Pos;
  auto S = readBytes(N, "string payload");
  if (!S)
    return S.takeError();
  if (Type == 'u' || Type == 't') {
    // CPython decodes with "surrogatepass": well-formed UTF-8 plus encoded
    // lone surrogates (ED A0..BF xx). Check well-formedness allowing those.
    const auto *P = reinterpret_cast<const llvm::UTF8 *>(S->data());
    const auto *End = P + S->size();
    while (P != End) {
      if (*P < 0x80) { // ASCII, most of any str: skip the general check
        ++P;
        continue;
      }
      if (P[0] == 0xED && End - P >= 3 && (P[1] & 0xE0) == 0xA0 &&
          (P[2] & 0xC0) == 0x80) {
        P += 3;
        continue;
      }
      unsigned Len = llvm::getNumBytesForUTF8(*P);
      if (Len > size_t(End - P) || !llvm::isLegalUTF8Sequence(P, P + Len))
        return err(DataAt + (reinterpret_cast<const char *>(P) - S->data()),
                   "invalid UTF-8 in str");
      P += Len;
    }
  } else {
    // Eight bytes at a time up to the first word with a high bit set; only
    // then byte by byte, for the exact offset.
    size_t I = 0;
    for (uint64_t W; I + 8 <= S->size(); I += 8) {
      std::memcpy(&W, S->data() + I, 8);
      if (W & 0x8080808080808080u)
        break;
    }
    for (; I < S->size(); ++I)
      if (uint8_t((*S)[I]) >= 0x80)
        return err(DataAt + I, "non-ASCII byte in an ASCII str");
  }
  return *S;
}

/// The item count of a container (after the type byte).
Expected<size_t> MarshalReader::readContainerSize(uint8_t Type) {
  if (Type == ')') {
    auto L = readByte("small tuple size");
    if (!L)
      return L.takeError();
    size_t N = *L;
    if (N > remaining())
      return err(Pos - 1, llvm::formatv("tuple of {0} items exceeds the {1} "
                                        "bytes left",
                                        N, remaining()));
    return N;
  }
  return readCount("container size", 1);
}

Error MarshalReader::readItems(size_t N, std::vector<Value> &Items) {
  Items.reserve(N);
  for (size_t I = 0; I < N; ++I) {
    auto Item = readObject("a container item");
    if (!Item)
      return Item.takeError();
    Items.push_back(std::move(*Item));
  }
  return Error::success();
}

Expected<std::string> MarshalReader::readStrField(StringRef Field) {
  size_t At = Pos;
  switch (peekUnsharedType()) {
  case 'u':
  case 't':
  case 'a':
  case 'A':
  case 'z':
  case 'Z': {
    uint8_t Type = Bytes[Pos++];
    auto S = readStrPayload(Type);
    if (!S)
      return S.takeError();
    return S->str();
  }
  default:
    break;
  }
  auto V = readObject(Field);
  if (!V)
    return V.takeError();
  if (const std::string *S = V->getStr()) {
    if (Error E = charge(S->size(), At))
      return E;
    return *S;
  }
  return err(At, "code object field " + Field + " must be a str");
}

Expected<std::string> MarshalReader::readBytesField(StringRef Field) {
  size_t At = Pos;
  if (peekUnsharedType() == 's') {
    ++Pos;
    auto N = readCount("bytes length", 1);
    if (!N)
      return N.takeError();
    auto S = readBytes(*N, "bytes payload");
    if (!S)
      return S.takeError();
    return S->str();
  }
  auto V = readObject(Field);
  if (!V)
    return V.takeError();
  if (auto *B = V->getIf<BytesValue>()) {
    if (Error E = charge(B->Data->size(), At))
      return E;
    return *B->Data;
  }
  return err(At, "code object field " + Field + " must be bytes");
}

Expected<std::vector<Value>> MarshalReader::readTupleField(StringRef Field) {
  size_t At = Pos;
  if (uint8_t Type = peekUnsharedType(); Type == '(' || Type == ')') {
    ++Pos;
    auto N = readContainerSize(Type);
    if (!N)
      return N.takeError();
    std::vector<Value> Items;
    ++Depth; // The tuple's own level, as readObject() would count it.
    Error E = readItems(*N, Items);
    --Depth;
    if (E)
      return E;
    return Items;
  }
  auto V = readObject(Field);
  if (!V)
    return V.takeError();
  if (auto *T = V->getSequence(SequenceKind::Tuple))
    return *T;
  return err(At, "code object field " + Field + " must be a tuple");
}

Expected<std::vector<std::string>>
MarshalReader::readStrTupleField(StringRef Field) {
  size_t At = Pos;
  auto T = readTupleField(Field);
  if (!T)
    return T.takeError();
  std::vector<std::string> Out;
  Out.reserve(T->size());
  for (const Value &Item : *T) {
    const std::string *S = Item.getStr();
    if (!S)
      return err(At, "code object field " + Field + " must hold only str");
    if (Error E = charge(S->size() + 1, At))
      return E;
    Out.push_back(*S);
  }
  return Out;
}

Expected<Value> MarshalReader::readCode(size_t At, std::optional<size_t> Slot) {
  auto C = std::make_shared<CodeObject>();
  int32_t *Ints[] = {&C->ArgCount, &C->PosOnlyArgCount, &C->KwOnlyArgCount,
                     &C->StackSize, &C->Flags};
  const char *IntNames[] = {"co_argcount", "co_posonlyargcount",
                            "co_kwonlyargcount", "co_stacksize", "co_flags"};
  for (unsigned I = 0; I < 5; ++I) {
    auto V = readInt32(IntNames[I]);
    if (!V)
      return V.takeError();
    *Ints[I] = *V;
  }
#define PYV_READ(Member, Reader, Field)                                        \
  {                                                                            \
    auto V = Reader(Field);                                                    \
    if (!V)                                                                    \
      return V.takeError();                                                    \
    C->Member = std::move(*V);                                                 \
  }
  PYV_READ(Code, readBytesField, "co_code")
  PYV_READ(Consts, readTupleField, "co_consts")
  PYV_READ(Names, readStrTupleField, "co_names")
  PYV_READ(LocalsPlusNames, readStrTupleField, "co_localsplusnames")
  PYV_READ(LocalsPlusKinds, readBytesField, "co_localspluskinds")
  PYV_READ(Filename, readStrField, "co_filename")
  PYV_READ(Name, readStrField, "co_name")
  PYV_READ(QualName, readStrField, "co_qualname") {
    auto V = readInt32("co_firstlineno");
    if (!V)
      return V.takeError();
    C->FirstLineNo = *V;
  }
  PYV_READ(LineTable, readBytesField, "co_linetable")
  PYV_READ(ExceptionTable, readBytesField, "co_exceptiontable")
#undef PYV_READ
  if (C->LocalsPlusNames.size() != C->LocalsPlusKinds.size())
    return err(At, llvm::formatv("code object '{0}': {1} localsplus names but "
                                 "{2} kind bytes",
                                 C->QualName, C->LocalsPlusNames.size(),
                                 C->LocalsPlusKinds.size()));
  return fill(Slot, CodeValue{std::move(C)});
}

} // namespace

Expected<Value> pyverify::readMarshal(StringRef Bytes, uint64_t BaseOffset) {
  return MarshalReader(Bytes, BaseOffset).readTop();
}

bool pyverify::hasPyc311Magic(StringRef Bytes) {
  return Bytes.size() >= 4 && uint8_t(Bytes[0]) == (PycMagic311 & 0xff) &&
         uint8_t(Bytes[1]) == (PycMagic311 >> 8) && Bytes[2] == '\r' &&
         Bytes[3] == '\n';
}

Expected<PycFile> pyverify::readPyc(StringRef Bytes) {
  if (Bytes.size() < 16)
    return makeInputError(Bytes.size(),
                          llvm::formatv("truncated .pyc: header needs 16 "
                                        "bytes, file has {0}",
                                        Bytes.size()));
  PycFile F;
  F.Header.Magic = llvm::support::endian::read16le(Bytes.data());
  if (!hasPyc311Magic(Bytes))
    return makeInputError(
        0, llvm::formatv("bad .pyc magic {0} (bytes {1:x-2} {2:x-2} {3:x-2} "
                         "{4:x-2}); expected 3495 (a7 0d 0d 0a), CPython 3.11",
                         F.Header.Magic, uint8_t(Bytes[0]), uint8_t(Bytes[1]),
                         uint8_t(Bytes[2]), uint8_t(Bytes[3])));
  F.Header.Flags = llvm::support::endian::read32le(Bytes.data() + 4);
  if (F.Header.Flags & ~3u)
    return makeInputError(
        4, llvm::formatv("invalid .pyc flags {0:x}", F.Header.Flags));
  F.Header.Word2 = llvm::support::endian::read32le(Bytes.data() + 8);
  F.Header.Word3 = llvm::support::endian::read32le(Bytes.data() + 12);
  auto V = readMarshal(Bytes.drop_front(16), 16);
  if (!V)
    return V.takeError();
  const CodeValue *C = V->getIf<CodeValue>();
  if (!C)
    return makeInputError(16, ".pyc payload is not a code object");
  F.Code = C->Code;
  return F;
}

std::vector<std::shared_ptr<const CodeObject>>
pyverify::collectTopLevelCode(const Value &V) {
  std::vector<std::shared_ptr<const CodeObject>> Out;
  auto Add = [&](const Value &X) {
    if (auto *C = X.getIf<CodeValue>())
      Out.push_back(C->Code);
  };
  if (V.is<CodeValue>()) {
    Add(V);
  } else if (auto *S = V.getIf<SequenceValue>()) {
    for (const Value &X : *S->Items)
      Add(X);
  } else if (auto *D = V.getIf<DictValue>()) {
    for (const auto &KV : *D->Items) {
      Add(KV.first);
      Add(KV.second);
    }
  }
  return Out;
}
