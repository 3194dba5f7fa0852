//===- Commands.h - pyverify subcommands ------------------------*- C++ -*-===//
//
// Each subcommand lives in its own file with its own cl::opt options bound
// to its cl::SubCommand. Exit codes: 0 clean, 1 error findings, 2 usage
// errors or unreadable input.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_TOOLS_COMMANDS_H
#define PYVERIFY_TOOLS_COMMANDS_H

#include "llvm/Support/CommandLine.h"

namespace pyverify::tool {

enum ExitCode { ExitClean = 0, ExitFindings = 1, ExitUsage = 2 };

extern llvm::cl::SubCommand DisCmd;
extern llvm::cl::SubCommand StatsCmd;
extern llvm::cl::SubCommand CheckCmd;
extern llvm::cl::SubCommand AnalyzeCmd;
extern llvm::cl::SubCommand CfgCmd;

int runDis();
int runStats();
int runCheck();
int runAnalyze();
int runCfg();

} // namespace pyverify::tool

#endif
