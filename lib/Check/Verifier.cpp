//===- Verifier.cpp - Run every enabled check -----------------------------===//

#include "pyverify/Check/Verifier.h"

#include "pyverify/Check/OperandChecks.h"
#include "pyverify/Check/StackChecks.h"
#include "pyverify/Check/ValueChecks.h"
#include "pyverify/Check/WithHandlerChecks.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <cassert>

using namespace pyverify;

std::vector<Finding> pyverify::verifyCode(const DecodedCode &D,
                                          const CheckOptions &O) {
  return verifyCode(CodeAnalysis(D, O.Balance), O);
}

/// The findings of the CFG and the dataflow passes, into \p All.
static void checkDataflow(const CodeAnalysis &A, const CFG &G,
                          std::vector<Finding> &All) {
  const DecodedCode &D = A.decoded();
  // An entry is live when it covers a reachable instruction.
  llvm::BitVector Live(D.Table.size());
  for (uint32_t I = 0; I < D.Insts.size(); ++I)
    if (int32_t E = G.coverOf(I); E >= 0 && G.reachable().test(G.blockOf(I)))
      Live.set(E);
  checkExceptionTableDepths(
      D.Table, D.Insts, D.Code->StackSize,
      [&](size_t E) { return Live.test(E); }, All);
  auto Depth = A.stackDepth();
  if (!Depth) {
    All.emplace_back(CheckId::AnalysisLimit, 0,
                     "stack-depth analysis: " +
                         llvm::toString(Depth.takeError()));
    return;
  }
  checkStack(G, *Depth, All);
  // Consistent depths within what the context pass models (it reports an
  // absurd depth as analysis-limit; a value state holds every slot).
  if (Depth->Underflows.empty() && Depth->Conflicts.empty() &&
      Depth->MaxDepth <= A.contextOptions().MaxStackDepth)
    checkValueKinds(G, All);
  auto Balance = A.contexts();
  if (!Balance) {
    All.emplace_back(CheckId::AnalysisLimit, 0,
                     "context-balance analysis: " +
                         llvm::toString(Balance.takeError()));
    return;
  }
  appendContextFindings(G, cantFail(A.blockStack()), *Balance, All);
}

std::vector<Finding> pyverify::verifyCode(const CodeAnalysis &A,
                                          const CheckOptions &O) {
  assert(A.contextOptions() == O.Balance &&
         "the analysis must run the context pass with O's options");
  const DecodedCode &D = A.decoded();
  std::vector<Finding> All = D.Findings;
  checkOperands(D, All);
  if (const CFG *G = A.cfg())
    checkDataflow(A, *G, All);
  else if (D.TableDecoded)
    checkExceptionTableDepths(
        D.Table, D.Insts, D.Code->StackSize, [](size_t) { return true; }, All);
  std::vector<Finding> Out;
  Out.reserve(All.size());
  for (Finding &F : All)
    if (O.isEnabled(F.Check))
      Out.push_back(std::move(F));
  if (O.MergeRootCauses)
    mergeRootCauses(Out);
  return Out;
}

FileReport pyverify::verifyCodeFile(const CodeFile &F, const CheckOptions &O,
                                    llvm::StringRef DisplayPath) {
  FileReport R;
  R.Path = DisplayPath.empty() ? F.Path : DisplayPath.str();
  for (const auto &Root : F.Roots)
    forEachCodeObject(*Root, [&](const CodeObject &C, unsigned) {
      uint32_t Index = R.CodeObjects++;
      CodeAnalysis A(C, O.Balance);
      for (const Finding &Fd : verifyCode(A, O))
        R.Diags.push_back(makeDiagnostic(Fd, A.decoded(), R.Path, Index));
    });
  resolveSourceFiles(R);
  sortDiagnostics(R.Diags);
  return R;
}

void pyverify::resolveSourceFiles(FileReport &R) {
  llvm::StringMap<bool> Exists;
  for (Diagnostic &D : R.Diags) {
    if (D.Source.empty() || D.Source == D.File)
      continue;
    auto [It, New] = Exists.try_emplace(D.Source, false);
    if (New)
      It->second = llvm::sys::fs::is_regular_file(D.Source);
    if (It->second)
      D.SourceFile = D.Source;
  }
}
