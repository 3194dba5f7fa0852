//===- InstructionStream.h - Decoded instructions ---------------*- C++ -*-===//
//
// Contract: InstructionStream::decode() turns any co_code byte string into a
// list of instructions that tiles it exactly, in order, and reports every
// problem it meets as a Finding -- it never stops at the first one. Each
// instruction folds its EXTENDED_ARG prefixes (up to three) into one argument
// and owns its inline cache units, so:
//
//   Start  = byte offset of the first prefix (or of the opcode unit),
//   Offset = byte offset of the opcode unit (what `dis` and tracebacks use),
//   End    = byte offset just after the last cache unit.
//
// Jump targets are resolved to byte offsets (the unit after the opcode's
// inline caches +/- arg, direction from the opcode; 3.11's jumps have no
// caches), as `dis` shows them; landing() is where a taken jump really goes
// (3.12's and 3.13's exhausted FOR_ITER steps over the END_FOR at its target,
// which must be there: jump-target-invalid otherwise).
//
// The stream is decoded as one CPython version's bytecode (PythonVersion.h,
// VersionOpcodes.h: which bytes are opcodes, their caches, jumps and
// EXTENDED_ARG); each instruction's identity (op(), is()) and facts (info())
// are that version's. An instruction whose opcode byte is not
// a base opcode is kept (1 unit, isValid() false) so later passes can still
// point at it; such a stream hasErrors() and analyses must not trust it.
//
// Findings: bytecode-decode (unknown/specialised/CACHE opcode, truncated
// instruction, more than three prefixes, non-zero cache unit, odd length),
// bytecode-extended-arg (prefix or non-zero argument byte on an argument-less
// opcode: a warning), jump-target-invalid.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_INSTRUCTIONSTREAM_H
#define PYVERIFY_BYTECODE_INSTRUCTIONSTREAM_H

#include "pyverify/Bytecode/Opcode.h"
#include "pyverify/Bytecode/OperandRules.h"
#include "pyverify/Bytecode/PythonVersion.h"
#include "pyverify/Bytecode/VersionOpcodes.h"
#include "pyverify/Support/Finding.h"
#include "pyverify/Support/SpareBlock.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cassert>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace pyverify {

struct Instruction {
  uint32_t Start;
  uint32_t Offset;
  uint32_t End;
  uint32_t Arg;              ///< Folded argument; 0 for argument-less opcodes.
  uint32_t PrefixArg = 0;    ///< What the EXTENDED_ARG prefixes accumulated.
  int64_t Target = -1;       ///< Jump target byte offset, or -1 (not a jump).
  uint8_t OpByte;            ///< The raw opcode byte.
  Opcode Op = Opcode::CACHE; ///< OpByte's opcode in Ver (when Valid).
  /// The bytecode version the stream was decoded as.
  PythonVersion Ver = defaultPythonVersion();
  uint32_t NumPrefixes = 0;
  bool Valid = true;       ///< OpByte is a base opcode (not CACHE).
  bool TargetValid = true; ///< Target is an instruction start inside the code.

  /// A stand-in for opcode byte \p B of version \p V (argument 0, no
  /// position), for the tables built once per (version, opcode byte);
  /// std::nullopt when \p B is not one of V's base opcodes.
  static std::optional<Instruction> probe(PythonVersion V, uint8_t B) {
    const VersionOpcodeInfo *Info = getVersionOpcodeInfo(V, B);
    if (!Info)
      return std::nullopt;
    Instruction In{};
    In.OpByte = B;
    In.Op = Info->Op;
    In.Ver = V;
    In.Valid = true;
    return In;
  }

  /// The opcode's identity (any version; valid instructions only).
  Opcode op() const {
    assert(Valid);
    return Op;
  }
  /// Its version's facts (valid instructions only).
  const OpcodeInfo &info() const {
    assert(Valid);
    return *getVersionOpcodeInfo(Ver, OpByte);
  }
  bool is(Opcode O) const { return Valid && Op == O; }
  /// Where a taken jump lands: the target, after what the interpreter skips
  /// there (OpcodeInfo::JumpSkip); -1 for a non-jump.
  int64_t landing() const {
    return Target < 0 ? Target : Target + 2 * int64_t(info().JumpSkip);
  }
  bool hasArg() const { return Valid && info().HasArg; }
  llvm::StringRef name() const;
  /// The co_names index the argument names, as its version's name rule
  /// (OperandRules.def) takes it: LOAD_GLOBAL's and (3.12+) LOAD_ATTR's
  /// argument is index << 1 | flag, 3.12+ LOAD_SUPER_ATTR's index << 2 |
  /// flags; other name opcodes' (and any other opcode's) is the argument.
  /// Inline: a pass that lowers every instruction and does not read the
  /// index (the value kinds') drops the lookup.
  uint32_t nameIndex() const {
    if (Valid)
      for (const OperandRule &R : getOperandRules(Ver, Op))
        if (R.Bound == OperandBound::Names)
          return R.value(Arg);
    return Arg;
  }
  /// The argument `dis` shows on prefix row \p P (0 = first prefix).
  uint32_t prefixRowArg(unsigned P) const {
    uint64_t Shift = 8 * uint64_t(NumPrefixes - 1 - P);
    return Shift >= 32 ? 0 : PrefixArg >> Shift;
  }
  /// Number of code units, prefixes and caches included.
  uint32_t units() const { return (End - Start) / 2; }
};

class InstructionStream;
/// A stream's one block (the unit map, then the instructions): from its
/// thread's spare (SpareBlock.h), and given back to it.
using InstructionBuffer =
    std::unique_ptr<uint64_t[], SpareBlockDeleter<InstructionStream>>;

/// An uninitialised InstructionBuffer of \p Words words.
inline InstructionBuffer allocateInstructionBuffer(size_t Words) {
  size_t Capacity;
  void *P =
      SpareBlock<InstructionStream>::take(Words * sizeof(uint64_t), Capacity);
  return InstructionBuffer(static_cast<uint64_t *>(P), {Capacity});
}

class InstructionStream {
public:
  InstructionStream() = default;
  InstructionStream(const InstructionStream &O);
  InstructionStream(InstructionStream &&O) noexcept { *this = std::move(O); }
  InstructionStream &operator=(const InstructionStream &O) {
    return *this = InstructionStream(O);
  }
  InstructionStream &operator=(InstructionStream &&O) noexcept {
    Buffer = std::move(O.Buffer);
    Insts = std::exchange(O.Insts, nullptr);
    NumInsts = std::exchange(O.NumInsts, 0);
    UnitToIndex = std::exchange(O.UnitToIndex, nullptr);
    CodeBytes = std::exchange(O.CodeBytes, 0);
    HasErrors = std::exchange(O.HasErrors, false);
    return *this;
  }

  /// Decodes \p Code as \p V's bytecode, appending findings to
  /// \p Findings.
  static InstructionStream decode(llvm::StringRef Code,
                                  std::vector<Finding> &Findings,
                                  PythonVersion V = defaultPythonVersion());

  llvm::ArrayRef<Instruction> instructions() const { return {Insts, NumInsts}; }
  size_t size() const { return NumInsts; }
  const Instruction &operator[](size_t I) const { return Insts[I]; }
  uint32_t codeSize() const { return CodeBytes; }
  /// True when a bytecode-decode or jump-target-invalid error was found.
  bool hasErrors() const { return HasErrors; }

  /// Index of the instruction whose Start is \p ByteOffset, or -1.
  int64_t indexAtStart(uint64_t ByteOffset) const {
    int64_t I = indexContaining(ByteOffset);
    if (I < 0 || Insts[I].Start != ByteOffset)
      return -1;
    return I;
  }
  /// Index of the instruction covering byte \p ByteOffset, or -1 if outside.
  int64_t indexContaining(uint64_t ByteOffset) const {
    if (ByteOffset >= CodeBytes)
      return -1;
    return UnitToIndex[ByteOffset / 2];
  }
  /// Index of the instruction whose opcode unit is at \p ByteOffset, or -1.
  int64_t indexAtOffset(uint64_t ByteOffset) const {
    int64_t I = indexContaining(ByteOffset);
    if (I < 0 || Insts[I].Offset != ByteOffset)
      return -1;
    return I;
  }

private:
  /// One allocation per stream (the decoder's: what it did not fill is
  /// never read): the unit map, then the instructions.
  InstructionBuffer Buffer;
  Instruction *Insts = nullptr;
  size_t NumInsts = 0;
  /// Per code unit: the covering instruction (and a few entries past the
  /// code, which the decoder writes and nothing reads). The lookups above
  /// are inline: the CFG and the table checks ask them per jump and entry.
  uint32_t *UnitToIndex = nullptr;
  uint32_t CodeBytes = 0;
  bool HasErrors = false;
};

} // namespace pyverify

#endif
