//===- StatsCommand.cpp - pyverify stats ----------------------------------===//
//
// pyverify stats [--checks=SPEC] [--jobs=N] PATH...
//
// Reads the files `pyverify check` reads (the same selection from
// directories, InputFiles.h), runs the same checks on them (CheckFiles.h:
// the default checks, or --checks= as in check) and prints a summary:
// files, code objects, instructions, exception-table entries, which checks
// ran, and the findings per check id. Exit status as `check`: 0 when nothing
// of error severity was found, 1 otherwise, 2 when a path is missing or a
// file could not be read.
//
//===----------------------------------------------------------------------===//

#include "CheckFiles.h"
#include "CodeInputs.h"
#include "Commands.h"
#include "InputFiles.h"

#include "pyverify/Bytecode/DecodedCode.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>

using namespace pyverify;
using namespace llvm;

namespace pyverify::tool {

cl::SubCommand StatsCmd("stats",
                        "Check a corpus as 'pyverify check' does; print a "
                        "summary");

namespace {

cl::list<std::string> Inputs(cl::Positional, cl::ZeroOrMore,
                             cl::desc("<file or directory>..."),
                             cl::sub(StatsCmd));
cl::list<std::string>
    ChecksSpec("checks",
               cl::desc("Enable/disable checks, as for 'pyverify check'"),
               cl::sub(StatsCmd));
cl::opt<unsigned> Jobs("jobs",
                       cl::desc("Files checked in parallel (0: all cores)"),
                       cl::init(1), cl::sub(StatsCmd));

struct Totals {
  uint64_t Files = 0, Unreadable = 0, Code = 0, Insts = 0, Entries = 0,
           Prefixed = 0, Bytes = 0, WithTable = 0, Errors = 0, Warnings = 0,
           Remarks = 0;
  /// Findings per check id; ordered, so the output is deterministic.
  std::map<std::string, uint64_t> PerCheck;

  TargetWalk Walk;

  void addCode(const std::string &Path, const CodeTarget &Tg) {
    Walk.visit(Path, Tg, [&](const CodeObject &C, unsigned) {
      DecodedCode D = DecodedCode::decode(C);
      ++Code;
      Bytes += C.Code.size();
      Insts += D.Insts.size();
      Entries += D.Table.size();
      WithTable += !D.Table.empty();
      for (const Instruction &I : D.Insts.instructions())
        Prefixed += I.NumPrefixes != 0;
    });
  }
};

/// "27 of 29 (pyverify check's defaults)" or "... (--checks=SPEC)".
std::string checksLine(const CheckOptions &Opts) {
  unsigned On = 0;
  for (const CheckInfo &C : allChecks())
    On += Opts.isEnabled(C.Id);
  std::string S = std::to_string(On) + " of " +
                  std::to_string(allChecks().size()) + " check ids, ";
  if (ChecksSpec.empty())
    return S + "the defaults of 'pyverify check'";
  S += "as 'pyverify check";
  for (const std::string &Spec : ChecksSpec)
    S += " --checks=" + Spec;
  return S + "'";
}

void printTotals(const Totals &T, const CheckOptions &Opts, double Seconds) {
  outs() << "files:              " << T.Files;
  if (T.Unreadable)
    outs() << " (+" << T.Unreadable << " unreadable)";
  outs() << "\ncode objects:       " << T.Code
         << "\ninstructions:       " << T.Insts << " (" << T.Prefixed
         << " with EXTENDED_ARG)"
         << "\nco_code bytes:      " << T.Bytes
         << "\ntable entries:      " << T.Entries << " in " << T.WithTable
         << " code objects"
         << "\nchecks:             " << checksLine(Opts)
         << "\nfindings:           ";
  if (T.PerCheck.empty())
    outs() << "none";
  else
    outs() << T.Errors << " error(s), " << T.Warnings << " warning(s), "
           << T.Remarks << " remark(s)";
  for (const auto &[Id, N] : T.PerCheck)
    outs() << "\n  " << Id << " ("
           << getSeverityName(getCheckInfo(*lookupCheck(Id)).DefaultSeverity)
           << "): " << N;
  outs() << "\n" << format("seconds:            %.3f\n", Seconds);
  if (T.Errors)
    outs() << "pyverify: " << T.Errors
           << " error(s); 'pyverify check' on the same paths prints them\n";
}

} // namespace

int runStats() {
  if (Inputs.empty())
    return usageError("stats", "no input (give files or directories)");
  auto Start = std::chrono::steady_clock::now();
  CheckOptions Opts;
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
  int Status = reportInputs(In) ? ExitUsage : ExitClean;
  Totals T;
  for (FileOutcome &O : checkFiles(In.Files, Opts, Jobs, *Versions)) {
    if (!O.InputError.empty()) {
      WithColor::error(errs(), "pyverify") << O.InputError << "\n";
      ++T.Unreadable;
      Status = ExitUsage;
      continue;
    }
    if (!O.VersionNote.empty())
      WithColor::note(errs(), "pyverify")
          << O.Report.Path << ": " << O.VersionNote << "\n";
    ++T.Files;
    for (const CodeTarget &Tg : O.Targets)
      T.addCode(O.Report.Path, Tg);
    for (const Diagnostic &D : O.Report.Diags) {
      ++T.PerCheck[getCheckName(D.Check).str()];
      T.Errors += D.Sev == Severity::Error;
      T.Warnings += D.Sev == Severity::Warning;
      T.Remarks += D.Sev == Severity::Remark;
    }
  }
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  printTotals(T, Opts, Seconds);
  if (Status == ExitClean && T.Errors)
    Status = ExitFindings;
  return Status;
}

} // namespace pyverify::tool
