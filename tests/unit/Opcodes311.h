//===- Opcodes311.h - 3.11's table by opcode, for the unit tests -*- C++
//-*-===//
//
// The unit tests that check 3.11's opcode table row by row (against
// python3.11's dis, tests/unit/opcode_reference.py) and build 3.11 code by
// hand ask for its rows by opcode and byte. The library has no version-less
// lookup; these helpers name the version once for those tests.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_TESTS_UNIT_OPCODES311_H
#define PYVERIFY_TESTS_UNIT_OPCODES311_H

#include "pyverify/Bytecode/VersionOpcodes.h"

#include <cassert>

namespace pyverify::test311 {

constexpr PythonVersion V = PythonVersion::V3_11;
constexpr uint8_t HaveArgument = 90;

/// 3.11's row for \p Byte; CACHE's row too (the table keeps it, though
/// CACHE is never an instruction and getVersionOpcodeInfo() says null).
inline const OpcodeInfo *getOpcodeInfo(uint8_t Byte) {
  if (Byte == 0)
    return &detail::TheVersionTables[unsigned(V)].Infos[0];
  return getVersionOpcodeInfo(V, Byte);
}
inline const OpcodeInfo &getOpcodeInfo(Opcode Op) {
  const OpcodeInfo *I =
      Op == Opcode::CACHE ? getOpcodeInfo(0) : getVersionOpcodeInfo(V, Op);
  assert(I && "a 3.11 opcode");
  return *I;
}
/// The opcode 3.11's byte \p Byte is (CACHE for none).
inline Opcode opcodeOf(unsigned Byte) {
  const OpcodeInfo *I = getOpcodeInfo(uint8_t(Byte));
  return I ? I->Op : Opcode::CACHE;
}
inline uint8_t byteOf(Opcode Op) { return getOpcodeInfo(Op).Number; }
inline int64_t getStackEffect(Opcode Op, uint32_t Arg, bool Jump) {
  return getOpcodeInfo(Op).stackEffect(Arg, Jump);
}
inline StackIO getStackIO(Opcode Op, uint32_t Arg, bool Jump) {
  return pyverify::getStackIO(getOpcodeInfo(Op), Arg, Jump);
}
inline bool mayRaise(Opcode Op, uint32_t Arg) {
  switch (getOpcodeInfo(Op).Raises) {
  case RaiseKind::Never:
    return false;
  case RaiseKind::Always:
    return true;
  case RaiseKind::ArgDependent:
    return argDependentMayRaise(Arg, V);
  }
  return true;
}
inline llvm::StringRef getSpecializedOpcodeName(uint8_t Byte) {
  return pyverify::getSpecializedOpcodeName(V, Byte);
}

} // namespace pyverify::test311

#endif
