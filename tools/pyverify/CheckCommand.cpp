//===- CheckCommand.cpp - pyverify check ----------------------------------===//
//
// pyverify check [--format=text|json|sarif] [--checks=SPEC] [--jobs=N]
//                [--python=PATH] PATH...
//
// Verifies .pyc files, marshal files, .py files (compiled with python3.11)
// and directories (recursing for .pyc and .py). Exit 0 when clean, 1 on
// error-severity findings, 2 on usage errors or unreadable input. Output is
// identical for every --jobs value: files are checked in parallel but
// reported in sorted order.
//
//===----------------------------------------------------------------------===//

#include "CodeInputs.h"
#include "Commands.h"
#include "InputFiles.h"

#include "pyverify/Check/BundleVerifier.h"
#include "pyverify/Check/CheckOptions.h"
#include "pyverify/Check/DiagnosticPrinter.h"
#include "pyverify/Check/Verifier.h"

#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

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
cl::opt<std::string>
    ChecksSpec("checks",
               cl::desc("Enable/disable checks: id,-id,prefix-*,*,-* "
                        "(applied left to right over the defaults)"),
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

struct FileOutcome {
  FileReport Report;
  std::string InputError; ///< Non-empty when the file could not be read.
};

FileOutcome checkOne(const std::string &Path, const CheckOptions &Opts) {
  FileOutcome O;
  O.Report.Path = Path;
  if (sys::path::extension(Path) == ".pvb") {
    Expected<Bundle> B = loadBundle(Path);
    if (!B) {
      O.InputError = toString(B.takeError());
      return O;
    }
    O.Report = verifyBundle(*B, Opts);
    return O;
  }
  Expected<CodeFile> F = loadInput(Path);
  if (!F) {
    O.InputError = toString(F.takeError());
    return O;
  }
  O.Report = verifyCodeFile(*F, Opts, Path);
  return O;
}

} // namespace

int runCheck() {
  if (ListChecks) {
    for (const CheckInfo &C : allChecks())
      outs() << C.Name << "  [" << getSeverityName(C.DefaultSeverity)
             << (C.EnabledByDefault ? "" : ", off by default") << "]  "
             << C.Summary << "\n";
    return ExitClean;
  }
  if (Inputs.empty()) {
    WithColor::error(errs(), "pyverify") << "check: no input paths given\n";
    return ExitUsage;
  }
  auto Start = std::chrono::steady_clock::now();
  CheckOptions Opts;
  Opts.Balance.SkipWithoutContexts = !NoContextFastPath;
  if (Error E = Opts.parseCheckSpec(ChecksSpec)) {
    WithColor::error(errs(), "pyverify") << toString(std::move(E)) << "\n";
    return ExitUsage;
  }
  std::vector<std::string> Missing;
  std::vector<std::string> Files =
      expandInputs(Inputs, {".pyc", ".py", ".pvb"}, Missing);
  int Status = ExitClean;
  for (const std::string &M : Missing) {
    WithColor::error(errs(), "pyverify")
        << M << ": no such file or directory\n";
    Status = ExitUsage;
  }

  std::vector<FileOutcome> Outcomes(Files.size());
  unsigned Threads = Jobs == 0
                         ? llvm::hardware_concurrency().compute_thread_count()
                         : unsigned(Jobs);
  if (Threads <= 1 || Files.size() <= 1) {
    for (size_t I = 0; I < Files.size(); ++I)
      Outcomes[I] = checkOne(Files[I], Opts);
  } else {
    ThreadPool Pool(llvm::hardware_concurrency(Threads));
    for (size_t I = 0; I < Files.size(); ++I)
      Pool.async([&, I] { Outcomes[I] = checkOne(Files[I], Opts); });
    Pool.wait();
  }

  uint64_t CodeObjects = 0, Errors = 0, Warnings = 0, Remarks = 0, Read = 0;
  uint64_t Possible = 0; // of any severity; a possible error still fails
  std::vector<Diagnostic> All;
  for (FileOutcome &O : Outcomes) {
    if (!O.InputError.empty()) {
      WithColor::error(errs(), "pyverify") << O.InputError << "\n";
      Status = ExitUsage;
      continue;
    }
    ++Read;
    CodeObjects += O.Report.CodeObjects;
    for (Diagnostic &D : O.Report.Diags) {
      Errors += D.Sev == Severity::Error;
      Warnings += D.Sev == Severity::Warning;
      Remarks += D.Sev == Severity::Remark;
      Possible += D.Cert == Certainty::Possible;
      All.push_back(std::move(D));
    }
  }
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();

  switch (OutputFormat) {
  case Format::Text: {
    bool Color = sys::Process::StandardOutHasColors();
    for (const Diagnostic &D : All)
      printDiagnostic(outs(), D, Color);
    outs() << "pyverify: " << Read << " file(s), " << CodeObjects
           << " code object(s): " << Errors << " error(s), " << Warnings
           << " warning(s), " << Remarks << " remark(s)\n";
    break;
  }
  case Format::Json: {
    json::Array Diags;
    for (const Diagnostic &D : All)
      Diags.push_back(diagnosticToJSON(D));
    json::Object Out{
        {"diagnostics", std::move(Diags)},
        {"summary", json::Object{{"files", int64_t(Read)},
                                 {"code_objects", int64_t(CodeObjects)},
                                 {"errors", int64_t(Errors)},
                                 {"warnings", int64_t(Warnings)},
                                 {"remarks", int64_t(Remarks)},
                                 {"possible", int64_t(Possible)},
                                 {"seconds", Seconds}}}};
    outs() << formatv("{0:2}", json::Value(std::move(Out))) << "\n";
    break;
  }
  case Format::Sarif:
    outs() << formatv("{0:2}", diagnosticsToSARIF(All, "0.1.0")) << "\n";
    break;
  }
  if (Status == ExitClean && Errors)
    Status = ExitFindings;
  return Status;
}

} // namespace pyverify::tool
