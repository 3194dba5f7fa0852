//===- OpcodeInfoInit.h - One OpcodeInfo from a table row -------*- C++ -*-===//
//
// Contract: PYV_OPCODE_INFO builds an OpcodeInfo (Opcode.h) from the columns
// of a row of Opcodes.def or Opcodes3NN.def, so that the 3.11 table
// (Opcode.cpp) and every version's table (VersionOpcodes.cpp) turn rows into
// facts one way. Private to lib/Bytecode.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_LIB_BYTECODE_OPCODEINFOINIT_H
#define PYVERIFY_LIB_BYTECODE_OPCODEINFOINIT_H

#include "pyverify/Bytecode/Opcode.h"

#define PYV_COUNT(Formula, K)                                                  \
  StackCount { CountFormula::Formula, K }

#define PYV_OPCODE_INFO(Name, Num, Caches, HasArg, Skip, JumpK, Term, RaisesK, \
                        EffectK, FT, JT, OperandK, Pops, Pushes, JPops,        \
                        JPushes, Reads, NullIn, NullOut)                       \
  OpcodeInfo {                                                                 \
#Name, Num, Caches, HasArg, Opcode::Name, Skip, JumpKind::JumpK, Term,     \
        RaiseKind::RaisesK, EffectKind::EffectK, FT, JT,                       \
        OperandKind::OperandK, PYV_COUNT Pops, PYV_COUNT Pushes,               \
        PYV_COUNT JPops, PYV_COUNT JPushes, PYV_COUNT Reads, PYV_COUNT NullIn, \
        PYV_COUNT NullOut                                                      \
  }

/// A row of Opcodes.def (3.11: the argument flag is the number, nothing is
/// skipped after a jump target).
#define PYV_OPCODE_INFO_311(Name, Num, Caches, JumpK, Term, RaisesK, EffectK,  \
                            FT, JT, OperandK, Pops, Pushes, JPops, JPushes,    \
                            Reads, NullIn, NullOut)                            \
  PYV_OPCODE_INFO(Name, Num, Caches, (Num >= HaveArgument), 0, JumpK, Term,    \
                  RaisesK, EffectK, FT, JT, OperandK, Pops, Pushes, JPops,     \
                  JPushes, Reads, NullIn, NullOut)

#endif
