//===- Marshal.cpp - Reading .pyc files and marshal streams ---------------===//
//
// Mirrors r_object() in CPython 3.11's Python/marshal.c: the type byte, then
// one reader per family of type codes (scalars, strings, containers, back-
// references; code objects are in MarshalCode.cpp).
//
//===----------------------------------------------------------------------===//

#include "MarshalReader.h"
#include "pyverify/Bytecode/SurrogatePass.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"

#include <cassert>

using namespace pyverify;
using namespace pyverify::marshal;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

std::string describeTypeCode(uint8_t C) {
  if (C >= 0x20 && C < 0x7f)
    return llvm::formatv("'{0}' (0x{1:x-2})", char(C), unsigned(C)).str();
  return llvm::formatv("0x{0:x-2}", unsigned(C)).str();
}

} // namespace

Error MarshalReader::readScalar(uint8_t Type, std::optional<size_t> Slot,
                                ValueSink Out) {
  switch (Type) {
  case 'N':
    return emit(Out, Slot, NoneValue{});
  case 'F':
    return emit(Out, Slot, false);
  case 'T':
    return emit(Out, Slot, true);
  case 'S':
    return emit(Out, Slot, StopIterationValue{});
  case '.':
    return emit(Out, Slot, EllipsisValue{});
  case 'i': {
    auto V = readInt32("int32 payload of an int");
    if (!V)
      return V.takeError();
    return emit(Out, Slot, int64_t(*V));
  }
  case 'I': {
    if (Error E = need(8, "int64 payload"))
      return E;
    int64_t V = int64_t(llvm::support::endian::read64le(Bytes.data() + Pos));
    Pos += 8;
    return emit(Out, Slot, V);
  }
  case 'l':
    return readLong(Slot, Out);
  case 'g': {
    auto D = readBinaryFloat("binary float");
    if (!D)
      return D.takeError();
    return emit(Out, Slot, *D);
  }
  case 'f': {
    auto D = readTextFloat("text float");
    if (!D)
      return D.takeError();
    return emit(Out, Slot, *D);
  }
  case 'y': {
    auto Re = readBinaryFloat("binary complex real part");
    if (!Re)
      return Re.takeError();
    auto Im = readBinaryFloat("binary complex imaginary part");
    if (!Im)
      return Im.takeError();
    return emit(Out, Slot, std::complex<double>(*Re, *Im));
  }
  case 'x': {
    auto Re = readTextFloat("text complex real part");
    if (!Re)
      return Re.takeError();
    auto Im = readTextFloat("text complex imaginary part");
    if (!Im)
      return Im.takeError();
    return emit(Out, Slot, std::complex<double>(*Re, *Im));
  }
  }
  llvm_unreachable("beginObject dispatches only scalar type codes here");
}

Error MarshalReader::readLong(std::optional<size_t> Slot, ValueSink Out) {
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
    return emit(Out, Slot, B.Negative ? -V : V);
  }
  return emit(Out, Slot, std::move(B));
}

Error MarshalReader::readString(uint8_t Type, std::optional<size_t> Slot,
                                ValueSink Out) {
  auto S = readTextPayload(Type);
  if (!S)
    return S.takeError();
  if (Type == 's')
    return emit(Out, Slot, BytesValue{makeText(*S)});
  return emit(Out, Slot, StrValue{makeText(*S)});
}

Error MarshalReader::badRef(size_t At, int32_t Index) {
  if (Index < 0 || size_t(Index) >= Refs.size())
    return err(At, llvm::formatv("reference {0} out of range (table has {1} "
                                 "entries)",
                                 Index, Refs.size()));
  return err(At, llvm::formatv("reference {0} to an object still being "
                               "read (cyclic data)",
                               Index));
}

const Value &MarshalReader::refValue(RefSlot &S) {
  if (!S.V) {
    auto Text = makeText(S.View);
    if (S.ViewType == 's')
      S.V.emplace(BytesValue{std::move(Text)});
    else
      S.V.emplace(StrValue{std::move(Text)});
  }
  return *S.V;
}

Error MarshalReader::readRef(size_t At, ValueSink Out) {
  auto S = lookupRef(At);
  if (!S)
    return S.takeError();
  Out.put(refValue(**S));
  return Error::success();
}

Expected<Value> MarshalReader::readObject(StringRef What) {
  // Each turn reads one object's start at Pos; a finished object goes to
  // the frame that asked for it, and frames that finish go to theirs, until
  // one asks for another object (or the outermost is done).
  std::optional<Value> Done;
  while (true) {
    if (Stack.size() >= MaxMarshalDepth)
      return err(Pos, llvm::formatv("nesting deeper than {0} objects",
                                    MaxMarshalDepth));
    assert(!Done && "every frame takes the object it asked for");
    if (Error E = beginObject(What, Done))
      return std::move(E);
    while (true) {
      if (Stack.empty())
        return std::move(*Done);
      auto More = advance(Done, What);
      if (!More)
        return More.takeError();
      if (*More)
        break;
    }
  }
}

Error MarshalReader::readLeaf(uint8_t TypeByte, size_t At, ValueSink Out) {
  uint8_t Type = TypeByte & ~FlagRef;
  if (Type == 'r')
    return readRef(At, Out);
  std::optional<size_t> Slot = reserve(TypeByte & FlagRef);
  if (isStringType(Type))
    return readString(Type, Slot, Out);
  return readScalar(Type, Slot, Out);
}

Error MarshalReader::beginObject(StringRef What, std::optional<Value> &Done) {
  size_t At = Pos;
  auto TypeByte = readByte(What);
  if (!TypeByte)
    return TypeByte.takeError();
  bool Flag = *TypeByte & FlagRef;
  uint8_t Type = *TypeByte & ~FlagRef;
  if (isLeafType(Type))
    return readLeaf(*TypeByte, At, ValueSink(Done));

  switch (Type) {
  case ':': // a constant slice: marshal version 5 (3.14) on
    if (traits(Version).MarshalVersion < 5)
      return err(At, "unknown marshal type code " + describeTypeCode(Type) +
                         " where " + What + " was expected (marshal version " +
                         std::to_string(traits(Version).MarshalVersion) + ", " +
                         pythonVersionName(Version).str() +
                         "'s, has no slices)");
    [[fallthrough]];
  case '(':
  case ')':
  case '[':
  case '<':
  case '>': {
    std::optional<size_t> Slot = reserve(Flag);
    auto N = readContainerSize(Type);
    if (!N)
      return N.takeError();
    pushItems(Frame::Sequence, Type, *N, Slot, At);
    return Error::success();
  }
  case '{':
    Stack.emplace_back(Frame::Dict);
    Stack.back().Slot = reserve(Flag);
    return Error::success();
  case 'c':
    return beginCode(At, reserve(Flag));
  case '0':
    return err(At, "unexpected NULL object (type code '0') where " + What +
                       " was expected");
  default:
    return err(At, "unknown marshal type code " + describeTypeCode(Type) +
                       " where " + What + " was expected");
  }
}

void MarshalReader::pushItems(Frame::FrameKind Kind, uint8_t Type, size_t N,
                              std::optional<size_t> Slot, size_t At) {
  Stack.emplace_back(Kind);
  Frame &F = Stack.back();
  F.Type = Type;
  F.Slot = Slot;
  F.At = At;
  F.Left = N;
  F.Items.reserve(N); // N <= the bytes left (readContainerSize).
}

Expected<bool> MarshalReader::advance(std::optional<Value> &Done,
                                      StringRef &What) {
  Frame &F = Stack.back();
  switch (F.Kind) {
  case Frame::Dict:
    return advanceDict(Done, What);
  case Frame::Code:
    return advanceCode(Done, What);
  case Frame::NameTuple:
    return advanceNames(Done, What);
  case Frame::Sequence:
  case Frame::TupleField:
    break;
  }
  if (Done) {
    F.Items.push_back(std::move(*Done));
    Done.reset();
    --F.Left;
  }
  // Items that hold no other object are read here, in one loop; anything
  // else (or a byte that is not a type code of one) goes to readObject's
  // loop, which reads it with the same checks and messages.
  while (F.Left && Pos < Bytes.size() && Stack.size() < MaxMarshalDepth &&
         isLeafType(uint8_t(Bytes[Pos]) & ~FlagRef)) {
    size_t At = Pos++;
    if (Error E = readLeaf(uint8_t(Bytes[At]), At, ValueSink(F.Items)))
      return std::move(E);
    --F.Left;
  }
  if (F.Left) {
    What = "a container item";
    return true;
  }
  std::vector<Value> Items = std::move(F.Items);
  if (F.Kind == Frame::TupleField) { // co_consts
    Stack.pop_back();
    storeConsts(Stack.back(), std::move(Items));
    return false;
  }
  SequenceKind Kind = F.Type == '['   ? SequenceKind::List
                      : F.Type == '<' ? SequenceKind::Set
                      : F.Type == '>' ? SequenceKind::FrozenSet
                      : F.Type == ':' ? SequenceKind::Slice
                                      : SequenceKind::Tuple;
  std::optional<size_t> Slot = F.Slot;
  Stack.pop_back();
  Done =
      fill(Slot, SequenceValue{Kind, std::make_shared<const std::vector<Value>>(
                                         std::move(Items))});
  return false;
}

Expected<bool> MarshalReader::advanceNames(std::optional<Value> &Done,
                                           StringRef &What) {
  Frame &F = Stack.back();
  auto AddStr = [&](StringRef S) {
    if (!F.SawNonStr)
      NameViews.push_back(S);
  };
  if (Done) {
    // Not a leaf (those are read below), so never a str; kept alive if it
    // were one.
    if (const std::string *S = Done->getStr()) {
      KeepAlive.push_back(std::move(*Done));
      AddStr(*S);
    } else {
      F.SawNonStr = true;
    }
    Done.reset();
    --F.Left;
  }
  // As advance() reads a tuple's leaf items, but a str is kept as its text.
  while (F.Left && Pos < Bytes.size() && Stack.size() < MaxMarshalDepth &&
         isLeafType(uint8_t(Bytes[Pos]) & ~FlagRef)) {
    size_t At = Pos++;
    uint8_t TypeByte = Bytes[At];
    uint8_t Type = TypeByte & ~FlagRef;
    --F.Left;
    if (isStringType(Type)) {
      std::optional<size_t> Slot = reserve(TypeByte & FlagRef);
      auto S = readTextPayload(Type);
      if (!S)
        return S.takeError();
      fillView(Slot, Type, *S);
      if (Type == 's')
        F.SawNonStr = true;
      else
        AddStr(*S);
    } else if (Type == 'r') {
      auto R = lookupRef(At);
      if (!R)
        return R.takeError();
      if (std::optional<StringRef> S = (*R)->text(/*Str=*/true))
        AddStr(*S);
      else
        F.SawNonStr = true;
    } else {
      std::optional<Value> Scalar;
      if (Error E = readLeaf(TypeByte, At, ValueSink(Scalar)))
        return std::move(E);
      F.SawNonStr = true;
    }
  }
  if (F.Left) {
    What = "a container item";
    return true;
  }
  size_t Base = F.ViewBase;
  bool NonStr = F.SawNonStr;
  Stack.pop_back();
  Error E =
      storeNames(Stack.back(),
                 llvm::ArrayRef<StringRef>(NameViews).drop_front(Base), NonStr);
  NameViews.resize(Base);
  if (E)
    return std::move(E);
  return false;
}

Expected<bool> MarshalReader::advanceDict(std::optional<Value> &Done,
                                          StringRef &What) {
  Frame &F = Stack.back();
  if (Done) {
    F.Items.push_back(std::move(*Done));
    Done.reset();
    if (F.Items.size() % 2) {
      What = "a dict value";
      return true;
    }
  }
  if (Error E = need(1, "a dict key or the NULL terminator"))
    return std::move(E);
  if (Bytes[Pos] != '0') {
    What = "a dict key";
    return true;
  }
  ++Pos;
  std::vector<std::pair<Value, Value>> Pairs;
  Pairs.reserve(F.Items.size() / 2);
  for (size_t I = 0; I < F.Items.size(); I += 2)
    Pairs.emplace_back(std::move(F.Items[I]), std::move(F.Items[I + 1]));
  auto Items = std::make_shared<const std::vector<std::pair<Value, Value>>>(
      std::move(Pairs));
  std::optional<size_t> Slot = F.Slot;
  Stack.pop_back();
  Done = fill(Slot, DictValue{std::move(Items)});
  return false;
}

Error MarshalReader::checkStrText(uint8_t Type, StringRef S, size_t DataAt) {
  if (Type == 'u' || Type == 't') {
    // CPython decodes with "surrogatepass" (SurrogatePass.h).
    const auto *P = S.bytes_begin();
    const auto *End = S.bytes_end();
    while (P != End) {
      if (*P < 0x80) { // ASCII, most of any str: skip the general check
        if (End - P >= 8 &&
            !(llvm::support::endian::read64le(P) & 0x8080808080808080u))
          P += 8;
        else
          ++P;
        continue;
      }
      uint32_t CP;
      unsigned Len = decodeSurrogatePass(P, End, CP);
      if (!Len)
        return err(DataAt + (P - S.bytes_begin()), "invalid UTF-8 in str");
      P += Len;
    }
  } else {
    for (size_t I = 0; I < S.size(); ++I)
      if (uint8_t(S[I]) >= 0x80)
        return err(DataAt + I, "non-ASCII byte in an ASCII str");
  }
  return Error::success();
}

/// The item count of a container (after the type byte).
Expected<size_t> MarshalReader::readContainerSize(uint8_t Type) {
  if (Type == ':') // a slice: start, stop and step, no size (3.14's marshal)
    return size_t(3);
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

Expected<Value> pyverify::readMarshal(StringRef Bytes, uint64_t BaseOffset,
                                      PythonVersion Version, InputOwner Owner) {
  return MarshalReader(Bytes, BaseOffset, Version, std::move(Owner)).readTop();
}

bool pyverify::hasPyc311Magic(StringRef Bytes) {
  return Bytes.size() >= 4 && uint8_t(Bytes[0]) == (PycMagic311 & 0xff) &&
         uint8_t(Bytes[1]) == (PycMagic311 >> 8) && Bytes[2] == '\r' &&
         Bytes[3] == '\n';
}

std::optional<PythonVersion> pyverify::pycVersion(StringRef Bytes) {
  if (Bytes.size() < 4 || Bytes[2] != '\r' || Bytes[3] != '\n')
    return std::nullopt;
  return pythonVersionOfPycMagic(llvm::support::endian::read16le(Bytes.data()));
}

Expected<PycFile> pyverify::readPyc(StringRef Bytes, bool AnyVersion,
                                    InputOwner Owner) {
  if (Bytes.size() < 16)
    return makeInputError(Bytes.size(),
                          llvm::formatv("truncated .pyc: header needs 16 "
                                        "bytes, file has {0}",
                                        Bytes.size()));
  PycFile F;
  F.Header.Magic = llvm::support::endian::read16le(Bytes.data());
  std::optional<PythonVersion> Version = hasPyc311Magic(Bytes)
                                             ? defaultPythonVersion()
                                         : AnyVersion ? pycVersion(Bytes)
                                                      : std::nullopt;
  if (!Version)
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
  auto V = readMarshal(Bytes.drop_front(16), 16, *Version, std::move(Owner));
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
