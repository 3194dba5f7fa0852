//===- LiveCode.cpp - Reading a live CPython code object ------------------===//

#include "LiveCode.h"

#include <marshal.h>

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Compiler.h"

#include <algorithm>
#include <optional>
#include <string>

using namespace pyverify;

namespace {

using SpareStrings = std::vector<std::shared_ptr<std::string>>;

class Reader {
public:
  /// \p Spare: str / bytes payloads to refill before allocating new ones
  /// (LiveCodeReader's), or null. \p Held: where the references that
  /// keep the code objects' views valid go (LiveCodeReader's: the fields
  /// then view the live objects' own buffers), or null: the fields are
  /// then copied, into one storage that the code objects read share.
  Reader(bool Recursive, SpareStrings *Spare, std::vector<PyObject *> *Held)
      : Recursive(Recursive), Spare(Spare), Held(Held) {}

  std::shared_ptr<const CodeObject> readCode(PyObject *Obj, unsigned Depth);
  bool fillCode(PyObject *Obj, CodeObject &C, unsigned Depth);

private:
  /// A tuple, frozenset or code object whose constants are being read: the
  /// reader's explicit stack, so nesting costs heap, not C stack (a Python
  /// thread's stack can be 32 KiB).
  struct Frame {
    PyObject *Obj = nullptr;
    /// The code object whose co_consts these are (null for a container);
    /// Owned holds it unless it is the caller's root.
    CodeObject *Code = nullptr;
    std::shared_ptr<CodeObject> Owned;
    SequenceKind Kind = SequenceKind::Tuple;
    /// The items to read, borrowed: a tuple's own item array (a tuple is
    /// immutable and Obj holds it, so no copy is needed), or null when they
    /// are in OwnedElems (a frozenset's in marshal order, a slice's three).
    PyObject *const *Elems = nullptr;
    size_t NumElems = 0;
    std::vector<PyObject *> OwnedElems;
    std::vector<Value> Items;
    unsigned ItemDepth = 0; ///< The nesting depth of the items.

    PyObject *elem(size_t I) const { return Elems ? Elems[I] : OwnedElems[I]; }
  };
  /// Inline room for the root's frame and one container: a typical code
  /// object's read allocates no frame.
  llvm::SmallVector<Frame, 2> Stack;

  /// Reads the fields of \p Obj other than co_consts into \p C and pushes
  /// the frame that reads its constants at \p ConstDepth.
  bool beginCode(PyObject *Obj, CodeObject &C,
                 std::shared_ptr<CodeObject> Owned, unsigned ConstDepth);
  /// Reads frames until the stack is empty.
  bool drain();
  /// A constant at \p Depth: 1 after appending it to \p Out when it is
  /// finished (a scalar, a string, an opaque value or one already
  /// converted), 0 after pushing a Frame for its items (\p Out, which may
  /// be a frame's, is then not touched: the push may have moved it), -1
  /// with a Python exception set.
  int readValue(PyObject *Obj, unsigned Depth, std::vector<Value> &Out);
  bool readStr(PyObject *Obj, std::string &Out, const char *Field) {
    Out.clear();
    return appendStr(Obj, Out, Field);
  }
  bool appendStr(PyObject *Obj, std::string &Out, const char *Field);
  /// Code object \p C's str field \p Obj: a view of the str's own bytes
  /// (its ASCII data or its cached UTF-8; lone surrogates, which have
  /// neither, are encoded as marshal does into a copy in C's storage).
  bool viewStr(PyObject *Obj, CodeObject &C, ByteView &Out, const char *Field);
  bool viewBytes(PyObject *Obj, CodeObject &C, ByteView &Out,
                 const char *Field);
  bool viewStrTuple(PyObject *Obj, CodeObject &C, std::vector<ByteView> &Out,
                    const char *Field);
  /// \p S as a field of \p C: the view itself, or without Held a copy.
  ByteView field(CodeObject &C, llvm::StringRef S) {
    return Held ? ByteView(S) : C.own(S);
  }
  /// An OpaqueValue for \p Obj with the repr \p Repr.
  Value opaque(PyObject *Obj, std::shared_ptr<std::string> Repr);
  /// An empty string for a str / bytes / repr payload: a spare one when
  /// there is one (created non-const by this function, and held by nobody
  /// else: LiveCodeReader::clear), else a new one.
  std::shared_ptr<std::string> newPayload();

  bool Recursive;
  SpareStrings *Spare;
  std::vector<PyObject *> *Held;
  /// Without Held: the storage every code object read shares.
  std::shared_ptr<CodeStorage> Storage;
  /// Containers and code objects already converted (the code object holds
  /// references to all of them for the whole conversion, so pointers are
  /// stable keys). Most code objects have a few such constants at most: the
  /// inline buckets spare an allocation per call. Made on the first such
  /// constant met twice-referenced (mayMeetAgain): most code objects have
  /// none, and then neither fill nor scan the buckets.
  using SeenMap = llvm::SmallDenseMap<PyObject *, Value, 8>;
  std::optional<SeenMap> Seen;
  /// Records \p V as the conversion of \p Obj if Obj may be met again.
  void remember(PyObject *Obj, const Value &V) {
    if (mayMeetAgain(Obj))
      (Seen ? *Seen : Seen.emplace()).try_emplace(Obj, V);
  }
  /// False when \p Obj has a single reference: the one container slot the
  /// reader found it in. The constants form a fixed graph of immutable
  /// objects (tuples, frozensets, slices, co_consts: nothing a repr() run
  /// during the read can add a path to), each slot holding a reference; an
  /// object reached by a second path, or twice from one container, has two.
  /// So it is never looked up again, and neither remembering nor looking
  /// it up can change the result. Immortal objects (3.12+) count as many.
  static bool mayMeetAgain(PyObject *Obj) { return Py_REFCNT(Obj) > 1; }
};

/// The UTF-8 of str \p Obj as marshal writes it, or none with a Python
/// error set: a view of the str's own bytes (compact ASCII data, without a
/// call; else its cached UTF-8) or, for lone surrogates, which have no
/// UTF-8 of their own, of a bytes object encoded "surrogatepass" and left
/// in \p Encoded for the caller to release. Inlined into both callers (a
/// call per name cost 1.5% of verify()).
LLVM_ATTRIBUTE_ALWAYS_INLINE static std::optional<llvm::StringRef>
utf8Of(PyObject *Obj, const char *Field, PyObject *&Encoded) {
  Encoded = nullptr;
  if (!PyUnicode_Check(Obj)) {
    PyErr_Format(PyExc_TypeError, "%s is not a str but %s", Field,
                 Py_TYPE(Obj)->tp_name);
    return std::nullopt;
  }
  if (PyUnicode_IS_COMPACT_ASCII(Obj))
    return llvm::StringRef(static_cast<const char *>(PyUnicode_DATA(Obj)),
                           size_t(PyUnicode_GET_LENGTH(Obj)));
  Py_ssize_t Size;
  if (const char *Data = PyUnicode_AsUTF8AndSize(Obj, &Size))
    return llvm::StringRef(Data, size_t(Size));
  PyErr_Clear();
  Encoded = PyUnicode_AsEncodedString(Obj, "utf-8", "surrogatepass");
  if (!Encoded)
    return std::nullopt;
  return llvm::StringRef(PyBytes_AS_STRING(Encoded),
                         size_t(PyBytes_GET_SIZE(Encoded)));
}

bool Reader::appendStr(PyObject *Obj, std::string &Out, const char *Field) {
  PyObject *Encoded;
  std::optional<llvm::StringRef> Text = utf8Of(Obj, Field, Encoded);
  if (!Text)
    return false;
  Out.append(Text->data(), Text->size());
  Py_XDECREF(Encoded);
  return true;
}

bool Reader::viewStr(PyObject *Obj, CodeObject &C, ByteView &Out,
                     const char *Field) {
  PyObject *Encoded;
  std::optional<llvm::StringRef> Text = utf8Of(Obj, Field, Encoded);
  if (!Text)
    return false;
  // A view of the str's own bytes, which the code object keeps; an
  // encoded copy goes into its storage.
  Out = Encoded ? C.own(*Text) : field(C, *Text);
  Py_XDECREF(Encoded);
  return true;
}

bool Reader::viewBytes(PyObject *Obj, CodeObject &C, ByteView &Out,
                       const char *Field) {
  if (!PyBytes_Check(Obj)) {
    PyErr_Format(PyExc_TypeError, "%s is not bytes but %s", Field,
                 Py_TYPE(Obj)->tp_name);
    return false;
  }
  Out = field(C, llvm::StringRef(PyBytes_AS_STRING(Obj),
                                 size_t(PyBytes_GET_SIZE(Obj))));
  return true;
}

bool Reader::viewStrTuple(PyObject *Obj, CodeObject &C,
                          std::vector<ByteView> &Out, const char *Field) {
  if (!PyTuple_Check(Obj)) {
    PyErr_Format(PyExc_TypeError, "%s is not a tuple", Field);
    return false;
  }
  Py_ssize_t N = PyTuple_GET_SIZE(Obj);
  Out.resize(size_t(N));
  for (Py_ssize_t I = 0; I < N; ++I)
    if (!viewStr(PyTuple_GET_ITEM(Obj, I), C, Out[size_t(I)], Field))
      return false;
  return true;
}

/// Elements nested deeper than this are not given to CPython's marshal for
/// their sort key: its writer recurses once per level (w_object), about 195
/// bytes each, and a Python thread's stack can be 32 KiB
/// (threading.stack_size). Measured with marshal.dumps of nested tuples on
/// a thread of that size: 3.11 and 3.12 manage 140 levels, 3.13 128; 64
/// levels (about 12.5 KiB) leave room for the caller's frames.
constexpr unsigned MaxSortKeyDepth = 64;

/// True if \p Root nests tuples, frozensets, sets and code objects' constants
/// more than \p Limit levels deep (what marshal would recurse through).
/// Iterative, each distinct object measured once.
static bool nestsDeeperThan(PyObject *Root, unsigned Limit) {
  llvm::DenseMap<PyObject *, unsigned> Height; // Of finished objects.
  // Children as borrowed references (their container holds them).
  auto ForEachChild = [](PyObject *Obj, auto Visit) {
    if (PyTuple_Check(Obj)) {
      for (Py_ssize_t I = 0; I < PyTuple_GET_SIZE(Obj); ++I)
        Visit(PyTuple_GET_ITEM(Obj, I));
    } else if (PyAnySet_Check(Obj)) {
      if (PyObject *It = PyObject_GetIter(Obj)) {
        while (PyObject *Key = PyIter_Next(It)) {
          Visit(Key); // The set still holds it.
          Py_DECREF(Key);
        }
        Py_DECREF(It);
      }
      PyErr_Clear(); // A set's iteration does not fail.
    } else if (PyCode_Check(Obj)) {
      Visit(reinterpret_cast<PyCodeObject *>(Obj)->co_consts);
    }
  };
  std::vector<std::pair<PyObject *, bool>> Work{{Root, false}};
  while (!Work.empty()) {
    auto [Obj, Expanded] = Work.back();
    Work.pop_back();
    if (Height.count(Obj))
      continue;
    if (!Expanded) {
      Work.push_back({Obj, true});
      ForEachChild(Obj, [&](PyObject *C) {
        if (!Height.count(C))
          Work.push_back({C, false});
      });
      continue;
    }
    unsigned H = 0;
    ForEachChild(Obj, [&](PyObject *C) { H = std::max(H, Height.lookup(C)); });
    if (++H > Limit)
      return true;
    Height[Obj] = H;
  }
  return false;
}

/// The elements of a frozenset in the order marshal writes them: marshal
/// (3.11 to 3.13) sorts them by their own marshalled bytes (so that .pyc files
/// are reproducible whatever the hash seed); elements that cannot be
/// marshalled, or are nested deeper than MaxSortKeyDepth, keep iteration order
/// after the others.
static bool frozenSetInMarshalOrder(PyObject *Set,
                                    std::vector<PyObject *> &Out) {
  std::vector<std::pair<std::string, PyObject *>> Keyed;
  std::vector<PyObject *> Unkeyed;
  // An element's reference count decides whether its dump carries
  // FLAG_REF, and so the sort order. 3.11's and 3.12's marshal dump each
  // element through a borrowed reference (_PySet_NextEntry), 3.13's through
  // a new one (_PySet_NextEntryRef): the keys are made the same way.
  constexpr bool HoldWhileDumping = PY_VERSION_HEX >= 0x030D0000;
  std::vector<PyObject *> Keys; // New references while HoldWhileDumping.
  auto Release = [&] {
    for (PyObject *Key : Keys)
      Py_DECREF(Key);
  };
  PyObject *It = PyObject_GetIter(Set);
  if (!It)
    return false;
  while (PyObject *Key = PyIter_Next(It))
    Keys.push_back(Key);
  Py_DECREF(It);
  if (!HoldWhileDumping)
    Release(); // The set holds its keys while the reader runs.
  if (PyErr_Occurred()) {
    if (HoldWhileDumping)
      Release();
    return false;
  }
  for (PyObject *Key : Keys) {
    if (nestsDeeperThan(Key, MaxSortKeyDepth)) {
      Unkeyed.push_back(Key);
      continue;
    }
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
  if (HoldWhileDumping)
    Release();
  std::stable_sort(
      Keyed.begin(), Keyed.end(),
      [](const auto &A, const auto &B) { return A.first < B.first; });
  for (auto &KV : Keyed)
    Out.push_back(KV.second);
  Out.insert(Out.end(), Unkeyed.begin(), Unkeyed.end());
  return true;
}

std::shared_ptr<std::string> Reader::newPayload() {
  if (!Spare || Spare->empty())
    return std::make_shared<std::string>();
  std::shared_ptr<std::string> S = std::move(Spare->back());
  Spare->pop_back();
  return S;
}

Value Reader::opaque(PyObject *Obj, std::shared_ptr<std::string> Repr) {
  // Nested code objects (every one, when only the root is read) share one
  // type name.
  static const auto CodeTypeName =
      std::make_shared<const std::string>(PyCode_Type.tp_name);
  return OpaqueValue{
      Py_TYPE(Obj) == &PyCode_Type
          ? CodeTypeName
          : std::make_shared<const std::string>(Py_TYPE(Obj)->tp_name),
      std::move(Repr)};
}

int Reader::readValue(PyObject *Obj, unsigned Depth, std::vector<Value> &Out) {
  if (Depth > pyverify::python::MaxConstDepth) {
    PyErr_Format(PyExc_ValueError, "constants nested deeper than %u levels",
                 pyverify::python::MaxConstDepth);
    return -1;
  }
  if (Obj == Py_None) {
    Out.emplace_back(NoneValue{});
    return 1;
  }
  if (Obj == Py_Ellipsis) {
    Out.emplace_back(EllipsisValue{});
    return 1;
  }
  if (Obj == PyExc_StopIteration) {
    Out.emplace_back(StopIterationValue{});
    return 1;
  }
  if (Obj == Py_True || Obj == Py_False) {
    Out.emplace_back(Obj == Py_True);
    return 1;
  }
  PyTypeObject *Type = Py_TYPE(Obj);
  if (Type == &PyLong_Type) {
    int Overflow = 0;
    long long V = PyLong_AsLongLongAndOverflow(Obj, &Overflow);
    if (!Overflow) {
      if (V == -1 && PyErr_Occurred())
        return -1;
      Out.emplace_back(int64_t(V));
      return 1;
    }
    // Magnitude as little-endian bytes, then marshal's base-2^15 digits.
    BigInt B;
    B.Negative = Overflow < 0;
    PyObject *Abs = PyNumber_Absolute(Obj);
    if (!Abs)
      return -1;
    size_t Bits = _PyLong_NumBits(Abs);
    std::vector<unsigned char> Buf((Bits + 7) / 8 + 1);
    int Rc = _PyLong_AsByteArray(reinterpret_cast<PyLongObject *>(Abs),
                                 Buf.data(), Buf.size(), /*little_endian=*/1,
                                 /*is_signed=*/0
#if PY_VERSION_HEX >= 0x030D0000
                                 ,
                                 /*with_exceptions=*/1
#endif
    );
    Py_DECREF(Abs);
    if (Rc < 0)
      return -1;
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
    Out.emplace_back(std::move(B));
    return 1;
  }
  if (Type == &PyFloat_Type) {
    Out.emplace_back(PyFloat_AS_DOUBLE(Obj));
    return 1;
  }
  if (Type == &PyComplex_Type) {
    Py_complex C = PyComplex_AsCComplex(Obj);
    Out.emplace_back(std::complex<double>(C.real, C.imag));
    return 1;
  }
  if (Type == &PyBytes_Type) {
    std::shared_ptr<std::string> S = newPayload();
    S->assign(PyBytes_AS_STRING(Obj), size_t(PyBytes_GET_SIZE(Obj)));
    Out.emplace_back(BytesValue{std::move(S)});
    return 1;
  }
  if (Type == &PyUnicode_Type) {
    std::shared_ptr<std::string> S = newPayload();
    if (!readStr(Obj, *S, "a constant"))
      return -1;
    Out.emplace_back(StrValue{std::move(S)});
    return 1;
  }

  bool IsCode = PyCode_Check(Obj);
  if (IsCode && !Recursive) {
    // Only the root is checked: name the child as Value::repr would. Not
    // remembered: the name is made of immutable fields, so meeting the
    // object again makes the same value (what it costs is what
    // remembering it would).
    auto *Code = reinterpret_cast<PyCodeObject *>(Obj);
    std::shared_ptr<std::string> Repr = newPayload();
    Repr->assign("<code object ");
    if (!appendStr(Code->co_name, *Repr, "co_name"))
      return -1;
    Repr->append(", file \"");
    if (!appendStr(Code->co_filename, *Repr, "co_filename"))
      return -1;
    Repr->append("\", line ");
    Repr->append(std::to_string(Code->co_firstlineno));
    Repr->push_back('>');
    Out.emplace_back(opaque(Obj, std::move(Repr)));
    return 1;
  }

  // Composite values: convert each distinct object once.
  if (Seen && mayMeetAgain(Obj))
    if (auto It = Seen->find(Obj); It != Seen->end()) {
      Out.emplace_back(It->second);
      return 1;
    }
  if (IsCode) {
    auto Child = std::make_shared<CodeObject>();
    CodeObject &C = *Child;
    return beginCode(Obj, C, std::move(Child), Depth + 2) ? 0 : -1;
  }
  if (Type == &PyTuple_Type || Type == &PyFrozenSet_Type ||
      Type == &PySlice_Type) {
    Frame F;
    F.Obj = Obj;
    if (Type == &PyTuple_Type) {
      F.Elems = reinterpret_cast<PyTupleObject *>(Obj)->ob_item;
      F.NumElems = size_t(PyTuple_GET_SIZE(Obj));
    } else {
      if (Type == &PySlice_Type) { // 3.14's constant slices
        auto *S = reinterpret_cast<PySliceObject *>(Obj);
        F.Kind = SequenceKind::Slice;
        F.OwnedElems = {S->start, S->stop, S->step};
      } else {
        F.Kind = SequenceKind::FrozenSet;
        if (!frozenSetInMarshalOrder(Obj, F.OwnedElems))
          return -1;
      }
      F.NumElems = F.OwnedElems.size();
    }
    F.Items.reserve(F.NumElems);
    F.ItemDepth = Depth + 1;
    Stack.push_back(std::move(F)); // Out may move: not touched again.
    return 0;
  }

  // Anything else cannot come from marshal: keep its repr.
  PyObject *Repr = PyObject_Repr(Obj);
  if (!Repr)
    return -1;
  std::shared_ptr<std::string> Text = newPayload();
  bool Ok = readStr(Repr, *Text, "repr()");
  Py_DECREF(Repr);
  if (!Ok)
    return -1;
  Out.emplace_back(opaque(Obj, std::move(Text)));
  remember(Obj, Out.back());
  return 1;
}

std::shared_ptr<const CodeObject> Reader::readCode(PyObject *Obj,
                                                   unsigned Depth) {
  auto C = std::make_shared<CodeObject>();
  if (!fillCode(Obj, *C, Depth))
    return nullptr;
  return C;
}

bool Reader::fillCode(PyObject *Obj, CodeObject &C, unsigned Depth) {
  return beginCode(Obj, C, nullptr, Depth + 1) && drain();
}

bool Reader::beginCode(PyObject *Obj, CodeObject &C,
                       std::shared_ptr<CodeObject> Owned, unsigned ConstDepth) {
  // A live code object is the running interpreter's bytecode. The fields
  // read here are PyCodeObject members in 3.11, 3.12 and 3.13 alike, and in
  // 3.14's Include/cpython/code.h (not built here: no native 3.14 and its
  // headers, docs/python.md).
  static_assert(PY_MAJOR_VERSION == 3 && PY_MINOR_VERSION >= 11 &&
                    PY_MINOR_VERSION <= 14,
                "the live-code reader knows the PyCodeObject of 3.11-3.14");
  static constexpr std::optional<PythonVersion> Running =
      pythonVersionOf(PY_MAJOR_VERSION, PY_MINOR_VERSION);
  static_assert(Running, "the running version has no traits row");
  C.Version = *Running;
  auto *Code = reinterpret_cast<PyCodeObject *>(Obj);
  C.ArgCount = Code->co_argcount;
  C.PosOnlyArgCount = Code->co_posonlyargcount;
  C.KwOnlyArgCount = Code->co_kwonlyargcount;
  C.StackSize = Code->co_stacksize;
  C.Flags = Code->co_flags;
  C.FirstLineNo = Code->co_firstlineno;

  if (!Held) {
    if (!Storage)
      Storage = std::make_shared<CodeStorage>();
    C.Storage = Storage;
  }
  // The other fields are the code object's own members, immutable and
  // kept by it; co_code is a bytes object it caches, which a change of
  // instrumentation may drop while the analysis runs without the GIL: a
  // view of it holds a reference (Held).
  PyObject *Bytecode = PyCode_GetCode(Code); // De-specialised, cached.
  if (!Bytecode)
    return false;
  bool Ok = viewBytes(Bytecode, C, C.Code, "co_code");
  if (Held)
    Held->push_back(Bytecode);
  else
    Py_DECREF(Bytecode);
  if (!Ok || !viewStrTuple(Code->co_names, C, C.Names, "co_names") ||
      !viewStrTuple(Code->co_localsplusnames, C, C.LocalsPlusNames,
                    "co_localsplusnames") ||
      !viewBytes(Code->co_localspluskinds, C, C.LocalsPlusKinds,
                 "co_localspluskinds") ||
      !viewStr(Code->co_filename, C, C.Filename, "co_filename") ||
      !viewStr(Code->co_name, C, C.Name, "co_name") ||
      !viewStr(Code->co_qualname, C, C.QualName, "co_qualname") ||
      !viewBytes(Code->co_linetable, C, C.LineTable, "co_linetable") ||
      !viewBytes(Code->co_exceptiontable, C, C.ExceptionTable,
                 "co_exceptiontable"))
    return false;

  C.Consts.clear();
  PyObject *Consts = Code->co_consts;
  if (!PyTuple_Check(Consts)) {
    PyErr_SetString(PyExc_TypeError, "co_consts is not a tuple");
    return false;
  }
  Frame &F = Stack.emplace_back();
  F.Obj = Obj;
  F.Code = &C;
  F.Owned = std::move(Owned);
  F.Elems = reinterpret_cast<PyTupleObject *>(Consts)->ob_item;
  F.NumElems = size_t(PyTuple_GET_SIZE(Consts));
  F.Items.swap(C.Consts); // Keeps the root's capacity from read to read.
  F.Items.reserve(F.NumElems);
  F.ItemDepth = ConstDepth;
  return true;
}

bool Reader::drain() {
  while (!Stack.empty()) {
    Frame &F = Stack.back();
    if (F.Items.size() < F.NumElems) {
      // The value goes straight into F.Items (readValue leaves them alone
      // when it pushes a frame instead).
      if (readValue(F.elem(F.Items.size()), F.ItemDepth, F.Items) < 0) {
        Stack.clear();
        return false;
      }
      continue;
    }
    // All items read: the value goes to the frame below (none: the root).
    std::optional<Value> Done;
    if (F.Code) {
      F.Code->Consts = std::move(F.Items);
      if (F.Owned)
        Done.emplace(CodeValue{std::move(F.Owned)});
    } else {
      Done.emplace(SequenceValue{
          F.Kind,
          std::make_shared<const std::vector<Value>>(std::move(F.Items))});
    }
    PyObject *Obj = F.Obj;
    Stack.pop_back();
    if (!Done)
      continue;
    remember(Obj, *Done);
    Stack.back().Items.push_back(std::move(*Done));
  }
  return true;
}

} // namespace

std::shared_ptr<const CodeObject>
pyverify::python::readLiveCode(PyObject *Code, bool Recursive) {
  assert(PyCode_Check(Code) && "caller checks the type");
  Reader R(Recursive, /*Spare=*/nullptr, /*Held=*/nullptr);
  return R.readCode(Code, 0);
}

bool pyverify::python::LiveCodeReader::read(PyObject *Code, bool Recursive) {
  assert(PyCode_Check(Code) && "caller checks the type");
  Reader R(Recursive, &Spare, &Held);
  return R.fillCode(Code, Root, 0);
}

/// Moves the str / bytes / repr payloads of \p V that nothing else holds
/// into \p Spare, the tuples' items too.
static void keepSpare(const Value &V, SpareStrings &Spare, unsigned Depth) {
  // Payloads are made non-const by Reader::newPayload: they may be refilled.
  auto Keep = [&](const std::shared_ptr<const std::string> &S) {
    if (S.use_count() == 1 && Spare.size() < python::LiveCodeReader::MaxSpare &&
        S->capacity() <= python::LiveCodeReader::MaxSpareBytes)
      Spare.push_back(std::const_pointer_cast<std::string>(S));
  };
  if (auto *S = V.getIf<StrValue>())
    Keep(S->Utf8);
  else if (auto *B = V.getIf<BytesValue>())
    Keep(B->Data);
  else if (auto *O = V.getIf<OpaqueValue>())
    Keep(O->Repr);
  else if (auto *T = V.getIf<SequenceValue>();
           T && T->Items.use_count() == 1 && Depth < 2)
    for (const Value &Item : *T->Items)
      keepSpare(Item, Spare, Depth + 1);
}

void pyverify::python::LiveCodeReader::clear() {
  for (const Value &V : Root.Consts)
    keepSpare(V, Spare, 0);
  Root.Consts.clear();
  // The views go before the references that keep them valid; the
  // vectors keep their capacity.
  for (ByteView *F :
       {&Root.Code, &Root.LocalsPlusKinds, &Root.Filename, &Root.Name,
        &Root.QualName, &Root.LineTable, &Root.ExceptionTable})
    *F = ByteView();
  Root.Names.clear();
  Root.LocalsPlusNames.clear();
  Root.Storage.reset();
  for (PyObject *Obj : Held)
    Py_DECREF(Obj);
  Held.clear();
}
