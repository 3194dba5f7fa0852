//===- Replay.cpp - Runnable replays of refuted proof results ------------===//
//
// A script is: a docstring (what it replays, how to read it), the CASE data
// (the result, its counterexample and, per code object, each instruction's
// offset, name, operation key and whether the prover makes a step of it),
// the input file (base64) and the embedded Python body.
//
//===----------------------------------------------------------------------===//

#include "pyverify/SMT/Replay.h"

#include "SymbolicFrame.h"

#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Bytecode/Opcode.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Base64.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace pyverify;
using namespace llvm;

namespace {

/// ReplayRuntime.py and ReplayMain.py, as raw string literals.
const char *const PythonBody[] = {
#include "ReplayTemplate.inc"
};

/// The instructions a counterexample path has a step for when they run: the
/// explorers' sync points (isSyncInstruction), and the raises stepFree()
/// records.
bool isStep(const Instruction &I) {
  return smt::prover::isSyncInstruction(I) || I.is(Opcode::RERAISE) ||
         I.is(Opcode::RAISE_VARARGS);
}

json::Array instructionTable(const CodeObject &C) {
  DecodedCode D = DecodedCode::decode(C);
  json::Array Rows;
  for (size_t K = 0; K < D.Insts.size(); ++K) {
    const Instruction &I = D.Insts[K];
    if (!I.Valid)
      continue;
    Rows.push_back(json::Array{int64_t(I.Offset), I.name(),
                               smt::prover::operationKey(C, I),
                               int64_t(isStep(I))});
  }
  return Rows;
}

json::Value stepsToJSON(const std::vector<ProofStep> &Steps) {
  json::Array A;
  for (const ProofStep &S : Steps)
    A.push_back(
        json::Object{{"code", S.Code},
                     {"offset", int64_t(S.Offset)},
                     {"opname", S.OpName},
                     {"event", S.Event.empty() ? json::Value(nullptr)
                                               : json::Value(S.Event)}});
  return A;
}

StringRef kindName(ReplayInputKind K) {
  switch (K) {
  case ReplayInputKind::Bundle:
    return "bundle";
  case ReplayInputKind::Pyc:
    return "pyc";
  case ReplayInputKind::Marshal:
    return "marshal";
  case ReplayInputKind::Source:
    return "source";
  }
  return "bundle";
}

json::Object caseToJSON(const ProofResult &R, const ReplayInput &In) {
  json::Object Tables;
  for (const auto &[Name, Code] : In.Codes)
    Tables[Name] = instructionTable(*Code);
  json::Array Findings;
  for (const Diagnostic &D : R.Findings)
    Findings.push_back(formatv("offset {0}: {1} [{2}]", D.Offset, D.Message,
                               getCheckName(D.Check))
                           .str());
  json::Value Cex = nullptr;
  if (R.Cex)
    Cex = json::Object{{"eager", stepsToJSON(R.Cex->Eager)},
                       {"emitted", stepsToJSON(R.Cex->Emitted)},
                       {"divergence", int64_t(R.Cex->Divergence)},
                       {"explanation", R.Cex->Explanation}};
  return json::Object{{"file", R.File},
                      {"target", R.Target},
                      {"qualname", R.QualName},
                      {"line", int64_t(R.FirstLine)},
                      {"property", R.Property},
                      {"reason", R.Reason},
                      {"input_kind", kindName(In.Kind)},
                      {"counterexample", std::move(Cex)},
                      {"findings", std::move(Findings)},
                      {"tables", std::move(Tables)}};
}

/// Docstring text cannot hold a backslash or a triple quote safely.
std::string docText(StringRef S) {
  std::string T;
  for (char C : S)
    T += C == '\\' ? '/' : C == '"' ? '\'' : C;
  return T;
}

void writeDocstring(raw_ostream &OS, const ProofResult &R) {
  OS << "#!/usr/bin/env python3.11\n"
     << "\"\"\"Replay of a pyverify counterexample (pyverify prove "
        "--replay).\n\n"
     << "Input:    " << docText(R.File) << "\n"
     << "Target:   " << docText(R.Target) << " (" << docText(R.QualName)
     << ", line " << R.FirstLine << ")\n"
     << "Property: " << docText(R.Property) << "\n"
     << "Reason:   " << docText(R.Reason) << "\n\n"
     << "Run it with python3.11 (standard library only, no pyverify):\n"
     << "    python3.11 " << getReplayScriptName(R) << "\n\n"
     << "It rebuilds the code objects from the input embedded below and\n"
     << "runs them down the counterexample's path: every value from outside\n"
     << "is a stand-in whose operations raise, answer truth tests and end\n"
     << "iterations as the path says. It prints\n"
     << "  eager (...):   the original, started where the counterexample\n"
     << "                 starts it (matches-eager only), one step a line:\n"
     << "                 INDEX CODE:OFFSET OPERATION [events] (exception)\n"
     << "                 {what the stand-ins saw};\n"
     << "  emitted (...): the same for the emitted code object, then how\n"
     << "                 the run ended;\n"
     << "and the first divergence ('>>' marks its rows) or the violated\n"
     << "exactly-once condition.\n\n"
     << "Exit status: 1 the divergence or violation is reproduced; 0 the\n"
     << "runs followed the path and do not show it; 2 'cannot replay: WHY'\n"
     << "(a step could not be driven faithfully, or the refutation has no\n"
     << "path, as for well-formed).\n"
     << "\"\"\"\n";
}

} // namespace

ReplayInput pyverify::makeReplayInput(const Bundle &B, StringRef Bytes) {
  ReplayInput In;
  In.Kind = ReplayInputKind::Bundle;
  In.Bytes = Bytes;
  In.Codes.emplace_back("original", B.Original.get());
  if (B.Frame)
    In.Codes.emplace_back("frame", B.Frame.get());
  for (size_t I = 0; I < B.Resumes.size(); ++I)
    In.Codes.emplace_back("resume:" + std::to_string(I),
                          B.Resumes[I].Code.get());
  return In;
}

ReplayInput pyverify::makeReplayInput(const CodeFile &F, StringRef Bytes,
                                      bool IsSource) {
  ReplayInput In;
  In.Kind = IsSource  ? ReplayInputKind::Source
            : F.IsPyc ? ReplayInputKind::Pyc
                      : ReplayInputKind::Marshal;
  In.Bytes = Bytes;
  unsigned Index = 0;
  CodeObjectWalk Walk;
  for (const auto &Root : F.Roots)
    Walk.visit(*Root, [&](const CodeObject &C, unsigned) {
      In.Codes.emplace_back(
          Index == 0 ? "original" : "code:" + std::to_string(Index), &C);
      ++Index;
    });
  return In;
}

bool pyverify::needsReplay(const ProofResult &R) {
  return R.V == Verdict::Refuted;
}

std::string pyverify::getReplayScriptName(const ProofResult &R) {
  SmallString<128> P(R.File);
  sys::path::replace_extension(P, "");
  std::string Name;
  for (auto It = sys::path::begin(P), E = sys::path::end(P); It != E; ++It) {
    StringRef Part = *It;
    if (Part == "." || Part == "/" || sys::path::is_separator(Part[0]))
      continue;
    Name += (Name.empty() ? "" : ".") + (Part == ".." ? "up" : Part.str());
  }
  std::string Target = R.Target;
  std::replace(Target.begin(), Target.end(), ':', '_');
  std::replace(Name.begin(), Name.end(), ':', '_');
  return Name + "." + Target + ".py";
}

void pyverify::writeReplayScript(raw_ostream &OS, const ProofResult &R,
                                 const ReplayInput &In) {
  writeDocstring(OS, R);
  std::string Data = formatv("{0:2}", json::Value(caseToJSON(R, In))).str();
  OS << "import base64\nimport json\n\n";
  // Readable when it can be: JSON text holds no triple quote unless a
  // string ends in an escaped quote before a closing one.
  if (Data.find("\"\"\"") == std::string::npos)
    OS << "CASE = json.loads(r\"\"\"\n" << Data << "\n\"\"\")\n\n";
  else
    OS << "CASE = json.loads(base64.b64decode(\"" << encodeBase64(Data)
       << "\"))\n\n";
  std::string B64 = encodeBase64(In.Bytes);
  OS << "# The input file (" << kindName(In.Kind) << ", " << In.Bytes.size()
     << " bytes), base64.\nCASE[\"input\"] = (\n";
  for (size_t I = 0; I < B64.size(); I += 76)
    OS << "    \"" << StringRef(B64).substr(I, 76) << "\"\n";
  OS << ")\n\n";
  for (const char *Part : PythonBody)
    OS << Part;
}

Error pyverify::writeReplayFile(StringRef Dir, const ProofResult &R,
                                const ReplayInput &In) {
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return createStringError(EC, "cannot create replay directory '%s': %s",
                             Dir.str().c_str(), EC.message().c_str());
  SmallString<256> Path(Dir);
  sys::path::append(Path, getReplayScriptName(R));
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_Text);
  if (EC)
    return createStringError(EC, "cannot write replay script '%s': %s",
                             Path.c_str(), EC.message().c_str());
  writeReplayScript(OS, R, In);
  OS.close();
  if (OS.has_error())
    return createStringError(OS.error(), "cannot write replay script '%s': %s",
                             Path.c_str(), OS.error().message().c_str());
  sys::fs::setPermissions(Path, sys::fs::all_read | sys::fs::all_exe |
                                    sys::fs::owner_write);
  return Error::success();
}
