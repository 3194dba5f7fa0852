//===- JSONWriter.h - JSON written as it is built ---------------*- C++ -*-===//
//
// Contract: the outputs that can grow with the input (listings, check
// reports, SARIF logs) are written to an llvm::json::OStream as they are
// built instead of as one llvm::json tree printed at the end. They must
// stay the same text: printing an Object puts its keys in bytewise order,
// so writeJSONMembers() sorts the members it is given by key, whatever
// order the caller lists them in. StringOStream is a std::string stream
// that is buffered (llvm::raw_string_ostream writes every character
// through a virtual call and an append) and flushes when it goes away
// (its str() does not flush).
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_SUPPORT_JSONWRITER_H
#define PYVERIFY_SUPPORT_JSONWRITER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace pyverify {

/// A member of a JSON object: a value, or a callback that writes it. Neither
/// is owned: both outlive the write.
struct JSONMember {
  llvm::StringRef Key;
  llvm::function_ref<void(llvm::json::OStream &)> Write;
  const llvm::json::Value *Value = nullptr; ///< Written when set.
};

/// Writes \p Members into the object \p J has open, in key order (the
/// text printing an Object of the same values gives).
void writeJSONMembers(llvm::json::OStream &J,
                      llvm::MutableArrayRef<JSONMember> Members);
/// The same, as an object of its own.
void writeJSONObject(llvm::json::OStream &J,
                     llvm::MutableArrayRef<JSONMember> Members);

/// A buffered stream into \p S, flushed into it when destroyed.
class StringOStream : public llvm::raw_string_ostream {
public:
  explicit StringOStream(std::string &S) : llvm::raw_string_ostream(S) {
    SetBuffered();
  }
  ~StringOStream() override { flush(); }
};

} // namespace pyverify

#endif
