//===- InstructionStream.cpp - Decoded instructions -----------------------===//

#include "pyverify/Bytecode/InstructionStream.h"
#include "pyverify/Bytecode/OperandRules.h"

#include "llvm/Support/Compiler.h"
#include "llvm/Support/FormatVariadic.h"

#include <iterator>

using namespace pyverify;

uint32_t Instruction::nameIndex() const {
  if (Valid)
    for (const OperandRule &R : getOperandRules(Ver, Op))
      if (R.Bound == OperandBound::Names)
        return R.value(Arg);
  return Arg;
}

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

/// One decode() run: the code units in, the stream's instructions and unit
/// map out, findings as they are met. Positions are in code units (U);
/// instructions and findings carry byte offsets (2 * U).
class Decoder {
public:
  Decoder(llvm::StringRef Code, PythonVersion V,
          std::vector<Instruction> &Insts, std::vector<uint32_t> &UnitToIndex,
          bool &HasErrors, std::vector<Finding> &Findings)
      : Code(Code), NumUnits(Code.size() / 2), V(V),
        ExtendedArg(extendedArgByte(V)), Insts(Insts), UnitToIndex(UnitToIndex),
        HasErrors(HasErrors), Findings(Findings) {}

  size_t numUnits() const { return NumUnits; }
  void checkLength();
  size_t countInstructions() const;
  void decodeAll();
  void resolveJumps(const InstructionStream &S);

private:
  void checkSkipped(const InstructionStream &S, Instruction &I,
                    const VersionOpcodeInfo &J);
  llvm::StringRef Code;
  size_t NumUnits;
  PythonVersion V;
  uint8_t ExtendedArg; ///< V's EXTENDED_ARG byte.
  std::vector<Instruction> &Insts;
  std::vector<uint32_t> &UnitToIndex;
  bool &HasErrors;
  std::vector<Finding> &Findings;

  uint8_t byte(size_t Unit, unsigned K) const {
    return uint8_t(Code[2 * Unit + K]);
  }
  void report(CheckId Id, uint32_t At, std::string Msg) {
    reportFinding(Findings, HasErrors, Id, At, std::move(Msg));
  }
  unsigned foldPrefixes(size_t &U, uint32_t &Arg);
  void appendTruncatedPrefix(Instruction &I, uint32_t Arg, unsigned Prefixes);
  const VersionOpcodeInfo *info(uint8_t B) const {
    return getVersionOpcodeInfo(V, B);
  }
  const VersionOpcodeInfo *decodeOpcode(Instruction &I, size_t U, uint32_t Arg,
                                        unsigned Prefixes);
  size_t skipCaches(const Instruction &I, const VersionOpcodeInfo *Info,
                    size_t U);
  void append(Instruction &I, size_t EndUnit);
};

} // namespace

void Decoder::checkLength() {
  if (Code.size() % 2)
    report(CheckId::BytecodeDecode, uint32_t(Code.size() - 1),
           llvm::formatv("co_code has odd length {0}; the last byte is not a "
                         "whole code unit",
                         Code.size()));
}

/// The instructions decodeAll() will make (its loop, without its checks), so
/// that Insts is allocated once: growing it was a quarter of decoding. The
/// count is exact for valid code and an upper bound otherwise (a specialised
/// opcode's caches count here as CACHE instructions).
size_t Decoder::countInstructions() const {
  size_t NumInsts = 0;
  for (size_t W = 0; W < NumUnits; ++NumInsts) {
    while (W + 1 < NumUnits && byte(W, 0) == ExtendedArg)
      ++W;
    uint8_t B = byte(W, 0);
    const VersionOpcodeInfo *Info = info(B);
    W += 1 + (Info ? Info->Caches : 0);
  }
  return NumInsts;
}

void Decoder::decodeAll() {
  size_t U = 0;
  while (U < NumUnits) {
    // Built in place: Insts has room for every instruction (decode()).
    Instruction &I = Insts.emplace_back();
    I.Start = uint32_t(2 * U);
    I.Ver = V;
    uint32_t Arg = 0;
    unsigned Prefixes = foldPrefixes(U, Arg);
    if (U == NumUnits) {
      appendTruncatedPrefix(I, Arg, Prefixes);
      break;
    }
    const VersionOpcodeInfo *Info = decodeOpcode(I, U, Arg, Prefixes);
    U = skipCaches(I, Info, U + 1);
    append(I, U);
  }
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

/// Trailing prefixes with nothing to prefix: \p I, the last instruction of
/// Insts, is kept as one truncated EXTENDED_ARG so the stream still tiles
/// the code.
void Decoder::appendTruncatedPrefix(Instruction &I, uint32_t Arg,
                                    unsigned Prefixes) {
  size_t U = NumUnits;
  report(CheckId::BytecodeDecode, uint32_t(2 * (U - 1)),
         "truncated instruction: EXTENDED_ARG at the end of the code has "
         "no opcode to prefix");
  I.Offset = uint32_t(2 * (U - 1));
  I.OpByte = ExtendedArg;
  I.Arg = Arg;
  I.PrefixArg = Arg >> 8;
  I.NumPrefixes = Prefixes - 1;
  I.Valid = false;
  I.End = uint32_t(2 * U);
  for (uint32_t K = I.Start / 2; K < NumUnits; ++K)
    UnitToIndex[K] = uint32_t(Insts.size() - 1);
}

/// The opcode unit at \p U, after \p Prefixes prefixes that accumulated
/// \p Arg: its opcode, validity and argument. Returns its table row (null
/// for a byte that is no opcode).
const VersionOpcodeInfo *Decoder::decodeOpcode(Instruction &I, size_t U,
                                               uint32_t Arg,
                                               unsigned Prefixes) {
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
      report(CheckId::BytecodeExtendedArg, I.Offset,
             llvm::formatv("{0} takes no argument but its argument byte is "
                           "{1}",
                           Info->Name, unsigned(byte(U, 1))));
    I.Arg = 0;
  } else {
    I.Arg = (Arg << 8) | byte(U, 1);
  }
  return Info;
}

/// Steps over the inline cache units of \p I, which start at \p U, checking
/// that they are zero; returns the unit after them (or the end of the code).
size_t Decoder::skipCaches(const Instruction &I, const VersionOpcodeInfo *Info,
                           size_t U) {
  // A specialised opcode still owns its base opcode's cache units: report
  // it once, not its caches again as CACHE instructions.
  const VersionOpcodeInfo *CacheInfo = Info;
  if (!I.Valid)
    if (const OpcodeInfo *Base = getDeoptimizedOpcodeInfo(V, I.OpByte))
      CacheInfo = Base;
  unsigned Caches = CacheInfo ? CacheInfo->Caches : 0;
  for (unsigned C = 0; C < Caches; ++C, ++U) {
    if (U == NumUnits) {
      report(CheckId::BytecodeDecode, I.Offset,
             llvm::formatv("truncated instruction: {0} needs {1} inline "
                           "cache units, the code ends after {2}",
                           CacheInfo->Name, Caches, C));
      break;
    }
    if (byte(U, 0) || byte(U, 1))
      report(CheckId::BytecodeDecode, uint32_t(2 * U),
             llvm::formatv("inline cache unit {0} of {1} at {2} is {3:x-2} "
                           "{4:x-2}, expected 00 00",
                           C, CacheInfo->Name, I.Offset, unsigned(byte(U, 0)),
                           unsigned(byte(U, 1))));
  }
  return U;
}

/// Ends \p I, the last instruction of Insts, before unit \p EndUnit, and
/// maps its units to it.
void Decoder::append(Instruction &I, size_t EndUnit) {
  I.End = uint32_t(2 * EndUnit);
  uint32_t Index = uint32_t(Insts.size() - 1);
  for (uint32_t K = I.Start / 2; K < EndUnit; ++K)
    UnitToIndex[K] = Index;
}

/// Resolves jump targets now that every instruction start is known.
void Decoder::resolveJumps(const InstructionStream &S) {
  for (Instruction &I : Insts) {
    if (!I.Valid)
      continue;
    const VersionOpcodeInfo &J = *info(I.OpByte);
    if (!J.isJump())
      continue;
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
    const Instruction *In =
        At < int64_t(Insts.size()) ? &Insts[size_t(At)] : nullptr;
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
  Decoder D(Code, V, S.Insts, S.UnitToIndex, S.HasErrors, Findings);
  S.CodeBytes = uint32_t(D.numUnits() * 2);
  S.UnitToIndex.assign(D.numUnits(), 0);
  D.checkLength();
  S.Insts.reserve(D.countInstructions());
  D.decodeAll();
  D.resolveJumps(S);
  return S;
}

int64_t InstructionStream::indexContaining(uint64_t ByteOffset) const {
  if (ByteOffset >= CodeBytes)
    return -1;
  return UnitToIndex[ByteOffset / 2];
}

int64_t InstructionStream::indexAtStart(uint64_t ByteOffset) const {
  int64_t I = indexContaining(ByteOffset);
  if (I < 0 || Insts[I].Start != ByteOffset)
    return -1;
  return I;
}

int64_t InstructionStream::indexAtOffset(uint64_t ByteOffset) const {
  int64_t I = indexContaining(ByteOffset);
  if (I < 0 || Insts[I].Offset != ByteOffset)
    return -1;
  return I;
}
