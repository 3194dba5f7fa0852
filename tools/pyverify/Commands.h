//===- Commands.h - pyverify subcommands ------------------------*- C++ -*-===//
//
// Each subcommand lives in its own file with its own cl::opt options bound
// to its cl::SubCommand. Exit codes: 0 clean, 1 error findings (prove:
// something refuted), 2 usage errors or unreadable input, 3 (prove only)
// something unknown and nothing refuted.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_TOOLS_COMMANDS_H
#define PYVERIFY_TOOLS_COMMANDS_H

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace pyverify::tool {

enum ExitCode {
  ExitClean = 0,
  ExitFindings = 1,
  ExitUsage = 2,
  ExitUnknown = 3
};

extern llvm::cl::SubCommand DisCmd;
extern llvm::cl::SubCommand StatsCmd;
extern llvm::cl::SubCommand CheckCmd;
extern llvm::cl::SubCommand AnalyzeCmd;
extern llvm::cl::SubCommand CfgCmd;
extern llvm::cl::SubCommand ProveCmd;

/// Whether to colour what goes to \p OS: --color=true / --color=false when
/// given (in any position), else whether \p OS is a terminal. Messages on
/// stderr through llvm::WithColor follow the same option.
bool useColor(llvm::raw_ostream &OS);

/// Reports a usage error of subcommand \p Command on stderr ("pyverify:
/// error: COMMAND: MESSAGE (see 'pyverify COMMAND --help')") and returns
/// ExitUsage. Subcommands check their required options and inputs
/// themselves, so that a missing one gets this instead of LLVM's wording.
int usageError(llvm::StringRef Command, const llvm::Twine &Message);

/// Writes one line of a JSON Lines output (dis, analyze) -- the value
/// \p Write writes -- and the newline, streamed: nothing of the record is
/// held but the stream's buffer. U+0085, U+2028 and U+2029, which JSON
/// allows raw in a string but line splitters (Python's str.splitlines)
/// break at, are written as \u escapes, so one record is one line for every
/// reader.
void printJsonLine(llvm::raw_ostream &OS,
                   llvm::function_ref<void(llvm::json::OStream &)> Write);

int runDis();
int runStats();
int runCheck();
int runAnalyze();
int runCfg();
int runProve();

} // namespace pyverify::tool

#endif
