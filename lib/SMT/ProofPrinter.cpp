//===- ProofPrinter.cpp - Text, JSON and SARIF output of proofs -----------===//

#include "pyverify/SMT/ProofPrinter.h"
#include "pyverify/Bytecode/Listing.h"
#include "pyverify/Check/DiagnosticPrinter.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace pyverify;

//===----------------------------------------------------------------------===//
// Text
//===----------------------------------------------------------------------===//

namespace {

/// One column of the counterexample table: "OFFSET OPNAME [EVENT]" cells
/// with the offsets right-aligned.
std::vector<std::string> formatSteps(llvm::ArrayRef<ProofStep> Steps) {
  size_t OffsetWidth = 0;
  for (const ProofStep &S : Steps)
    OffsetWidth = std::max(OffsetWidth, std::to_string(S.Offset).size());
  std::vector<std::string> Cells;
  for (const ProofStep &S : Steps) {
    std::string Offset = std::to_string(S.Offset);
    std::string Cell(OffsetWidth - Offset.size(), ' ');
    Cell += Offset;
    Cell += ' ';
    Cell += S.OpName;
    if (!S.Event.empty())
      Cell += " [" + S.Event + "]";
    if (S.Line)
      Cell += " (line " + std::to_string(*S.Line) + ")";
    Cells.push_back(std::move(Cell));
  }
  return Cells;
}

void printCounterexample(llvm::raw_ostream &OS, const Counterexample &C,
                         llvm::StringRef Target) {
  std::string LeftHead = "eager (original";
  if (!C.Eager.empty())
    LeftHead += " from " + std::to_string(C.Eager.front().Offset);
  LeftHead += ")";
  std::string RightHead = "emitted (" + Target.str() + ")";

  // The header starts in column 2, the step cells in column 3 (after the
  // ">> " margin); the right column starts two spaces after the wider.
  std::vector<std::string> Left = formatSteps(C.Eager);
  std::vector<std::string> Right = formatSteps(C.Emitted);
  size_t RightCol = 2 + LeftHead.size();
  for (const std::string &L : Left)
    RightCol = std::max(RightCol, 3 + L.size());
  RightCol += 2;

  auto Row = [&](llvm::StringRef Margin, llvm::StringRef L, llvm::StringRef R) {
    std::string Line = Margin.str();
    Line += L;
    if (!R.empty()) {
      Line.append(RightCol - Line.size(), ' ');
      Line += R;
    }
    OS << llvm::StringRef(Line).rtrim() << '\n';
  };

  Row("  ", LeftHead, RightHead);
  size_t Rows = std::max(Left.size(), Right.size());
  bool Explained = false;
  for (size_t I = 0; I < Rows; ++I) {
    bool Diverges = C.Divergence >= 0 && size_t(C.Divergence) == I;
    Row(Diverges ? ">> " : "   ", I < Left.size() ? Left[I] : "",
        I < Right.size() ? Right[I] : "");
    if (Diverges) {
      OS << "  first divergence: " << C.Explanation << '\n';
      Explained = true;
    }
  }
  if (!Explained && !C.Explanation.empty())
    OS << "  first divergence: " << C.Explanation << '\n';
}

} // namespace

std::pair<size_t, bool> AssumptionLegend::number(const std::string &A) {
  auto It = llvm::find(Seen, A);
  if (It != Seen.end())
    return {size_t(It - Seen.begin()) + 1, false};
  Seen.push_back(A);
  return {Seen.size(), true};
}

static void printAssumptions(llvm::raw_ostream &OS, const ProofResult &R,
                             AssumptionLegend *Legend) {
  if (R.Assumptions.empty())
    return;
  if (!Legend) {
    OS << "  assuming: " << llvm::join(R.Assumptions, "; ") << '\n';
    return;
  }
  std::vector<std::pair<size_t, const std::string *>> New;
  OS << "  assuming:";
  for (const std::string &A : R.Assumptions) {
    auto [N, First] = Legend->number(A);
    OS << " [" << N << "]";
    if (First)
      New.push_back({N, &A});
  }
  OS << '\n';
  for (auto &[N, A] : New)
    OS << "  [" << N << "] " << *A << '\n';
}

void pyverify::printProofResult(llvm::raw_ostream &OS, const ProofResult &R,
                                AssumptionLegend *Legend) {
  OS << R.File << ": [" << R.Target << "] " << getVerdictName(R.V);
  if (R.V != Verdict::Proved) {
    if (!R.Property.empty())
      OS << ": " << R.Property;
    if (!R.Reason.empty())
      OS << ": " << R.Reason;
  }
  OS << '\n';
  if (!R.QualName.empty())
    OS << "  in " << R.QualName << " (line " << R.FirstLine << ")\n";
  printAssumptions(OS, R, Legend);
  if (R.Cex)
    printCounterexample(OS, *R.Cex, R.Target);
  // check's context findings, as the proof settled them.
  for (const CheckedFinding &F : R.ContextFindings)
    OS << "  " << getCertaintyName(F.D.Cert) << " finding of check "
       << getFindingStatusName(F.Status) << ": offset " << F.D.Offset << ": "
       << F.D.Message << " [" << getCheckName(F.D.Check) << "]\n";
  for (const Diagnostic &D : R.Findings) {
    std::string S;
    llvm::raw_string_ostream DOS(S);
    printDiagnostic(DOS, D);
    llvm::SmallVector<llvm::StringRef, 4> Lines;
    llvm::StringRef(DOS.str()).split(Lines, '\n', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef L : Lines)
      OS << "  " << L << '\n';
  }
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

static llvm::json::Value stringOrNull(llvm::StringRef S) {
  if (S.empty())
    return nullptr;
  return jsonSafe(S);
}

static llvm::json::Array stepsToJSON(llvm::ArrayRef<ProofStep> Steps) {
  llvm::json::Array Out;
  for (const ProofStep &S : Steps) {
    llvm::json::Value Line = nullptr;
    if (S.Line)
      Line = int64_t(*S.Line);
    Out.push_back(llvm::json::Object{{"code", jsonSafe(S.Code)},
                                     {"offset", int64_t(S.Offset)},
                                     {"opname", jsonSafe(S.OpName)},
                                     {"event", stringOrNull(S.Event)},
                                     {"line", std::move(Line)}});
  }
  return Out;
}

llvm::json::Object pyverify::proofResultToJSON(const ProofResult &R) {
  llvm::json::Value Cex = nullptr;
  if (R.Cex)
    Cex = llvm::json::Object{{"eager", stepsToJSON(R.Cex->Eager)},
                             {"emitted", stepsToJSON(R.Cex->Emitted)},
                             {"divergence", int64_t(R.Cex->Divergence)},
                             {"explanation", jsonSafe(R.Cex->Explanation)}};
  llvm::json::Array Assumptions;
  for (const std::string &A : R.Assumptions)
    Assumptions.push_back(jsonSafe(A));
  llvm::json::Array Checked;
  for (const CheckedFinding &F : R.ContextFindings)
    Checked.push_back(
        llvm::json::Object{{"check", getCheckName(F.D.Check)},
                           {"offset", int64_t(F.D.Offset)},
                           {"certainty", getCertaintyName(F.D.Cert)},
                           {"message", jsonSafe(F.D.Message)},
                           {"status", getFindingStatusName(F.Status)}});
  return llvm::json::Object{{"file", jsonSafe(R.File)},
                            {"target", jsonSafe(R.Target)},
                            {"code", stringOrNull(R.QualName)},
                            {"line", int64_t(R.FirstLine)},
                            {"verdict", getVerdictName(R.V)},
                            {"reason", stringOrNull(R.Reason)},
                            {"property", stringOrNull(R.Property)},
                            {"counterexample", std::move(Cex)},
                            {"seconds", R.Seconds},
                            {"rlimit_used", int64_t(R.RlimitUsed)},
                            {"assumptions", std::move(Assumptions)},
                            {"paths", int64_t(R.Paths)},
                            {"queries", int64_t(R.Queries)},
                            {"steps", int64_t(R.Steps)},
                            {"states", int64_t(R.States)},
                            {"check_findings", std::move(Checked)}};
}

//===----------------------------------------------------------------------===//
// SARIF
//===----------------------------------------------------------------------===//

namespace {

struct PropertyRule {
  llvm::StringRef Id;
  llvm::StringRef Summary;
};

/// The fixed rules, in this order (docs/prove-cli.md).
const PropertyRule FixedRules[] = {
    {"well-formed", "The emitted code object passes the dataflow checks"},
    {"exactly-once",
     "Every context entered is exited exactly once, LIFO, on every path"},
    {"matches-eager",
     "The emitted code makes the same observable steps as the original"},
    {"unknown", "The prover could decide neither way (bound or solver "
                "limit, unsupported instruction)"},
};

llvm::json::Object fileLocation(llvm::StringRef File, llvm::StringRef Target) {
  llvm::json::Object Loc{
      {"physicalLocation",
       llvm::json::Object{
           {"artifactLocation",
            llvm::json::Object{{"uri", sarifArtifactUri(File)}}}}}};
  if (!Target.empty())
    Loc["logicalLocations"] = llvm::json::Array{llvm::json::Object{
        {"fullyQualifiedName", jsonSafe(Target)}, {"kind", "function"}}};
  return Loc;
}

std::string stepText(const ProofStep &S) {
  std::string T = std::to_string(S.Offset) + " " + S.OpName;
  if (!S.Event.empty())
    T += " [" + S.Event + "]";
  return T;
}

llvm::json::Object threadFlow(llvm::StringRef Id, llvm::StringRef File,
                              llvm::ArrayRef<ProofStep> Steps,
                              int32_t Divergence) {
  llvm::json::Array Locs;
  for (size_t I = 0; I < Steps.size(); ++I) {
    const ProofStep &S = Steps[I];
    llvm::json::Object Loc = fileLocation(File, S.Code);
    if (S.Line && *S.Line >= 1)
      Loc["physicalLocation"].getAsObject()->insert(
          {"region", llvm::json::Object{{"startLine", int64_t(*S.Line)}}});
    Loc["message"] = llvm::json::Object{{"text", jsonSafe(stepText(S))}};
    Locs.push_back(llvm::json::Object{
        {"location", std::move(Loc)},
        {"executionOrder", int64_t(I)},
        {"importance", Divergence >= 0 && size_t(Divergence) == I
                           ? "essential"
                           : "important"},
        {"properties", llvm::json::Object{{"code", jsonSafe(S.Code)},
                                          {"offset", int64_t(S.Offset)},
                                          {"opname", jsonSafe(S.OpName)},
                                          {"event", stringOrNull(S.Event)}}}});
  }
  return llvm::json::Object{{"id", Id}, {"locations", std::move(Locs)}};
}

} // namespace

/// The counterexample as SARIF codeFlows; none when both paths are empty
/// (SARIF wants at least one location per threadFlow and one threadFlow
/// per codeFlow).
static std::optional<llvm::json::Array> codeFlows(const ProofResult &R) {
  llvm::json::Array Threads;
  if (!R.Cex->Emitted.empty())
    Threads.push_back(
        threadFlow("emitted", R.File, R.Cex->Emitted, R.Cex->Divergence));
  if (!R.Cex->Eager.empty())
    Threads.push_back(
        threadFlow("eager", R.File, R.Cex->Eager, R.Cex->Divergence));
  if (Threads.empty())
    return std::nullopt;
  llvm::json::Object Flow{{"threadFlows", std::move(Threads)}};
  if (!R.Cex->Explanation.empty())
    Flow["message"] =
        llvm::json::Object{{"text", jsonSafe(R.Cex->Explanation)}};
  return llvm::json::Array{std::move(Flow)};
}

/// The well-formed findings as SARIF relatedLocations.
static llvm::json::Array
relatedLocations(const std::vector<Diagnostic> &Findings) {
  llvm::json::Array Related;
  int64_t Id = 0;
  for (const Diagnostic &D : Findings) {
    llvm::json::Object L = fileLocation(D.File, D.QualName);
    if (D.Line && *D.Line >= 1) {
      llvm::json::Object Region{{"startLine", *D.Line}};
      if (D.Col)
        Region["startColumn"] = *D.Col + 1;
      L["physicalLocation"].getAsObject()->insert(
          {"region", std::move(Region)});
    }
    L["id"] = Id++;
    L["message"] = llvm::json::Object{
        {"text", jsonSafe(D.Message + " [" + getCheckName(D.Check).str() +
                          "] (offset " + std::to_string(D.Offset) + ")")}};
    Related.push_back(std::move(L));
  }
  return Related;
}

llvm::json::Value
pyverify::proofResultsToSARIF(llvm::ArrayRef<ProofResult> Results,
                              llvm::StringRef ToolVersion) {
  std::vector<std::string> RuleIds;
  for (const PropertyRule &P : FixedRules)
    RuleIds.push_back(P.Id.str());
  auto RuleOf = [&](const ProofResult &R) -> size_t {
    std::string Id = R.V == Verdict::Unknown || R.Property.empty()
                         ? std::string("unknown")
                         : R.Property;
    auto It = llvm::find(RuleIds, Id);
    if (It != RuleIds.end())
      return size_t(It - RuleIds.begin());
    RuleIds.push_back(Id);
    return RuleIds.size() - 1;
  };

  llvm::json::Array Out;
  for (const ProofResult &R : Results) {
    if (R.V == Verdict::Proved)
      continue;
    size_t Rule = RuleOf(R);
    bool Refuted = R.V == Verdict::Refuted;
    std::string Text = !R.Reason.empty() ? R.Reason : getVerdictName(R.V).str();
    llvm::json::Object Props{{"target", jsonSafe(R.Target)},
                             {"line", int64_t(R.FirstLine)},
                             {"verdict", getVerdictName(R.V)},
                             {"property", stringOrNull(R.Property)}};
    if (!R.Assumptions.empty()) {
      llvm::json::Array A;
      for (const std::string &S : R.Assumptions)
        A.push_back(jsonSafe(S));
      Props["assumptions"] = std::move(A);
    }
    llvm::json::Object Res{
        {"ruleId", RuleIds[Rule]},
        {"ruleIndex", int64_t(Rule)},
        {"level", Refuted ? "error" : "warning"},
        {"message", llvm::json::Object{{"text", jsonSafe(Text)}}},
        {"locations", llvm::json::Array{fileLocation(
                          R.File, R.QualName.empty() ? R.Target : R.QualName)}},
        {"properties", std::move(Props)}};
    if (R.Cex)
      if (std::optional<llvm::json::Array> Flows = codeFlows(R))
        Res["codeFlows"] = std::move(*Flows);
    if (!R.Findings.empty())
      Res["relatedLocations"] = relatedLocations(R.Findings);
    Out.push_back(std::move(Res));
  }

  llvm::json::Array Rules;
  for (size_t I = 0; I < RuleIds.size(); ++I) {
    llvm::StringRef Summary =
        I < std::size(FixedRules) ? FixedRules[I].Summary : "";
    llvm::json::Object Rule{
        {"id", RuleIds[I]},
        {"defaultConfiguration",
         llvm::json::Object{
             {"level", RuleIds[I] == "unknown" ? "warning" : "error"}}}};
    if (!Summary.empty())
      Rule["shortDescription"] = llvm::json::Object{{"text", Summary}};
    Rules.push_back(std::move(Rule));
  }

  return llvm::json::Object{
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs",
       llvm::json::Array{llvm::json::Object{
           {"tool",
            llvm::json::Object{
                {"driver",
                 llvm::json::Object{
                     {"name", "pyverify"},
                     {"version", ToolVersion},
                     {"informationUri", "https://github.com/pyverify/pyverify"},
                     {"rules", std::move(Rules)}}}}},
           {"results", std::move(Out)}}}}};
}
