//===- Opcode.h - Opcode identities and the facts a table row holds -*- C++
//-*-===//
//
// Contract: enum Opcode names every version's opcodes, each name once
// (OpcodeNames.def); it is an opcode's identity for the passes
// (Instruction::is()), never a byte. OpcodeInfo is one row of a version's
// opcode table (Opcodes3NN.def, one generator, scripts/gen-opcodes.py, one
// row shape for every version): what that version's opcode byte is and does.
// The tables are read through VersionOpcodes.h, by version and byte; there
// is no version-less lookup.
//
// Stack effects follow the compiler's stack_effect() (what `dis.stack_effect`
// returns): 3.11's PRECALL n books -n and CALL -1, though on the real stack
// CALL pops n + 2 (see the bytecode notes, section 4.5). They are computed in
// 64 bits, so a huge argument gives a huge (never a wrapped) effect.
//
// What an instruction really does to the operand stack -- how many values it
// pops and pushes on each edge, how deep it reads, which of its inputs and
// outputs may be NULL -- is getStackIO(), from the same row (the generator
// checks that pushes - pops is dis.stack_effect on both edges, PRECALL/CALL
// as a pair). Every analysis that moves values uses it; none has its own
// list.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_OPCODE_H
#define PYVERIFY_BYTECODE_OPCODE_H

#include "pyverify/Bytecode/PythonVersion.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstdint>

namespace pyverify {

/// Every version's opcodes, each name once. The values are not opcode
/// bytes: a version's byte is its table's (VersionOpcodes.h).
enum class Opcode : uint16_t {
#define PYV_OPCODE_NAME(Name) Name,
#include "pyverify/Bytecode/OpcodeNames.def"
  EndOfOpcodes
};
constexpr unsigned NumOpcodes = unsigned(Opcode::EndOfOpcodes);

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
  ArgBit0,            ///< arg & 1 (LOAD_ATTR's method bit)
  LoadSuperAttr,      ///< -2 + (arg & 1)
  CallN,              ///< -1 - arg (CALL without PRECALL)
  CallKw,             ///< -2 - arg (3.13's CALL_KW)
  BuildInterpolation, ///< -1 - (arg & 1) (3.14's BUILD_INTERPOLATION)
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
  TwoArgBit0, ///< 2 * (arg & 1) (a NULL pushed above the value)
};

struct StackCount {
  CountFormula Formula;
  int8_t K;
  int64_t eval(uint32_t Arg) const {
    // Most counts of most rows are constants: one test, no dispatch.
    if (Formula == CountFormula::Zero)
      return K;
    return evalFormula(Arg);
  }
  int64_t evalFormula(uint32_t Arg) const {
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

/// How `dis` shows an instruction's argument (its argrepr), measured on each
/// version's dis by scripts/gen-opcodes.py. Where an operand is a field of
/// the argument (a name above a NULL bit, a comparison above flag bits), the
/// field is the opcode's rule in OperandRules.def; the texts of enumerated
/// arguments are the version's ArgTextTable rows (VersionOpcodes.h).
enum class OperandKind : uint8_t {
  None,           ///< No argument.
  Const,          ///< co_consts index: the constant's repr.
  Name,           ///< co_names index.
  GlobalName,     ///< A name and bit 0: push NULL (NullFormat).
  AttrName,       ///< A name and bit 0: push NULL or self (NullSelfFormat).
  Local,          ///< localsplus index of a fast local.
  Free,           ///< localsplus index of a cell or free variable.
  LocalPair,      ///< Two localsplus indices (arg >> 4, arg & 15): "a, b".
  Jump,           ///< Relative jump distance in units: "to TARGET".
  Compare,        ///< A CompareOp index.
  CompareBool,    ///< A CompareOp index; bit 4 converts to bool
                  ///< (CompareBoolFormat).
  FormatValue,    ///< Conversion (bits 0-1) and has-spec (bit 2).
  Conversion,     ///< A Conversion index.
  MakeFunction,   ///< FunctionFlag bits.
  BinaryOp,       ///< A BinaryOp index.
  Intrinsic1,     ///< An Intrinsic1 index.
  Intrinsic2,     ///< An Intrinsic2 index.
  IsOp,           ///< 0 or not: IsOp text 0 or 1 ("is" / "is not").
  ContainsOp,     ///< 0 or not: ContainsOp text 0 or 1 ("in" / "not in").
  SpecialMethod,  ///< A SpecialMethod index (LOAD_SPECIAL).
  CommonConstant, ///< A CommonConstant index (LOAD_COMMON_CONSTANT).
  BackwardLabel,  ///< "to TARGET" counted backwards, for an instruction that
                  ///< never jumps (3.14's END_ASYNC_FOR: its loop's SEND).
  ImportName,     ///< name << 2 | lazy (1) / eager (2): 3.15's IMPORT_NAME.
  Raw,            ///< A count or enum dis shows as nothing.
};

/// One version's facts about one base opcode.
struct OpcodeInfo {
  const char *Name;
  uint8_t Number;
  uint8_t Caches; ///< Inline cache units after the opcode unit.
  bool HasArg;    ///< Takes an argument.
  Opcode Op;      ///< The opcode's identity across versions.
  /// Code units the interpreter steps over after taking the jump (an
  /// exhausted FOR_ITER skips the END_FOR at its target, and in some
  /// versions the POP_TOP after it); 0 elsewhere.
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

/// The opcode's name (any version's).
llvm::StringRef getOpcodeName(Opcode Op);

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

/// The real stack effect of an opcode whose facts are \p I with \p Arg on
/// the fall-through (\p Jump false) or the jump edge. Differs from the net
/// stack effect only for 3.11's PRECALL (pops nothing) and CALL (pops
/// n + 2), which sum to the same, and for a jump that skips instructions
/// (JumpSkip: their effect is included).
inline StackIO getStackIO(const OpcodeInfo &I, uint32_t Arg, bool Jump) {
  StackIO R;
  R.Pops = (Jump ? I.JumpPops : I.Pops).eval(Arg);
  R.Pushes = (Jump ? I.JumpPushes : I.Pushes).eval(Arg);
  R.Reads = std::max(R.Pops, I.Reads.eval(Arg));
  R.NullIn = uint64_t(I.NullIn.eval(Arg));
  R.NullOut = uint64_t(I.NullOut.eval(Arg));
  return R;
}
/// Whether an ArgDependent opcode (RESUME) of \p V may raise with \p Arg: it
/// checks the eval breaker only at a function's start or after a yield
/// ((arg & VersionTraits::ResumeWhereMask) < 2).
inline bool argDependentMayRaise(uint32_t Arg, PythonVersion V) {
  return (Arg & traits(V).ResumeWhereMask) < 2;
}

} // namespace pyverify

#endif
