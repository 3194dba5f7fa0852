//===- DecodedCode.h - One code object, decoded and validated ---*- C++ -*-===//
//
// Contract: DecodedCode::decode() runs every Bytecode-layer decoder and
// validator on one code object and never fails: instructions (always),
// exception table and positions (when their bytes decode; otherwise the
// llvm::Error text becomes an exception-table-decode / location-table-decode
// finding and the member stays empty), and every finding of the instruction
// decoder and the table validator, in a deterministic order.
//
// It borrows the CodeObject, which must outlive it. Later layers (CFG,
// analyses) take a DecodedCode and must check isWellFormed() before trusting
// offsets.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_DECODEDCODE_H
#define PYVERIFY_BYTECODE_DECODEDCODE_H

#include "pyverify/Bytecode/CodeObject.h"
#include "pyverify/Bytecode/ExceptionTable.h"
#include "pyverify/Bytecode/InstructionStream.h"
#include "pyverify/Bytecode/LocationTable.h"
#include "pyverify/Support/Finding.h"

#include <vector>

namespace pyverify {

struct DecodedCode {
  const CodeObject *Code = nullptr;
  InstructionStream Insts;
  std::vector<ExceptionTableEntry> Table;
  bool TableDecoded = false;
  std::vector<Position> Positions; ///< Per code unit; empty if undecodable.
  std::vector<Finding> Findings;

  static DecodedCode decode(const CodeObject &C);

  /// Position of the unit at byte \p Offset (an instruction's opcode unit),
  /// or an empty Position when the location table did not decode.
  Position positionAt(uint32_t Offset) const {
    size_t Unit = Offset / 2;
    return Unit < Positions.size() ? Positions[Unit] : Position{};
  }

  /// No error-severity finding from decoding or table validation: offsets,
  /// targets and the table can be trusted by later passes.
  bool isWellFormed() const;
};

} // namespace pyverify

#endif
