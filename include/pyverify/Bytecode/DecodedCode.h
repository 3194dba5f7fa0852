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
// offsets (a broken location table leaves it well-formed: positions are then
// empty).
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_DECODEDCODE_H
#define PYVERIFY_BYTECODE_DECODEDCODE_H

#include "pyverify/Bytecode/CodeObject.h"
#include "pyverify/Bytecode/ExceptionTable.h"
#include "pyverify/Bytecode/InstructionStream.h"
#include "pyverify/Bytecode/LocationTable.h"
#include "pyverify/Support/Finding.h"

#include <optional>
#include <vector>

namespace pyverify {

struct DecodedCode {
  const CodeObject *Code = nullptr;
  InstructionStream Insts;
  std::vector<ExceptionTableEntry> Table;
  bool TableDecoded = false;
  /// co_linetable decoded and tiling the code (else a location-table-decode
  /// finding).
  bool LocationsDecoded = false;
  std::vector<Finding> Findings;

  static DecodedCode decode(const CodeObject &C);

private:
  mutable std::optional<std::vector<Position>> PositionCache;

public:
  /// Position of the unit at byte \p Offset (an instruction's opcode unit),
  /// or an empty Position when the location table did not decode.
  Position positionAt(uint32_t Offset) const {
    const std::vector<Position> &P = positions();
    size_t Unit = Offset / 2;
    return Unit < P.size() ? P[Unit] : Position{};
  }

  /// One Position per code unit; empty if the table did not decode. Decoded
  /// on first use (decode() only validates the table: positions are needed
  /// to place findings and list code, not to analyse it), so, like any
  /// lazily filled cache, not to be called from two threads at once on the
  /// same DecodedCode.
  const std::vector<Position> &positions() const;

  /// No error-severity finding from the instruction decoder or the
  /// exception table's decoder and validator: offsets, targets and the
  /// table can be trusted by later passes. A broken location table does not
  /// count: positions place findings, they do not change what runs.
  bool isWellFormed() const;
  /// The first finding that makes the code not well-formed, or null.
  const Finding *firstMalformation() const;
};

} // namespace pyverify

#endif
