//===- RealStackEffect.h - What an instruction really pops ------*- C++ -*-===//
//
// Contract: getRealStackEffect() gives how many values an instruction pops
// and pushes on the interpreter's real stack (Python/ceval.c, 3.11), on the
// fall-through (Jump false) or the jump edge. Analyses that track *which*
// slot holds what (context balance: the slot of a bound __exit__) need this;
// the compiler's accounting (getStackEffect, dis.stack_effect) only gets the
// net right. The two agree on the net effect everywhere except PRECALL n
// (real: pops nothing) and CALL n (real: pops n + 2, pushes 1); SWAP and COPY
// also move or duplicate particular slots, see the analyses. A unit test
// checks the net against dis for every opcode and a sweep of arguments.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_REALSTACKEFFECT_H
#define PYVERIFY_BYTECODE_REALSTACKEFFECT_H

#include "pyverify/Bytecode/Opcode.h"

#include <cstdint>

namespace pyverify {

struct RealStackEffect {
  int64_t Pops;
  int64_t Pushes;
  int64_t net() const { return Pushes - Pops; }
};

RealStackEffect getRealStackEffect(Opcode Op, uint32_t Arg, bool Jump);

} // namespace pyverify

#endif
