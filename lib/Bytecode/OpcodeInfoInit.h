//===- OpcodeInfoInit.h - One OpcodeInfo from a table row -------*- C++ -*-===//
//
// Contract: PYV_OPCODE_INFO builds an OpcodeInfo (Opcode.h) from the columns
// of a row of an Opcodes3NN.def, so that every version's table
// (VersionOpcodes.cpp) turns rows into facts one way. Private to
// lib/Bytecode.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_LIB_BYTECODE_OPCODEINFOINIT_H
#define PYVERIFY_LIB_BYTECODE_OPCODEINFOINIT_H

#include "pyverify/Bytecode/Opcode.h"

#define PYV_COUNT(Formula, K)                                                  \
  StackCount { CountFormula::Formula, K }

/// A row's columns, in the order of PYV_VERSION_OPCODE.
#define PYV_OPCODE_INFO(Name, Num, Caches, HasArg, JumpK, Term, RaisesK,       \
                        EffectK, FT, JT, OperandK, Skip, Pops, Pushes, JPops,  \
                        JPushes, Reads, NullIn, NullOut)                       \
  OpcodeInfo {                                                                 \
#Name, Num, Caches, HasArg, Opcode::Name, Skip, JumpKind::JumpK, Term,     \
        RaiseKind::RaisesK, EffectKind::EffectK, FT, JT,                       \
        OperandKind::OperandK, PYV_COUNT Pops, PYV_COUNT Pushes,               \
        PYV_COUNT JPops, PYV_COUNT JPushes, PYV_COUNT Reads, PYV_COUNT NullIn, \
        PYV_COUNT NullOut                                                      \
  }

#endif
