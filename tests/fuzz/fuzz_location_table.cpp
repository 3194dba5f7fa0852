//===- fuzz_location_table.cpp - Fuzz decodeLocationTable -----------------===//
//
// Input layout (make_seeds.py writes it from real code objects):
//
//   bytes 0-3  co_firstlineno, little-endian int32
//   bytes 4-7  number of code units, little-endian uint32
//   the rest   co_linetable
//
// decodeLocationTable() must never crash, and on success return exactly one
// Position per code unit; errors must name a byte offset. A second decode
// must give the same answer (no hidden state), and validateLocationTable()
// the same verdict and error as decoding.
//
//===----------------------------------------------------------------------===//

#include "FuzzCheck.h"

#include "pyverify/Bytecode/LocationTable.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>

using namespace pyverify;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size < 8)
    return 0;
  int32_t FirstLine = int32_t(llvm::support::endian::read32le(Data));
  uint32_t Units = llvm::support::endian::read32le(Data + 4);
  llvm::StringRef Table(reinterpret_cast<const char *>(Data + 8), Size - 8);

  auto Positions = decodeLocationTable(Table, FirstLine, Units);
  // validateLocationTable() scans without decoding: it must accept exactly
  // the tables decoding accepts, with the same error for the others.
  llvm::Error Valid = validateLocationTable(Table, FirstLine, Units);
  if (!Positions) {
    std::string Msg = llvm::toString(Positions.takeError());
    FUZZ_CHECK(llvm::StringRef(Msg).startswith("at byte "),
               "error without a byte offset: %s", Msg.c_str());
    FUZZ_CHECK(bool(Valid), "validate accepts what decode rejects: %s",
               Msg.c_str());
    std::string VMsg = llvm::toString(std::move(Valid));
    FUZZ_CHECK(VMsg == Msg, "validate says '%s', decode '%s'", VMsg.c_str(),
               Msg.c_str());
    return 0;
  }
  if (Valid) {
    std::string VMsg = llvm::toString(std::move(Valid));
    FUZZ_CHECK(false, "validate rejects what decode accepts: %s", VMsg.c_str());
  }
  FUZZ_CHECK(Positions->size() == Units, "%zu positions for %u code units",
             Positions->size(), Units);
  // Every entry covers 1 to 8 units and takes at least one byte.
  FUZZ_CHECK(uint64_t(Units) <= 8 * uint64_t(Table.size()),
             "%u units from a %zu-byte table", Units, Table.size());

  auto Again = decodeLocationTable(Table, FirstLine, Units);
  if (!Again) {
    std::string Msg = llvm::toString(Again.takeError());
    FUZZ_CHECK(false, "second decode failed: %s", Msg.c_str());
  }
  FUZZ_CHECK(*Again == *Positions, "second decode differs");
  return 0;
}
