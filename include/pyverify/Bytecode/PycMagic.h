//===- PycMagic.h - Which Python wrote a .pyc -------------------*- C++ -*-===//
//
// Contract: the one table of CPython .pyc magic numbers pyverify knows,
// 3.6 to 3.15, each version with the range of numbers its alphas, betas
// and release used (importlib's _bootstrap_external.py, from 3.13 on
// Include/internal/pycore_magic_number.h: each version starts a new range)
// and its release number where it is known. pythonVersionOfMagic() names the
// version of a magic number, describeMagic() says it for a message: "magic
// 3531 is Python 3.12's" / "... (a 3.12 pre-release)" / "magic 1234 is not a
// CPython 3.6 to 3.15 magic number".
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_PYCMAGIC_H
#define PYVERIFY_BYTECODE_PYCMAGIC_H

#include <cstdint>
#include <optional>
#include <string>

namespace pyverify {

struct PythonMagicRange {
  unsigned Major, Minor;
  uint16_t First;   ///< First magic number of the version's range.
  uint16_t End;     ///< One past the last (the next version's First).
  uint16_t Release; ///< The x.y.0 release's magic; 0 when not known here.
};

/// Ordered by version. Release magics checked against importlib.util.
/// MAGIC_NUMBER of each CPython 3.6 to 3.13, and of 3.14.2 (Pyodide's, in
/// which importlib.util.MAGIC_NUMBER is 3627; a release's magic does not
/// change within its series); 3.14's range from pycore_magic_number.h
/// ("Python 3.15 will start with 3650"); 3.15's release magic is
/// 3.15.0rc1's (Pyodide's importlib.util.MAGIC_NUMBER, 3666: 3.15 freezes
/// its bytecode at rc1; check the final's when a build of it appears); the
/// range's end is the next fifty's rule, not measured.
inline constexpr PythonMagicRange PythonMagicRanges[] = {
    {3, 6, 3360, 3390, 3379},  {3, 7, 3390, 3400, 3394},
    {3, 8, 3400, 3420, 3413},  {3, 9, 3420, 3430, 3425},
    {3, 10, 3430, 3450, 3439}, {3, 11, 3450, 3500, 3495},
    {3, 12, 3500, 3550, 3531}, {3, 13, 3550, 3600, 3571},
    {3, 14, 3600, 3650, 3627}, {3, 15, 3650, 3700, 3666},
};

inline std::optional<PythonMagicRange> pythonVersionOfMagic(uint16_t Magic) {
  for (const PythonMagicRange &R : PythonMagicRanges)
    if (R.First <= Magic && Magic < R.End)
      return R;
  return std::nullopt;
}

/// "magic 3531 is Python 3.12's", for a message about a .pyc.
inline std::string describeMagic(uint16_t Magic) {
  std::string S = "magic " + std::to_string(Magic);
  std::optional<PythonMagicRange> R = pythonVersionOfMagic(Magic);
  if (!R)
    return S + " is not a CPython 3.6 to 3.15 magic number";
  std::string V = std::to_string(R->Major) + "." + std::to_string(R->Minor);
  S += " is Python " + V + "'s";
  if (R->Release && Magic < R->Release)
    S += " (a " + V + " pre-release)";
  return S;
}

} // namespace pyverify

#endif
