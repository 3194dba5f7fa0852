//===- pyverify.cpp - The pyverify command-line tool ----------------------===//
//
// pyverify SUBCOMMAND [options] PATH...
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace pyverify::tool;

int main(int Argc, char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &OS) {
    OS << "pyverify 0.1.0 (CPython 3.11 bytecode, magic 3495)\n";
  });
  if (!llvm::cl::ParseCommandLineOptions(
          Argc, Argv,
          "pyverify: static verifier for CPython 3.11 bytecode\n\n"
          "  pyverify check PATH...   verify code objects, report findings\n"
          "  pyverify prove PATH...   prove emitted code (.pvb) against the "
          "original\n"
          "  pyverify dis FILE...     disassemble .pyc / marshal files\n"
          "  pyverify analyze --print=stack-depth FILE...\n"
          "                           annotated listing of an analysis\n"
          "  pyverify cfg [--dot] FILE...  basic blocks and edges\n"
          "  pyverify stats PATH...   decode and validate a corpus, print a "
          "summary\n",
          &llvm::errs()))
    return ExitUsage;
  if (DisCmd)
    return runDis();
  if (StatsCmd)
    return runStats();
  if (CheckCmd)
    return runCheck();
  if (AnalyzeCmd)
    return runAnalyze();
  if (CfgCmd)
    return runCfg();
  if (ProveCmd)
    return runProve();
  llvm::errs() << "pyverify: no subcommand given; see 'pyverify --help'\n";
  return ExitUsage;
}
