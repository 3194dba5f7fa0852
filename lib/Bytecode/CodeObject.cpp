//===- CodeObject.cpp - A CPython 3.11 code object ------------------------===//

#include "pyverify/Bytecode/CodeObject.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

using namespace pyverify;

std::vector<const CodeObject *> CodeObject::children() const {
  std::vector<const CodeObject *> Out;
  for (const Value &C : Consts)
    if (const CodeObject *Child = C.getCode())
      Out.push_back(Child);
  return Out;
}

unsigned CodeObject::getNumLocals() const {
  unsigned N = 0;
  for (char K : LocalsPlusKinds)
    N += (uint8_t(K) & CoFastLocal) != 0;
  return N;
}

static std::vector<std::string> namesOfKind(const CodeObject &C, uint8_t Kind,
                                            uint8_t Exclude = 0) {
  std::vector<std::string> Out;
  for (size_t I = 0;
       I < C.LocalsPlusKinds.size() && I < C.LocalsPlusNames.size(); ++I) {
    uint8_t K = C.LocalsPlusKinds[I];
    if ((K & Kind) && !(K & Exclude))
      Out.push_back(C.LocalsPlusNames[I].str());
  }
  return Out;
}

std::string CodeObject::describeLocal(uint32_t L) const {
  return L < LocalsPlusNames.size() ? LocalsPlusNames[L].str()
                                    : "#" + std::to_string(L);
}

std::vector<std::string> CodeObject::getVarNames() const {
  return namesOfKind(*this, CoFastLocal);
}
std::vector<std::string> CodeObject::getCellVars() const {
  return namesOfKind(*this, CoFastCell);
}
std::vector<std::string> CodeObject::getFreeVars() const {
  return namesOfKind(*this, CoFastFree);
}

void pyverify::forEachCodeObject(
    const CodeObject &Root,
    llvm::function_ref<void(const CodeObject &, unsigned)> Visit) {
  CodeObjectWalk().visit(Root, Visit);
}

void CodeObjectWalk::visit(
    const CodeObject &Root,
    llvm::function_ref<void(const CodeObject &, unsigned)> Visit) {
  // Explicit stack: nesting depth of hostile input is bounded by the marshal
  // reader, but the walk should not depend on that.
  // Marshal back-references can share a code object between several
  // co_consts (compile() never does): visit each distinct one once, or a
  // small DAG would take exponential time.
  llvm::SmallVector<std::pair<const CodeObject *, unsigned>, 16> Stack;
  Stack.push_back({&Root, 0});
  while (!Stack.empty()) {
    auto [C, Depth] = Stack.pop_back_val();
    if (!Seen.insert(C).second)
      continue;
    Visit(*C, Depth);
    auto Kids = C->children();
    for (size_t I = Kids.size(); I-- > 0;)
      Stack.push_back({Kids[I], Depth + 1});
  }
}
