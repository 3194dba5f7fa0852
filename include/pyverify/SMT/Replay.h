//===- Replay.h - Runnable replays of refuted proof results -----*- C++ -*-===//
//
// Contract: writeReplayScript() writes, for one refuted ProofResult, a
// self-contained script for the input's Python version (its shebang and
// docstring say python3.N, CASE["python_version"] says 3.N, and any other
// interpreter refuses it: "cannot replay", exit 2; standard library only; it
// imports neither pyverify nor pyverify_rewriter) that rebuilds the code
// objects from the input file embedded in it (marshal bytes, base64), drives
// the emitted code object -- and, for matches-eager, the original started where
// the counterexample starts it -- down the counterexample's path with stand-in
// values, and prints the two event logs and the first divergence or the
// violated exactly-once condition. The script exits 1 when its runs show the
// divergence or violation, 0 when they follow the path and do not, 2 with
// "cannot replay: WHY" when a step cannot be driven faithfully (and for a
// refutation without a path, e.g. well-formed). A well-formed refutation
// whose errors are safe to run (lib/SMT/ReplayPath.h) has a path: its
// script shows, at each such error's step, the exception the path expects
// and the one the run raised (CASE["safe_failures"]), exit 1 when they
// agree. docs/prove-cli.md, "Replay".
//
// Requires: R.V == Verdict::Refuted (needsReplay) and an input whose Codes
// hold every target the result's counterexample names. The library never
// prints: the script goes to a raw_ostream, or writeReplayFile() writes it
// to DIR/getReplayScriptName(R) and returns an llvm::Error naming the path.
// Everything is deterministic: the same result gives the same bytes.
//
// Why a script and not a report: the counterexample is a path through real
// bytecode; running that bytecode under CPython shows that the path is real,
// independently of the prover's model. The Python body lives in
// lib/SMT/ReplayRuntime.py and lib/SMT/ReplayMain.py, embedded at build time;
// what it knows of each instruction (a step or not, a branch's test and
// landing, what it does that the runs follow, the stack shape before it) is
// the instruction's row, which this library writes from its opcode tables
// and analyses (CASE["columns"] names the row's fields): the Python side
// names no opcode, so one body serves every version.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_SMT_REPLAY_H
#define PYVERIFY_SMT_REPLAY_H

#include "pyverify/Bytecode/Bundle.h"
#include "pyverify/Bytecode/CodeFile.h"
#include "pyverify/SMT/Prover.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace pyverify {

/// How the script rebuilds the code objects from the embedded bytes.
enum class ReplayInputKind { Bundle, Pyc, Marshal, Source };

/// One input file as the replay scripts need it. Bytes must outlive it.
struct ReplayInput {
  ReplayInputKind Kind = ReplayInputKind::Bundle;
  llvm::StringRef Bytes; ///< The file's bytes (the .py text for Source).
  /// Target name ("original", "frame", "resume:<i>", "code:<i>") and its
  /// code object, named as the prover names them.
  std::vector<std::pair<std::string, const CodeObject *>> Codes;
};

ReplayInput makeReplayInput(const Bundle &B, llvm::StringRef Bytes);
/// \p IsSource: the file is Python source compiled by the tool.
ReplayInput makeReplayInput(const CodeFile &F, llvm::StringRef Bytes,
                            bool IsSource);

/// Only refuted results get a script.
bool needsReplay(const ProofResult &R);

/// "<input path without extension, '/' as '.'>.<target, ':' as '_'>.py",
/// e.g. "operand-flipped.running_example@20.resume_0.py" for
/// ./operand-flipped/running_example@20.pvb [resume:0].
std::string getReplayScriptName(const ProofResult &R);

void writeReplayScript(llvm::raw_ostream &OS, const ProofResult &R,
                       const ReplayInput &In);

/// Writes the script into \p Dir (created if missing).
llvm::Error writeReplayFile(llvm::StringRef Dir, const ProofResult &R,
                            const ReplayInput &In);

} // namespace pyverify

#endif
