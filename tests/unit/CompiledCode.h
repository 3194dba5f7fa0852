//===- CompiledCode.h - Real code objects for unit tests --------*- C++ -*-===//
//
// Contract: CompiledModule::compile() runs python3.11 (compile_source.py) on
// a Python source text at test time and reads the module's marshal bytes
// back with pyverify's own reader; code() finds a nested code object by its
// co_qualname. CodeUnderTest holds the CodeAnalysis of one code object
// (pyverify/Analysis/CodeAnalysis.h) with its DecodedCode and CFG at hand;
// it never moves, so tests can hold it in a std::unique_ptr.
//
// The source is passed hex-encoded on the command line so no quoting can
// change it, and with PYTHONHASHSEED=0 so the bytes are reproducible.
//
// Tests that name byte offsets use those of the interpreter CMake picks
// (/usr/bin/python3.11, 3.11.2 on Debian 12) and quote its `dis` output next
// to the offsets. Other 3.11 patch releases can lay some constructs out
// differently (3.11.7 compiles except* differently); tests of those find
// their instructions instead of naming offsets.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_TESTS_UNIT_COMPILEDCODE_H
#define PYVERIFY_TESTS_UNIT_COMPILEDCODE_H

#include "pyverify/Analysis/CodeAnalysis.h"
#include "pyverify/Bytecode/CodeObject.h"
#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Bytecode/Marshal.h"
#include "pyverify/CFG/CFG.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <memory>
#include <string>

namespace pyverify::test {

/// Runs \p Command and returns its stdout; a non-zero exit is a test failure.
inline std::string runCommand(const std::string &Command) {
  std::string Out;
  FILE *P = popen(Command.c_str(), "r");
  if (!P) {
    ADD_FAILURE() << "cannot run: " << Command;
    return Out;
  }
  char Buf[65536];
  size_t N;
  while ((N = fread(Buf, 1, sizeof Buf, P)) > 0)
    Out.append(Buf, N);
  int Status = pclose(P);
  EXPECT_EQ(Status, 0) << "command failed: " << Command;
  return Out;
}

class CompiledModule {
public:
  /// Compiles \p Source as module \p FileName; null (and a test failure)
  /// when python3.11 or the marshal reader rejects it.
  static std::unique_ptr<CompiledModule>
  compile(llvm::StringRef Source, llvm::StringRef FileName = "test.py") {
    std::string Hex =
        runCommand(std::string("PYTHONHASHSEED=0 ") + PYVERIFY_PYTHON + " " +
                   PYVERIFY_COMPILE_SOURCE + " " + llvm::toHex(Source, true) +
                   " " + FileName.str());
    std::string Bytes = llvm::fromHex(llvm::StringRef(Hex).trim());
    auto V = readMarshal(Bytes);
    if (!V) {
      ADD_FAILURE() << "cannot read the compiled module: "
                    << llvm::toString(V.takeError());
      return nullptr;
    }
    if (!V->getCode()) {
      ADD_FAILURE() << "the compiled module is not a code object";
      return nullptr;
    }
    return std::unique_ptr<CompiledModule>(
        new CompiledModule(std::move(*V), std::move(Bytes)));
  }

  const CodeObject &module() const { return *Root.getCode(); }
  /// The marshal bytes python3.11 wrote.
  llvm::StringRef bytes() const { return Bytes; }

  /// The code object named \p QualName (the module itself is "<module>"),
  /// or null.
  const CodeObject *code(llvm::StringRef QualName) const {
    const CodeObject *Found = nullptr;
    forEachCodeObject(module(), [&](const CodeObject &C, unsigned) {
      if (!Found && C.QualName == QualName)
        Found = &C;
    });
    return Found;
  }

  /// Every code object, in pre-order.
  std::vector<const CodeObject *> all() const {
    std::vector<const CodeObject *> Out;
    forEachCodeObject(
        module(), [&](const CodeObject &C, unsigned) { Out.push_back(&C); });
    return Out;
  }

private:
  CompiledModule(Value V, std::string Bytes)
      : Root(std::move(V)), Bytes(std::move(Bytes)) {}
  Value Root;
  std::string Bytes;
};

/// One code object, analysed: its DecodedCode and its CFG (empty when the
/// code is not well-formed), and the analysis for the later passes.
class CodeUnderTest {
public:
  explicit CodeUnderTest(const CodeObject &C)
      : Code(&C), A(C), D(A.decoded()), G(A.cfg() ? *A.cfg() : noCFG()) {}
  CodeUnderTest(const CodeUnderTest &) = delete;
  CodeUnderTest &operator=(const CodeUnderTest &) = delete;

  const CodeObject *Code;
  CodeAnalysis A;
  const DecodedCode &D;
  const CFG &G;

  /// Index of the instruction whose opcode unit is at byte \p Offset.
  uint32_t inst(uint32_t Offset) const {
    int64_t I = D.Insts.indexAtOffset(Offset);
    EXPECT_GE(I, 0) << "no instruction at offset " << Offset;
    return I < 0 ? 0 : uint32_t(I);
  }
  /// The block holding the instruction at byte \p Offset.
  const BasicBlock &blockAt(uint32_t Offset) const {
    return G.block(G.blockOf(inst(Offset)));
  }
  /// Byte offset of the first instruction of block \p B.
  uint32_t offsetOf(const BasicBlock &B) const {
    return D.Insts[B.Begin].Offset;
  }

private:
  static const CFG &noCFG() {
    static const CFG Empty{};
    return Empty;
  }
};

} // namespace pyverify::test

#endif
