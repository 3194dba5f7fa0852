//===- StatsCommand.cpp - pyverify stats ----------------------------------===//
//
// pyverify stats PATH...
//
// Reads, decodes and validates every .pyc under PATH (and every file named
// directly), then prints a short summary: files, code objects, instructions,
// exception-table entries, location entries, and findings per check id.
// Exit 0 when nothing of error severity was found, 1 otherwise, 2 when a
// file could not be read.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "InputFiles.h"

#include "pyverify/Bytecode/CodeFile.h"
#include "pyverify/Bytecode/DecodedCode.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>

using namespace pyverify;
using namespace llvm;

namespace pyverify::tool {

cl::SubCommand StatsCmd("stats",
                        "Decode and validate a corpus; print a summary");

namespace {
cl::list<std::string> Inputs(cl::Positional, cl::OneOrMore,
                             cl::desc("<file or directory>..."),
                             cl::sub(StatsCmd));
} // namespace

int runStats() {
  auto Start = std::chrono::steady_clock::now();
  std::vector<std::string> Missing;
  auto Files = expandInputs(Inputs, {".pyc"}, Missing);
  int Status = ExitClean;
  for (const std::string &M : Missing) {
    WithColor::error(errs(), "pyverify")
        << M << ": no such file or directory\n";
    Status = ExitUsage;
  }
  uint64_t NumFiles = 0, Unreadable = 0, NumCode = 0, NumInsts = 0,
           NumEntries = 0, NumPrefixed = 0, Bytes = 0, WithTable = 0;
  std::map<std::string, uint64_t> PerCheck; // ordered: deterministic output
  uint64_t Errors = 0;
  for (const std::string &Path : Files) {
    auto F = loadCodeFile(Path);
    if (!F) {
      WithColor::error(errs(), "pyverify") << toString(F.takeError()) << "\n";
      ++Unreadable;
      Status = ExitUsage;
      continue;
    }
    ++NumFiles;
    for (const auto &Root : F->Roots)
      forEachCodeObject(*Root, [&](const CodeObject &C, unsigned) {
        DecodedCode D = DecodedCode::decode(C);
        ++NumCode;
        Bytes += C.Code.size();
        NumInsts += D.Insts.size();
        NumEntries += D.Table.size();
        WithTable += !D.Table.empty();
        for (const Instruction &I : D.Insts.instructions())
          NumPrefixed += I.NumPrefixes != 0;
        for (const Finding &Fd : D.Findings) {
          ++PerCheck[getCheckName(Fd.Check).str()];
          if (Fd.Sev == Severity::Error)
            ++Errors;
        }
      });
  }
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  outs() << "files:              " << NumFiles;
  if (Unreadable)
    outs() << " (+" << Unreadable << " unreadable)";
  outs() << "\ncode objects:       " << NumCode
         << "\ninstructions:       " << NumInsts << " (" << NumPrefixed
         << " with EXTENDED_ARG)"
         << "\nco_code bytes:      " << Bytes
         << "\ntable entries:      " << NumEntries << " in " << WithTable
         << " code objects"
         << "\nfindings:           ";
  if (PerCheck.empty())
    outs() << "none";
  for (const auto &[Id, N] : PerCheck)
    outs() << "\n  " << Id << ": " << N;
  outs() << "\n" << format("seconds:            %.3f\n", Seconds);
  if (Status == ExitClean && Errors)
    Status = ExitFindings;
  return Status;
}

} // namespace pyverify::tool
