//===- ParserTest.h - Helpers for the parsers' unit tests -------*- C++ -*-===//
//
// What the tests of the marshal reader, the exception table and the location
// table share: bytes written as hex (spaces and '|' between fields ignored)
// and "this Expected is an error whose message contains ...".
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_TESTS_UNIT_PARSERTEST_H
#define PYVERIFY_TESTS_UNIT_PARSERTEST_H

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include "gtest/gtest.h"

#include <string>

namespace pyverify::test {

/// The bytes \p Hex spells, ignoring ' ' and '|'.
inline std::string unhex(llvm::StringRef Hex) {
  std::string Digits;
  for (char C : Hex)
    if (C != ' ' && C != '|')
      Digits.push_back(C);
  return llvm::fromHex(Digits);
}

/// Success when \p R is an error whose message contains \p Needle.
template <typename T>
::testing::AssertionResult failsWith(llvm::Expected<T> R,
                                     llvm::StringRef Needle) {
  if (R)
    return ::testing::AssertionFailure()
           << "expected an error containing '" << Needle.str()
           << "', but it succeeded";
  std::string Msg = llvm::toString(R.takeError());
  if (llvm::StringRef(Msg).contains(Needle))
    return ::testing::AssertionSuccess() << Msg;
  return ::testing::AssertionFailure()
         << "error '" << Msg << "' does not contain '" << Needle.str() << "'";
}

} // namespace pyverify::test

#endif
