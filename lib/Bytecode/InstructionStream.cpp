//===- InstructionStream.cpp - Decoded instructions -----------------------===//

#include "pyverify/Bytecode/InstructionStream.h"
#include "pyverify/Bytecode/OperandRules.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <iterator>
#include <tuple>
#include <utility>

using namespace pyverify;

llvm::StringRef Instruction::name() const {
  if (Valid)
    return info().Name;
  if (const VersionOpcodeInfo *I = getVersionOpcodeInfo(Ver, OpByte))
    return I->Name; // e.g. a truncated trailing EXTENDED_ARG
  if (llvm::StringRef S = getSpecializedOpcodeName(Ver, OpByte); !S.empty())
    return S;
  return OpByte == 0 ? "CACHE" : "<invalid>";
}

static std::string describeBadOpcode(uint8_t B, PythonVersion V) {
  if (llvm::StringRef S = getSpecializedOpcodeName(V, B); !S.empty())
    return llvm::formatv("specialised opcode {0} ({1}) is not valid in "
                         "co_code; it only exists in the adaptive copy",
                         S, unsigned(B))
        .str();
  if (B == 0)
    return "CACHE (0) at an instruction position; CACHE is only valid in "
           "inline cache slots";
  return llvm::formatv("unknown opcode {0} for CPython {1}", unsigned(B),
                       pythonVersionName(V))
      .str();
}

namespace {

/// Findings are rare: kept out of line, and taking no Decoder, so that the
/// Decoder's fields can stay in registers through the decoding loop.
LLVM_ATTRIBUTE_NOINLINE void reportFinding(std::vector<Finding> &Findings,
                                           bool &HasErrors, CheckId Id,
                                           uint32_t At, std::string Msg) {
  Finding F(Id, At, std::move(Msg));
  if (F.Sev == Severity::Error)
    HasErrors = true;
  Findings.push_back(std::move(F));
}

/// Code units among the first \p NumUnits of \p Bytes that are not 00 00,
/// four at a time. Every instruction's opcode unit is one (a base opcode is
/// never 0, CACHE), and so is every EXTENDED_ARG prefix; a cache unit is one
/// only when it is not zero (bytecode-decode). So the count bounds the
/// instructions of valid code (Insts is allocated once, without a pass that
/// decodes), and the decoder need not look at cache units at all when the
/// count is that of the units that are no caches (Decoder::decodeAll).
size_t countNonZeroUnits(const uint8_t *Bytes, size_t NumUnits) {
  constexpr uint64_t Low15 = 0x7FFF7FFF7FFF7FFFULL;
  constexpr uint64_t High = 0x8000800080008000ULL;
  size_t Count = 0, U = 0;
  for (; U + 4 <= NumUnits; U += 4) {
    uint64_t W = llvm::support::endian::read64le(Bytes + 2 * U);
    // Bit 15 of each 16-bit lane: the lane is not zero.
    uint64_t NonZero = (((W & Low15) + Low15) | W) & High;
    Count += size_t(((NonZero >> 15) * 0x0001000100010001ULL) >> 48);
  }
  for (; U < NumUnits; ++U)
    Count += (Bytes[2 * U] | Bytes[2 * U + 1]) != 0;
  return Count;
}

/// Whether the \p Units code units at \p P are all zero.
bool allZero(const uint8_t *P, unsigned Units) {
  for (unsigned K = 0; K < 2 * Units; ++K)
    if (P[K])
      return false;
  return true;
}

/// What decodeAll()'s inline path needs of each byte of each version, read
/// from the version's opcode table (VersionOpcodes.h) once: the
/// instruction it starts, but its offsets and argument, copied whole.
struct alignas(64) ByteFacts { // a row is found by a shift
  Instruction Proto;           ///< blank(), with OpByte and Op.
  uint8_t Caches;
  uint8_t Flags;
  enum : uint8_t {
    Inline = 1,   ///< A base opcode other than EXTENDED_ARG.
    TakesArg = 2, ///< OpcodeInfo::HasArg.
    Jump = 4,     ///< OpcodeInfo::isJump().
  };
};
using ByteFactsTable =
    std::array<std::array<ByteFacts, 256>, NumPythonVersions>;

const ByteFactsTable &byteFacts() {
  static const ByteFactsTable Table = [] {
    ByteFactsTable T{};
    for (PythonVersion V : AllPythonVersions)
      for (unsigned B = 0; B < 256; ++B) {
        const VersionOpcodeInfo *Info = getVersionOpcodeInfo(V, uint8_t(B));
        if (!Info || B == extendedArgByte(V))
          continue;
        ByteFacts &F = T[unsigned(V)][B];
        F.Proto.Ver = V;
        F.Proto.OpByte = uint8_t(B);
        F.Proto.Op = Info->Op;
        F.Caches = Info->Caches;
        F.Flags = ByteFacts::Inline | (Info->HasArg ? ByteFacts::TakesArg : 0) |
                  (Info->isJump() ? ByteFacts::Jump : 0);
      }
    return T;
  }();
  return Table;
}

/// One decode() run: the code units in, the stream's instructions and unit
/// map out, findings as they are met. Positions are in code units (U);
/// instructions and findings carry byte offsets (2 * U).
class Decoder {
public:
  Decoder(llvm::StringRef Code, PythonVersion V, bool &HasErrors,
          std::vector<Finding> &Findings)
      : Code(Code), NumUnits(Code.size() / 2), V(V),
        ExtendedArg(extendedArgByte(V)), HasErrors(HasErrors),
        Findings(Findings) {}

  size_t numUnits() const { return NumUnits; }
  /// The first allocation: room for \p Bound instructions, the count
  /// decodeAll() relies on.
  void start(size_t Bound) {
    FirstBound = Bound;
    allocate(Bound);
  }
  /// Allocates the unit map and room for \p Bound instructions (the map is
  /// not cleared: every unit's entry is written, and only those are read).
  void allocate(size_t Bound) {
    Cap = Bound;
    Buffer = allocateInstructionBuffer(mapWords() + Cap * InstWords);
    UnitToIndex = reinterpret_cast<uint32_t *>(Buffer.get());
    Insts = reinterpret_cast<Instruction *>(Buffer.get() + mapWords());
  }
  /// Hands the buffer and what fills it to \p Buf, \p I, \p N and \p Map
  /// (the stream's); the decoder's pointers stay valid (resolveJumps).
  void release(InstructionBuffer &Buf, Instruction *&I, size_t &N,
               uint32_t *&Map) {
    Buf = std::move(Buffer);
    I = Insts;
    N = Made;
    Map = UnitToIndex;
  }
  /// An instruction as the decoder starts from: V's, and default.
  Instruction blank() const {
    Instruction I{};
    I.Ver = V;
    return I;
  }
  void checkLength();
  template <bool CheckCaches> void decodeAll();
  /// The units of the decoded instructions that are no cache units and not
  /// 00 00 (every prefix and opcode unit but a CACHE opcode's with argument
  /// 0): countNonZeroUnits() less this is the cache units that are not
  /// zero.
  size_t nonZeroNonCacheUnits() const {
    return Made + SlowExtraUnits - ZeroOpcodeUnits;
  }
  /// Forgets what decodeAll() did (its findings are past \p NumFindings), to
  /// run it again.
  void restart(size_t NumFindings, bool HadErrors);
  void resolveJumps(const InstructionStream &S);

private:
  void checkSkipped(const InstructionStream &S, Instruction &I,
                    const VersionOpcodeInfo &J);
  llvm::StringRef Code;
  size_t NumUnits;
  PythonVersion V;
  uint8_t ExtendedArg; ///< V's EXTENDED_ARG byte.
  /// The unit map (mapWords() words), then room for Cap instructions, of
  /// which the first Made are made once decodeAll() returns (placement new:
  /// what is not made is never read, so none of it is cleared first).
  InstructionBuffer Buffer;
  uint32_t *UnitToIndex = nullptr;
  Instruction *Insts = nullptr;
  size_t Made = 0, Cap = 0;
  /// The first allocation's bound: the count decodeAll() relies on.
  size_t FirstBound = 0;
  bool &HasErrors;
  std::vector<Finding> &Findings;
  /// Indices of the valid jumps, in order: resolveJumps() visits only them.
  llvm::SmallVector<uint32_t, 32> Jumps;
  /// Prefix units of the instructions decodeSlow() made, beyond one unit
  /// per instruction (the rest of a truncated prefix run).
  size_t SlowExtraUnits = 0;
  /// Opcode units decodeSlow() met that are 00 00.
  size_t ZeroOpcodeUnits = 0;

  uint8_t byte(size_t Unit, unsigned K) const {
    return uint8_t(Code[2 * Unit + K]);
  }
  void report(CheckId Id, uint32_t At, std::string Msg) {
    reportFinding(Findings, HasErrors, Id, At, std::move(Msg));
  }
  const VersionOpcodeInfo *info(uint8_t B) const {
    return getVersionOpcodeInfo(V, B);
  }
  unsigned foldPrefixes(size_t &U, uint32_t &Arg);
  void appendTruncatedPrefix(Instruction &I, size_t Start, uint32_t Arg,
                             unsigned Prefixes);
  LLVM_ATTRIBUTE_NOINLINE std::pair<size_t, size_t> decodeSlow(size_t U,
                                                               size_t Count);
  void reportArgument(const Instruction &I, const VersionOpcodeInfo &Info,
                      uint8_t ArgByte);
  LLVM_ATTRIBUTE_NOINLINE void reportCaches(const Instruction &I,
                                            const VersionOpcodeInfo &CacheInfo,
                                            size_t U);
  static constexpr size_t InstWords = sizeof(Instruction) / sizeof(uint64_t);
  static_assert(sizeof(Instruction) % sizeof(uint64_t) == 0 &&
                alignof(Instruction) <= alignof(uint64_t));
  size_t mapWords() const;
  /// Room for at least \p N instructions: a larger buffer, when needed,
  /// with the map and the first \p NumMade instructions.
  void reserve(size_t N, size_t NumMade);
  void mapUnits(size_t From, size_t To, size_t Index) {
    for (size_t K = From; K < To; ++K)
      UnitToIndex[K] = uint32_t(Index);
  }
};

} // namespace

/// UnitToIndex's entries past the code: decodeAll() maps twelve entries
/// from an instruction's first unit, past its end (the next instruction's
/// own mapping overwrites them).
static constexpr size_t MapSlack = 11;

size_t Decoder::mapWords() const { return (NumUnits + MapSlack + 1) / 2; }

void Decoder::reserve(size_t N, size_t NumMade) {
  if (N <= Cap)
    return;
  InstructionBuffer Old = std::move(Buffer);
  Instruction *OldInsts = Insts;
  // Doubling, but never past one instruction per unit (N is at most that).
  assert(N <= NumUnits && "an instruction takes a unit");
  allocate(std::max(N, std::min(2 * Cap, NumUnits)));
  std::memcpy(Buffer.get(), Old.get(), mapWords() * sizeof(uint64_t));
  for (size_t I = 0; I < NumMade; ++I)
    new (Insts + I) Instruction(OldInsts[I]);
}

void Decoder::checkLength() {
  if (Code.size() % 2)
    report(CheckId::BytecodeDecode, uint32_t(Code.size() - 1),
           llvm::formatv("co_code has odd length {0}; the last byte is not a "
                         "whole code unit",
                         Code.size()));
}

/// Every instruction in one loop, into Insts, which has room from index
/// Count on for at least as many instructions as the code has opcode units
/// that are not 00 00 or that decodeSlow() has met (the instructions of the
/// inline path take distinct units that are not 00 00: a valid opcode's;
/// decodeSlow() makes room for one more for an opcode unit that is), so the
/// inline path never runs out of room. An instruction with no
/// prefix whose opcode is valid and whose caches fit is decoded inline;
/// anything else (prefixes, a bad opcode, truncated caches) by decodeSlow().
/// Findings come in the order of the units they are about. Without \p
/// CheckCaches the inline path does not look at cache units: decode() runs it
/// so when countNonZeroUnits() says they are all zero, and again with the check
/// when not.
template <bool CheckCaches> void Decoder::decodeAll() {
  const uint8_t *Bytes = Code.bytes_begin();
  const size_t N = NumUnits;
  const PythonVersion Ver = V;
  const ByteFacts *Facts = byteFacts()[unsigned(Ver)].data();
  uint32_t *Map = UnitToIndex;
  Instruction *Out = Insts;
  size_t Count = 0;
  uint64_t Pair = 0; // Count in both halves: two map entries at once
  size_t U = 0;
  while (U < N) {
    uint8_t B = Bytes[2 * U];
    const ByteFacts &BF = Facts[B];
    // Read before the copy below, which the compiler cannot tell apart.
    const uint8_t Caches = BF.Caches, Flags = BF.Flags;
    size_t End = U + 1 + Caches;
    if (LLVM_UNLIKELY(!(Flags & ByteFacts::Inline) || End > N)) {
      std::tie(U, Count) = decodeSlow(U, Count);
      Out = Insts; // reserve() may have moved both
      Map = UnitToIndex;
      Pair = uint64_t(Count) * 0x100000001ULL;
      continue;
    }
    assert(Count < Cap && "room for every instruction");
    uint8_t ArgByte = Bytes[2 * U + 1];
    Instruction &I = *new (Out + Count) Instruction(BF.Proto);
    I.Start = I.Offset = uint32_t(2 * U);
    I.End = uint32_t(2 * End);
    I.Arg = (Flags & ByteFacts::TakesArg) ? ArgByte : 0;
    if (LLVM_UNLIKELY(!(Flags & ByteFacts::TakesArg) && ArgByte))
      reportArgument(I, *getVersionOpcodeInfo(Ver, B), ArgByte);
    if (CheckCaches && !allZero(Bytes + 2 * U + 2, Caches))
      reportCaches(I, *getVersionOpcodeInfo(Ver, B), U + 1);
    if (Flags & ByteFacts::Jump)
      Jumps.push_back(uint32_t(Count));
    // Twelve entries, past End (MapSlack): every instruction without
    // prefixes has at most 11 units; the next instruction maps its own
    // units after.
    for (unsigned K = 0; K < 12; K += 2)
      std::memcpy(Map + U + K, &Pair, sizeof(Pair));
    if (LLVM_UNLIKELY(Caches > 11)) // End - U > 12
      mapUnits(U + 12, End, Count);
    ++Count;
    Pair += 0x100000001ULL; // Count, twice
    U = End;
  }
  Made = Count;
}

void Decoder::restart(size_t NumFindings, bool HadErrors) {
  Findings.erase(Findings.begin() + NumFindings, Findings.end());
  HasErrors = HadErrors;
  Made = 0;
  Jumps.clear();
  SlowExtraUnits = ZeroOpcodeUnits = 0;
}

/// Instruction \p Count, at unit \p U, the way the inline path of
/// decodeAll() does not take: its prefixes, a byte that is no base opcode,
/// caches that run past the end (or Insts full). Returns the unit after it
/// and the instructions made.
std::pair<size_t, size_t> Decoder::decodeSlow(size_t U, size_t Count) {
  reserve(Count + 1, Count); // not by the bound (decodeAll): a safety net
  new (Insts + Count) Instruction(blank());
  size_t Start = U;
  uint32_t Arg = 0;
  unsigned Prefixes = foldPrefixes(U, Arg);
  if (U == NumUnits) {
    appendTruncatedPrefix(Insts[Count], Start, Arg, Prefixes);
    mapUnits(Start, U, Count);
    SlowExtraUnits += U - Start - 1;
    return {U, Count + 1};
  }
  SlowExtraUnits += Prefixes;
  if (!byte(U, 0) && !byte(U, 1)) {
    // Room for decodeAll(): one more than the count bounded (not one more
    // than the room, which doubled it per such unit).
    ++ZeroOpcodeUnits;
    reserve(std::min(FirstBound + ZeroOpcodeUnits, NumUnits), Count + 1);
  }
  Instruction &I = Insts[Count]; // reserve() may have moved it
  I.Start = uint32_t(2 * Start);
  I.Ver = V;
  I.Offset = uint32_t(2 * U);
  I.OpByte = byte(U, 0);
  I.NumPrefixes = Prefixes;
  I.PrefixArg = Arg;
  const VersionOpcodeInfo *Info = info(I.OpByte);
  if (!Info) {
    I.Valid = false;
    report(CheckId::BytecodeDecode, I.Offset, describeBadOpcode(I.OpByte, V));
  } else {
    I.Op = Info->Op;
  }
  if (I.Valid && !Info->HasArg) {
    if (Prefixes)
      report(CheckId::BytecodeExtendedArg, I.Offset,
             llvm::formatv("EXTENDED_ARG before {0}, which takes no "
                           "argument",
                           Info->Name));
    else if (byte(U, 1) != 0)
      reportArgument(I, *Info, byte(U, 1));
    I.Arg = 0;
  } else {
    I.Arg = (Arg << 8) | byte(U, 1);
  }
  if (I.Valid && Info->isJump())
    Jumps.push_back(uint32_t(Count));
  // A specialised opcode still owns its base opcode's cache units: report
  // it once, not its caches again as CACHE instructions.
  const VersionOpcodeInfo *CacheInfo = Info;
  if (!I.Valid)
    if (const OpcodeInfo *Base = getDeoptimizedOpcodeInfo(V, I.OpByte))
      CacheInfo = Base;
  size_t End = U + 1;
  if (CacheInfo) {
    End = std::min(End + CacheInfo->Caches, NumUnits);
    reportCaches(I, *CacheInfo, U + 1);
  }
  I.End = uint32_t(2 * End);
  mapUnits(Start, End, Count);
  return {End, Count + 1};
}

/// Folds the EXTENDED_ARG prefixes at \p U into \p Arg, leaving \p U at the
/// first unit that is not one; returns how many there were.
unsigned Decoder::foldPrefixes(size_t &U, uint32_t &Arg) {
  unsigned Prefixes = 0;
  while (U < NumUnits && byte(U, 0) == ExtendedArg) {
    if (Prefixes == 3)
      report(CheckId::BytecodeDecode, uint32_t(2 * U),
             "more than three EXTENDED_ARG prefixes; the argument no longer "
             "fits in 32 bits");
    Arg = (Arg << 8) | byte(U, 1);
    ++Prefixes;
    ++U;
  }
  return Prefixes;
}

/// Trailing prefixes from unit \p Start with nothing to prefix: kept as one
/// truncated EXTENDED_ARG, \p I, so the stream still tiles the code.
void Decoder::appendTruncatedPrefix(Instruction &I, size_t Start, uint32_t Arg,
                                    unsigned Prefixes) {
  size_t U = NumUnits;
  report(CheckId::BytecodeDecode, uint32_t(2 * (U - 1)),
         "truncated instruction: EXTENDED_ARG at the end of the code has "
         "no opcode to prefix");
  I.Start = uint32_t(2 * Start);
  I.Ver = V;
  I.Offset = uint32_t(2 * (U - 1));
  I.OpByte = ExtendedArg;
  I.Arg = Arg;
  I.PrefixArg = Arg >> 8;
  I.NumPrefixes = Prefixes - 1;
  I.Valid = false;
  I.End = uint32_t(2 * U);
}

/// The argument byte \p ArgByte (not 0) of \p I, an opcode that takes none.
void Decoder::reportArgument(const Instruction &I,
                             const VersionOpcodeInfo &Info, uint8_t ArgByte) {
  report(CheckId::BytecodeExtendedArg, I.Offset,
         llvm::formatv("{0} takes no argument but its argument byte is {1}",
                       Info.Name, unsigned(ArgByte)));
}

/// Checks the inline cache units of \p I (as many as \p CacheInfo has),
/// which start at \p U: each must be zero, and all must be in the code.
void Decoder::reportCaches(const Instruction &I,
                           const VersionOpcodeInfo &CacheInfo, size_t U) {
  unsigned Caches = CacheInfo.Caches;
  for (unsigned C = 0; C < Caches; ++C, ++U) {
    if (U == NumUnits) {
      report(CheckId::BytecodeDecode, I.Offset,
             llvm::formatv("truncated instruction: {0} needs {1} inline "
                           "cache units, the code ends after {2}",
                           CacheInfo.Name, Caches, C));
      return;
    }
    if (byte(U, 0) || byte(U, 1))
      report(CheckId::BytecodeDecode, uint32_t(2 * U),
             llvm::formatv("inline cache unit {0} of {1} at {2} is {3:x-2} "
                           "{4:x-2}, expected 00 00",
                           C, CacheInfo.Name, I.Offset, unsigned(byte(U, 0)),
                           unsigned(byte(U, 1))));
  }
}

/// Resolves jump targets now that every instruction start is known.
void Decoder::resolveJumps(const InstructionStream &S) {
  for (uint32_t Index : Jumps) {
    Instruction &I = Insts[Index];
    const VersionOpcodeInfo &J = *info(I.OpByte);
    // Relative to the unit after the opcode's inline caches.
    int64_t Next = I.Offset / 2 + 1 + J.Caches;
    int64_t TargetUnit =
        J.isBackwardJump() ? Next - int64_t(I.Arg) : Next + int64_t(I.Arg);
    I.Target = 2 * TargetUnit;
    if (TargetUnit < 0 || TargetUnit >= int64_t(NumUnits)) {
      I.TargetValid = false;
      report(CheckId::JumpTargetInvalid, I.Offset,
             llvm::formatv("{0} {1} jumps to byte {2}, outside the code "
                           "(0..{3})",
                           J.Name, I.Arg, I.Target, S.codeSize()));
    } else if (S.indexAtStart(uint64_t(I.Target)) < 0) {
      I.TargetValid = false;
      const Instruction &In = Insts[UnitToIndex[TargetUnit]];
      report(CheckId::JumpTargetInvalid, I.Offset,
             llvm::formatv("{0} {1} jumps to byte {2}, which is inside the "
                           "{3} at {4}, not on an instruction start",
                           J.Name, I.Arg, I.Target, In.name(), In.Offset));
    } else if (J.JumpSkip) {
      checkSkipped(S, I, J);
    }
  }
}

/// The instructions a taken jump of \p I steps over at its (valid) target
/// must be the ones the interpreter expects there (it asserts them only in a
/// debug build): 3.12's exhausted FOR_ITER skips one END_FOR, 3.13's an
/// END_FOR and a POP_TOP.
void Decoder::checkSkipped(const InstructionStream &S, Instruction &I,
                           const VersionOpcodeInfo &J) {
  static constexpr Opcode Expected[] = {Opcode::END_FOR, Opcode::POP_TOP};
  int64_t At = S.indexAtStart(uint64_t(I.Target));
  unsigned Units = 0;
  for (unsigned K = 0; Units < J.JumpSkip; ++K, ++At) {
    const Instruction *In = At < int64_t(Made) ? &Insts[size_t(At)] : nullptr;
    if (!In || K >= std::size(Expected) || !In->is(Expected[K]) ||
        In->NumPrefixes) {
      I.TargetValid = false;
      report(CheckId::JumpTargetInvalid, I.Offset,
             llvm::formatv("{0} {1} jumps to byte {2}, where the interpreter "
                           "steps over {3} code unit(s) it expects to be {4}; "
                           "found {5}",
                           J.Name, I.Arg, I.Target, unsigned(J.JumpSkip),
                           J.JumpSkip == 1 ? "END_FOR" : "END_FOR, POP_TOP",
                           In ? In->name()
                              : llvm::StringRef("the end of the "
                                                "code")));
      return;
    }
    Units += In->units();
  }
  if (uint64_t(I.landing()) >= S.codeSize()) {
    I.TargetValid = false;
    report(CheckId::JumpTargetInvalid, I.Offset,
           llvm::formatv("{0} {1} lands at byte {2} after stepping over its "
                         "target, the end of the code",
                         J.Name, I.Arg, I.landing()));
  }
}

InstructionStream InstructionStream::decode(llvm::StringRef Code,
                                            std::vector<Finding> &Findings,
                                            PythonVersion V) {
  InstructionStream S;
  Decoder D(Code, V, S.HasErrors, Findings);
  S.CodeBytes = uint32_t(D.numUnits() * 2);
  D.checkLength();
  size_t NonZero = countNonZeroUnits(Code.bytes_begin(), D.numUnits());
  // The count bounds the instructions only while no opcode or prefix unit
  // can be 00 00 (decodeAll).
  bool Counted = !getVersionOpcodeInfo(V, 0) && extendedArgByte(V) != 0;
  D.start(Counted ? NonZero : D.numUnits());
  size_t NumFindings = Findings.size();
  bool HadErrors = S.HasErrors;
  if (Counted)
    D.decodeAll</*CheckCaches=*/false>();
  if (!Counted || D.nonZeroNonCacheUnits() != NonZero) {
    // Some cache unit is not zero: decode again, reporting it in order.
    D.restart(NumFindings, HadErrors);
    D.decodeAll</*CheckCaches=*/true>();
  }
  D.release(S.Buffer, S.Insts, S.NumInsts, S.UnitToIndex);
  D.resolveJumps(S);
  return S;
}

InstructionStream::InstructionStream(const InstructionStream &O)
    : NumInsts(O.NumInsts), CodeBytes(O.CodeBytes), HasErrors(O.HasErrors) {
  // The map's entries past the code are not copied: nothing reads them.
  size_t MapWords = (CodeBytes / 2 + 1) / 2;
  constexpr size_t InstWords = sizeof(Instruction) / sizeof(uint64_t);
  Buffer = allocateInstructionBuffer(MapWords + NumInsts * InstWords);
  UnitToIndex = reinterpret_cast<uint32_t *>(Buffer.get());
  Insts = reinterpret_cast<Instruction *>(Buffer.get() + MapWords);
  if (CodeBytes)
    std::memcpy(UnitToIndex, O.UnitToIndex, CodeBytes / 2 * sizeof(uint32_t));
  for (size_t I = 0; I < NumInsts; ++I)
    new (Insts + I) Instruction(O.Insts[I]);
}
