//===- JSONWriter.cpp - JSON written as it is built -----------------------===//

#include "pyverify/Support/JSONWriter.h"

#include <algorithm>

using namespace pyverify;

void pyverify::writeJSONMembers(llvm::json::OStream &J,
                                llvm::MutableArrayRef<JSONMember> Members) {
  std::sort(
      Members.begin(), Members.end(),
      [](const JSONMember &A, const JSONMember &B) { return A.Key < B.Key; });
  for (const JSONMember &M : Members) {
    J.attributeBegin(M.Key);
    if (M.Value)
      J.value(*M.Value);
    else
      M.Write(J);
    J.attributeEnd();
  }
}

void pyverify::writeJSONObject(llvm::json::OStream &J,
                               llvm::MutableArrayRef<JSONMember> Members) {
  J.object([&] { writeJSONMembers(J, Members); });
}
