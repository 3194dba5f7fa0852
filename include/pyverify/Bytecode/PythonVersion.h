//===- PythonVersion.h - The CPython versions pyverify reads ----*- C++ -*-===//
//
// Contract: PythonVersion names the bytecode dialects pyverify has opcode
// tables for (VersionOpcodes.h): CPython 3.11, 3.12 and 3.13. A .pyc says
// its version by its magic number (PycMagic.h); a marshalled code object
// does not, and is 3.11 unless the caller says otherwise
// (--python-version). Names are "3.11", "3.12", "3.13".
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_PYTHONVERSION_H
#define PYVERIFY_BYTECODE_PYTHONVERSION_H

#include "pyverify/Bytecode/PycMagic.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace pyverify {

enum class PythonVersion : uint8_t { V3_11, V3_12, V3_13 };

inline constexpr PythonVersion AllPythonVersions[] = {
    PythonVersion::V3_11, PythonVersion::V3_12, PythonVersion::V3_13};

inline llvm::StringRef pythonVersionName(PythonVersion V) {
  switch (V) {
  case PythonVersion::V3_11:
    return "3.11";
  case PythonVersion::V3_12:
    return "3.12";
  case PythonVersion::V3_13:
    return "3.13";
  }
  return "3.11";
}

/// "3.12" -> V3_12; nullopt for a version without tables.
inline std::optional<PythonVersion> parsePythonVersion(llvm::StringRef S) {
  for (PythonVersion V : AllPythonVersions)
    if (S == pythonVersionName(V))
      return V;
  return std::nullopt;
}

/// The version with tables whose release magic \p Magic is (or a later
/// magic of the same version); a pre-release's bytecode may differ from the
/// release's, so its magic gives none.
inline std::optional<PythonVersion> pythonVersionOfPycMagic(uint16_t Magic) {
  std::optional<PythonMagicRange> R = pythonVersionOfMagic(Magic);
  if (!R || R->Major != 3 || R->Minor < 11 || R->Minor > 13 ||
      Magic < R->Release)
    return std::nullopt;
  return PythonVersion(R->Minor - 11);
}

} // namespace pyverify

#endif
