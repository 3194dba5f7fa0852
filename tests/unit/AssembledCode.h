//===- AssembledCode.h - Hand-assembled code objects for tests --*- C++ -*-===//
//
// Contract: assembleCode() builds a code object of one version from (opcode
// name, argument) pairs, each opcode's caches zeroed, with a location table
// of "no location" entries, so a test can lay out exactly the paths it
// needs (two paths that meet at different stack depths, a loop that grows
// the stack) in any version's bytecode. decodeAssembled() decodes it and
// keeps the code object alive beside its DecodedCode. Opcode names are looked
// up in that version's table; an unknown name is a test failure. Jump arguments
// are the raw oparg (code units, as the version counts them; codeUnits() counts
// a stretch of instructions).
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_TESTS_UNIT_ASSEMBLEDCODE_H
#define PYVERIFY_TESTS_UNIT_ASSEMBLEDCODE_H

#include "pyverify/Bytecode/CodeObject.h"
#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Bytecode/VersionOpcodes.h"

#include "TestVersions.h"

#include "llvm/ADT/StringRef.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace pyverify::test {

/// The opcode byte of \p Name in \p V's table (a test failure and 0 if none).
inline uint8_t opcodeByte(PythonVersion V, llvm::StringRef Name) {
  for (unsigned B = 1; B < 256; ++B)
    if (const OpcodeInfo *I = getVersionOpcodeInfo(V, uint8_t(B)))
      if (Name == I->Name)
        return uint8_t(B);
  ADD_FAILURE() << Name.str() << " is not a " << pythonVersionName(V).str()
                << " opcode";
  return 0;
}

struct AssembledOptions {
  int32_t StackSize = 4;
  std::vector<std::string> Locals = {};
  int32_t ArgCount = 0;
  std::vector<std::string> Names = {"g"};
};

/// The code units \p Ops take in \p V's bytecode, caches included (what a
/// forward jump over them counts).
inline uint8_t
codeUnits(PythonVersion V,
          const std::vector<std::pair<llvm::StringRef, uint8_t>> &Ops) {
  unsigned N = 0;
  for (const auto &Op : Ops)
    if (const OpcodeInfo *I = getVersionOpcodeInfo(V, opcodeByte(V, Op.first)))
      N += 1 + I->Caches;
  return uint8_t(N);
}

/// A function's code object of \p V named "f" with room for \p StackSize
/// values, and nothing else yet.
inline CodeObject blankCode(PythonVersion V, int32_t StackSize) {
  CodeObject C;
  C.Version = V;
  C.QualName = "f";
  C.Name = "f";
  C.Flags = CoOptimized | CoNewLocals;
  C.StackSize = StackSize;
  return C;
}

/// A location table that gives \p Units code units no location.
inline std::string noLocationTable(size_t Units) {
  std::string LineTable;
  while (Units) {
    size_t N = std::min<size_t>(Units, 8);
    LineTable += char(0x80 | (15 << 3) | (N - 1));
    Units -= N;
  }
  return LineTable;
}

/// \p Ops as \p V's bytecode (see the contract); one None constant.
inline CodeObject
assembleCode(PythonVersion V,
             const std::vector<std::pair<llvm::StringRef, uint8_t>> &Ops,
             const AssembledOptions &O = {}) {
  CodeObject C = blankCode(V, O.StackSize);
  C.ArgCount = O.ArgCount;
  // The bytes and names live in the code object's storage (own()).
  for (const std::string &N : O.Names)
    C.Names.push_back(C.own(N));
  C.Consts = {Value(NoneValue{})};
  for (const std::string &N : O.Locals)
    C.LocalsPlusNames.push_back(C.own(N));
  C.LocalsPlusKinds = C.own(std::string(O.Locals.size(), char(CoFastLocal)));
  std::string Code;
  for (const auto &[Name, Arg] : Ops) {
    uint8_t B = opcodeByte(V, Name);
    Code += char(B);
    Code += char(Arg);
    if (const OpcodeInfo *I = getVersionOpcodeInfo(V, B))
      Code.append(2 * size_t(I->Caches), '\0');
  }
  C.Code = C.own(Code);
  C.LineTable = C.own(noLocationTable(Code.size() / 2));
  return C;
}

/// A code object and its decoding, kept together: a DecodedCode points at
/// its CodeObject, which must outlive it.
struct DecodedAssembly {
  std::unique_ptr<CodeObject> Code;
  DecodedCode D;
};

inline DecodedAssembly decodeAssembled(CodeObject C) {
  auto P = std::make_unique<CodeObject>(std::move(C));
  DecodedCode D = DecodedCode::decode(*P);
  EXPECT_TRUE(D.isWellFormed());
  return {std::move(P), std::move(D)};
}

} // namespace pyverify::test

#endif
