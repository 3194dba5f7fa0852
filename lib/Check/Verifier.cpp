//===- Verifier.cpp - Run every enabled check -----------------------------===//

#include "pyverify/Check/Verifier.h"
#include "pyverify/Analysis/BlockStack.h"
#include "pyverify/Analysis/ContextBalance.h"
#include "pyverify/Analysis/StackDepth.h"
#include "pyverify/CFG/CFG.h"
#include "pyverify/Check/StackChecks.h"

using namespace pyverify;

std::vector<Finding> pyverify::verifyCode(const DecodedCode &D,
                                          const CheckOptions &O) {
  std::vector<Finding> All = D.Findings;
  if (!D.isWellFormed()) {
    if (D.TableDecoded)
      checkExceptionTableDepths(
          D.Table, D.Insts, D.Code->StackSize, [](size_t) { return true; },
          All);
  } else {
    CFG G = CFG::build(D);
    // An entry is live when it covers a reachable instruction.
    llvm::BitVector Live(D.Table.size());
    for (uint32_t I = 0; I < D.Insts.size(); ++I)
      if (int32_t E = G.coverOf(I); E >= 0 && G.reachable().test(G.blockOf(I)))
        Live.set(E);
    checkExceptionTableDepths(
        D.Table, D.Insts, D.Code->StackSize,
        [&](size_t E) { return Live.test(E); }, All);
    auto Depth = computeStackDepth(G);
    if (Depth) {
      checkStack(G, *Depth, All);
      BlockStack Blocks = BlockStack::compute(G, *Depth);
      auto Balance = checkContextBalance(G, *Depth, Blocks, O.Balance);
      if (Balance)
        All.insert(All.end(), Balance->Findings.begin(),
                   Balance->Findings.end());
      else
        All.emplace_back(CheckId::AnalysisLimit, 0,
                         "context-balance analysis: " +
                             llvm::toString(Balance.takeError()));
    } else {
      All.emplace_back(CheckId::AnalysisLimit, 0,
                       "stack-depth analysis: " +
                           llvm::toString(Depth.takeError()));
    }
  }
  std::vector<Finding> Out;
  Out.reserve(All.size());
  for (Finding &F : All)
    if (O.isEnabled(F.Check))
      Out.push_back(std::move(F));
  return Out;
}

FileReport pyverify::verifyCodeFile(const CodeFile &F, const CheckOptions &O,
                                    llvm::StringRef DisplayPath) {
  FileReport R;
  R.Path = DisplayPath.empty() ? F.Path : DisplayPath.str();
  for (const auto &Root : F.Roots)
    forEachCodeObject(*Root, [&](const CodeObject &C, unsigned) {
      uint32_t Index = R.CodeObjects++;
      DecodedCode D = DecodedCode::decode(C);
      for (const Finding &Fd : verifyCode(D, O))
        R.Diags.push_back(makeDiagnostic(Fd, D, R.Path, Index));
    });
  sortDiagnostics(R.Diags);
  return R;
}
