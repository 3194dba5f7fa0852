//===- pyverify.cpp - The pyverify command-line tool ----------------------===//
//
// pyverify SUBCOMMAND [options] PATH...
//
// Options common to every subcommand (--color, --python) may also come
// before the subcommand name.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace pyverify::tool;

/// LLVM's WithColor option, found by name (it is static in WithColor.cpp).
static llvm::cl::opt<llvm::cl::boolOrDefault> *ColorOption = nullptr;

/// WithColor registers --color for the top level only, where nothing is
/// printed; re-registers it for every subcommand, so that `pyverify check
/// --color` and `pyverify --color check` both parse.
static void shareColorOption() {
  auto &Opts = llvm::cl::getRegisteredOptions(*llvm::cl::TopLevelSubCommand);
  auto It = Opts.find("color");
  if (It == Opts.end())
    return;
  llvm::cl::Option *O = It->second;
  O->removeArgument();
  O->addSubCommand(*llvm::cl::AllSubCommands);
  O->addArgument();
  ColorOption = static_cast<llvm::cl::opt<llvm::cl::boolOrDefault> *>(O);
}

/// LLVM's parser takes a subcommand only as the first argument; options
/// given before it (`pyverify --color check F`) would make every later
/// argument an unknown top-level one. Moves the first argument that names a
/// subcommand to the front when only options precede it.
static void subcommandFirst(int Argc, char **Argv) {
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef A = Argv[I];
    if (!A.startswith("-")) {
      for (llvm::cl::SubCommand *SC : llvm::cl::getRegisteredSubcommands())
        if (!SC->getName().empty() && A == SC->getName()) {
          std::rotate(Argv + 1, Argv + I, Argv + I + 1);
          return;
        }
      return;
    }
    if (A == "--")
      return;
  }
}

bool pyverify::tool::useColor(llvm::raw_ostream &OS) {
  if (!ColorOption || *ColorOption == llvm::cl::BOU_UNSET)
    return OS.has_colors();
  return *ColorOption == llvm::cl::BOU_TRUE;
}

int main(int Argc, char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  shareColorOption();
  subcommandFirst(Argc, Argv);
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
          "  pyverify stats PATH...   check a corpus as 'check' does, print "
          "a summary\n\n"
          "  Every subcommand takes --color[=false] (default: colour when "
          "the output\n  is a terminal) and --python=PATH, before or after "
          "its name.\n",
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
