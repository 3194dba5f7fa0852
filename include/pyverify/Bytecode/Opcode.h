//===- Opcode.h - CPython 3.11 base opcodes ---------------------*- C++ -*-===//
//
// Contract: the facts about each of the 110 base opcodes that may appear in a
// 3.11 co_code (specialised, pseudo and internal opcodes are not opcodes
// here: getOpcodeInfo() returns null for them). All facts come from
// Opcodes.def, which scripts/gen-opcodes.py generates from python3.11's own
// tables; OpcodeTableTest re-checks every field against `dis`.
//
// Stack effects follow the compiler's stack_effect() (what `dis.stack_effect`
// returns): PRECALL n books -n and CALL -1, though on the real stack CALL pops
// n + 2 (see the bytecode notes, section 4.5). They are computed in 64 bits,
// so a huge argument gives a huge (never a wrapped) effect.
//
// What an instruction really does to the operand stack -- how many values it
// pops and pushes on each edge, how deep it reads, which of its inputs and
// outputs may be NULL -- is getStackIO(), from the same table (Python/ceval.c;
// the generator checks that pushes - pops is dis.stack_effect on both edges,
// PRECALL/CALL as a pair). Every analysis that moves values (stack depth,
// context balance, the prover) uses it; none has its own list.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_OPCODE_H
#define PYVERIFY_BYTECODE_OPCODE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstdint>

namespace pyverify {

/// Every version's opcodes, each name once. A 3.11 name's value is its 3.11
/// number (3.11 code can be read as `Opcode(byte)`); the names 3.12 and 3.13
/// added (OpcodeNames.def) count up from 256. What an opcode does in a version
/// is that version's table (VersionOpcodes.h); the enumerator is its identity
/// for the passes (Instruction::is()).
enum class Opcode : uint16_t {
#define PYV_OPCODE(Name, Num, Caches, Jump, Term, Raises, Effect, FT, JT, Op,  \
                   Pops, Pushes, JPops, JPushes, Reads, NullIn, NullOut)       \
  Name = Num,
#include "pyverify/Bytecode/Opcodes.def"
  LastOf311 = 255,
#define PYV_NEW_OPCODE(Name) Name,
#include "pyverify/Bytecode/OpcodeNames.def"
  EndOfOpcodes
};
constexpr unsigned NumNewOpcodes = unsigned(Opcode::EndOfOpcodes) - 256;

constexpr uint8_t HaveArgument = 90;

enum class JumpKind : uint8_t {
  None,
  Forward,      ///< Unconditional forward (JUMP_FORWARD).
  ForwardCond,  ///< Forward and may fall through.
  Backward,     ///< Unconditional backward.
  BackwardCond, ///< Backward and may fall through.
};

enum class RaiseKind : uint8_t {
  Never,        ///< Cannot raise without a tracer.
  Always,       ///< May raise.
  ArgDependent, ///< RESUME: may raise only with argument 0 or 1.
};

enum class EffectKind : uint8_t {
  Const,
  UnpackSequence,
  UnpackEx,
  BuildN,
  BuildMap,
  NegArg,
  LoadGlobal,
  CallFunctionEx,
  MakeFunction,
  BuildSlice,
  FormatValue,
  // 3.12 and 3.13 only (Opcodes312.def, Opcodes313.def).
  ArgBit0,       ///< arg & 1 (LOAD_ATTR's method bit)
  LoadSuperAttr, ///< -2 + (arg & 1)
  CallN,         ///< -1 - arg (CALL without PRECALL)
  CallKw,        ///< -2 - arg (3.13's CALL_KW)
};

/// The net stack effect an EffectKind formula gives for \p Arg (\p FT and
/// \p JT: the constants of Const on the fall-through and the jump edge).
int64_t evalStackEffect(EffectKind Effect, int8_t FT, int8_t JT, uint32_t Arg,
                        bool Jump);

/// A count of stack slots as a function of the argument: Formula(arg) + K.
enum class CountFormula : uint8_t {
  Zero,       ///< 0
  Arg,        ///< arg
  TwoArg,     ///< 2 * arg
  ArgBit0,    ///< arg & 1
  ArgBit2,    ///< (arg >> 2) & 1
  Popcount4,  ///< the number of bits set in arg & 0xF
  UnpackEx,   ///< (arg & 0xFF) + (arg >> 8)
  ArgIs3,     ///< arg == 3
  TwoArgBit0, ///< 2 * (arg & 1) (3.13: a NULL pushed above the value)
};

struct StackCount {
  CountFormula Formula;
  int8_t K;
  int64_t eval(uint32_t Arg) const {
    int64_t A = Arg;
    switch (Formula) {
    case CountFormula::Zero:
      return K;
    case CountFormula::Arg:
      return A + K;
    case CountFormula::TwoArg:
      return 2 * A + K;
    case CountFormula::ArgBit0:
      return (A & 1) + K;
    case CountFormula::ArgBit2:
      return ((A >> 2) & 1) + K;
    case CountFormula::Popcount4:
      return int64_t(std::popcount(Arg & 0xFu)) + K;
    case CountFormula::UnpackEx:
      return (A & 0xFF) + (A >> 8) + K;
    case CountFormula::ArgIs3:
      return (A == 3 ? 1 : 0) + K;
    case CountFormula::TwoArgBit0:
      return 2 * (A & 1) + K;
    }
    llvm_unreachable("unknown count formula");
  }
};

/// What an instruction's argument means (dis's hasconst/hasname/... lists).
enum class OperandKind : uint8_t {
  None,         ///< No argument.
  Const,        ///< co_consts index.
  Name,         ///< co_names index.
  GlobalName,   ///< (co_names index << 1) | push_null.
  Local,        ///< localsplus index of a fast local.
  Free,         ///< localsplus index of a cell or free variable.
  Jump,         ///< Relative jump distance in units.
  Compare,      ///< cmp_op index.
  FormatValue,  ///< Conversion (bits 0-1) and has-spec (bit 2).
  MakeFunction, ///< Flags: defaults, kwdefaults, annotations, closure.
  BinaryOp,     ///< NB_* operator index.
  Raw,          ///< A count or enum with no table to look up.
};

/// One version's facts about one base opcode.
struct OpcodeInfo {
  const char *Name;
  uint8_t Number;
  uint8_t Caches; ///< Inline cache units after the opcode unit.
  bool HasArg;    ///< Takes an argument (3.11: Number >= HaveArgument).
  Opcode Op;      ///< The opcode's identity across versions.
  /// Code units the interpreter steps over after taking the jump (3.12's
  /// exhausted FOR_ITER skips the END_FOR at its target, 3.13's also the
  /// POP_TOP after it); 0 elsewhere.
  uint8_t JumpSkip;
  JumpKind Jump;
  bool Terminator; ///< No fall-through successor.
  RaiseKind Raises;
  EffectKind Effect;
  int8_t FallThroughEffect; ///< Used when Effect == Const.
  int8_t JumpEffect;        ///< Used when Effect == Const.
  OperandKind Operand;
  /// The real stack: pops and pushes on the fall-through and the jump edge,
  /// the deepest slot read, NULL-able inputs and outputs (bit masks, bit 0 =
  /// the deepest popped / pushed value).
  StackCount Pops, Pushes, JumpPops, JumpPushes, Reads, NullIn, NullOut;

  bool hasArg() const { return HasArg; }
  bool isJump() const { return Jump != JumpKind::None; }
  bool isBackwardJump() const {
    return Jump == JumpKind::Backward || Jump == JumpKind::BackwardCond;
  }
  bool isConditionalJump() const {
    return Jump == JumpKind::ForwardCond || Jump == JumpKind::BackwardCond;
  }
  /// Net stack effect (dis.stack_effect) with argument \p Arg.
  int64_t stackEffect(uint32_t Arg, bool JumpEdge) const;
};

namespace detail {
/// Opcodes.def as arrays indexed by opcode byte, built at compile time
/// (Opcode.cpp); read through the functions below.
struct OpcodeTable {
  std::array<OpcodeInfo, 256> Infos;
  std::array<bool, 256> Valid;
  std::array<const char *, 256> Specialized;
  std::array<uint8_t, 256> Deopt;
};
extern const OpcodeTable TheOpcodeTable;
} // namespace detail

/// Info for a base opcode byte, or null for specialised, pseudo, unused and
/// internal opcode numbers.
inline const OpcodeInfo *getOpcodeInfo(uint8_t Byte) {
  return detail::TheOpcodeTable.Valid[Byte]
             ? &detail::TheOpcodeTable.Infos[Byte]
             : nullptr;
}
/// The 3.11 facts of a 3.11 opcode.
inline const OpcodeInfo &getOpcodeInfo(Opcode Op) {
  assert(unsigned(Op) < 256 && detail::TheOpcodeTable.Valid[unsigned(Op)] &&
         "a 3.11 base opcode");
  return detail::TheOpcodeTable.Infos[unsigned(Op)];
}
/// The opcode's name (any version's).
llvm::StringRef getOpcodeName(Opcode Op);

/// Stack effect of \p Op with argument \p Arg on the fall-through edge
/// (\p Jump false) or the jump edge (\p Jump true), as dis.stack_effect.
int64_t getStackEffect(Opcode Op, uint32_t Arg, bool Jump);

/// What an instruction really does to the operand stack on one edge.
struct StackIO {
  int64_t Pops = 0;     ///< Values taken off (one replaced in place counts).
  int64_t Pushes = 0;   ///< Values put on.
  int64_t Reads = 0;    ///< The deepest slot read, >= Pops (PEEK(Reads)).
  uint64_t NullIn = 0;  ///< Bit k: the k-th popped value (0 = deepest) may be
                        ///< NULL.
  uint64_t NullOut = 0; ///< Bit k: the k-th pushed value (0 = deepest) may
                        ///< be NULL.
  int64_t net() const { return Pushes - Pops; }
};

/// The real stack effect of an opcode whose facts are \p I (any version)
/// with \p Arg on the fall-through (\p Jump false) or the jump edge. Differs
/// from the net stack effect only for 3.11's PRECALL (pops nothing) and CALL
/// (pops n + 2), which sum to the same, and for a jump that skips
/// instructions (JumpSkip: their effect is included).
inline StackIO getStackIO(const OpcodeInfo &I, uint32_t Arg, bool Jump) {
  StackIO R;
  R.Pops = (Jump ? I.JumpPops : I.Pops).eval(Arg);
  R.Pushes = (Jump ? I.JumpPushes : I.Pushes).eval(Arg);
  R.Reads = std::max(R.Pops, I.Reads.eval(Arg));
  R.NullIn = uint64_t(I.NullIn.eval(Arg));
  R.NullOut = uint64_t(I.NullOut.eval(Arg));
  return R;
}
/// The same for a 3.11 opcode.
inline StackIO getStackIO(Opcode Op, uint32_t Arg, bool Jump) {
  return getStackIO(getOpcodeInfo(Op), Arg, Jump);
}

/// Whether an ArgDependent opcode (RESUME) may raise with \p Arg: it checks
/// the eval breaker only at a function's start or after a yield (3.11, 3.12:
/// arg < 2; 3.13 tests the location bits, arg & 3). \p V313: 3.13's rule.
inline bool argDependentMayRaise(uint32_t Arg, bool V313) {
  return (V313 ? (Arg & 3) : Arg) < 2;
}

/// Whether a 3.11 instruction may raise, by the rules of the bytecode notes
/// (section 1.3). (RaiseModel.h: any version, with what a pass knows.)
bool mayRaise(Opcode Op, uint32_t Arg);

/// For a specialised opcode byte, the info of the base opcode it stands for
/// (CPython's _PyOpcode_Deopt), else null.
const OpcodeInfo *getDeoptimizedOpcodeInfo(uint8_t Byte);

/// Name of a specialised opcode (e.g. "BINARY_OP_ADD_INT"), for diagnostics;
/// empty for other numbers.
llvm::StringRef getSpecializedOpcodeName(uint8_t Byte);

} // namespace pyverify

#endif
