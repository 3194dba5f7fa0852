//===- UnicodePrintable.cpp - What repr() of a str escapes ----------------===//

#include "pyverify/Bytecode/UnicodePrintable.h"

#include <algorithm>
#include <array>
#include <iterator>

using namespace pyverify;

namespace {

struct Unprintable {
  PythonVersion V;
  uint32_t First, Last;
};

constexpr Unprintable Rows[] = {
#define PYV_UNPRINTABLE(Version, First, Last)                                  \
  {PythonVersion::Version, First, Last},
#include "pyverify/Bytecode/UnicodeUnprintable.def"
};

/// Where each version's rows start (its end is the next version's start).
constexpr std::array<unsigned, NumPythonVersions + 1> versionStarts() {
  std::array<unsigned, NumPythonVersions + 1> Starts{};
  unsigned R = 0;
  for (unsigned K = 0; K < NumPythonVersions; ++K) {
    Starts[K] = R;
    while (R < std::size(Rows) && unsigned(Rows[R].V) == K)
      ++R;
  }
  Starts[NumPythonVersions] = R;
  return Starts;
}
constexpr auto Starts = versionStarts();

/// The rows are grouped by version in order, each version has some, and
/// within a version they are sorted, disjoint and non-ASCII.
constexpr bool rowsAreWellFormed() {
  if (Starts[NumPythonVersions] != std::size(Rows))
    return false;
  for (unsigned K = 0; K < NumPythonVersions; ++K) {
    if (Starts[K] == Starts[K + 1])
      return false;
    for (unsigned R = Starts[K]; R < Starts[K + 1]; ++R) {
      if (Rows[R].First < 0x80 || Rows[R].First > Rows[R].Last ||
          Rows[R].Last > 0x10ffff)
        return false;
      if (R > Starts[K] && Rows[R - 1].Last >= Rows[R].First)
        return false;
    }
  }
  return true;
}
static_assert(rowsAreWellFormed(),
              "UnicodeUnprintable.def: rows grouped by version, in order, "
              "sorted and disjoint");

} // namespace

bool pyverify::isPrintableCodePoint(PythonVersion V, uint32_t C) {
  if (C < 0x80)
    return C >= 0x20 && C < 0x7f;
  if (C > 0x10ffff)
    return false;
  const Unprintable *Begin = Rows + Starts[unsigned(V)];
  const Unprintable *End = Rows + Starts[unsigned(V) + 1];
  // The last row starting at or below C decides.
  const Unprintable *After =
      std::upper_bound(Begin, End, C, [](uint32_t X, const Unprintable &U) {
        return X < U.First;
      });
  return After == Begin || C > After[-1].Last;
}
