//===- InstructionStream.cpp - Decoded 3.11 instructions ------------------===//

#include "pyverify/Bytecode/InstructionStream.h"

#include "llvm/Support/FormatVariadic.h"

using namespace pyverify;

llvm::StringRef Instruction::name() const {
  if (Valid)
    return info().Name;
  if (const OpcodeInfo *I = getOpcodeInfo(OpByte); I && OpByte != 0)
    return I->Name; // e.g. a truncated trailing EXTENDED_ARG
  if (llvm::StringRef S = getSpecializedOpcodeName(OpByte); !S.empty())
    return S;
  return OpByte == 0 ? "CACHE" : "<invalid>";
}

static std::string describeBadOpcode(uint8_t B) {
  if (llvm::StringRef S = getSpecializedOpcodeName(B); !S.empty())
    return llvm::formatv("specialised opcode {0} ({1}) is not valid in "
                         "co_code; it only exists in the adaptive copy",
                         S, unsigned(B))
        .str();
  if (B == 0)
    return "CACHE (0) at an instruction position; CACHE is only valid in "
           "inline cache slots";
  return llvm::formatv("unknown opcode {0}", unsigned(B)).str();
}

namespace {

/// getOpcodeInfo() for every byte, looked up once per process: the decoder
/// consults it per instruction, and the out-of-line call (with its static
/// guard) was 8% of decoding in the benchmarks/ profile.
struct OpcodeInfoCache {
  const OpcodeInfo *Infos[256];
  OpcodeInfoCache() {
    for (unsigned B = 0; B < 256; ++B)
      Infos[B] = getOpcodeInfo(uint8_t(B));
  }
};

} // namespace

InstructionStream InstructionStream::decode(llvm::StringRef Code,
                                            std::vector<Finding> &Findings) {
  static const OpcodeInfoCache Cache;
  const OpcodeInfo *const *Infos = Cache.Infos;
  InstructionStream S;
  size_t NumUnits = Code.size() / 2;
  S.CodeBytes = uint32_t(NumUnits * 2);
  S.UnitToIndex.assign(NumUnits, 0);
  auto Report = [&](CheckId Id, uint32_t At, std::string Msg) {
    Finding F(Id, At, std::move(Msg));
    if (F.Sev == Severity::Error)
      S.HasErrors = true;
    Findings.push_back(std::move(F));
  };
  if (Code.size() % 2)
    Report(CheckId::BytecodeDecode, uint32_t(Code.size() - 1),
           llvm::formatv("co_code has odd length {0}; the last byte is not a "
                         "whole code unit",
                         Code.size()));

  auto Byte = [&](size_t Unit, unsigned K) {
    return uint8_t(Code[2 * Unit + K]);
  };
  // Count the instructions first (the loop below, without its checks), so
  // that Insts is allocated once: growing it was a quarter of decoding. The
  // count is exact for valid code and an upper bound otherwise (a
  // specialised opcode's caches count here as CACHE instructions).
  size_t NumInsts = 0;
  for (size_t V = 0; V < NumUnits; ++NumInsts) {
    while (V + 1 < NumUnits && Byte(V, 0) == uint8_t(Opcode::EXTENDED_ARG))
      ++V;
    uint8_t B = Byte(V, 0);
    V += 1 + (Infos[B] && B ? Infos[B]->Caches : 0);
  }
  S.Insts.reserve(NumInsts);

  size_t U = 0;
  while (U < NumUnits) {
    Instruction I{};
    I.Start = uint32_t(2 * U);
    uint32_t Arg = 0;
    unsigned Prefixes = 0;
    // Fold EXTENDED_ARG prefixes.
    while (U < NumUnits && Byte(U, 0) == uint8_t(Opcode::EXTENDED_ARG)) {
      if (Prefixes == 3)
        Report(CheckId::BytecodeDecode, uint32_t(2 * U),
               "more than three EXTENDED_ARG prefixes; the argument no longer "
               "fits in 32 bits");
      Arg = (Arg << 8) | Byte(U, 1);
      ++Prefixes;
      ++U;
    }
    if (U == NumUnits) {
      // Trailing prefixes with nothing to prefix: keep them as one truncated
      // EXTENDED_ARG instruction so the stream still tiles the code.
      Report(CheckId::BytecodeDecode, uint32_t(2 * (U - 1)),
             "truncated instruction: EXTENDED_ARG at the end of the code has "
             "no opcode to prefix");
      I.Offset = uint32_t(2 * (U - 1));
      I.End = uint32_t(2 * U);
      I.OpByte = uint8_t(Opcode::EXTENDED_ARG);
      I.Arg = Arg;
      I.PrefixArg = Arg >> 8;
      I.NumPrefixes = Prefixes - 1;
      I.Valid = false;
      for (uint32_t K = I.Start / 2; K < NumUnits; ++K)
        S.UnitToIndex[K] = uint32_t(S.Insts.size());
      S.Insts.push_back(I);
      break;
    }
    I.Offset = uint32_t(2 * U);
    I.OpByte = Byte(U, 0);
    I.NumPrefixes = Prefixes;
    I.PrefixArg = Arg;
    const OpcodeInfo *Info = Infos[I.OpByte];
    if (!Info || I.OpByte == 0) {
      I.Valid = false;
      Report(CheckId::BytecodeDecode, I.Offset, describeBadOpcode(I.OpByte));
    }
    if (I.Valid && !Info->hasArg()) {
      if (Prefixes)
        Report(CheckId::BytecodeExtendedArg, I.Offset,
               llvm::formatv("EXTENDED_ARG before {0}, which takes no "
                             "argument",
                             Info->Name));
      else if (Byte(U, 1) != 0)
        Report(CheckId::BytecodeExtendedArg, I.Offset,
               llvm::formatv("{0} takes no argument but its argument byte is "
                             "{1}",
                             Info->Name, unsigned(Byte(U, 1))));
      I.Arg = 0;
    } else {
      I.Arg = (Arg << 8) | Byte(U, 1);
    }
    ++U;
    // A specialised opcode still owns its base opcode's cache units: report
    // it once, not its caches again as CACHE instructions.
    const OpcodeInfo *CacheInfo =
        I.Valid ? Info : getDeoptimizedOpcodeInfo(I.OpByte);
    unsigned Caches = CacheInfo ? CacheInfo->Caches : 0;
    for (unsigned C = 0; C < Caches; ++C, ++U) {
      if (U == NumUnits) {
        Report(CheckId::BytecodeDecode, I.Offset,
               llvm::formatv("truncated instruction: {0} needs {1} inline "
                             "cache units, the code ends after {2}",
                             CacheInfo->Name, Caches, C));
        break;
      }
      if (Byte(U, 0) || Byte(U, 1))
        Report(CheckId::BytecodeDecode, uint32_t(2 * U),
               llvm::formatv("inline cache unit {0} of {1} at {2} is {3:x-2} "
                             "{4:x-2}, expected 00 00",
                             C, CacheInfo->Name, I.Offset, unsigned(Byte(U, 0)),
                             unsigned(Byte(U, 1))));
    }
    I.End = uint32_t(2 * U);
    for (uint32_t K = I.Start / 2; K < U; ++K)
      S.UnitToIndex[K] = uint32_t(S.Insts.size());
    S.Insts.push_back(I);
  }

  // Resolve jump targets now that every instruction start is known.
  for (Instruction &I : S.Insts) {
    if (!I.Valid || !Infos[I.OpByte]->isJump())
      continue;
    int64_t OpUnit = I.Offset / 2;
    int64_t TargetUnit = Infos[I.OpByte]->isBackwardJump()
                             ? OpUnit + 1 - int64_t(I.Arg)
                             : OpUnit + 1 + int64_t(I.Arg);
    I.Target = 2 * TargetUnit;
    if (TargetUnit < 0 || TargetUnit >= int64_t(NumUnits)) {
      I.TargetValid = false;
      Report(CheckId::JumpTargetInvalid, I.Offset,
             llvm::formatv("{0} {1} jumps to byte {2}, outside the code "
                           "(0..{3})",
                           I.info().Name, I.Arg, I.Target, S.CodeBytes));
    } else if (S.indexAtStart(uint64_t(I.Target)) < 0) {
      I.TargetValid = false;
      const Instruction &In = S.Insts[S.UnitToIndex[TargetUnit]];
      Report(CheckId::JumpTargetInvalid, I.Offset,
             llvm::formatv("{0} {1} jumps to byte {2}, which is inside the "
                           "{3} at {4}, not on an instruction start",
                           I.info().Name, I.Arg, I.Target, In.name(),
                           In.Offset));
    }
  }
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
