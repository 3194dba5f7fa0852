//===- LiveCode.cpp - Reading a live CPython code object ------------------===//

#include "LiveCode.h"

#include <marshal.h>

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <optional>
#include <string>

using namespace pyverify;

namespace {

class Reader {
public:
  explicit Reader(bool Recursive) : Recursive(Recursive) {}

  std::shared_ptr<const CodeObject> readCode(PyObject *Obj, unsigned Depth);

private:
  bool readValue(PyObject *Obj, unsigned Depth, std::optional<Value> &Out);
  bool readStr(PyObject *Obj, std::string &Out, const char *Field);
  bool readBytes(PyObject *Obj, std::string &Out, const char *Field);
  bool readStrTuple(PyObject *Obj, std::vector<std::string> &Out,
                    const char *Field);
  Value opaque(PyObject *Obj, std::string Repr);

  bool Recursive;
  /// Containers and code objects already converted (the code object holds
  /// references to all of them for the whole conversion, so pointers are
  /// stable keys).
  llvm::DenseMap<PyObject *, Value> Seen;
};

bool Reader::readStr(PyObject *Obj, std::string &Out, const char *Field) {
  if (!PyUnicode_Check(Obj)) {
    PyErr_Format(PyExc_TypeError, "%s is not a str but %s", Field,
                 Py_TYPE(Obj)->tp_name);
    return false;
  }
  Py_ssize_t Size;
  if (const char *Data = PyUnicode_AsUTF8AndSize(Obj, &Size)) {
    Out.assign(Data, size_t(Size));
    return true;
  }
  // Lone surrogates: marshal writes them with "surrogatepass"; do the same.
  PyErr_Clear();
  PyObject *Bytes = PyUnicode_AsEncodedString(Obj, "utf-8", "surrogatepass");
  if (!Bytes)
    return false;
  Out.assign(PyBytes_AS_STRING(Bytes), size_t(PyBytes_GET_SIZE(Bytes)));
  Py_DECREF(Bytes);
  return true;
}

bool Reader::readBytes(PyObject *Obj, std::string &Out, const char *Field) {
  if (!PyBytes_Check(Obj)) {
    PyErr_Format(PyExc_TypeError, "%s is not bytes but %s", Field,
                 Py_TYPE(Obj)->tp_name);
    return false;
  }
  Out.assign(PyBytes_AS_STRING(Obj), size_t(PyBytes_GET_SIZE(Obj)));
  return true;
}

bool Reader::readStrTuple(PyObject *Obj, std::vector<std::string> &Out,
                          const char *Field) {
  if (!PyTuple_Check(Obj)) {
    PyErr_Format(PyExc_TypeError, "%s is not a tuple", Field);
    return false;
  }
  Py_ssize_t N = PyTuple_GET_SIZE(Obj);
  Out.resize(size_t(N));
  for (Py_ssize_t I = 0; I < N; ++I)
    if (!readStr(PyTuple_GET_ITEM(Obj, I), Out[size_t(I)], Field))
      return false;
  return true;
}

/// The elements of a frozenset in the order marshal writes them: 3.11's
/// marshal sorts them by their own marshalled bytes (so that .pyc files are
/// reproducible whatever the hash seed); elements that cannot be marshalled
/// keep iteration order after the others.
static bool frozenSetInMarshalOrder(PyObject *Set,
                                    std::vector<PyObject *> &Out) {
  std::vector<std::pair<std::string, PyObject *>> Keyed;
  std::vector<PyObject *> Unkeyed;
  Py_ssize_t Pos = 0;
  PyObject *Key;
  Py_hash_t Hash;
  while (_PySet_NextEntry(Set, &Pos, &Key, &Hash)) {
    PyObject *Bytes = PyMarshal_WriteObjectToString(Key, Py_MARSHAL_VERSION);
    if (!Bytes) {
      PyErr_Clear();
      Unkeyed.push_back(Key);
      continue;
    }
    Keyed.emplace_back(
        std::string(PyBytes_AS_STRING(Bytes), size_t(PyBytes_GET_SIZE(Bytes))),
        Key);
    Py_DECREF(Bytes);
  }
  std::stable_sort(
      Keyed.begin(), Keyed.end(),
      [](const auto &A, const auto &B) { return A.first < B.first; });
  for (auto &KV : Keyed)
    Out.push_back(KV.second);
  Out.insert(Out.end(), Unkeyed.begin(), Unkeyed.end());
  return true;
}

Value Reader::opaque(PyObject *Obj, std::string Repr) {
  return OpaqueValue{std::make_shared<const std::string>(Py_TYPE(Obj)->tp_name),
                     std::make_shared<const std::string>(std::move(Repr))};
}

bool Reader::readValue(PyObject *Obj, unsigned Depth,
                       std::optional<Value> &Out) {
  if (Depth > pyverify::python::MaxConstDepth) {
    PyErr_Format(PyExc_ValueError, "constants nested deeper than %u levels",
                 pyverify::python::MaxConstDepth);
    return false;
  }
  if (Obj == Py_None) {
    Out.emplace(NoneValue{});
    return true;
  }
  if (Obj == Py_Ellipsis) {
    Out.emplace(EllipsisValue{});
    return true;
  }
  if (Obj == PyExc_StopIteration) {
    Out.emplace(StopIterationValue{});
    return true;
  }
  if (Obj == Py_True || Obj == Py_False) {
    Out.emplace(Obj == Py_True);
    return true;
  }
  PyTypeObject *Type = Py_TYPE(Obj);
  if (Type == &PyLong_Type) {
    int Overflow = 0;
    long long V = PyLong_AsLongLongAndOverflow(Obj, &Overflow);
    if (!Overflow) {
      if (V == -1 && PyErr_Occurred())
        return false;
      Out.emplace(int64_t(V));
      return true;
    }
    // Magnitude as little-endian bytes, then marshal's base-2^15 digits.
    BigInt B;
    B.Negative = Overflow < 0;
    PyObject *Abs = PyNumber_Absolute(Obj);
    if (!Abs)
      return false;
    size_t Bits = _PyLong_NumBits(Abs);
    std::vector<unsigned char> Buf((Bits + 7) / 8 + 1);
    int Rc = _PyLong_AsByteArray(reinterpret_cast<PyLongObject *>(Abs),
                                 Buf.data(), Buf.size(), /*little_endian=*/1,
                                 /*is_signed=*/0);
    Py_DECREF(Abs);
    if (Rc < 0)
      return false;
    uint32_t Acc = 0;
    unsigned AccBits = 0;
    for (unsigned char Byte : Buf) {
      Acc |= uint32_t(Byte) << AccBits;
      AccBits += 8;
      while (AccBits >= 15) {
        B.Digits.push_back(uint16_t(Acc & 0x7fff));
        Acc >>= 15;
        AccBits -= 15;
      }
    }
    if (AccBits)
      B.Digits.push_back(uint16_t(Acc));
    while (!B.Digits.empty() && B.Digits.back() == 0)
      B.Digits.pop_back();
    Out.emplace(std::move(B));
    return true;
  }
  if (Type == &PyFloat_Type) {
    Out.emplace(PyFloat_AS_DOUBLE(Obj));
    return true;
  }
  if (Type == &PyComplex_Type) {
    Py_complex C = PyComplex_AsCComplex(Obj);
    Out.emplace(std::complex<double>(C.real, C.imag));
    return true;
  }
  if (Type == &PyBytes_Type) {
    Out.emplace(BytesValue{std::make_shared<const std::string>(
        PyBytes_AS_STRING(Obj), size_t(PyBytes_GET_SIZE(Obj)))});
    return true;
  }
  if (Type == &PyUnicode_Type) {
    std::string S;
    if (!readStr(Obj, S, "a constant"))
      return false;
    Out.emplace(StrValue{std::make_shared<const std::string>(std::move(S))});
    return true;
  }

  // Composite values: convert each distinct object once.
  if (auto It = Seen.find(Obj); It != Seen.end()) {
    Out.emplace(It->second);
    return true;
  }
  if (PyCode_Check(Obj)) {
    auto *Code = reinterpret_cast<PyCodeObject *>(Obj);
    if (!Recursive) {
      // Only the root is checked: name the child as Value::repr would.
      std::string Name, File;
      if (!readStr(Code->co_name, Name, "co_name") ||
          !readStr(Code->co_filename, File, "co_filename"))
        return false;
      std::string Repr = "<code object ";
      Repr += Name;
      Repr += ", file \"";
      Repr += File;
      Repr += "\", line ";
      Repr += std::to_string(Code->co_firstlineno);
      Repr += '>';
      Out.emplace(opaque(Obj, std::move(Repr)));
    } else {
      auto Child = readCode(Obj, Depth + 1);
      if (!Child)
        return false;
      Out.emplace(CodeValue{std::move(Child)});
    }
    Seen.try_emplace(Obj, *Out);
    return true;
  }
  if (Type == &PyTuple_Type || Type == &PyFrozenSet_Type) {
    // Items as borrowed references (the container holds them).
    std::vector<PyObject *> Elems;
    if (Type == &PyTuple_Type) {
      for (Py_ssize_t I = 0, N = PyTuple_GET_SIZE(Obj); I < N; ++I)
        Elems.push_back(PyTuple_GET_ITEM(Obj, I));
    } else if (!frozenSetInMarshalOrder(Obj, Elems)) {
      return false;
    }
    std::vector<Value> Items;
    Items.reserve(Elems.size());
    for (PyObject *Item : Elems) {
      std::optional<Value> V;
      if (!readValue(Item, Depth + 1, V))
        return false;
      Items.push_back(std::move(*V));
    }
    Out.emplace(SequenceValue{
        Type == &PyTuple_Type ? SequenceKind::Tuple : SequenceKind::FrozenSet,
        std::make_shared<const std::vector<Value>>(std::move(Items))});
    Seen.try_emplace(Obj, *Out);
    return true;
  }

  // Anything else cannot come from marshal: keep its repr.
  PyObject *Repr = PyObject_Repr(Obj);
  if (!Repr)
    return false;
  std::string Text;
  bool Ok = readStr(Repr, Text, "repr()");
  Py_DECREF(Repr);
  if (!Ok)
    return false;
  Out.emplace(opaque(Obj, std::move(Text)));
  Seen.try_emplace(Obj, *Out);
  return true;
}

std::shared_ptr<const CodeObject> Reader::readCode(PyObject *Obj,
                                                   unsigned Depth) {
  auto *Code = reinterpret_cast<PyCodeObject *>(Obj);
  auto C = std::make_shared<CodeObject>();
  C->ArgCount = Code->co_argcount;
  C->PosOnlyArgCount = Code->co_posonlyargcount;
  C->KwOnlyArgCount = Code->co_kwonlyargcount;
  C->StackSize = Code->co_stacksize;
  C->Flags = Code->co_flags;
  C->FirstLineNo = Code->co_firstlineno;

  PyObject *Bytecode = PyCode_GetCode(Code); // De-specialised, cached.
  if (!Bytecode)
    return nullptr;
  bool Ok = readBytes(Bytecode, C->Code, "co_code");
  Py_DECREF(Bytecode);
  if (!Ok || !readStrTuple(Code->co_names, C->Names, "co_names") ||
      !readStrTuple(Code->co_localsplusnames, C->LocalsPlusNames,
                    "co_localsplusnames") ||
      !readBytes(Code->co_localspluskinds, C->LocalsPlusKinds,
                 "co_localspluskinds") ||
      !readStr(Code->co_filename, C->Filename, "co_filename") ||
      !readStr(Code->co_name, C->Name, "co_name") ||
      !readStr(Code->co_qualname, C->QualName, "co_qualname") ||
      !readBytes(Code->co_linetable, C->LineTable, "co_linetable") ||
      !readBytes(Code->co_exceptiontable, C->ExceptionTable,
                 "co_exceptiontable"))
    return nullptr;

  PyObject *Consts = Code->co_consts;
  if (!PyTuple_Check(Consts)) {
    PyErr_SetString(PyExc_TypeError, "co_consts is not a tuple");
    return nullptr;
  }
  Py_ssize_t N = PyTuple_GET_SIZE(Consts);
  C->Consts.reserve(size_t(N));
  for (Py_ssize_t I = 0; I < N; ++I) {
    std::optional<Value> V;
    if (!readValue(PyTuple_GET_ITEM(Consts, I), Depth + 1, V))
      return nullptr;
    C->Consts.push_back(std::move(*V));
  }
  return C;
}

} // namespace

std::shared_ptr<const CodeObject>
pyverify::python::readLiveCode(PyObject *Code, bool Recursive) {
  assert(PyCode_Check(Code) && "caller checks the type");
  Reader R(Recursive);
  return R.readCode(Code, 0);
}
