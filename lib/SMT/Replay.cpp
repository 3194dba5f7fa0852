//===- Replay.cpp - Runnable replays of refuted proof results ------------===//
//
// A script is: a docstring (what it replays, how to read it, which python3.N
// runs it), the CASE data (the result, its counterexample, the input's
// version and, per code object, a row per instruction: TableColumns), the
// input file (base64) and the embedded Python body.
//
//===----------------------------------------------------------------------===//

#include "pyverify/SMT/Replay.h"

#include "ReplayPath.h"
#include "SymbolicFrame.h"

#include "pyverify/Analysis/CodeAnalysis.h"
#include "pyverify/Analysis/MicroOps.h"
#include "pyverify/Analysis/StackDepth.h"
#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Bytecode/Opcode.h"
#include "pyverify/Bytecode/PythonVersion.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Base64.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <set>

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
  return smt::prover::isSyncInstruction(I) || smt::prover::raisesAlways(I);
}

/// What a stack slot may hold before each instruction, for the replay's
/// trampoline: bit k of a mask set when slot k (0 = the bottom) may be NULL,
/// walked over the fall-through, jump and exception edges with the
/// instructions lowered to micro-operations (so each version's call layout
/// is its own); std::nullopt where unreached or where two paths bring
/// stacks of different sizes.
class NullMasks {
public:
  explicit NullMasks(const DecodedCode &D) : D(D), In(D.Insts.size()) {
    for (const Instruction &I : D.Insts.instructions())
      StartIndex[I.Start] = &I - D.Insts.instructions().data();
    reach(0, Stack(size_t(entryStackDepth(*D.Code)), false));
    while (!Work.empty()) {
      size_t K = Work.back();
      Work.pop_back();
      visit(K);
    }
  }

  std::optional<uint64_t> at(size_t K, std::optional<int64_t> Depth) const {
    if (!In[K] || Conflict.count(K) || !Depth ||
        int64_t(In[K]->size()) != *Depth)
      return std::nullopt;
    uint64_t M = 0;
    for (size_t S = 0; S < In[K]->size() && S < 64; ++S)
      M |= uint64_t((*In[K])[S]) << S;
    return M;
  }

  /// The index of the instruction starting at byte \p Start, or -1.
  int64_t indexAtStart(int64_t Start) const {
    auto It = StartIndex.find(Start);
    return It == StartIndex.end() ? -1 : int64_t(It->second);
  }

private:
  using Stack = std::vector<char>;
  const DecodedCode &D;
  std::vector<std::optional<Stack>> In;
  std::set<size_t> Conflict;
  std::map<int64_t, size_t> StartIndex;
  std::vector<size_t> Work;

  void reach(int64_t K, Stack S) {
    if (K < 0 || size_t(K) >= In.size() || Conflict.count(K))
      return;
    std::optional<Stack> &Old = In[K];
    if (!Old) {
      Old = std::move(S);
    } else if (Old->size() != S.size()) {
      Conflict.insert(K);
      return;
    } else {
      bool Changed = false;
      for (size_t I = 0; I < S.size(); ++I)
        if (S[I] && !(*Old)[I])
          (*Old)[I] = Changed = true;
      if (!Changed)
        return;
    }
    Work.push_back(K);
  }

  static Stack apply(Stack S, const Instruction &I, bool JumpEdge) {
    for (const MicroOp &Op : lowerInstruction(I, JumpEdge)) {
      if (const auto *C = std::get_if<uop::Copy>(&Op)) {
        S.push_back(C->N >= 1 && C->N <= S.size() && S[S.size() - C->N]);
        continue;
      }
      if (const auto *W = std::get_if<uop::Swap>(&Op)) {
        if (W->N >= 1 && W->N <= S.size())
          std::swap(S.back(), S[S.size() - W->N]);
        continue;
      }
      uop::Effect E = movementOf(Op);
      S.resize(S.size() - std::min<size_t>(S.size(), size_t(E.Pops)));
      for (int64_t P = 0; P < E.Pushes; ++P)
        S.push_back(P < 64 && (E.NullOut >> P & 1));
    }
    return S;
  }

  void visit(size_t K) {
    const Instruction &I = D.Insts[K];
    if (!I.Valid)
      return;
    const Stack &S = *In[K];
    for (const ExceptionTableEntry &E : D.Table)
      if (E.covers(I.Offset)) {
        Stack H(S.begin(), S.begin() + std::min<size_t>(S.size(), E.Depth));
        H.resize(H.size() + 1 + E.Lasti, false);
        reach(indexAtStart(E.Target), std::move(H));
        break;
      }
    const OpcodeInfo &Info = I.info();
    if (Info.isJump() && I.TargetValid)
      reach(indexAtStart(I.landing()), apply(S, I, true));
    if (!Info.Terminator && (!Info.isJump() || Info.isConditionalJump()))
      reach(int64_t(K) + 1, apply(S, I, false));
  }
};

/// What instruction \p K does that the replay's runtime follows, from its
/// micro-operations: "raise" (always), "return", "enter" (a with
/// statement's enter: withEnterAt, BEFORE_WITH or 3.14's CALL 0 of
/// LOAD_SPECIAL __enter__), "exit-call" (a handler's call of __exit__).
json::Value doesOf(const InstructionStream &Insts, uint32_t K) {
  if (withEnterAt(Insts, K))
    return "enter";
  for (const MicroOp &Op : lowerInstruction(Insts[K])) {
    if (std::holds_alternative<uop::Raise>(Op))
      return "raise";
    if (std::holds_alternative<uop::Return>(Op))
      return "return";
    if (std::holds_alternative<uop::ExitCallStart>(Op))
      return "exit-call";
  }
  return nullptr;
}

/// The global a name load looks up: [name, "global" | "name", whether a
/// NULL goes with it (the value is called)], or null.
json::Value loadsOf(const CodeObject &C, const Instruction &I) {
  bool Null = false;
  for (const MicroOp &Op : lowerInstruction(I))
    Null |= std::holds_alternative<uop::PushNull>(Op);
  for (const MicroOp &Op : lowerInstruction(I))
    if (const auto *G = std::get_if<uop::LoadGlobal>(&Op))
      if (G->Name < C.Names.size())
        return json::Array{C.Names[G->Name], "global", Null};
  if (I.is(Opcode::LOAD_NAME) && I.nameIndex() < C.Names.size())
    return json::Array{C.Names[I.nameIndex()], "name", false};
  return nullptr;
}

/// How many items iterating a stand-in at \p I must produce (unpacking).
json::Value unpackOf(const Instruction &I) {
  if (I.is(Opcode::UNPACK_EX))
    return int64_t((I.Arg & 255) + (I.Arg >> 8));
  for (const MicroOp &Op : lowerInstruction(I))
    if (const auto *U = std::get_if<uop::UnpackSequence>(&Op))
      return int64_t(U->N);
  return nullptr;
}

json::Value testOf(const Instruction &I) {
  std::optional<uop::Test> T = branchTest(I, /*JumpEdge=*/true);
  if (!T)
    return nullptr;
  StringRef Kind = T->Kind == uop::TestKind::Truth    ? "truth"
                   : T->Kind == uop::TestKind::IsNone ? "none"
                                                      : "exhausted";
  return json::Array{Kind, T->Holds};
}

/// The columns of a table row (CASE["columns"]; ReplayMain.build_table).
const char *const TableColumns[] = {
    "offset",  "start", "name", "key",    "step",  "arg",   "next", "test",
    "landing", "feeds", "does", "unpack", "loads", "depth", "nulls"};

json::Array instructionTable(const CodeObject &C) {
  CodeAnalysis A(C);
  const DecodedCode &D = A.decoded();
  std::vector<std::optional<int64_t>> Depths(D.Insts.size());
  if (A.cfg()) {
    if (Expected<const StackDepthResult &> SD = A.stackDepth())
      Depths = SD->Before.toVector();
    else
      consumeError(SD.takeError());
  }
  NullMasks Nulls(D);
  auto OffsetAt = [&](int64_t Index) -> json::Value {
    if (Index < 0 || size_t(Index) >= D.Insts.size())
      return nullptr;
    return int64_t(D.Insts[Index].Offset);
  };
  json::Array Rows;
  for (size_t K = 0; K < D.Insts.size(); ++K) {
    const Instruction &I = D.Insts[K];
    if (!I.Valid)
      continue;
    json::Value Test = testOf(I);
    // A truth this step computes that the branch right after it tests
    // (3.13's TO_BOOL, its COMPARE_OP's bool conversion): that branch's
    // offset, and whether this step negates it (UNARY_NOT).
    json::Value Feeds = nullptr;
    if (K + 1 < D.Insts.size() && D.Insts[K + 1].Valid && isStep(I) &&
        Test.kind() == json::Value::Null) {
      std::optional<uop::Test> T = branchTest(D.Insts[K + 1], true);
      bool Negates = false;
      for (const MicroOp &Op : lowerInstruction(I))
        Negates |= std::holds_alternative<uop::Not>(Op);
      if (T && T->Kind == uop::TestKind::Truth)
        Feeds = json::Array{int64_t(D.Insts[K + 1].Offset), Negates};
    }
    std::optional<uint64_t> Mask = Nulls.at(K, Depths[K]);
    Rows.push_back(
        json::Array{int64_t(I.Offset), int64_t(I.Start), I.name(),
                    smt::prover::operationKey(C, I), int64_t(isStep(I)),
                    int64_t(I.Arg), OffsetAt(int64_t(K) + 1), std::move(Test),
                    I.Target >= 0 ? OffsetAt(Nulls.indexAtStart(I.landing()))
                                  : json::Value(nullptr),
                    std::move(Feeds), doesOf(D.Insts, uint32_t(K)), unpackOf(I),
                    loadsOf(C, I),
                    Depths[K] ? json::Value(*Depths[K]) : json::Value(nullptr),
                    Mask ? json::Value(int64_t(*Mask)) : json::Value(nullptr)});
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

/// The version the input's code objects are (they share one).
StringRef inputVersion(const ReplayInput &In) {
  return pythonVersionName(In.Codes.empty() ? defaultPythonVersion()
                                            : In.Codes.front().second->Version);
}

/// CASE["tables"]: per target, its instructions' rows, one a line (the
/// indented form takes five times the room).
std::string tablesText(const ReplayInput &In) {
  std::string S = "{";
  for (size_t K = 0; K < In.Codes.size(); ++K) {
    json::Array Rows = instructionTable(*In.Codes[K].second);
    S += formatv("{0}\n{1}: [", K ? "," : "", json::Value(In.Codes[K].first));
    for (size_t Row = 0; Row < Rows.size(); ++Row)
      S += formatv("{0}\n  {1}", Row ? "," : "", Rows[Row]);
    S += "\n]";
  }
  return S + "\n}";
}

/// CASE["safe_failures"]: of the target's dataflow errors, those safe to
/// run (ReplayPath.h), as [offset, the exception its instruction raises,
/// the finding].
json::Array safeFailures(const ProofResult &R, const ReplayInput &In) {
  json::Array Out;
  for (const auto &[Name, Code] : In.Codes) {
    if (Name != R.Target || R.Findings.empty())
      continue;
    CodeAnalysis A(*Code);
    for (const Diagnostic &D : R.Findings)
      if (std::optional<StringRef> E = smt::prover::safeFailure(D, A.decoded()))
        Out.push_back(json::Array{
            int64_t(D.Offset), *E,
            formatv("{0} [{1}]", D.Message, getCheckName(D.Check)).str()});
  }
  return Out;
}

json::Object caseToJSON(const ProofResult &R, const ReplayInput &In) {
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
                      {"python_version", inputVersion(In)},
                      {"counterexample", std::move(Cex)},
                      {"findings", std::move(Findings)},
                      {"safe_failures", safeFailures(R, In)},
                      {"columns", json::Array(TableColumns)}};
}

/// Docstring text cannot hold a backslash or a triple quote safely.
std::string docText(StringRef S) {
  std::string T;
  for (char C : S)
    T += C == '\\' ? '/' : C == '"' ? '\'' : C;
  return T;
}

void writeDocstring(raw_ostream &OS, const ProofResult &R, StringRef Ver) {
  OS << "#!/usr/bin/env python" << Ver << "\n"
     << "\"\"\"Replay of a pyverify counterexample (pyverify prove "
        "--replay).\n\n"
     << "Input:    " << docText(R.File) << "\n"
     << "Target:   " << docText(R.Target) << " (" << docText(R.QualName)
     << ", line " << R.FirstLine << ")\n"
     << "Property: " << docText(R.Property) << "\n"
     << "Reason:   " << docText(R.Reason) << "\n\n"
     << "Run it with python" << Ver
     << ", the input's version (standard library only,\nno pyverify):\n"
     << "    python" << Ver << " " << getReplayScriptName(R) << "\n\n"
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

/// `LHS = json.loads(...)`: readable when it can be (JSON text holds no
/// triple quote unless a string ends in an escaped quote before a closing
/// one), base64 otherwise.
void writeJSON(raw_ostream &OS, StringRef LHS, const std::string &Data) {
  if (Data.find("\"\"\"") == std::string::npos)
    OS << LHS << " = json.loads(r\"\"\"\n" << Data << "\n\"\"\")\n\n";
  else
    OS << LHS << " = json.loads(base64.b64decode(\"" << encodeBase64(Data)
       << "\"))\n\n";
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
  writeDocstring(OS, R, inputVersion(In));
  OS << "import base64\nimport json\n\n";
  writeJSON(OS, "CASE", formatv("{0:2}", json::Value(caseToJSON(R, In))).str());
  OS << "# Per code object, a row per instruction (CASE[\"columns\"]).\n";
  writeJSON(OS, "CASE[\"tables\"]", tablesText(In));
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
