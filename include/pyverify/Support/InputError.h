//===- InputError.h - Errors about malformed input --------------*- C++ -*-===//
//
// Contract: makeInputError(Offset, Msg) builds the llvm::Error used for every
// malformed-input failure in the library. The message always starts with the
// byte offset ("at byte N: ...") so a user can find the bad byte; callers that
// know more context (file, nested object) prepend it with
// addInputContext().
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_SUPPORT_INPUTERROR_H
#define PYVERIFY_SUPPORT_INPUTERROR_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace pyverify {

inline llvm::Error makeInputError(uint64_t Offset, const llvm::Twine &Msg) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      ("at byte " + llvm::Twine(Offset) + ": " + Msg).str());
}

/// Prefixes every message in \p E with \p Context ("file.pyc: ").
inline llvm::Error addInputContext(llvm::Error E, const llvm::Twine &Context) {
  if (!E)
    return E;
  std::string Msg = llvm::toString(std::move(E));
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 (Context + ": " + Msg).str());
}

} // namespace pyverify

#endif
