//===- PythonVersion.h - The CPython versions pyverify reads ----*- C++ -*-===//
//
// Contract: PythonVersion names the bytecode dialects pyverify has opcode
// tables (VersionOpcodes.h) and a traits row (VersionTraits.def) for. This
// header and the tables are the only places that name a version: a pass asks
// traits(V) for a shape fact, and the version's opcode table for an opcode
// fact, and never compares versions. Each enumerator has exactly one traits
// row, in order, or the library does not compile.
//
// A .pyc says its version by its magic number (PycMagic.h); a marshalled
// code object does not, and is read as defaultPythonVersion() unless the
// caller says otherwise (--python-version); a bundle says it
// (Bundle.h). Names are "3.11", "3.12", "3.13", "3.14", "3.15".
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_PYTHONVERSION_H
#define PYVERIFY_BYTECODE_PYTHONVERSION_H

#include "pyverify/Bytecode/PycMagic.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>

namespace pyverify {

enum class PythonVersion : uint8_t { V3_11, V3_12, V3_13, V3_14, V3_15 };

inline constexpr PythonVersion AllPythonVersions[] = {
    PythonVersion::V3_11, PythonVersion::V3_12, PythonVersion::V3_13,
    PythonVersion::V3_14, PythonVersion::V3_15};
inline constexpr unsigned NumPythonVersions = std::size(AllPythonVersions);

/// The version a marshalled code object with no other evidence is read as.
constexpr PythonVersion defaultPythonVersion() { return PythonVersion::V3_11; }

/// One version's shape facts; the columns are documented in
/// VersionTraits.def.
struct VersionTraits {
  PythonVersion Version;
  const char *Name; ///< "3.12"
  uint8_t Major, Minor;
  bool PrecallBeforeCall;
  bool NullAfterCallable;
  bool MethodBitInLoadAttr;
  bool LoadFastChecksBound;
  bool BreakerAtBackEdgeTarget;
  bool TraceEventAtPrefixAndOpcode;
  uint32_t ResumeWhereMask;
  bool SendJumpCompletesAwait;
  uint8_t WithExitSlots;
  uint8_t MarshalVersion;
  bool CalleeRaiseLookupBefore;
};

namespace detail {
inline constexpr VersionTraits TheVersionTraits[] = {
#define PYV_VERSION(Id, Maj, Min, Precall, NullAfter, MethodBit, FastChecks,   \
                    BreakerAtTarget, PrefixEvents, ResumeMask, SendCompletes,  \
                    ExitSlots, MarshalVer, CalleeBefore)                       \
  VersionTraits{PythonVersion::Id, #Maj "." #Min, Maj,         Min,            \
                Precall,           NullAfter,     MethodBit,   FastChecks,     \
                BreakerAtTarget,   PrefixEvents,  ResumeMask,  SendCompletes,  \
                ExitSlots,         MarshalVer,    CalleeBefore},
#include "pyverify/Bytecode/VersionTraits.def"
};

constexpr bool traitsRowsAreTheVersions() {
  if (std::size(TheVersionTraits) != NumPythonVersions)
    return false;
  for (unsigned K = 0; K < NumPythonVersions; ++K)
    if (TheVersionTraits[K].Version != AllPythonVersions[K] ||
        unsigned(AllPythonVersions[K]) != K)
      return false;
  return true;
}
static_assert(traitsRowsAreTheVersions(),
              "VersionTraits.def must have one row per PythonVersion, in "
              "enum order: a version without a row has no shape facts");
} // namespace detail

/// \p V's shape facts.
constexpr const VersionTraits &traits(PythonVersion V) {
  return detail::TheVersionTraits[unsigned(V)];
}

inline llvm::StringRef pythonVersionName(PythonVersion V) {
  return traits(V).Name;
}

/// "3.11, 3.12 and 3.13" (each name followed by \p Suffix), for messages.
inline std::string
pythonVersionList(llvm::ArrayRef<PythonVersion> Vs = AllPythonVersions,
                  llvm::StringRef Suffix = "") {
  std::string S;
  for (size_t K = 0; K < Vs.size(); ++K)
    S += (K == 0               ? ""
          : K + 1 == Vs.size() ? " and "
                               : ", ") +
         pythonVersionName(Vs[K]).str() + Suffix.str();
  return S;
}

/// "3495, 3531, 3571 and 3627": each version's release .pyc magic
/// (PycMagic.h), in version order.
inline std::string releaseMagicList() {
  std::string S;
  for (size_t K = 0; K < NumPythonVersions; ++K) {
    const VersionTraits &T = traits(AllPythonVersions[K]);
    for (const PythonMagicRange &R : PythonMagicRanges)
      if (R.Major == T.Major && R.Minor == T.Minor)
        S += (K == 0                       ? ""
              : K + 1 == NumPythonVersions ? " and "
                                           : ", ") +
             std::to_string(R.Release);
  }
  return S;
}

/// "3.12" -> V3_12; nullopt for a version without tables.
inline std::optional<PythonVersion> parsePythonVersion(llvm::StringRef S) {
  for (PythonVersion V : AllPythonVersions)
    if (S == pythonVersionName(V))
      return V;
  return std::nullopt;
}

/// The version with tables that is CPython \p Major.\p Minor, if any.
constexpr std::optional<PythonVersion> pythonVersionOf(unsigned Major,
                                                       unsigned Minor) {
  for (PythonVersion V : AllPythonVersions)
    if (traits(V).Major == Major && traits(V).Minor == Minor)
      return V;
  return std::nullopt;
}

/// The version with tables whose release magic \p Magic is (or a later
/// magic of the same version); a pre-release's bytecode may differ from the
/// release's, so its magic gives none.
inline std::optional<PythonVersion> pythonVersionOfPycMagic(uint16_t Magic) {
  std::optional<PythonMagicRange> R = pythonVersionOfMagic(Magic);
  if (!R || Magic < R->Release)
    return std::nullopt;
  return pythonVersionOf(R->Major, R->Minor);
}

} // namespace pyverify

#endif
