//===- CodeAnalysis.h - The analyses of one code object, once ---*- C++ -*-===//
//
// Contract: a CodeAnalysis runs the pipeline of one code object, each pass
// at most once, on first request, and keeps the results:
//
//   decoded()     DecodedCode::decode (never fails);
//   cfg()         CFG::build, only when decoded() has no error-severity
//                 finding (isWellFormed()); null otherwise;
//   stackDepth()  computeStackDepth over cfg();
//   blockStack()  BlockStack::compute from cfg() and stackDepth();
//   contexts()    checkContextBalance over those three, with the options
//                 given at construction.
//
// Results are immutable: the accessors hand out const references, and no
// pass writes into another's result. stackDepth(), blockStack() and
// contexts() are llvm::Expected: a pass whose input is missing fails with
// its input's reason -- "the code object is not well-formed" without a CFG,
// the stack-depth error (its visit cap) for blockStack() and contexts() when
// the depths failed -- and contexts() with its own (visit cap, stack too
// deep). The reason is kept; every call returns a fresh Error with the same
// message, so a caller may ask again, and must consume each Error it gets.
//
// It borrows the CodeObject (the second constructor: an existing
// DecodedCode, and through it its CodeObject), which must outlive it.
// Movable, not copyable: the results live at addresses a move does not
// change (the CFG points at the DecodedCode, the block stack at the CFG).
//
// Not thread-safe: the results are filled in on first use, even through a
// const CodeAnalysis, so one CodeAnalysis serves one thread at a time. Code
// objects are independent: the checks of different ones run in parallel,
// each with its own CodeAnalysis.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_ANALYSIS_CODEANALYSIS_H
#define PYVERIFY_ANALYSIS_CODEANALYSIS_H

#include "pyverify/Analysis/BlockStack.h"
#include "pyverify/Analysis/ContextBalance.h"
#include "pyverify/Analysis/StackDepth.h"
#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/CFG/CFG.h"

#include "llvm/Support/Error.h"

#include <memory>

namespace pyverify {

class CodeAnalysis {
public:
  explicit CodeAnalysis(const CodeObject &C,
                        const ContextBalanceOptions &Opts = {});
  /// Analyses \p D (borrowed) instead of decoding again.
  explicit CodeAnalysis(const DecodedCode &D,
                        const ContextBalanceOptions &Opts = {});
  CodeAnalysis(CodeAnalysis &&);
  CodeAnalysis &operator=(CodeAnalysis &&);
  ~CodeAnalysis();

  const CodeObject &code() const;
  const ContextBalanceOptions &contextOptions() const;

  const DecodedCode &decoded() const;
  /// Null when decoded() is not well-formed.
  const CFG *cfg() const;
  llvm::Expected<const StackDepthResult &> stackDepth() const;
  llvm::Expected<const BlockStack &> blockStack() const;
  llvm::Expected<const ContextBalanceResult &> contexts() const;

private:
  struct State;
  std::unique_ptr<State> S;
};

} // namespace pyverify

#endif
