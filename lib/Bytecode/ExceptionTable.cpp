//===- ExceptionTable.cpp - The 3.11 exception table ----------------------===//

#include "pyverify/Bytecode/ExceptionTable.h"
#include "pyverify/Bytecode/ExceptionTableText.h"
#include "pyverify/Bytecode/RaiseModel.h"
#include "pyverify/Support/InputError.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cassert>

using namespace pyverify;
using llvm::Expected;

namespace {

constexpr uint8_t StartBit = 0x80;
constexpr uint8_t ContinueBit = 0x40;
constexpr unsigned MaxChunks = 5;

const char *const FieldNames[] = {"start", "length", "target", "depth/lasti"};

} // namespace

Expected<std::vector<ExceptionTableEntry>>
pyverify::decodeExceptionTable(llvm::StringRef Bytes,
                               std::vector<uint32_t> *NonCanonical) {
  std::vector<ExceptionTableEntry> Out;
  // An entry takes at least four bytes (one per varint): one allocation,
  // bounded by the input.
  Out.reserve(Bytes.size() / 4);
  size_t Pos = 0;
  while (Pos < Bytes.size()) {
    size_t EntryAt = Pos;
    uint32_t Fields[4];
    for (unsigned F = 0; F < 4; ++F) {
      size_t FieldAt = Pos;
      uint32_t V = 0;
      unsigned Chunks = 0;
      while (true) {
        if (Pos == Bytes.size())
          return makeInputError(
              Pos, llvm::formatv("truncated exception-table entry (started at "
                                 "byte {0}): expected a byte of its {1} "
                                 "varint",
                                 EntryAt, FieldNames[F]));
        uint8_t B = Bytes[Pos];
        bool First = F == 0 && Chunks == 0;
        if (First && !(B & StartBit))
          return makeInputError(
              Pos, llvm::formatv("exception-table entry must start with a byte "
                                 "that has the 0x80 start bit, found {0:x-2}",
                                 unsigned(B)));
        if (!First && (B & StartBit))
          return makeInputError(
              Pos, llvm::formatv("unexpected start bit (byte {0:x-2}) inside "
                                 "the {1} varint of the entry at byte {2}; "
                                 "the entry is truncated",
                                 unsigned(B), FieldNames[F], EntryAt));
        if (++Chunks > MaxChunks)
          return makeInputError(
              FieldAt, llvm::formatv("{0} varint has more than {1} 6-bit "
                                     "chunks (value would overflow)",
                                     FieldNames[F], MaxChunks));
        if (NonCanonical && Chunks == 1 && (B & 0x3f) == 0 && (B & ContinueBit))
          NonCanonical->push_back(uint32_t(FieldAt));
        V = (V << 6) | (B & 0x3f);
        ++Pos;
        if (!(B & ContinueBit))
          break;
      }
      Fields[F] = V;
    }
    ExceptionTableEntry E;
    E.Start = Fields[0] * 2;
    E.End = (Fields[0] + Fields[1]) * 2;
    E.Target = Fields[2] * 2;
    E.Depth = Fields[3] >> 1;
    E.Lasti = Fields[3] & 1;
    E.TableOffset = uint32_t(EntryAt);
    Out.push_back(E);
  }
  return Out;
}

static void emitVarint(std::string &Out, uint32_t V, bool First) {
  assert(V <= MaxExceptionTableVarint && "value does not fit in a varint");
  unsigned Chunks = 1;
  while (Chunks < MaxChunks && (V >> (6 * Chunks)))
    ++Chunks;
  for (unsigned I = Chunks; I-- > 0;) {
    uint8_t B = (V >> (6 * I)) & 0x3f;
    if (I)
      B |= ContinueBit;
    if (First && I == Chunks - 1)
      B |= StartBit;
    Out.push_back(char(B));
  }
}

std::string
pyverify::encodeExceptionTable(llvm::ArrayRef<ExceptionTableEntry> Entries) {
  std::string Out;
  for (const ExceptionTableEntry &E : Entries) {
    assert(E.Start % 2 == 0 && E.End % 2 == 0 && E.Target % 2 == 0 &&
           E.End >= E.Start);
    emitVarint(Out, E.Start / 2, /*First=*/true);
    emitVarint(Out, (E.End - E.Start) / 2, false);
    emitVarint(Out, E.Target / 2, false);
    emitVarint(Out, (E.Depth << 1) | unsigned(E.Lasti), false);
  }
  return Out;
}

static std::string describe(const ExceptionTableEntry &E) {
  // dis notation, "(empty)" for length 0 (ExceptionTableText.h).
  return llvm::formatv("'{0}' (table byte {1})", entryText(E), E.TableOffset)
      .str();
}

void pyverify::checkExceptionTableDepths(
    llvm::ArrayRef<ExceptionTableEntry> Entries, const InstructionStream &Insts,
    int64_t StackSize, llvm::function_ref<bool(size_t)> IsLive,
    std::vector<Finding> &Findings) {
  for (size_t K = 0; K < Entries.size(); ++K) {
    const ExceptionTableEntry &E = Entries[K];
    if (int64_t(E.handlerDepth()) <= StackSize || !IsLive(K))
      continue;
    int64_t At = Insts.indexContaining(E.Start);
    if (At < 0)
      At = int64_t(Insts.size()) - 1;
    int64_t T = Insts.indexContaining(E.Target);
    Finding &F =
        Findings
            .emplace_back(
                CheckId::ExceptionTableDepthExceedsStacksize,
                At < 0 ? 0 : Insts[At].Offset,
                llvm::formatv("exception-table entry {0} enters its handler "
                              "at depth {1} (depth {2} + lasti {3} + "
                              "exception 1), above co_stacksize {4}",
                              describe(E), E.handlerDepth(), E.Depth,
                              unsigned(E.Lasti), StackSize))
            .note(T < 0 ? 0 : Insts[T].Offset,
                  "the handler; co_stacksize must count the depth handlers "
                  "are entered at (compute it with exception edges)");
    // One co_stacksize too small for several entries: one root cause.
    F.Cause = "co_stacksize";
    F.AlsoNote = llvm::formatv("also: entry {0} enters its handler at depth "
                               "{1}",
                               describe(E), E.handlerDepth());
  }
}

namespace {

/// The rules validateExceptionTable() checks, one family per member: each
/// entry's length, order, bounds and handler target, then overlaps across
/// the table. The checks are cheap and inline; the findings are built out of
/// line (LLVM_ATTRIBUTE_NOINLINE), so that well-formed tables (nearly all of
/// them) pay for no call and no formatting.
class TableValidator {
public:
  TableValidator(llvm::ArrayRef<ExceptionTableEntry> Entries,
                 const InstructionStream &Insts, std::vector<Finding> &Findings)
      : Entries(Entries), Insts(Insts), CodeSize(Insts.codeSize()),
        Findings(Findings) {}

  void checkZeroLength(const ExceptionTableEntry &E) {
    if (E.End == E.Start)
      reportZeroLength(E);
  }
  void checkSorted(size_t K) {
    if (K && Entries[K].Start < Entries[K - 1].Start)
      reportUnsorted(K);
  }
  void checkBounds(const ExceptionTableEntry &E) {
    if (E.Start > CodeSize || E.End > CodeSize) {
      reportPastEnd(E);
      return;
    }
    if (!isBoundary(E.Start))
      reportStartInside(E);
    if (!isBoundary(E.End))
      reportEndInside(E);
  }
  void checkTarget(const ExceptionTableEntry &E) {
    if (Insts.indexAtStart(E.Target) < 0)
      reportTargetNotStart(E);
    else if (E.covers(E.Target))
      reportTargetInOwnRange(E);
  }
  void checkOverlaps();

private:
  llvm::ArrayRef<ExceptionTableEntry> Entries;
  const InstructionStream &Insts;
  uint32_t CodeSize;
  std::vector<Finding> &Findings;

  /// Where to anchor a finding in co_code: the entry's start when it is
  /// inside the code, else the last instruction.
  uint32_t anchor(uint64_t At) const {
    int64_t I = Insts.indexContaining(At);
    if (I < 0)
      I = int64_t(Insts.size()) - 1;
    return I < 0 ? 0 : Insts[I].Offset;
  }
  bool isBoundary(uint64_t At) const {
    return At == CodeSize || Insts.indexAtStart(At) >= 0;
  }
  LLVM_ATTRIBUTE_NOINLINE void reportZeroLength(const ExceptionTableEntry &E);
  LLVM_ATTRIBUTE_NOINLINE void reportUnsorted(size_t K);
  LLVM_ATTRIBUTE_NOINLINE void reportPastEnd(const ExceptionTableEntry &E);
  LLVM_ATTRIBUTE_NOINLINE void reportStartInside(const ExceptionTableEntry &E);
  LLVM_ATTRIBUTE_NOINLINE void reportEndInside(const ExceptionTableEntry &E);
  LLVM_ATTRIBUTE_NOINLINE void
  reportTargetNotStart(const ExceptionTableEntry &E);
  LLVM_ATTRIBUTE_NOINLINE void
  reportTargetInOwnRange(const ExceptionTableEntry &E);
};

} // namespace

void TableValidator::reportZeroLength(const ExceptionTableEntry &E) {
  Findings.emplace_back(CheckId::ExceptionTableZeroLength, anchor(E.Start),
                        "exception-table entry " + describe(E) +
                            " has length 0 and covers no instruction");
}

void TableValidator::reportUnsorted(size_t K) {
  const ExceptionTableEntry &E = Entries[K];
  Findings
      .emplace_back(CheckId::ExceptionTableUnsorted, anchor(E.Start),
                    "exception-table entry " + describe(E) +
                        " starts before the previous entry " +
                        describe(Entries[K - 1]) +
                        "; CPython's lookup stops at the first entry that "
                        "starts past the instruction and misses handlers")
      .note(anchor(Entries[K - 1].Start), "previous entry starts here");
}

void TableValidator::reportPastEnd(const ExceptionTableEntry &E) {
  Findings.emplace_back(
      CheckId::ExceptionTableBounds, anchor(E.Start),
      llvm::formatv("exception-table entry {0} extends past the end of the "
                    "code ({1} bytes)",
                    describe(E), CodeSize));
}

void TableValidator::reportStartInside(const ExceptionTableEntry &E) {
  int64_t I = Insts.indexContaining(E.Start);
  Findings.emplace_back(
      CheckId::ExceptionTableBounds, anchor(E.Start),
      llvm::formatv("exception-table entry {0} starts at byte {1}, inside "
                    "the {2} at {3} (which starts at {4})",
                    describe(E), E.Start, Insts[I].name(), Insts[I].Offset,
                    Insts[I].Start));
}

void TableValidator::reportEndInside(const ExceptionTableEntry &E) {
  int64_t I = Insts.indexContaining(E.End);
  Findings.emplace_back(
      CheckId::ExceptionTableBounds, anchor(E.End),
      llvm::formatv("exception-table entry {0} ends at byte {1}, inside "
                    "the {2} at {3} (which spans {4}..{5})",
                    describe(E), E.End, Insts[I].name(), Insts[I].Offset,
                    Insts[I].Start, Insts[I].End));
}

void TableValidator::reportTargetNotStart(const ExceptionTableEntry &E) {
  std::string Why;
  int64_t I = Insts.indexContaining(E.Target);
  if (I < 0)
    Why = llvm::formatv("outside the code ({0} bytes)", CodeSize).str();
  else if (E.Target >= Insts[I].Offset + 2)
    Why = llvm::formatv("inside the inline caches of the {0} at {1}",
                        Insts[I].name(), Insts[I].Offset)
              .str();
  else
    Why = llvm::formatv("mid-instruction: the {0} at {1} starts at {2}",
                        Insts[I].name(), Insts[I].Offset, Insts[I].Start)
              .str();
  Findings.emplace_back(
      CheckId::ExceptionTableTargetNotInstruction, anchor(E.Start),
      "exception-table entry " + describe(E) + " has handler target " +
          std::to_string(E.Target) + " " + Why);
}

void TableValidator::reportTargetInOwnRange(const ExceptionTableEntry &E) {
  Findings
      .emplace_back(CheckId::ExceptionTableTargetNotInstruction,
                    anchor(E.Start),
                    "exception-table entry " + describe(E) +
                        " has its handler inside its own range: an "
                        "exception in the handler would re-enter it")
      .note(E.Target, "handler");
}

/// Compares each entry with the furthest-reaching earlier one in start
/// order, so unsorted tables are still checked.
void TableValidator::checkOverlaps() {
  std::vector<size_t> Order(Entries.size());
  for (size_t I = 0; I < Order.size(); ++I)
    Order[I] = I;
  std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    return Entries[A].Start < Entries[B].Start;
  });
  size_t Reach = SIZE_MAX;
  for (size_t I : Order) {
    const ExceptionTableEntry &E = Entries[I];
    if (E.End == E.Start)
      continue;
    if (Reach != SIZE_MAX && E.Start < Entries[Reach].End)
      Findings
          .emplace_back(CheckId::ExceptionTableOverlap, anchor(E.Start),
                        "exception-table entry " + describe(E) +
                            " overlaps entry " + describe(Entries[Reach]) +
                            "; which handler runs depends on CPython's search "
                            "order")
          .note(anchor(Entries[Reach].Start), "the other entry starts here");
    if (Reach == SIZE_MAX || E.End > Entries[Reach].End)
      Reach = I;
  }
}

void pyverify::checkCalleeLookups(llvm::ArrayRef<ExceptionTableEntry> Entries,
                                  const InstructionStream &Insts,
                                  llvm::function_ref<bool(size_t)> IsReachable,
                                  std::vector<Finding> &Findings) {
  // No table (most code objects) or a version that looks every raise up at
  // the instruction: both lookups agree everywhere.
  if (Entries.empty() || Insts.size() == 0 ||
      !traits(Insts[0].Ver).CalleeRaiseLookupBefore)
    return;
  auto Same = [](const ExceptionTableEntry *A, const ExceptionTableEntry *B) {
    return A && B ? A->sameHandler(*B) : A == B;
  };
  for (size_t K = 0; K < Insts.size(); ++K) {
    const Instruction &I = Insts[K];
    if (!I.Valid || I.Offset < 2 || !mayRunCalleeFrame(I) || !IsReachable(K))
      continue;
    const ExceptionTableEntry *At = lookupHandler(Entries, I.Offset);
    const ExceptionTableEntry *Before = lookupHandler(Entries, I.Offset - 2);
    if (Same(At, Before))
      continue;
    auto Name = [&](const ExceptionTableEntry *E) {
      return E ? "entry " + describe(*E) : std::string("no entry");
    };
    Findings.emplace_back(
        CheckId::ExceptionTableCalleeSplit, I.Offset,
        llvm::formatv("{0} {1} is covered by {2}, the code unit before it by "
                      "{3}: an exception its Python callee raises is looked "
                      "up at the unit before (3.13+), any other at {1}, so "
                      "which handler runs depends on what it calls",
                      I.name(), I.Offset, Name(At), Name(Before)));
  }
}

void pyverify::validateExceptionTable(
    llvm::ArrayRef<ExceptionTableEntry> Entries, const InstructionStream &Insts,
    int64_t StackSize, std::vector<Finding> &Findings, bool CheckDepths) {
  if (CheckDepths)
    checkExceptionTableDepths(
        Entries, Insts, StackSize, [](size_t) { return true; }, Findings);
  if (Entries.empty()) // Most code objects: no rule has anything to check.
    return;
  TableValidator V(Entries, Insts, Findings);
  for (size_t K = 0; K < Entries.size(); ++K) {
    V.checkZeroLength(Entries[K]);
    V.checkSorted(K);
    V.checkBounds(Entries[K]);
    V.checkTarget(Entries[K]);
  }
  V.checkOverlaps();
}

const ExceptionTableEntry *
pyverify::lookupHandler(llvm::ArrayRef<ExceptionTableEntry> Entries,
                        uint64_t Key) {
  // Sorted and non-overlapping: the entries starting at or before the key
  // are a prefix, and of those only the last can still hold it (each ends
  // before the next starts). CPython searches the same way (binary, then
  // linear over the last few entries).
  // Each entry ends at or before the next starts. (Not llvm::is_sorted
  // with that test as its comparator: is_sorted takes a strict order and
  // reads two equal zero-length entries, which the test holds both ways
  // round, as out of order.)
  assert(std::adjacent_find(Entries.begin(), Entries.end(),
                            [](const ExceptionTableEntry &Prev,
                               const ExceptionTableEntry &Next) {
                              return Prev.Start > Next.Start ||
                                     Prev.End > Next.Start;
                            }) == Entries.end() &&
         "lookupHandler needs a validated table");
  const ExceptionTableEntry *It = llvm::partition_point(
      Entries, [&](const ExceptionTableEntry &E) { return E.Start <= Key; });
  if (It == Entries.begin() || std::prev(It)->End <= Key)
    return nullptr;
  return std::prev(It);
}

Expected<std::vector<ExceptionTableEntry>>
pyverify::flattenExceptionRanges(llvm::ArrayRef<ProtectedRange> Ranges) {
  std::vector<size_t> Order;
  std::vector<uint32_t> Points;
  for (size_t I = 0; I < Ranges.size(); ++I) {
    if (Ranges[I].End < Ranges[I].Start)
      return makeInputError(Ranges[I].Start,
                            llvm::formatv("range {0} ends at {1}, before it "
                                          "starts",
                                          I, Ranges[I].End));
    if (Ranges[I].End == Ranges[I].Start)
      continue;
    Order.push_back(I);
    Points.push_back(Ranges[I].Start);
    Points.push_back(Ranges[I].End);
  }
  // Outer ranges first: by start, then longer first; equal extents keep input
  // order, the later one being the inner.
  std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    if (Ranges[A].Start != Ranges[B].Start)
      return Ranges[A].Start < Ranges[B].Start;
    return Ranges[A].End > Ranges[B].End;
  });
  llvm::sort(Points);
  Points.erase(std::unique(Points.begin(), Points.end()), Points.end());

  std::vector<ExceptionTableEntry> Out;
  std::vector<size_t> Active;
  size_t Next = 0;
  for (size_t P = 0; P + 1 < Points.size(); ++P) {
    uint32_t At = Points[P];
    while (!Active.empty() && Ranges[Active.back()].End <= At)
      Active.pop_back();
    for (; Next < Order.size() && Ranges[Order[Next]].Start == At; ++Next) {
      const ProtectedRange &R = Ranges[Order[Next]];
      if (!Active.empty() && R.End > Ranges[Active.back()].End) {
        const ProtectedRange &O = Ranges[Active.back()];
        return makeInputError(
            R.Start,
            llvm::formatv("range {0}..{1} -> {2} partially overlaps range "
                          "{3}..{4} -> {5}; ranges must nest",
                          R.Start, R.End, R.Target, O.Start, O.End, O.Target));
      }
      Active.push_back(Order[Next]);
    }
    if (Active.empty())
      continue;
    const ProtectedRange &R = Ranges[Active.back()];
    ExceptionTableEntry E{At, Points[P + 1], R.Target, R.Depth, R.Lasti, 0};
    if (!Out.empty() && Out.back().End == E.Start && Out.back().sameHandler(E))
      Out.back().End = E.End;
    else
      Out.push_back(E);
  }
  return Out;
}
