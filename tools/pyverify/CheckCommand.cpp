//===- CheckCommand.cpp - pyverify check ----------------------------------===//
//
// pyverify check [--format=text|json|sarif] [--checks=SPEC]... [--jobs=N]
//                [--python=PATH] PATH...
// pyverify check --list-checks [--format=text|json]
//
// Verifies .pyc files, marshal files, .py files (compiled by an interpreter
// of the version asked, all in one process: PySource.h), .pvb bundles,
// standard input ("-") and directories (recursing for .pyc, .py and .pvb, as
// every command does: CodeInputs.h, InputFiles.h). Each --checks value
// applies, left to right, over the defaults. Exit 0 when clean, 1 on
// error-severity findings, 2 on usage errors or unreadable input (listed in
// JSON and SARIF too). Output is identical for every --jobs value: files are
// checked in parallel but reported in sorted order.
//
//===----------------------------------------------------------------------===//

#include "CheckFiles.h"
#include "CodeInputs.h"
#include "Commands.h"
#include "InputFiles.h"

#include "pyverify/Bytecode/Listing.h"
#include "pyverify/Check/CheckOptions.h"
#include "pyverify/Check/DiagnosticPrinter.h"
#include "pyverify/Support/JSONWriter.h"

#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <set>
#include <string>
#include <utility>

using namespace pyverify;
using namespace llvm;

namespace pyverify::tool {

cl::SubCommand CheckCmd("check", "Verify code objects and report findings");

namespace {

enum class Format { Text, Json, Sarif };

cl::list<std::string> Inputs(cl::Positional, cl::desc("<path>..."),
                             cl::sub(CheckCmd));
cl::opt<Format> OutputFormat(
    "format", cl::desc("Output format"), cl::init(Format::Text),
    cl::values(clEnumValN(Format::Text, "text", "clang-style diagnostics"),
               clEnumValN(Format::Json, "json", "the JSON contract"),
               clEnumValN(Format::Sarif, "sarif", "SARIF 2.1.0")),
    cl::sub(CheckCmd));
cl::list<std::string>
    ChecksSpec("checks",
               cl::desc("Enable/disable checks: id,-id,prefix-*,*,-* "
                        "(applied left to right over the defaults; may be "
                        "given more than once)"),
               cl::sub(CheckCmd));
cl::opt<unsigned> Jobs("jobs",
                       cl::desc("Files checked in parallel (0: all "
                                "cores)"),
                       cl::init(1), cl::sub(CheckCmd));
cl::opt<bool> NoContextFastPath(
    "no-context-fast-path",
    cl::desc("Interpret code objects without contexts too (testing)"),
    cl::Hidden, cl::sub(CheckCmd));
cl::opt<bool> ListChecks("list-checks",
                         cl::desc("List every check id and exit"),
                         cl::sub(CheckCmd));

/// What one run of check found, in input order.
struct CheckRun {
  std::vector<Diagnostic> All;
  /// Missing or unreadable paths (errors), code of another Python
  /// (warnings), in input order.
  std::vector<InputNotification> Inputs;
  uint64_t Unreadable = 0;
  uint64_t CodeObjects = 0, Errors = 0, Warnings = 0, Remarks = 0, Read = 0;
  uint64_t Possible = 0; // of any severity; a possible error still fails
  /// Code objects on which some enabled check did not run (checks-not-run,
  /// analysis-limit).
  uint64_t NotFullyChecked = 0;
  double Seconds = 0;

  void inputError(const std::string &File, const std::string &Message) {
    WithColor::error(errs(), "pyverify") << Message << "\n";
    Inputs.push_back({File, Message, Severity::Error});
    ++Unreadable;
  }

  void add(FileOutcome &O) {
    if (!O.InputError.empty())
      return inputError(O.Report.Path, O.InputError);
    if (!O.VersionNote.empty()) {
      WithColor::note(errs(), "pyverify")
          << O.Report.Path << ": " << O.VersionNote << "\n";
      Inputs.push_back({O.Report.Path, O.Report.Path + ": " + O.VersionNote,
                        Severity::Warning});
    }
    ++Read;
    CodeObjects += O.Report.CodeObjects;
    std::set<std::pair<std::string, uint32_t>> NotChecked;
    for (Diagnostic &D : O.Report.Diags) {
      if (!D.NotRun.empty())
        NotChecked.insert({D.Target, D.CodeIndex});
      Errors += D.Sev == Severity::Error;
      Warnings += D.Sev == Severity::Warning;
      Remarks += D.Sev == Severity::Remark;
      Possible += D.Cert == Certainty::Possible;
      All.push_back(std::move(D));
    }
    NotFullyChecked += NotChecked.size();
  }
};

void printText(const CheckRun &R) {
  bool Color = useColor(outs());
  for (const Diagnostic &D : R.All)
    printDiagnostic(outs(), D, Color);
  outs() << "pyverify: " << R.Read << " file(s), " << R.CodeObjects
         << " code object(s): " << R.Errors << " error(s), " << R.Warnings
         << " warning(s), " << R.Remarks << " remark(s)";
  if (R.NotFullyChecked)
    outs() << "; " << R.NotFullyChecked << " code object(s) not fully checked";
  outs() << "\n";
}

/// The JSON contract (docs/json.md), written one diagnostic at a time.
void printJson(const CheckRun &R) {
  json::Value Summary =
      json::Object{{"files", int64_t(R.Read)},
                   {"code_objects", int64_t(R.CodeObjects)},
                   {"errors", int64_t(R.Errors)},
                   {"warnings", int64_t(R.Warnings)},
                   {"remarks", int64_t(R.Remarks)},
                   {"possible", int64_t(R.Possible)},
                   {"not_fully_checked", int64_t(R.NotFullyChecked)},
                   {"unreadable", int64_t(R.Unreadable)},
                   {"seconds", R.Seconds}};
  auto Diags = [&](json::OStream &J) { writeDiagnosticsJSON(J, R.All); };
  auto InputErrors = [&](json::OStream &J) {
    J.array([&] {
      for (const InputNotification &N : R.Inputs)
        if (N.Sev == Severity::Error)
          J.value(json::Object{{"file", jsonSafe(N.File)},
                               {"message", jsonSafe(N.Message)}});
    });
  };
  {
    json::OStream J(outs(), 2);
    JSONMember Members[] = {{"diagnostics", Diags},
                            {"input_errors", InputErrors},
                            {"summary", nullptr, &Summary}};
    writeJSONObject(J, Members);
  }
  outs() << "\n";
}

/// --list-checks: text, or JSON (docs/json.md).
int listChecks() {
  if (OutputFormat == Format::Sarif) {
    WithColor::error(errs(), "pyverify")
        << "check: --list-checks prints --format=text or --format=json\n";
    return ExitUsage;
  }
  if (OutputFormat == Format::Text) {
    for (const CheckInfo &C : allChecks())
      outs() << C.Name << "  [" << getSeverityName(C.DefaultSeverity)
             << (C.EnabledByDefault ? "" : ", off by default") << "]  "
             << C.Summary << "\n";
    return ExitClean;
  }
  json::Array Checks;
  for (const CheckInfo &C : allChecks())
    Checks.push_back(
        json::Object{{"id", C.Name},
                     {"severity", getSeverityName(C.DefaultSeverity)},
                     {"enabled_by_default", C.EnabledByDefault},
                     {"summary", C.Summary},
                     {"rule_index", int64_t(C.Id)},
                     {"help_uri", (ChecksDocUri + "#" + C.Name).str()}});
  outs() << formatv("{0:2}",
                    json::Value(json::Object{{"checks", std::move(Checks)}}))
         << "\n";
  return ExitClean;
}

} // namespace

int runCheck() {
  if (ListChecks)
    return listChecks();
  if (Inputs.empty()) {
    WithColor::error(errs(), "pyverify") << "check: no input paths given\n";
    return ExitUsage;
  }
  auto Start = std::chrono::steady_clock::now();
  CheckOptions Opts;
  Opts.Balance.SkipWithoutContexts = !NoContextFastPath;
  if (Error E = parseCheckSpecs(Opts, ChecksSpec)) {
    WithColor::error(errs(), "pyverify") << toString(std::move(E)) << "\n";
    return ExitUsage;
  }
  Expected<InputVersions> Versions = versionsFromOptions();
  if (!Versions) {
    WithColor::error(errs(), "pyverify")
        << toString(Versions.takeError()) << "\n";
    return ExitUsage;
  }
  ExpandedInputs In = selectInputs(Inputs, *Versions);
  CheckRun R;
  for (const std::string &M : In.Missing) {
    R.Inputs.push_back({M, M + ": no such file or directory"});
    ++R.Unreadable;
  }
  reportInputs(In);
  for (FileOutcome &O : checkFiles(In.Files, Opts, Jobs, *Versions))
    R.add(O);
  R.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();

  switch (OutputFormat) {
  case Format::Text:
    printText(R);
    break;
  case Format::Json:
    printJson(R);
    break;
  case Format::Sarif: {
    json::OStream J(outs(), 2);
    writeSARIF(J, R.All, "0.1.0", R.Inputs);
  }
    outs() << "\n";
    break;
  }
  if (R.Unreadable)
    return ExitUsage;
  return R.Errors ? ExitFindings : ExitClean;
}

} // namespace pyverify::tool
