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

void pyverify::sortDiagnostics(std::vector<Diagnostic> &Diags) {
  std::stable_sort(
      Diags.begin(), Diags.end(), [](const Diagnostic &A, const Diagnostic &B) {
        return std::make_tuple(llvm::StringRef(A.File), A.CodeIndex, A.Offset,
                               unsigned(A.Check)) <
               std::make_tuple(llvm::StringRef(B.File), B.CodeIndex, B.Offset,
                               unsigned(B.Check));
      });
}
