//===- MarshalCode.cpp - Code objects in a marshal stream -----------------===//
//
// Mirrors the TYPE_CODE case of r_object() in CPython 3.11's
// Python/marshal.c: the fixed int fields, then each object field read
// straight into the CodeObject when it is not shared (the fast paths), else
// through readObject()'s loop with its copy charged against the budget. A
// code object being read is a Frame on the reader's explicit stack; its
// next field is Frame::Field.
//
//===----------------------------------------------------------------------===//

#include "MarshalReader.h"

#include "llvm/Support/ErrorHandling.h"

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
  const char *Name;
  FieldKind Kind;
  std::string CodeObject::*Text = nullptr;
  std::vector<std::string> CodeObject::*Strs = nullptr;
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
  Stack.push_back(Frame{Frame::Code});
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
  // Fields that need no nested object are read here (the fast paths: see
  // peekUnsharedType); the first that does is asked of readObject's loop.
  for (; F.Field < NumCodeFields; ++F.Field) {
    const CodeField &CF = CodeFields[F.Field];
    F.FieldAt = Pos;
    if (CF.Kind == FieldKind::Int) {
      auto V = readInt32(CF.Name);
      if (!V)
        return V.takeError();
      F.C.get()->*CF.Int = *V;
      continue;
    }
    uint8_t Type = peekUnsharedType();
    if (CF.Kind == FieldKind::Bytes && Type == 's') {
      ++Pos;
      auto N = readCount("bytes length", 1);
      if (!N)
        return N.takeError();
      auto S = readBytes(*N, "bytes payload");
      if (!S)
        return S.takeError();
      F.C.get()->*CF.Text = S->str();
      continue;
    }
    if (CF.Kind == FieldKind::Str &&
        StringRef("utaAzZ", 6).contains(char(Type)) && Type) {
      ++Pos;
      auto S = readStrPayload(Type);
      if (!S)
        return S.takeError();
      F.C.get()->*CF.Text = S->str();
      continue;
    }
    if ((CF.Kind == FieldKind::Tuple || CF.Kind == FieldKind::StrTuple) &&
        (Type == '(' || Type == ')')) {
      ++Pos;
      auto N = readContainerSize(Type);
      if (!N)
        return N.takeError();
      // The tuple's own level, as readObject() would count it.
      pushItems(Frame::TupleField, Type, *N, std::nullopt, F.FieldAt);
      return false; // The TupleField frame asks for its items.
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

Error MarshalReader::storeField(Frame &F, Value V) {
  const CodeField &CF = CodeFields[F.Field];
  size_t At = F.FieldAt;
  switch (CF.Kind) {
  case FieldKind::Str:
    if (const std::string *S = V.getStr()) {
      if (Error E = charge(S->size(), At))
        return E;
      F.C.get()->*CF.Text = *S;
      break;
    }
    return err(At,
               "code object field " + StringRef(CF.Name) + " must be a str");
  case FieldKind::Bytes:
    if (auto *B = V.getIf<BytesValue>()) {
      if (Error E = charge(B->Data->size(), At))
        return E;
      F.C.get()->*CF.Text = *B->Data;
      break;
    }
    return err(At,
               "code object field " + StringRef(CF.Name) + " must be bytes");
  case FieldKind::Tuple:
  case FieldKind::StrTuple:
    if (auto *T = V.getSequence(SequenceKind::Tuple))
      return storeTuple(F, *T);
    return err(At,
               "code object field " + StringRef(CF.Name) + " must be a tuple");
  case FieldKind::Int:
    llvm_unreachable("int fields are read in place");
  }
  ++F.Field;
  return Error::success();
}

Error MarshalReader::storeTuple(Frame &F, std::vector<Value> Items) {
  const CodeField &CF = CodeFields[F.Field];
  if (CF.Kind == FieldKind::Tuple) {
    F.C->Consts = std::move(Items);
    ++F.Field;
    return Error::success();
  }
  size_t At = F.FieldAt;
  std::vector<std::string> Out;
  Out.reserve(Items.size());
  for (const Value &Item : Items) {
    const std::string *S = Item.getStr();
    if (!S)
      return err(At, "code object field " + StringRef(CF.Name) +
                         " must hold only str");
    if (Error E = charge(S->size() + 1, At))
      return E;
    Out.push_back(*S);
  }
  F.C.get()->*CF.Strs = std::move(Out);
  ++F.Field;
  return Error::success();
}
