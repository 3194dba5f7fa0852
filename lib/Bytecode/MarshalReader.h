//===- MarshalReader.h - The marshal stream reader --------------*- C++ -*-===//
//
// Contract (private to lib/Bytecode): a MarshalReader reads one marshal
// stream front to back, as r_object() in CPython 3.11's Python/marshal.c
// does. Every read checks the remaining length first and every count is
// checked against the bytes left before anything is allocated, so memory
// stays linear in the input; every error names its byte offset (plus the
// base the reader was given). Definitions: Marshal.cpp (objects by family of
// type codes) and MarshalCode.cpp (code objects and their fields).
//
// The class has hidden visibility so that calls between its members stay
// direct and inlinable inside the library, as they were when it lived in an
// anonymous namespace.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_LIB_BYTECODE_MARSHALREADER_H
#define PYVERIFY_LIB_BYTECODE_MARSHALREADER_H

#include "pyverify/Bytecode/Marshal.h"
#include "pyverify/Support/InputError.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

namespace pyverify::marshal {

constexpr uint8_t FlagRef = 0x80;

/// Type codes (FLAG_REF cleared) of objects that hold no other object.
constexpr bool isScalarType(uint8_t Type) {
  switch (Type) {
  case 'N':
  case 'F':
  case 'T':
  case 'S':
  case '.':
  case 'i':
  case 'I':
  case 'l':
  case 'g':
  case 'f':
  case 'y':
  case 'x':
    return true;
  default:
    return false;
  }
}
constexpr bool isStringType(uint8_t Type) {
  switch (Type) {
  case 's':
  case 'u':
  case 't':
  case 'a':
  case 'A':
  case 'z':
  case 'Z':
    return true;
  default:
    return false;
  }
}
inline bool isLeafType(uint8_t Type) {
  static constexpr auto Table = [] {
    std::array<bool, 256> T{};
    for (unsigned C = 0; C < 256; ++C)
      T[C] = isScalarType(uint8_t(C)) || isStringType(uint8_t(C)) || C == 'r';
    return T;
  }();
  return Table[Type];
}

class LLVM_LIBRARY_VISIBILITY MarshalReader {
public:
  MarshalReader(llvm::StringRef Bytes, uint64_t Base,
                PythonVersion Version = defaultPythonVersion(),
                InputOwner Owner = nullptr)
      : Bytes(Bytes), Owner(std::move(Owner)), Base(Base), Version(Version) {
    // Regrowing the table moves every slot in it; one slot per 16 input
    // bytes covers the stdlib's .pyc files, and the cap keeps a large input
    // from reserving much up front (the table still grows past it).
    Refs.reserve(std::min<size_t>(Bytes.size() / 16, size_t(1) << 16));
  }

  llvm::Expected<Value> readTop() {
    auto V = readObject("an object");
    if (!V)
      return V.takeError();
    if (Pos != Bytes.size())
      return err(Pos, llvm::formatv("{0} trailing bytes after the object",
                                    Bytes.size() - Pos));
    return V;
  }

private:
  llvm::StringRef Bytes;
  InputOwner Owner; ///< Of Bytes, or null (Marshal.h).
  /// Made at the first code object: what the code objects of this read
  /// view (CodeObject.h), shared by all of them; Copy is the input there:
  /// Bytes, held by Owner, or without one a copy made then.
  std::shared_ptr<CodeStorage> Storage;
  llvm::StringRef Copy;
  /// A code object's field \p T: the same bytes in Copy when \p T views the
  /// input, else (the text of a Value) copied into Storage.
  ByteView keep(llvm::StringRef T) {
    if (T.empty())
      return ByteView();
    // As addresses: T may view other memory than the input.
    uintptr_t At = reinterpret_cast<uintptr_t>(T.data()),
              In = reinterpret_cast<uintptr_t>(Bytes.data());
    if (At >= In && T.size() <= Bytes.size() &&
        At - In <= Bytes.size() - T.size())
      return llvm::StringRef(Copy.data() + (At - In), T.size());
    return Storage->copy(T);
  }
  uint64_t Base;
  PythonVersion Version; ///< Stamped on every code object read.
  size_t Pos = 0;
  /// A back-reference table entry.
  struct RefSlot {
    /// The object, once built.
    std::optional<Value> V;
    /// A str ('u') or bytes ('s') read straight into a code-object field
    /// (ViewType != 0, V empty): its payload in the input. The Value is
    /// built from it, once, by the first back-reference that needs one.
    llvm::StringRef View;
    uint8_t ViewType = 0;
    /// Neither built nor a view: reserved by an object still being read.
    bool pending() const { return !V && !ViewType; }
    /// The payload, if the object is a str (\p Str) or bytes (!\p Str).
    std::optional<llvm::StringRef> text(bool Str) const {
      if (!V) {
        if (ViewType && (ViewType == 'u') == Str)
          return View;
        return std::nullopt;
      }
      if (Str) {
        if (const std::string *S = V->getStr())
          return llvm::StringRef(*S);
      } else if (auto *B = V->getIf<BytesValue>()) {
        return llvm::StringRef(*B->Data);
      }
      return std::nullopt;
    }
  };
  std::vector<RefSlot> Refs;

  llvm::Error err(size_t At, const llvm::Twine &Msg) {
    return makeInputError(Base + At, Msg);
  }

  size_t remaining() const { return Bytes.size() - Pos; }

  llvm::Error need(size_t N, llvm::StringRef What) {
    if (LLVM_UNLIKELY(remaining() < N))
      return truncated(N, What);
    return llvm::Error::success();
  }
  /// need()'s error, out of the inlined fast path.
  LLVM_ATTRIBUTE_NOINLINE llvm::Error truncated(size_t N,
                                                llvm::StringRef What) {
    return err(Pos, llvm::formatv("truncated: expected {0} ({1} bytes), "
                                  "found {2} bytes before the end",
                                  What, N, remaining()));
  }

  llvm::Expected<uint8_t> readByte(llvm::StringRef What) {
    if (llvm::Error E = need(1, What))
      return E;
    return uint8_t(Bytes[Pos++]);
  }

  llvm::Expected<int32_t> readInt32(llvm::StringRef What) {
    if (llvm::Error E = need(4, What))
      return E;
    int32_t V = llvm::support::endian::read32le(Bytes.data() + Pos);
    Pos += 4;
    return V;
  }

  /// Reads an int32 count/length, checking it is non-negative and that at
  /// least \p MinBytesEach * count bytes remain.
  llvm::Expected<size_t> readCount(llvm::StringRef What, size_t MinBytesEach) {
    size_t At = Pos;
    auto N = readInt32(What);
    if (!N)
      return N.takeError();
    if (LLVM_UNLIKELY(*N < 0 || (MinBytesEach &&
                                 size_t(*N) > remaining() / MinBytesEach)))
      return badCount(At, What, *N);
    return size_t(*N);
  }
  /// readCount()'s error for count \p N read at \p At.
  LLVM_ATTRIBUTE_NOINLINE llvm::Error badCount(size_t At, llvm::StringRef What,
                                               int32_t N) {
    if (N < 0)
      return err(At, llvm::formatv("negative {0} {1}", What, N));
    return err(At, llvm::formatv("{0} {1} exceeds the {2} bytes left", What, N,
                                 remaining()));
  }

  llvm::Expected<llvm::StringRef> readBytes(size_t N, llvm::StringRef What) {
    if (llvm::Error E = need(N, What))
      return E;
    llvm::StringRef S = Bytes.substr(Pos, N);
    Pos += N;
    return S;
  }

  llvm::Expected<double> readBinaryFloat(llvm::StringRef What) {
    if (llvm::Error E = need(8, What))
      return E;
    uint64_t Bits = llvm::support::endian::read64le(Bytes.data() + Pos);
    Pos += 8;
    double D;
    std::memcpy(&D, &Bits, sizeof D);
    return D;
  }

  llvm::Expected<double> readTextFloat(llvm::StringRef What) {
    size_t At = Pos;
    auto Len = readByte(What);
    if (!Len)
      return Len.takeError();
    auto Text = readBytes(*Len, What);
    if (!Text)
      return Text.takeError();
    double D;
    if (Text->trim().getAsDouble(D, /*AllowInexact=*/true)) {
      llvm::StringRef T = Text->trim();
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

  /// Reads one object and everything nested in it. Iterative: a container
  /// or code object still being read is a Frame on Stack (heap), so the C
  /// stack used is the same whatever the nesting (a caller's thread may have
  /// a 32 KiB stack). Stack.size() is the nesting depth CPython's r_object()
  /// counts: an object read while MaxMarshalDepth frames are open is an
  /// error at its first byte.
  llvm::Expected<Value> readObject(llvm::StringRef What);

  /// A container or code object whose items or fields are still being read.
  struct Frame {
    enum FrameKind : uint8_t {
      Sequence,   ///< tuple, list, set, frozenset: Items, Left
      Dict,       ///< Items: its keys and values, alternately
      Code,       ///< C, Field, FieldAt
      TupleField, ///< co_consts' tuple read straight into the parent Code
      NameTuple,  ///< the same for a str tuple field: ViewBase, SawNonStr
    };
    explicit Frame(FrameKind Kind) : Kind(Kind) {}
    FrameKind Kind;
    uint8_t Type = 0;       ///< Sequence: its type code.
    bool SawNonStr = false; ///< NameTuple: see ViewBase.
    unsigned Field = 0;     ///< Code: index into the field table.
    std::optional<size_t> Slot;
    size_t At = 0;   ///< Code: its type byte. TupleField: the field's.
    size_t Left = 0; ///< Sequence, TupleField, NameTuple: items to read.
    /// NameTuple: where its items' text starts in NameViews (the str items
    /// before the first that is not a str, if any: SawNonStr).
    size_t ViewBase = 0;
    size_t FieldAt = 0; ///< Code: first byte of the field.
    std::vector<Value> Items;
    std::shared_ptr<CodeObject> C; ///< Code.
  };
  /// The open frames. The inline ones cover the nesting of real code
  /// (a module, a class, a method, a nested function and their tuples).
  llvm::SmallVector<Frame, 8> Stack;
  /// The text of the str items read so far by the open NameTuple frames, as
  /// a stack (a frame's items from its ViewBase on): views of the input, or
  /// of a str Value that Refs or KeepAlive holds.
  llvm::SmallVector<llvm::StringRef, 64> NameViews;
  /// The strings of the str and bytes Values read. Their shared_ptrs alias
  /// this one arena (made by the first), so a Value's text costs no
  /// allocation of its own beyond its characters when they do not fit in
  /// the string. It holds no Value, so no cycle: it is freed with the last
  /// Value of the read that uses it.
  using TextArena = llvm::SpecificBumpPtrAllocator<std::string>;
  std::shared_ptr<TextArena> Texts;
  std::shared_ptr<const std::string> makeText(llvm::StringRef S) {
    if (!Texts)
      Texts = std::make_shared<TextArena>();
    const std::string *T = new (Texts->Allocate()) std::string(S);
    return std::shared_ptr<const std::string>(Texts, T);
  }
  /// A str Value that reached a NameTuple frame through readObject's loop
  /// (not a leaf read in place), kept alive for its NameViews entry.
  std::vector<Value> KeepAlive;

  /// Where a leaf reader puts the Value it read: at the end of a
  /// container's items, or into the one object readObject's loop reads.
  class ValueSink {
  public:
    explicit ValueSink(std::vector<Value> &Items) : Items(&Items) {}
    explicit ValueSink(std::optional<Value> &One) : One(&One) {}
    template <typename T> Value &put(T &&X) {
      if (Items)
        return Items->emplace_back(std::forward<T>(X));
      return One->emplace(std::forward<T>(X));
    }

  private:
    std::vector<Value> *Items = nullptr;
    std::optional<Value> *One = nullptr;
  };

  /// The type byte at Pos and its payload: a finished object in \p Done
  /// (empty on entry), or \p Done left empty after pushing a Frame for a
  /// container or code object.
  llvm::Error beginObject(llvm::StringRef What, std::optional<Value> &Done);
  /// Gives \p Done (if set) to the top frame. Returns true with \p What set
  /// when the frame needs another object read; false when it is finished:
  /// it is popped and \p Done holds its value (or nothing, when it stored
  /// itself into its parent).
  llvm::Expected<bool> advance(std::optional<Value> &Done,
                               llvm::StringRef &What);
  llvm::Expected<bool> advanceDict(std::optional<Value> &Done,
                                   llvm::StringRef &What);
  /// The payload of a singleton, int, long, float or complex (type \p Type).
  LLVM_ATTRIBUTE_ALWAYS_INLINE llvm::Error
  readScalar(uint8_t Type, std::optional<size_t> Slot, ValueSink Out);
  /// The digits of a long ('l'), folded into an int64 when they fit.
  llvm::Error readLong(std::optional<size_t> Slot, ValueSink Out);
  /// The payload of a bytes or str object.
  LLVM_ATTRIBUTE_ALWAYS_INLINE llvm::Error
  readString(uint8_t Type, std::optional<size_t> Slot, ValueSink Out);
  /// An object that holds no other (scalar, string or back-reference) whose
  /// type byte \p TypeByte, at \p At, has been read.
  LLVM_ATTRIBUTE_ALWAYS_INLINE llvm::Error readLeaf(uint8_t TypeByte, size_t At,
                                                    ValueSink Out);
  /// A back-reference ('r') whose type byte is at \p At.
  LLVM_ATTRIBUTE_ALWAYS_INLINE llvm::Error readRef(size_t At, ValueSink Out);
  /// The slot a back-reference ('r', type byte at \p At) names, checked as
  /// readRef checks it. Valid until the next reserve().
  llvm::Expected<RefSlot *> lookupRef(size_t At) {
    // The common case inline; lookupRefSlow() reads it again, from the same
    // Pos, when it is anything else (an error).
    if (LLVM_LIKELY(remaining() >= 4)) {
      int32_t Index = llvm::support::endian::read32le(Bytes.data() + Pos);
      if (LLVM_LIKELY(Index >= 0 && size_t(Index) < Refs.size() &&
                      !Refs[Index].pending())) {
        Pos += 4;
        return &Refs[Index];
      }
    }
    return lookupRefSlow(At);
  }
  /// lookupRef() in full: every check, with its message.
  LLVM_ATTRIBUTE_NOINLINE llvm::Expected<RefSlot *> lookupRefSlow(size_t At) {
    auto Index = readInt32("reference index");
    if (!Index)
      return Index.takeError();
    if (LLVM_UNLIKELY(*Index < 0 || size_t(*Index) >= Refs.size() ||
                      Refs[*Index].pending()))
      return badRef(At, *Index);
    return &Refs[*Index];
  }
  /// lookupRef()'s error for \p Index.
  LLVM_ATTRIBUTE_NOINLINE llvm::Error badRef(size_t At, int32_t Index);
  /// The object in \p S, built from its view on first use.
  const Value &refValue(RefSlot &S);

  /// The payload of a bytes ('s') or str (any other string type code)
  /// after its type byte; a str's validated as CPython decodes it.
  llvm::Expected<llvm::StringRef> readTextPayload(uint8_t Type) {
    // The common case (the length and payload present, a str's ASCII)
    // inline, with no Expected per step; readTextPayloadSlow() reads it
    // again, from the same Pos, when it is anything else.
    bool Short = Type == 'z' || Type == 'Z';
    size_t Header = Short ? 1 : 4;
    if (LLVM_LIKELY(remaining() >= Header)) {
      int64_t N = Short ? int64_t(uint8_t(Bytes[Pos]))
                        : int64_t(int32_t(llvm::support::endian::read32le(
                              Bytes.data() + Pos)));
      if (LLVM_LIKELY(N >= 0 && uint64_t(N) <= remaining() - Header)) {
        llvm::StringRef S = Bytes.substr(Pos + Header, size_t(N));
        if (LLVM_LIKELY(Type == 's' || !hasHighByte(S))) {
          Pos += Header + size_t(N);
          return S;
        }
      }
    }
    return readTextPayloadSlow(Type);
  }
  /// readTextPayload() in full: every check, with its message.
  LLVM_ATTRIBUTE_NOINLINE llvm::Expected<llvm::StringRef>
  readTextPayloadSlow(uint8_t Type) {
    size_t N;
    if (Type == 'z' || Type == 'Z') {
      auto L = readByte("short string length");
      if (!L)
        return L.takeError();
      N = *L;
    } else {
      auto L = readCount(Type == 's' ? "bytes length" : "string length", 1);
      if (!L)
        return L.takeError();
      N = *L;
    }
    size_t DataAt = Pos;
    auto S = readBytes(N, Type == 's' ? "bytes payload" : "string payload");
    if (!S)
      return S.takeError();
    // Most str payloads are ASCII, which a word-wide check clears.
    if (Type != 's' && LLVM_UNLIKELY(hasHighByte(*S)))
      if (llvm::Error E = checkStrText(Type, *S, DataAt))
        return std::move(E);
    return *S;
  }
  /// Whether a byte of \p S (a slice of Bytes) is >= 0x80. A payload
  /// shorter than a word is read as a word of the input when the input goes
  /// on that far.
  bool hasHighByte(llvm::StringRef S) const {
    constexpr uint64_t High = 0x8080808080808080u;
    const char *P = S.data();
    size_t N = S.size();
    if (N < 8) {
      if (N == 0)
        return false;
      if (size_t(Bytes.end() - P) < 8) {
        for (size_t I = 0; I < N; ++I)
          if (uint8_t(P[I]) >= 0x80)
            return true;
        return false;
      }
      // The payload's bytes are the word's low N bytes (read little-endian).
      uint64_t W = llvm::support::endian::read64le(P);
      return W & High & ((uint64_t(1) << (8 * N)) - 1);
    }
    uint64_t Acc = 0;
    size_t I = 0;
    for (; I + 8 <= N; I += 8)
      Acc |= llvm::support::endian::read64le(P + I);
    if (I != N) // the last word, overlapping the one before
      Acc |= llvm::support::endian::read64le(P + N - 8);
    return Acc & High;
  }
  /// The byte-by-byte check of str payload \p S (type \p Type, at
  /// \p DataAt) that has a byte >= 0x80: the offset of the first bad one.
  LLVM_ATTRIBUTE_NOINLINE llvm::Error
  checkStrText(uint8_t Type, llvm::StringRef S, size_t DataAt);
  llvm::Expected<size_t> readContainerSize(uint8_t Type);
  /// Pushes a Sequence or TupleField frame for \p N items.
  void pushItems(Frame::FrameKind Kind, uint8_t Type, size_t N,
                 std::optional<size_t> Slot, size_t At);

  /// The type byte at Pos when the object there can be read straight into a
  /// code object field: it has no FLAG_REF (so it needs no back-reference
  /// slot, hence no shared Value) and the nesting limit leaves room for it.
  /// 0 otherwise. The fast paths that use it read exactly what
  /// readObject() would, with the same checks and messages; they only skip
  /// building a shared Value that the field would copy out of again.
  uint8_t peekUnsharedType() const {
    if (Pos == Bytes.size() || Stack.size() >= MaxMarshalDepth)
      return 0;
    uint8_t B = Bytes[Pos];
    return B & FlagRef ? 0 : B;
  }
  // Code objects (MarshalCode.cpp).
  /// The int fields after a code object's type byte (at \p At); pushes its
  /// Code frame.
  llvm::Error beginCode(size_t At, std::optional<size_t> Slot);
  /// advance() for a Code frame: reads fields until one needs an object
  /// read through readObject's loop (What is its name) or a tuple
  /// frame, or all are read.
  llvm::Expected<bool> advanceCode(std::optional<Value> &Done,
                                   llvm::StringRef &What);
  /// advance() for a NameTuple frame.
  llvm::Expected<bool> advanceNames(std::optional<Value> &Done,
                                    llvm::StringRef &What);
  /// Reads \p F's next field, a bytes or str one, in place when the object
  /// at Pos is a string (shared or not) or a back-reference: with the
  /// checks, messages and charges readObject's loop and storeField would
  /// apply, but no Value built. Returns false, having read nothing, for
  /// anything else (readObject's loop then reads it).
  LLVM_ATTRIBUTE_ALWAYS_INLINE llvm::Expected<bool> readTextField(Frame &F);
  /// Reads \p F's next field, a tuple one, when the object at Pos is a
  /// back-reference: with readObject's checks and messages and storeField's
  /// effect, but no Value copied. Returns false, having read nothing, for
  /// anything else.
  LLVM_ATTRIBUTE_ALWAYS_INLINE llvm::Expected<bool> readTupleRef(Frame &F);
  /// The error for \p F's next field holding an object of another type.
  llvm::Error wrongFieldType(const Frame &F);
  /// Stores a field read as a Value through readObject's loop: a shared
  /// tuple, or an object of the wrong type (an error).
  llvm::Error storeField(Frame &F, Value V);
  /// Stores a tuple field's items (co_consts, or a str tuple's checked).
  llvm::Error storeTuple(Frame &F, const std::vector<Value> &Items);
  /// Stores co_consts.
  void storeConsts(Frame &F, std::vector<Value> Items);
  /// Stores a str tuple field whose str items' text is \p Texts: every
  /// item, or with \p NonStr those before the first that is not a str.
  llvm::Error storeNames(Frame &F, llvm::ArrayRef<llvm::StringRef> Texts,
                         bool NonStr);
  /// Bytes of shared values given to code-object fields. A back-
  /// reference costs 5 bytes but can name a large str, so they are
  /// charged against a budget linear in the input. Most are views of the
  /// input now (keep()), but one of a Value's text is a copy, and the
  /// limit's error is what the reader has always said of such input: all
  /// are charged, as when every one was a copy.
  uint64_t Copied = 0;
  uint64_t copyBudget() const {
    return 16 * uint64_t(Bytes.size()) + (1u << 20);
  }
  llvm::Error charge(size_t N, size_t At) {
    Copied += N;
    if (Copied > copyBudget())
      return err(At, llvm::formatv("back-references expand the code-object "
                                   "fields past {0} bytes ({1} times the "
                                   "input); refusing to copy more",
                                   copyBudget(), 16));
    return llvm::Error::success();
  }

  /// Reserves a back-reference slot when the type byte had FLAG_REF.
  std::optional<size_t> reserve(bool Flag) {
    if (!Flag)
      return std::nullopt;
    Refs.emplace_back();
    return Refs.size() - 1;
  }
  /// Puts a leaf's value \p X into \p Out and \p Slot (if set).
  template <typename T>
  LLVM_ATTRIBUTE_ALWAYS_INLINE llvm::Error
  emit(ValueSink Out, std::optional<size_t> Slot, T &&X) {
    Value &V = Out.put(std::forward<T>(X));
    if (Slot)
      Refs[*Slot].V = V;
    return llvm::Error::success();
  }
  LLVM_ATTRIBUTE_ALWAYS_INLINE Value fill(std::optional<size_t> Slot, Value V) {
    if (Slot)
      Refs[*Slot].V = V;
    return V;
  }
  /// Fills \p Slot with a view of a bytes or str payload (type \p Type).
  void fillView(std::optional<size_t> Slot, uint8_t Type, llvm::StringRef S) {
    if (!Slot)
      return;
    Refs[*Slot].View = S;
    Refs[*Slot].ViewType = Type == 's' ? 's' : 'u';
  }
};

} // namespace pyverify::marshal

#endif
