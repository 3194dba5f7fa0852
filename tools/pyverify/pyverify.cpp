//===- pyverify.cpp - The pyverify command-line tool ----------------------===//
//
// pyverify SUBCOMMAND [options] PATH...
//
// Options common to every subcommand (--color, --python) may also come
// before the subcommand name.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "pyverify/Bytecode/PythonVersion.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace pyverify;
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
static bool isSubcommandName(llvm::StringRef A) {
  return llvm::any_of(llvm::cl::getRegisteredSubcommands(),
                      [&](llvm::cl::SubCommand *SC) {
                        return !SC->getName().empty() && A == SC->getName();
                      });
}

static void subcommandFirst(int Argc, char **Argv) {
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef A = Argv[I];
    if (!A.startswith("-")) {
      if (isSubcommandName(A))
        std::rotate(Argv + 1, Argv + I, Argv + I + 1);
      return;
    }
    if (A == "--")
      return;
  }
}

int pyverify::tool::usageError(llvm::StringRef Command,
                               const llvm::Twine &Message) {
  llvm::WithColor::error(llvm::errs(), "pyverify")
      << Command << ": " << Message << " (see 'pyverify " << Command
      << " --help')\n";
  return ExitUsage;
}

void pyverify::tool::printJsonLine(llvm::raw_ostream &OS,
                                   const llvm::json::Value &V) {
  std::string Text;
  {
    // Buffered: unbuffered (raw_string_ostream's default), every character
    // the JSON printer writes is a call chain and an append of its own
    // (measured: two fifths of `dis --format=json --fields`).
    llvm::raw_string_ostream OS(Text);
    OS.SetBuffered();
    OS << V;
    OS.flush();
  }
  // In UTF-8 these byte sequences are only ever the three characters, and
  // outside strings JSON is ASCII: the escape is the same string. One pass:
  // each lead byte's next position is found once (memchr) and looked for
  // again only past where it was (searching every separator again from each
  // one found was quadratic in the separators a string holds).
  static constexpr std::pair<llvm::StringLiteral, llvm::StringLiteral>
      Separators[] = {{"\xC2\x85", "\\u0085"},
                      {"\xE2\x80\xA8", "\\u2028"},
                      {"\xE2\x80\xA9", "\\u2029"}};
  llvm::StringRef All = Text;
  size_t Done = 0, NextC2 = All.find('\xC2'), NextE2 = All.find('\xE2');
  while (true) {
    size_t At = std::min(NextC2, NextE2);
    if (At == llvm::StringRef::npos)
      break;
    llvm::StringRef From = All.drop_front(At);
    size_t Len = 1; // a lead byte of another character: kept
    llvm::StringRef Escape;
    for (const auto &[Raw, Esc] : Separators)
      if (From.startswith(Raw)) {
        Len = Raw.size();
        Escape = Esc;
      }
    OS << All.slice(Done, At);
    if (Escape.empty())
      OS << All.substr(At, Len);
    else
      OS << Escape;
    Done = At + Len;
    if (NextC2 < Done)
      NextC2 = All.find('\xC2', Done);
    if (NextE2 < Done)
      NextE2 = All.find('\xE2', Done);
  }
  OS << All.drop_front(Done);
  OS << "\n";
}

bool pyverify::tool::useColor(llvm::raw_ostream &OS) {
  if (!ColorOption || *ColorOption == llvm::cl::BOU_UNSET)
    return OS.has_colors();
  return *ColorOption == llvm::cl::BOU_TRUE;
}

/// Whether the first argument names a subcommand (subcommandFirst() has put
/// it there): its --help then shows its own options without the overview of
/// every subcommand.
static bool subcommandGiven(int Argc, char **Argv) {
  return Argc >= 2 && isSubcommandName(Argv[1]);
}

int main(int Argc, char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  shareColorOption();
  subcommandFirst(Argc, Argv);
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &OS) {
    OS << "pyverify 0.1.0 (CPython " << pythonVersionList()
       << " bytecode; .pyc magic " << releaseMagicList() << ")\n";
  });
  std::string Overview =
      "pyverify: static verifier for CPython " + pythonVersionList() +
      " bytecode\n\n"
      "  pyverify check PATH...   verify code objects, report findings\n"
      "  pyverify prove PATH...   prove emitted code (.pvb) against the "
      "original\n"
      "  pyverify dis FILE...     disassemble .pyc / marshal files\n"
      "  pyverify analyze --print=stack-depth|block-stack|contexts FILE...\n"
      "                           annotated listing of an analysis\n"
      "  pyverify cfg [--dot] [--function=QUALNAME] FILE...\n"
      "                           basic blocks and edges\n"
      "  pyverify stats PATH...   check a corpus as 'check' does, print "
      "a summary\n\n"
      "  Exit status: 0 clean, 1 error findings (prove: something "
      "refuted),\n  2 usage error or unreadable input, 3 (prove) something "
      "unknown and\n  nothing refuted.\n\n"
      "  Every subcommand takes --color[=false] (default: colour when "
      "the output\n  is a terminal) and --python=PATH, before or after "
      "its name;\n  'pyverify SUBCOMMAND --help' lists its options.\n";
  if (!llvm::cl::ParseCommandLineOptions(
          Argc, Argv, subcommandGiven(Argc, Argv) ? "" : Overview,
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
