//===- Diagnostic.cpp - A finding placed in its file ----------------------===//

#include "pyverify/Check/Diagnostic.h"
#include "pyverify/Check/StackChecks.h"

#include <algorithm>
#include <tuple>

using namespace pyverify;

Diagnostic pyverify::makeDiagnostic(const Finding &F, const DecodedCode &D,
                                    llvm::StringRef File, uint32_t CodeIndex) {
  Diagnostic G;
  G.Check = F.Check;
  G.Sev = F.Sev;
  G.Cert = F.Cert;
  G.File = File.str();
  G.Source = D.Code->Filename;
  G.QualName = D.Code->QualName;
  G.FirstLineNo = D.Code->FirstLineNo;
  G.CodeIndex = CodeIndex;
  G.Offset = F.Offset;
  Position P = D.positionAt(F.Offset);
  G.Line = P.Line;
  G.Col = P.Col;
  int64_t I = D.Insts.indexAtOffset(F.Offset);
  if (I >= 0)
    G.Instruction = describeInstruction(D.Insts[I]);
  G.Message = F.Message;
  G.NotRun.assign(F.NotRun.begin(), F.NotRun.end());
  for (const FindingNote &N : F.Notes) {
    Position NP = D.positionAt(N.Offset);
    G.Notes.push_back({N.Offset, NP.Line, NP.Col, N.Message});
  }
  return G;
}

bool pyverify::isRootCauseCheck(CheckId Id) {
  // A jump into a with body breaks the contexts, the handler and often the
  // depths of everything its path reaches; a call without its NULL leaves
  // the stack one value short for the code after it (the underflow names
  // it).
  return Id == CheckId::WithBodyEnteredWithoutEnter ||
         Id == CheckId::CallWithoutNull;
}

void pyverify::sortDiagnostics(std::vector<Diagnostic> &Diags) {
  auto Key = [](const Diagnostic &D) {
    return std::make_tuple(llvm::StringRef(D.File), D.CodeIndex,
                           !isRootCauseCheck(D.Check), D.Offset,
                           unsigned(D.Check));
  };
  std::stable_sort(Diags.begin(), Diags.end(),
                   [&](const Diagnostic &A, const Diagnostic &B) {
                     return Key(A) < Key(B);
                   });
}
