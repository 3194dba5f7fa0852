//===- TestVersions.h - The versions' short names in tests ------*- C++ -*-===//
//
// V311, V312, V313 for PythonVersion::V3_11 ... in every unit test, declared
// once: the unit tests may be compiled as one translation unit per batch
// (PYVERIFY_UNITY_BUILD), where two files' own copies would collide.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_TESTS_UNIT_TESTVERSIONS_H
#define PYVERIFY_TESTS_UNIT_TESTVERSIONS_H

#include "pyverify/Bytecode/PythonVersion.h"

namespace pyverify::test {

inline constexpr PythonVersion V311 = PythonVersion::V3_11,
                               V312 = PythonVersion::V3_12,
                               V313 = PythonVersion::V3_13;

} // namespace pyverify::test

#endif
