//===- LocationTable.cpp - PEP 657 location table -------------------------===//
//
// Objects/locations.md and Objects/codeobject.c (advance, next_code_delta,
// read_varint, read_signed_varint) of CPython 3.11.
//
//===----------------------------------------------------------------------===//

#include "pyverify/Bytecode/LocationTable.h"
#include "pyverify/Support/InputError.h"

#include "llvm/Support/Compiler.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>
#include <cassert>

using namespace pyverify;

namespace {

class Reader {
public:
  explicit Reader(llvm::StringRef T) : T(T) {}
  size_t Pos = 0;

  bool atEnd() const { return Pos == T.size(); }

  llvm::Expected<uint8_t> byte(llvm::StringRef What) {
    if (Pos == T.size())
      return makeInputError(Pos, "truncated location table: expected " + What);
    uint8_t B = T[Pos];
    if (B & 0x80)
      return makeInputError(
          Pos, llvm::formatv("location-table entry ends early: byte {0:x-2} "
                             "starts a new entry where {1} was expected",
                             unsigned(B), What));
    ++Pos;
    return B;
  }

  /// 6-bit chunks, least significant first, 0x40 = continue.
  llvm::Expected<uint64_t> varint(llvm::StringRef What) {
    size_t At = Pos;
    uint64_t V = 0;
    unsigned Shift = 0;
    while (true) {
      auto B = byte(What);
      if (!B)
        return B.takeError();
      if (Shift > 30)
        return makeInputError(At, "location-table varint for " + What +
                                      " is too long");
      V |= uint64_t(*B & 0x3f) << Shift;
      Shift += 6;
      if (!(*B & 0x40))
        return V;
    }
  }

  llvm::Expected<int64_t> svarint(llvm::StringRef What) {
    auto U = varint(What);
    if (!U)
      return U.takeError();
    return (*U & 1) ? -int64_t(*U >> 1) : int64_t(*U >> 1);
  }

private:
  llvm::StringRef T;
};

} // namespace

/// Decodes every entry, calling \p Emit(P, Length) for each (Length units
/// at position P); errors as decodeLocationTable() documents.
static llvm::Error
walkLocationTable(llvm::StringRef Table, int32_t FirstLineNo,
                  uint32_t NumCodeUnits,
                  llvm::function_ref<void(const Position &, unsigned)> Emit) {
  uint64_t Units = 0;
  Reader R(Table);
  int64_t Line = FirstLineNo;
  // co_positions() yields None for a stored -1 (_source_offset_converter).
  auto Int32 = [](int64_t V) -> std::optional<int32_t> {
    if (V == -1)
      return std::nullopt;
    return int32_t(V);
  };
  while (!R.atEnd()) {
    size_t EntryAt = R.Pos;
    uint8_t First = Table[R.Pos++];
    if (!(First & 0x80))
      return makeInputError(EntryAt,
                            llvm::formatv("location-table entry must start "
                                          "with a byte that has bit 7 set, "
                                          "found {0:x-2}",
                                          unsigned(First)));
    unsigned Code = (First >> 3) & 15;
    unsigned Length = (First & 7) + 1;
    Position P;
    switch (Code) {
    case 15: // no location
      break;
    case 14: { // long form
      auto D = R.svarint("line delta");
      if (!D)
        return D.takeError();
      Line += *D;
      auto EndDelta = R.varint("end line delta");
      if (!EndDelta)
        return EndDelta.takeError();
      auto Col = R.varint("column");
      if (!Col)
        return Col.takeError();
      auto EndCol = R.varint("end column");
      if (!EndCol)
        return EndCol.takeError();
      P.Line = Int32(Line);
      P.EndLine = Int32(Line + int64_t(*EndDelta));
      P.Col = Int32(int64_t(*Col) - 1);
      P.EndCol = Int32(int64_t(*EndCol) - 1);
      break;
    }
    case 13: { // no columns
      auto D = R.svarint("line delta");
      if (!D)
        return D.takeError();
      Line += *D;
      P.Line = P.EndLine = Int32(Line);
      break;
    }
    case 10:
    case 11:
    case 12: { // one-line form
      Line += Code - 10;
      auto C = R.byte("start column");
      if (!C)
        return C.takeError();
      auto E = R.byte("end column");
      if (!E)
        return E.takeError();
      P.Line = P.EndLine = Int32(Line);
      P.Col = *C;
      P.EndCol = *E;
      break;
    }
    default: { // short form, codes 0-9
      auto S = R.byte("short-form column byte");
      if (!S)
        return S.takeError();
      P.Line = P.EndLine = Int32(Line);
      int32_t Col = int32_t(Code * 8 + ((*S >> 4) & 7));
      P.Col = Col;
      P.EndCol = Col + (*S & 15);
      break;
    }
    }
    if (Units + Length > NumCodeUnits)
      return makeInputError(EntryAt,
                            llvm::formatv("location table covers more than "
                                          "the {0} code units",
                                          NumCodeUnits));
    Units += Length;
    Emit(P, Length);
  }
  if (Units != NumCodeUnits)
    return makeInputError(Table.size(),
                          llvm::formatv("location table covers {0} code units, "
                                        "the code has {1}",
                                        Units, NumCodeUnits));
  return llvm::Error::success();
}

llvm::Expected<std::vector<Position>>
pyverify::decodeLocationTable(llvm::StringRef Table, int32_t FirstLineNo,
                              uint32_t NumCodeUnits) {
  std::vector<Position> Out;
  // Each entry takes at least one byte and covers at most 8 units, so a table
  // can never reach more units than this: memory stays bounded by the table,
  // not by a caller-supplied count (found by fuzz_location_table).
  Out.reserve(std::min<uint64_t>(NumCodeUnits, 8 * uint64_t(Table.size())));
  // The later copies copy the element just written, not P: GCC assembles P
  // from narrow stores and reloads it 16 bytes at a time, a store-forwarding
  // stall per copy that was two thirds of this function's cycles
  // (benchmarks/, perf annotate).
  auto Append = [&](const Position &P, unsigned Length) {
    Out.push_back(P);
    for (unsigned K = 1; K < Length; ++K)
      Out.push_back(Out.back());
  };
  if (llvm::Error E =
          walkLocationTable(Table, FirstLineNo, NumCodeUnits, Append))
    return E;
  return Out;
}

namespace {

/// Per first byte of an entry, its kind: how long the entry is when its
/// length is fixed (1 + its payload bytes: none for "no location", one for
/// the short forms, two for the one-line forms), Varint13 or Varint14 for
/// the varint forms (codes 13 and 14), Bad when the byte cannot start an
/// entry (bit 7 clear). One lookup tells all three apart.
struct EntryLengths {
  enum : uint8_t { Bad = 0, Varint13 = 4, Varint14 = 5 };
  std::array<uint8_t, 256> Length{}; // Bad below 0x80
  constexpr EntryLengths() {
    for (unsigned B = 0x80; B < 256; ++B) {
      unsigned Code = (B >> 3) & 15;
      Length[B] = Code == 15   ? 1
                  : Code < 10  ? 2
                  : Code < 13  ? 3
                  : Code == 13 ? Varint13
                               : Varint14;
    }
  }
};
constexpr EntryLengths TheEntryLengths;

/// Bytes of \p Table with bit 7 set, eight at a time.
size_t countHighBits(const uint8_t *P, size_t Size) {
  size_t Count = 0, K = 0;
  for (; K + 8 <= Size; K += 8) {
    uint64_t High =
        (llvm::support::endian::read64le(P + K) >> 7) & 0x0101010101010101ULL;
    Count += size_t((High * 0x0101010101010101ULL) >> 56);
  }
  for (; K < Size; ++K)
    Count += P[K] >> 7;
  return Count;
}

} // namespace

/// Whether \p Table is well formed and covers exactly \p NumCodeUnits: the
/// structure walkLocationTable() checks, without computing positions or
/// building errors. It accepts exactly the tables the walk accepts (every
/// byte after an entry's first lacks bit 7, a varint has at most six chunks,
/// the units add up), so the walk is needed only to describe a table this
/// rejects. The entries are stepped over by their length (a table for the
/// fixed forms, the continue bits for varints); that no payload byte has
/// bit 7 is checked at once, by counting: the bytes with bit 7 must be the
/// entries' first bytes and no others.
static bool isWellFormedLocationTable(llvm::StringRef Table,
                                      uint32_t NumCodeUnits) {
  const uint8_t *P = Table.bytes_begin(), *End = Table.bytes_end();
  uint64_t Units = 0;
  size_t Entries = 0;
  // One varint: present and at most six chunks (bit 7: by the count).
  auto Varint = [&]() {
    for (unsigned Chunk = 0; Chunk < 6; ++Chunk) {
      if (P == End)
        return false;
      if (!(*P++ & 0x40))
        return true;
    }
    return false; // a seventh chunk: too long
  };
  while (P < End) {
    uint8_t First = *P;
    unsigned Kind = TheEntryLengths.Length[First];
    ++Entries;
    Units += (First & 7) + 1;
    if (LLVM_LIKELY(Kind - 1 < 3)) { // a fixed length (1 to 3)
      P += Kind;                     // past End: truncated, below
      continue;
    }
    if (Kind == EntryLengths::Bad)
      return false;
    ++P;
    if (Kind == EntryLengths::Varint14) {
      if (!Varint() || !Varint() || !Varint() || !Varint())
        return false;
    } else if (!Varint()) { // 13
      return false;
    }
  }
  return P == End && Units == NumCodeUnits &&
         countHighBits(Table.bytes_begin(), Table.size()) == Entries;
}

llvm::Error pyverify::validateLocationTable(llvm::StringRef Table,
                                            int32_t FirstLineNo,
                                            uint32_t NumCodeUnits) {
  if (isWellFormedLocationTable(Table, NumCodeUnits))
    return llvm::Error::success();
  llvm::Error E = walkLocationTable(Table, FirstLineNo, NumCodeUnits,
                                    [](const Position &, unsigned) {});
  assert(E && "the scan rejected a table the walk accepts");
  return E;
}
