//===- DiagnosticPrinter.cpp - Text, JSON and SARIF output ----------------===//

#include "pyverify/Check/DiagnosticPrinter.h"
#include "pyverify/Bytecode/Listing.h"
#include "pyverify/Support/JSONWriter.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace pyverify;

namespace {
/// The line a diagnostic or note is shown at: the instruction's (with its
/// column) when the location table gives it one, else the code object's
/// first line (co_firstlineno, no column) -- generated code such as
/// Dynamo's resume functions has no positions, and GitHub code scanning
/// rejects a SARIF result without region.startLine. Line is empty only
/// when co_firstlineno is not a line either (hand-built code).
struct ShownLine {
  std::optional<int32_t> Line;
  std::optional<int32_t> Col;
  bool OwnLine = true; ///< The instruction's own line, not the fallback.
};
} // namespace

static ShownLine shownLine(const Diagnostic &D, std::optional<int32_t> Line,
                           std::optional<int32_t> Col) {
  if (Line && *Line >= 1)
    return {Line, Col, true};
  if (D.FirstLineNo >= 1)
    return {D.FirstLineNo, std::nullopt, false};
  return {std::nullopt, std::nullopt, false};
}

static void printLocation(llvm::raw_ostream &OS, llvm::StringRef File,
                          const ShownLine &L) {
  OS << File << ':';
  if (L.Line) {
    OS << *L.Line << ':';
    if (L.Col)
      OS << (*L.Col + 1) << ':';
  }
}

/// The message as people read it: a possible finding says so first.
static std::string messageText(const Diagnostic &D) {
  return D.Cert == Certainty::Possible ? "possibly: " + D.Message : D.Message;
}

/// The file a diagnostic's line numbers are in.
static llvm::StringRef locationFile(const Diagnostic &D) {
  return D.SourceFile.empty() ? llvm::StringRef(D.File) : D.SourceFile;
}

void pyverify::printDiagnostic(llvm::raw_ostream &OS, const Diagnostic &D,
                               bool Color) {
  ShownLine At = shownLine(D, D.Line, D.Col);
  printLocation(OS, locationFile(D), At);
  OS << ' ';
  llvm::HighlightColor C =
      D.Sev == Severity::Error     ? llvm::HighlightColor::Error
      : D.Sev == Severity::Warning ? llvm::HighlightColor::Warning
                                   : llvm::HighlightColor::Remark;
  llvm::WithColor(OS, C,
                  !Color ? llvm::ColorMode::Disable : llvm::ColorMode::Enable)
      << getSeverityName(D.Sev) << ':';
  OS << ' ' << messageText(D) << " [" << getCheckName(D.Check) << "]\n";
  OS << "  in ";
  if (!D.Target.empty())
    OS << '[' << D.Target << "] ";
  OS << D.QualName << " (line " << D.FirstLineNo << ") at offset " << D.Offset;
  if (!At.OwnLine)
    OS << " (no line of its own)";
  if (!D.Instruction.empty())
    OS << ": " << D.Instruction;
  if (!D.SourceFile.empty())
    OS << ", read from " << D.File;
  OS << '\n';
  for (const DiagnosticNote &N : D.Notes) {
    printLocation(OS, locationFile(D), shownLine(D, N.Line, N.Col));
    OS << ' ';
    llvm::WithColor(OS, llvm::HighlightColor::Note,
                    !Color ? llvm::ColorMode::Disable : llvm::ColorMode::Enable)
        << "note:";
    OS << ' ' << N.Message << " (offset " << N.Offset << ")\n";
  }
}

static llvm::json::Value optInt(std::optional<int32_t> V) {
  if (V)
    return *V;
  return nullptr;
}

static llvm::json::Array notRunJSON(llvm::ArrayRef<CheckId> Ids) {
  llvm::json::Array A;
  for (CheckId Id : Ids)
    A.push_back(getCheckName(Id));
  return A;
}

llvm::json::Object pyverify::diagnosticToJSON(const Diagnostic &D) {
  llvm::json::Array Notes;
  for (const DiagnosticNote &N : D.Notes)
    Notes.push_back(llvm::json::Object{{"offset", N.Offset},
                                       {"line", optInt(N.Line)},
                                       {"col", optInt(N.Col)},
                                       {"message", jsonSafe(N.Message)}});
  llvm::json::Object O{{"check", getCheckName(D.Check)},
                       {"severity", getSeverityName(D.Sev)},
                       {"file", jsonSafe(D.File)},
                       {"code", jsonSafe(D.QualName)},
                       {"code_index", D.CodeIndex},
                       {"firstlineno", D.FirstLineNo},
                       {"offset", D.Offset},
                       {"instruction", D.Instruction.empty()
                                           ? llvm::json::Value(nullptr)
                                           : llvm::json::Value(D.Instruction)},
                       {"line", optInt(D.Line)},
                       {"col", optInt(D.Col)},
                       {"message", jsonSafe(D.Message)},
                       {"notes", std::move(Notes)},
                       {"certainty", getCertaintyName(D.Cert)}};
  if (!D.Target.empty())
    O["target"] = D.Target;
  if (!D.SourceFile.empty())
    O["source"] = jsonSafe(D.SourceFile);
  if (!D.NotRun.empty())
    O["not_run"] = notRunJSON(D.NotRun);
  return O;
}

static llvm::StringRef sarifLevel(Severity S) {
  switch (S) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Remark:
    return "note";
  }
  llvm_unreachable("unknown severity");
}

std::string pyverify::sarifArtifactUri(llvm::StringRef Path) {
  static const char Hex[] = "0123456789ABCDEF";
  std::string Out =
      llvm::sys::path::is_absolute(Path, llvm::sys::path::Style::posix)
          ? "file://"
          : "";
  for (unsigned char C : Path) {
    if (llvm::isAlnum(C) || C == '-' || C == '.' || C == '_' || C == '~' ||
        C == '/') {
      Out.push_back(char(C));
      continue;
    }
    Out.push_back('%');
    Out.push_back(Hex[C >> 4]);
    Out.push_back(Hex[C & 15]);
  }
  return Out;
}

/// A SARIF region for \p L: the fallback line is marked in its properties
/// ("line_source": "firstlineno"; "none" with startLine 1 when there is no
/// line at all).
static llvm::json::Object sarifRegion(const ShownLine &L) {
  llvm::json::Object Region{{"startLine", L.Line ? *L.Line : 1}};
  if (L.Col)
    Region["startColumn"] = *L.Col + 1;
  if (!L.OwnLine)
    Region["properties"] =
        llvm::json::Object{{"line_source", L.Line ? "firstlineno" : "none"}};
  return Region;
}

/// A SARIF location in \p File; with \p At, a region (every result's and
/// related location's), without, none (an input notification's).
static llvm::json::Object sarifLocation(llvm::StringRef File,
                                        std::optional<ShownLine> At,
                                        llvm::StringRef QualName) {
  llvm::json::Object Phys{
      {"artifactLocation",
       llvm::json::Object{{"uri", sarifArtifactUri(File)}}}};
  if (At)
    Phys["region"] = sarifRegion(*At);
  llvm::json::Object Loc{{"physicalLocation", std::move(Phys)}};
  if (!QualName.empty())
    Loc["logicalLocations"] = llvm::json::Array{llvm::json::Object{
        {"fullyQualifiedName", jsonSafe(QualName)}, {"kind", "function"}}};
  return Loc;
}

static llvm::json::Array sarifRules() {
  llvm::json::Array Rules;
  for (const CheckInfo &C : allChecks())
    Rules.push_back(llvm::json::Object{
        {"id", C.Name},
        {"shortDescription", llvm::json::Object{{"text", C.Summary}}},
        {"helpUri", (ChecksDocUri + "#" + C.Name).str()},
        {"defaultConfiguration",
         llvm::json::Object{{"level", sarifLevel(C.DefaultSeverity)},
                            {"enabled", C.EnabledByDefault}}}});
  return Rules;
}

/// The run's one invocation: unreadable and skipped inputs as
/// toolExecutionNotifications (SARIF 2.1.0, 3.20.21).
static llvm::json::Object
sarifInvocation(llvm::ArrayRef<InputNotification> Inputs) {
  llvm::json::Array Notes;
  bool Failed = false;
  for (const InputNotification &N : Inputs) {
    Failed |= N.Sev == Severity::Error;
    Notes.push_back(llvm::json::Object{
        {"level", sarifLevel(N.Sev)},
        {"message", llvm::json::Object{{"text", jsonSafe(N.Message)}}},
        {"locations",
         llvm::json::Array{sarifLocation(N.File, std::nullopt, "")}}});
  }
  return llvm::json::Object{{"executionSuccessful", !Failed},
                            {"toolExecutionNotifications", std::move(Notes)}};
}

void pyverify::writeDiagnosticsJSON(llvm::json::OStream &J,
                                    llvm::ArrayRef<Diagnostic> Diags) {
  J.array([&] {
    for (const Diagnostic &D : Diags)
      J.value(diagnosticToJSON(D));
  });
}

/// The SARIF result of \p D.
static llvm::json::Object sarifResult(const Diagnostic &D) {
  llvm::json::Array Related;
  unsigned Id = 0;
  for (const DiagnosticNote &N : D.Notes) {
    llvm::json::Object L =
        sarifLocation(locationFile(D), shownLine(D, N.Line, N.Col), "");
    L["id"] = Id++;
    L["message"] =
        llvm::json::Object{{"text", jsonSafe(N.Message + " (offset " +
                                             std::to_string(N.Offset) + ")")}};
    Related.push_back(std::move(L));
  }
  std::string Text = messageText(D) + " (in " + D.QualName + " at offset " +
                     std::to_string(D.Offset) +
                     (D.Instruction.empty() ? "" : ": " + D.Instruction) + ")";
  llvm::json::Object R{
      {"ruleId", getCheckName(D.Check)},
      {"ruleIndex", unsigned(D.Check)},
      {"level", sarifLevel(D.Sev)},
      {"message", llvm::json::Object{{"text", jsonSafe(Text)}}},
      {"locations",
       llvm::json::Array{sarifLocation(
           locationFile(D), shownLine(D, D.Line, D.Col), D.QualName)}}};
  if (!Related.empty())
    R["relatedLocations"] = std::move(Related);
  if (!D.SourceFile.empty()) // the .pyc the code was read from (3.27.8)
    R["analysisTarget"] = llvm::json::Object{{"uri", sarifArtifactUri(D.File)}};
  llvm::json::Object Props{{"certainty", getCertaintyName(D.Cert)}};
  if (!D.NotRun.empty())
    Props["not_run"] = notRunJSON(D.NotRun);
  R["properties"] = std::move(Props);
  return R;
}

void pyverify::writeSARIF(llvm::json::OStream &J,
                          llvm::ArrayRef<Diagnostic> Diags,
                          llvm::StringRef ToolVersion,
                          llvm::ArrayRef<InputNotification> Inputs) {
  // The log with one run; its results written one at a time.
  llvm::json::Value Schema = "https://json.schemastore.org/sarif-2.1.0.json";
  llvm::json::Value Version = "2.1.0";
  llvm::json::Value Tool = llvm::json::Object{
      {"driver", llvm::json::Object{
                     {"name", "pyverify"},
                     {"version", ToolVersion},
                     {"informationUri", "https://github.com/pyverify/pyverify"},
                     {"rules", sarifRules()}}}};
  llvm::json::Value Invocations = llvm::json::Array{sarifInvocation(Inputs)};
  auto Results = [&](llvm::json::OStream &J) {
    J.array([&] {
      for (const Diagnostic &D : Diags)
        J.value(sarifResult(D));
    });
  };
  auto Runs = [&](llvm::json::OStream &J) {
    JSONMember Run[] = {{"tool", nullptr, &Tool},
                        {"invocations", nullptr, &Invocations},
                        {"results", Results}};
    J.array([&] { writeJSONObject(J, Run); });
  };
  JSONMember Log[] = {{"$schema", nullptr, &Schema},
                      {"version", nullptr, &Version},
                      {"runs", Runs}};
  writeJSONObject(J, Log);
}
