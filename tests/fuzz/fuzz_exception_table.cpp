//===- fuzz_exception_table.cpp - Fuzz the exception-table codec ----------===//
//
// Input layout (make_seeds.py writes it from real code objects):
//
//   bytes 0-1  co_code length L, little endian (clamped to what is there)
//   bytes 2-3  co_stacksize, little endian
//   next L     co_code
//   the rest   co_exceptiontable
//
// Checks, each an invariant ExceptionTable.h promises:
//  * decodeExceptionTable() never crashes; decoded entries have even, ordered
//    bounds and increasing table offsets.
//  * Round trip: encoding a decoded table gives the same bytes when no
//    non-canonical varint was reported, and decodes back to the same entries
//    (canonically) always.
//  * validateExceptionTable() against the decoded co_code anchors every
//    finding inside the code; a table it accepts has a unique handler per
//    instruction, and lookupHandler() finds it.
//  * flattenExceptionRanges() of a sorted, non-overlapping table succeeds and
//    selects the same handler everywhere; of any table it yields a flat one
//    (sorted, disjoint, non-empty, adjacent equal handlers merged) or an
//    error.
//
//===----------------------------------------------------------------------===//

#include "FuzzCheck.h"
#include "InstructionChecks.h"

#include "pyverify/Bytecode/ExceptionTable.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

using namespace pyverify;

namespace {

bool sameEntry(const ExceptionTableEntry &A, const ExceptionTableEntry &B) {
  return A.Start == B.Start && A.End == B.End && A.sameHandler(B);
}

void checkEntries(llvm::ArrayRef<ExceptionTableEntry> Entries,
                  size_t TableSize) {
  uint64_t PrevTableOffset = 0;
  for (size_t K = 0; K < Entries.size(); ++K) {
    const ExceptionTableEntry &E = Entries[K];
    FUZZ_CHECK(E.Start % 2 == 0 && E.End % 2 == 0 && E.Target % 2 == 0,
               "entry %zu has an odd offset", K);
    FUZZ_CHECK(E.Start <= E.End, "entry %zu: start %u > end %u", K, E.Start,
               E.End);
    FUZZ_CHECK(E.Start / 2 <= MaxExceptionTableVarint &&
                   (E.End - E.Start) / 2 <= MaxExceptionTableVarint &&
                   E.Target / 2 <= MaxExceptionTableVarint &&
                   E.Depth <= (MaxExceptionTableVarint >> 1),
               "entry %zu does not fit in varints", K);
    FUZZ_CHECK(E.TableOffset < TableSize, "entry %zu at table byte %u of %zu",
               K, E.TableOffset, TableSize);
    FUZZ_CHECK(K == 0 ? E.TableOffset == 0 : E.TableOffset > PrevTableOffset,
               "entry %zu at table byte %u after %llu", K, E.TableOffset,
               (unsigned long long)PrevTableOffset);
    PrevTableOffset = E.TableOffset;
  }
}

void checkRoundTrip(llvm::StringRef Table,
                    llvm::ArrayRef<ExceptionTableEntry> Entries,
                    const std::vector<uint32_t> &NonCanonical) {
  std::string Encoded = encodeExceptionTable(Entries);
  if (NonCanonical.empty())
    FUZZ_CHECK(Encoded == Table.str(),
               "canonical table of %zu bytes re-encodes to %zu different bytes",
               Table.size(), Encoded.size());
  else
    FUZZ_CHECK(Encoded.size() < Table.size(),
               "non-canonical table of %zu bytes re-encodes to %zu bytes",
               Table.size(), Encoded.size());
  for (size_t K = 0; K < NonCanonical.size(); ++K)
    FUZZ_CHECK(NonCanonical[K] < Table.size() &&
                   (K == 0 || NonCanonical[K] > NonCanonical[K - 1]),
               "non-canonical varint offset %u", NonCanonical[K]);

  std::vector<uint32_t> NonCanonical2;
  auto Again = decodeExceptionTable(Encoded, &NonCanonical2);
  if (!Again) {
    std::string Msg = llvm::toString(Again.takeError());
    FUZZ_CHECK(false, "re-encoded table does not decode: %s", Msg.c_str());
  }
  FUZZ_CHECK(NonCanonical2.empty(), "encoder wrote a non-canonical varint");
  FUZZ_CHECK(Again->size() == Entries.size(), "round trip: %zu -> %zu entries",
             Entries.size(), Again->size());
  for (size_t K = 0; K < Entries.size(); ++K)
    FUZZ_CHECK(sameEntry(Entries[K], (*Again)[K]),
               "round trip changed entry %zu", K);
}

void checkValidation(llvm::ArrayRef<ExceptionTableEntry> Entries,
                     const InstructionStream &Insts, int64_t StackSize) {
  std::vector<Finding> Findings;
  validateExceptionTable(Entries, Insts, StackSize, Findings);
  uint64_t CodeSize = Insts.codeSize();
  for (const Finding &F : Findings) {
    FUZZ_CHECK(F.Offset == 0 || F.Offset < CodeSize,
               "finding anchored at %u, code has %llu bytes: %s", F.Offset,
               (unsigned long long)CodeSize, F.Message.c_str());
    FUZZ_CHECK(F.Offset == 0 || Insts.indexAtOffset(F.Offset) >= 0,
               "finding anchored mid-instruction at %u: %s", F.Offset,
               F.Message.c_str());
    for (const FindingNote &N : F.Notes)
      FUZZ_CHECK(N.Offset == 0 || N.Offset < CodeSize,
                 "note at %u, code has %llu bytes", N.Offset,
                 (unsigned long long)CodeSize);
  }
  if (!Findings.empty())
    return;

  // An accepted table: sorted, disjoint, on instruction boundaries, handlers
  // on instruction starts outside their own range.
  for (size_t K = 0; K < Entries.size(); ++K) {
    const ExceptionTableEntry &E = Entries[K];
    FUZZ_CHECK(E.Start < E.End && E.End <= CodeSize,
               "accepted entry %zu out of bounds", K);
    FUZZ_CHECK(K == 0 || Entries[K - 1].End <= E.Start,
               "accepted entry %zu overlaps or is unsorted", K);
    FUZZ_CHECK(Insts.indexAtStart(E.Target) >= 0 && !E.covers(E.Target),
               "accepted entry %zu has a bad target %u", K, E.Target);
    FUZZ_CHECK(int64_t(E.handlerDepth()) <= StackSize,
               "accepted entry %zu is too deep", K);
  }
  for (const Instruction &I : Insts.instructions()) {
    const ExceptionTableEntry *Want = nullptr;
    for (const ExceptionTableEntry &E : Entries)
      if (E.covers(I.Offset)) {
        Want = &E;
        break;
      }
    FUZZ_CHECK(lookupHandler(Entries, I.Offset) == Want,
               "lookupHandler(%u) disagrees with a linear search", I.Offset);
  }
}

void checkFlatten(llvm::ArrayRef<ExceptionTableEntry> Entries) {
  std::vector<ProtectedRange> Ranges;
  bool SortedDisjoint = true;
  for (size_t K = 0; K < Entries.size(); ++K) {
    const ExceptionTableEntry &E = Entries[K];
    Ranges.push_back({E.Start, E.End, E.Target, E.Depth, E.Lasti});
    if (E.Start == E.End || (K && Entries[K - 1].End > E.Start))
      SortedDisjoint = false;
  }
  auto Flat = flattenExceptionRanges(Ranges);
  if (!Flat) {
    std::string Msg = llvm::toString(Flat.takeError());
    FUZZ_CHECK(!SortedDisjoint,
               "flattening a sorted, disjoint table failed: %s", Msg.c_str());
    return;
  }
  for (size_t K = 0; K < Flat->size(); ++K) {
    const ExceptionTableEntry &E = (*Flat)[K];
    FUZZ_CHECK(E.Start < E.End, "flat entry %zu is empty", K);
    if (K) {
      const ExceptionTableEntry &P = (*Flat)[K - 1];
      FUZZ_CHECK(P.End <= E.Start, "flat entry %zu overlaps", K);
      FUZZ_CHECK(P.End != E.Start || !P.sameHandler(E),
                 "flat entry %zu should have merged", K);
    }
  }
  if (!SortedDisjoint)
    return;
  // Both tables are constant between consecutive boundaries of the input.
  std::vector<uint32_t> Points;
  for (const ExceptionTableEntry &E : Entries) {
    Points.push_back(E.Start);
    Points.push_back(E.End);
  }
  for (uint32_t P : Points) {
    const ExceptionTableEntry *A = lookupHandler(Entries, P);
    const ExceptionTableEntry *B = lookupHandler(*Flat, P);
    FUZZ_CHECK(bool(A) == bool(B) && (!A || A->sameHandler(*B)),
               "flattened table picks another handler at %u", P);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size < 4)
    return 0;
  size_t CodeLen = std::min<size_t>(Data[0] | (Data[1] << 8), Size - 4);
  int64_t StackSize = Data[2] | (Data[3] << 8);
  llvm::StringRef Code(reinterpret_cast<const char *>(Data + 4), CodeLen);
  llvm::StringRef Table(reinterpret_cast<const char *>(Data + 4 + CodeLen),
                        Size - 4 - CodeLen);

  std::vector<uint32_t> NonCanonical;
  auto Entries = decodeExceptionTable(Table, &NonCanonical);
  if (!Entries) {
    std::string Msg = llvm::toString(Entries.takeError());
    FUZZ_CHECK(llvm::StringRef(Msg).startswith("at byte "),
               "error without a byte offset: %s", Msg.c_str());
    return 0;
  }
  checkEntries(*Entries, Table.size());
  checkRoundTrip(Table, *Entries, NonCanonical);

  std::vector<Finding> DecodeFindings;
  InstructionStream Insts = InstructionStream::decode(Code, DecodeFindings);
  fuzz::checkInstructionStream(Insts, Code.size(), DecodeFindings);
  checkValidation(*Entries, Insts, StackSize);
  checkFlatten(*Entries);
  return 0;
}
