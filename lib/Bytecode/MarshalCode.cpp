//===- MarshalCode.cpp - Code objects in a marshal stream -----------------===//
//
// Mirrors the TYPE_CODE case of r_object() in CPython 3.11's
// Python/marshal.c: the fixed int fields, then each object field read
// straight into the CodeObject (the fast paths): a bytes or str field from
// its payload in the input, or from the back-referenced object (that copy
// charged against the budget); an unshared tuple through a frame of its own
// (co_names and co_localsplusnames keep their items' text only, no Value);
// a back-referenced tuple from the slot's Value, without copying it.
// Anything else goes through readObject()'s loop, as CPython reads it, and
// storeField. A code object being read is a Frame on the reader's explicit
// stack; its next field is Frame::Field.
//
//===----------------------------------------------------------------------===//

#include "MarshalReader.h"

#include "llvm/Support/ErrorHandling.h"

#include <cassert>
#include <iterator>

using namespace pyverify;
using namespace pyverify::marshal;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

enum class FieldKind : uint8_t { Bytes, Tuple, StrTuple, Str, Int };

/// The fields after co_flags, in the order marshal writes them, with the
/// CodeObject member each is read into (one of the three pointers).
struct CodeField {
  StringRef Name;
  FieldKind Kind;
  ByteView CodeObject::*Text = nullptr;
  std::vector<ByteView> CodeObject::*Strs = nullptr;
  int32_t CodeObject::*Int = nullptr;
};

const CodeField CodeFields[] = {
    {"co_code", FieldKind::Bytes, &CodeObject::Code},
    {"co_consts", FieldKind::Tuple},
    {"co_names", FieldKind::StrTuple, nullptr, &CodeObject::Names},
    {"co_localsplusnames", FieldKind::StrTuple, nullptr,
     &CodeObject::LocalsPlusNames},
    {"co_localspluskinds", FieldKind::Bytes, &CodeObject::LocalsPlusKinds},
    {"co_filename", FieldKind::Str, &CodeObject::Filename},
    {"co_name", FieldKind::Str, &CodeObject::Name},
    {"co_qualname", FieldKind::Str, &CodeObject::QualName},
    {"co_firstlineno", FieldKind::Int, nullptr, nullptr,
     &CodeObject::FirstLineNo},
    {"co_linetable", FieldKind::Bytes, &CodeObject::LineTable},
    {"co_exceptiontable", FieldKind::Bytes, &CodeObject::ExceptionTable},
};
constexpr unsigned NumCodeFields = std::size(CodeFields);

} // namespace

Error MarshalReader::beginCode(size_t At, std::optional<size_t> Slot) {
  auto C = std::make_shared<CodeObject>();
  C->Version = Version;
  if (!Storage) {
    Storage = std::make_shared<CodeStorage>();
    if (Owner) {
      Storage->Input = std::move(Owner);
      Copy = Bytes;
    } else {
      Copy = Storage->copy(Bytes);
    }
  }
  C->Storage = Storage;
  int32_t *Ints[] = {&C->ArgCount, &C->PosOnlyArgCount, &C->KwOnlyArgCount,
                     &C->StackSize, &C->Flags};
  if (LLVM_LIKELY(remaining() >= 20)) { // all five: no check can fail
    for (unsigned I = 0; I < 5; ++I)
      *Ints[I] =
          int32_t(llvm::support::endian::read32le(Bytes.data() + Pos + 4 * I));
    Pos += 20;
  } else {
    static constexpr StringRef IntNames[] = {
        "co_argcount", "co_posonlyargcount", "co_kwonlyargcount",
        "co_stacksize", "co_flags"};
    for (unsigned I = 0; I < 5; ++I) {
      auto V = readInt32(IntNames[I]);
      if (!V)
        return V.takeError();
      *Ints[I] = *V;
    }
  }
  Stack.emplace_back(Frame::Code);
  Frame &F = Stack.back();
  F.Slot = Slot;
  F.At = At;
  F.C = std::move(C);
  return Error::success();
}

Expected<bool> MarshalReader::advanceCode(std::optional<Value> &Done,
                                          StringRef &What) {
  Frame &F = Stack.back();
  if (Done) {
    if (Error E = storeField(F, std::move(*Done)))
      return std::move(E);
    Done.reset();
  }
  // Fields that need no nested object are read here (the fast paths:
  // readTextField, readTupleRef, peekUnsharedType); the first that does is
  // asked of readObject's loop.
  while (F.Field < NumCodeFields) {
    const CodeField &CF = CodeFields[F.Field];
    F.FieldAt = Pos;
    if (CF.Kind == FieldKind::Int) {
      auto V = readInt32(CF.Name);
      if (!V)
        return V.takeError();
      F.C.get()->*CF.Int = *V;
      ++F.Field;
      continue;
    }
    if (CF.Kind == FieldKind::Bytes || CF.Kind == FieldKind::Str) {
      auto Read = readTextField(F);
      if (!Read)
        return Read.takeError();
      if (*Read) {
        ++F.Field;
        continue;
      }
    } else if (auto Read = readTupleRef(F); !Read) {
      return Read.takeError();
    } else if (*Read) {
      continue; // storeTuple moved on to the next field
    } else if (uint8_t Type = peekUnsharedType(); Type == '(' || Type == ')') {
      ++Pos;
      auto N = readContainerSize(Type);
      if (!N)
        return N.takeError();
      // The tuple's own level, as readObject() would count it.
      if (CF.Kind == FieldKind::Tuple) {
        pushItems(Frame::TupleField, Type, *N, std::nullopt, F.FieldAt);
      } else {
        size_t At = F.FieldAt;
        Stack.emplace_back(Frame::NameTuple);
        Frame &T = Stack.back();
        T.At = At;
        T.Left = *N;
        T.ViewBase = NameViews.size();
      }
      return false; // The tuple's frame asks for its items.
    }
    What = CF.Name;
    return true;
  }
  CodeObject &C = *F.C;
  if (C.LocalsPlusNames.size() != C.LocalsPlusKinds.size())
    return err(F.At, llvm::formatv("code object '{0}': {1} localsplus names "
                                   "but {2} kind bytes",
                                   C.QualName, C.LocalsPlusNames.size(),
                                   C.LocalsPlusKinds.size()));
  std::optional<size_t> Slot = F.Slot;
  CodeValue V{std::move(F.C)};
  Stack.pop_back();
  Done = fill(Slot, std::move(V));
  return false;
}

Error MarshalReader::wrongFieldType(const Frame &F) {
  const CodeField &CF = CodeFields[F.Field];
  StringRef Want;
  switch (CF.Kind) {
  case FieldKind::Str:
    Want = "a str";
    break;
  case FieldKind::Bytes:
    Want = "bytes";
    break;
  case FieldKind::Tuple:
  case FieldKind::StrTuple:
    Want = "a tuple";
    break;
  case FieldKind::Int:
    llvm_unreachable("int fields are read in place");
  }
  return err(F.FieldAt, "code object field " + CF.Name + " must be " + Want);
}

Expected<bool> MarshalReader::readTextField(Frame &F) {
  const CodeField &CF = CodeFields[F.Field];
  if (Pos == Bytes.size() || Stack.size() >= MaxMarshalDepth)
    return false;
  bool WantStr = CF.Kind == FieldKind::Str;
  size_t At = Pos;
  uint8_t TypeByte = Bytes[At];
  uint8_t Type = TypeByte & ~FlagRef;
  StringRef Text;
  if (Type == 'r') {
    ++Pos;
    auto R = lookupRef(At);
    if (!R)
      return R.takeError();
    std::optional<StringRef> S = (*R)->text(WantStr);
    if (!S)
      return wrongFieldType(F);
    Text = *S;
  } else if (isStringType(Type) && (Type == 's') != WantStr) {
    ++Pos;
    std::optional<size_t> Slot = reserve(TypeByte & FlagRef);
    auto S = readTextPayload(Type);
    if (!S)
      return S.takeError();
    fillView(Slot, Type, *S);
    Text = *S;
    if (!Slot) { // Not shared: read once, so not charged.
      F.C.get()->*CF.Text = keep(Text);
      return true;
    }
  } else {
    return false;
  }
  if (Error E = charge(Text.size(), F.FieldAt))
    return std::move(E);
  F.C.get()->*CF.Text = keep(Text);
  return true;
}

Expected<bool> MarshalReader::readTupleRef(Frame &F) {
  // readObject's loop would check the nesting, read the type byte and the
  // index (lookupRef: the same checks and messages), copy the slot's Value
  // (building a str or bytes one from its view, which only a later
  // back-reference could see, and it would build the same) and hand it to
  // storeField: storeTuple for a tuple, wrongFieldType for anything else.
  if (Pos == Bytes.size() || Stack.size() >= MaxMarshalDepth ||
      (uint8_t(Bytes[Pos]) & ~FlagRef) != 'r')
    return false;
  size_t At = Pos++;
  auto R = lookupRef(At);
  if (!R)
    return R.takeError();
  const std::optional<Value> &V = (*R)->V;
  const std::vector<Value> *T =
      V ? V->getSequence(SequenceKind::Tuple) : nullptr;
  if (!T)
    return wrongFieldType(F);
  if (Error E = storeTuple(F, *T))
    return std::move(E);
  return true;
}

Error MarshalReader::storeField(Frame &F, Value V) {
  switch (CodeFields[F.Field].Kind) {
  case FieldKind::Tuple:
  case FieldKind::StrTuple:
    if (auto *T = V.getSequence(SequenceKind::Tuple))
      return storeTuple(F, *T);
    break;
  case FieldKind::Str:
    // readTextField reads every str and back-reference here; V is not one.
    assert(!V.getStr() && "read by readTextField");
    break;
  case FieldKind::Bytes:
    assert(!V.is<BytesValue>() && "read by readTextField");
    break;
  case FieldKind::Int:
    llvm_unreachable("int fields are read in place");
  }
  return wrongFieldType(F);
}

void MarshalReader::storeConsts(Frame &F, std::vector<Value> Items) {
  assert(CodeFields[F.Field].Kind == FieldKind::Tuple);
  F.C->Consts = std::move(Items);
  ++F.Field;
}

Error MarshalReader::storeTuple(Frame &F, const std::vector<Value> &Items) {
  if (CodeFields[F.Field].Kind == FieldKind::Tuple) {
    storeConsts(F, Items);
    return Error::success();
  }
  size_t Base = NameViews.size();
  bool NonStr = false;
  for (const Value &Item : Items) {
    const std::string *S = Item.getStr();
    if (!S) {
      NonStr = true;
      break;
    }
    NameViews.push_back(*S);
  }
  Error E = storeNames(F, llvm::ArrayRef<StringRef>(NameViews).drop_front(Base),
                       NonStr);
  NameViews.resize(Base);
  return E;
}

Error MarshalReader::storeNames(Frame &F, llvm::ArrayRef<StringRef> Texts,
                                bool NonStr) {
  // The checks and charges in item order, as each item would be copied:
  // every str item before the first that is not one is charged first.
  // (Charging their sum at once fails exactly when charging them one by one
  // would: the same message, whichever item crosses the budget.)
  const CodeField &CF = CodeFields[F.Field];
  size_t At = F.FieldAt;
  uint64_t Size = 0;
  for (StringRef S : Texts)
    Size += S.size() + 1;
  if (Error E = charge(Size, At))
    return E;
  if (NonStr)
    return err(At, "code object field " + CF.Name + " must hold only str");
  std::vector<ByteView> &Out = F.C.get()->*CF.Strs;
  Out.reserve(Texts.size());
  for (StringRef S : Texts)
    Out.push_back(keep(S));
  ++F.Field;
  return Error::success();
}
