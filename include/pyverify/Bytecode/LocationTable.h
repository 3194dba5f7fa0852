//===- LocationTable.h - PEP 657 location table -----------------*- C++ -*-===//
//
// Contract: decodeLocationTable() decodes co_linetable into one Position per
// code unit (prefixes and caches included), exactly what co_positions()
// yields: line, end line, column and end column, each absent when CPython
// yields None. The table must tile the code exactly; malformed or truncated
// bytes, or a table that covers fewer or more units than the code, are an
// llvm::Error naming the byte offset in the table.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_LOCATIONTABLE_H
#define PYVERIFY_BYTECODE_LOCATIONTABLE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace pyverify {

struct Position {
  std::optional<int32_t> Line, EndLine, Col, EndCol;
  bool operator==(const Position &) const = default;
};

llvm::Expected<std::vector<Position>>
decodeLocationTable(llvm::StringRef Table, int32_t FirstLineNo,
                    uint32_t NumCodeUnits);

/// The same decoding and the same errors, without materialising the
/// positions: what a verifier needs until it has something to report.
llvm::Error validateLocationTable(llvm::StringRef Table, int32_t FirstLineNo,
                                  uint32_t NumCodeUnits);

} // namespace pyverify

#endif
