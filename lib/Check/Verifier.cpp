//===- Verifier.cpp - Run every enabled check -----------------------------===//

#include "pyverify/Check/Verifier.h"

#include "pyverify/Check/BorrowChecks.h"
#include "pyverify/Check/CheckInputs.h"
#include "pyverify/Check/GeneratorChecks.h"
#include "pyverify/Check/OperandChecks.h"
#include "pyverify/Check/StackChecks.h"
#include "pyverify/Check/ValueChecks.h"
#include "pyverify/Check/WithBodyChecks.h"
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

/// Adds to \p All the finding naming the enabled checks that read one of
/// \p Missing (none if no such check is enabled).
static void notRun(const CheckOptions &O, std::vector<Finding> &All,
                   std::initializer_list<CheckInput> Missing,
                   llvm::StringRef Why, CheckId Kind = CheckId::ChecksNotRun) {
  if (std::optional<Finding> F = notRunFinding(O, Missing, Why, Kind))
    All.push_back(std::move(*F));
}

/// The findings of the CFG and the dataflow passes, into \p All; every
/// pass that cannot run says which checks it leaves out (CheckInputs.h).
static void checkDataflow(const CodeAnalysis &A, const CFG &G,
                          const CheckOptions &O, std::vector<Finding> &All) {
  const DecodedCode &D = A.decoded();
  // An entry is live when it covers a reachable instruction.
  llvm::BitVector Live(D.Table.size());
  for (uint32_t I = 0; I < D.Insts.size(); ++I)
    if (int32_t E = G.coverOf(I); E >= 0 && G.reachable().test(G.blockOf(I)))
      Live.set(E);
  checkExceptionTableDepths(
      D.Table, D.Insts, D.Code->StackSize,
      [&](size_t E) { return Live.test(E); }, All);
  checkReachability(G, All);
  checkGeneratorFrame(G, All);
  checkCalleeLookups(
      D.Table, D.Insts,
      [&](size_t I) { return G.reachable().test(G.blockOf(I)); }, All);
  auto Depth = A.stackDepth();
  if (!Depth) {
    notRun(O, All,
           {CheckInput::Depths, CheckInput::Values, CheckInput::Contexts},
           "stack-depth analysis: " + llvm::toString(Depth.takeError()),
           CheckId::AnalysisLimit);
    return;
  }
  checkStack(G, *Depth, All);
  // Value kinds need consistent depths within what the context pass models
  // (it reports an absurd depth as analysis-limit; a value state holds every
  // slot).
  if (!Depth->Underflows.empty() || !Depth->Conflicts.empty())
    notRun(O, All, {CheckInput::Values},
           "the stack depths are inconsistent (stack-underflow or "
           "stack-depth-conflict), so stack slots cannot be typed");
  else if (Depth->MaxDepth > A.contextOptions().MaxStackDepth)
    notRun(O, All, {CheckInput::Values},
           llvm::formatv("the stack reaches depth {0}, above the {1} slots "
                         "the value analysis models",
                         Depth->MaxDepth, A.contextOptions().MaxStackDepth)
               .str(),
           CheckId::AnalysisLimit);
  else if (llvm::Error E = checkValueKinds(G, All))
    notRun(O, All, {CheckInput::Values},
           "value-kind analysis: " + llvm::toString(std::move(E)));
  else if (O.isEnabled(CheckId::BorrowOutlivesLocal)) {
    if (llvm::Error E = checkBorrows(G, All))
      if (auto F = notRunFinding(O, {CheckId::BorrowOutlivesLocal},
                                 "borrowed-reference analysis: " +
                                     llvm::toString(std::move(E))))
        All.push_back(std::move(*F));
  }
  auto Balance = A.contexts();
  if (!Balance) {
    notRun(O, All, {CheckInput::Contexts},
           "context-balance analysis: " + llvm::toString(Balance.takeError()),
           CheckId::AnalysisLimit);
    return;
  }
  appendContextFindings(G, cantFail(A.blockStack()), *Balance, All);
  checkWithBodyCoverage(A.decoded(), *Depth, *Balance, All);
}

/// Why \p D has no CFG (it is not well-formed), for checks-not-run.
static std::string whyNoCFG(const DecodedCode &D) {
  const Finding *F = D.firstMalformation();
  assert(F && "a code object without a CFG is not well-formed");
  CheckId Id = F->Check;
  bool Table = Id == CheckId::ExceptionTableDecode ||
               getCheckInput(Id) == CheckInput::Table;
  return (Table ? "the exception table is malformed ("
                : "the instruction stream is malformed (") +
         getCheckName(Id).str() + ")";
}

std::vector<Finding> pyverify::verifyCode(const CodeAnalysis &A,
                                          const CheckOptions &O) {
  assert(A.contextOptions() == O.Balance &&
         "the analysis must run the context pass with O's options");
  const DecodedCode &D = A.decoded();
  std::vector<Finding> All = D.Findings;
  checkOperands(D, All);
  checkFrameSize(*D.Code, All);
  if (const CFG *G = A.cfg()) {
    checkDataflow(A, *G, O, All);
  } else {
    std::string Why = whyNoCFG(D);
    if (D.TableDecoded) {
      checkExceptionTableDepths(
          D.Table, D.Insts, D.Code->StackSize, [](size_t) { return true; },
          All);
      notRun(O, All,
             {CheckInput::Flow, CheckInput::Depths, CheckInput::Values,
              CheckInput::Contexts},
             Why);
    } else {
      notRun(O, All,
             {CheckInput::Table, CheckInput::Flow, CheckInput::Depths,
              CheckInput::Values, CheckInput::Contexts},
             Why);
    }
  }
  std::vector<Finding> Out;
  Out.reserve(All.size());
  for (Finding &F : All)
    if (O.isEnabled(F.Check) || !F.NotRun.empty())
      Out.push_back(std::move(F));
  if (O.MergeRootCauses)
    mergeRootCauses(Out);
  return Out;
}

FileReport pyverify::verifyCodeFile(const CodeFile &F, const CheckOptions &O,
                                    llvm::StringRef DisplayPath) {
  FileReport R;
  R.Path = DisplayPath.empty() ? F.Path : DisplayPath.str();
  CodeObjectWalk Walk;
  for (const auto &Root : F.Roots)
    Walk.visit(*Root, [&](const CodeObject &C, unsigned) {
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
