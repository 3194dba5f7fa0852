//===- MarshalCode.cpp - Code objects in a marshal stream -----------------===//
//
// Mirrors the TYPE_CODE case of r_object() in CPython 3.11's
// Python/marshal.c: the fixed int fields, then each object field read
// straight into the CodeObject when it is not shared (the fast paths), else
// through readObject() with its copy charged against the budget.
//
//===----------------------------------------------------------------------===//

#include "MarshalReader.h"

using namespace pyverify;
using namespace pyverify::marshal;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

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
