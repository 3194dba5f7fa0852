//===- GeneratorChecks.cpp - Frames no generator owns ---------------------===//

#include "pyverify/Check/GeneratorChecks.h"

#include "pyverify/Bytecode/VersionOpcodes.h"
#include "pyverify/Check/StackChecks.h"

#include "llvm/Support/FormatVariadic.h"

#include <array>
#include <cstring>
#include <optional>

using namespace pyverify;

namespace {

/// Whether RETURN_GENERATOR has run: on every path (Must), on some (May).
struct Ran {
  bool Must = true, May = false; // Must: true until a path says otherwise
  bool Seen = false;             // reached at all
  bool join(Ran O) {
    Ran Old = *this;
    if (!Seen) {
      *this = O;
    } else {
      Must &= O.Must;
      May |= O.May;
    }
    Seen = true;
    return Old.Must != Must || Old.May != May || !Old.Seen;
  }
};

/// Each version's YIELD_VALUE opcode byte (-1: none), found once.
const std::array<int, NumPythonVersions> &yieldBytes() {
  static const std::array<int, NumPythonVersions> Bytes = [] {
    std::array<int, NumPythonVersions> T;
    T.fill(-1);
    for (PythonVersion V : AllPythonVersions)
      for (unsigned B = 0; B < 256; ++B)
        if (std::optional<Instruction> In = Instruction::probe(V, uint8_t(B));
            In && In->is(Opcode::YIELD_VALUE))
          T[unsigned(V)] = int(B);
    return T;
  }();
  return Bytes;
}

/// Whether \p D's code holds a YIELD_VALUE: co_code's bytes first (absent
/// from them, it is in no instruction), then the instructions.
bool holdsYield(const DecodedCode &D) {
  int Byte = yieldBytes()[unsigned(D.Code->Version)];
  llvm::StringRef Code = D.Code->Code;
  if (Byte < 0 || Code.empty() || !std::memchr(Code.data(), Byte, Code.size()))
    return false;
  for (const Instruction &I : D.Insts.instructions())
    if (I.is(Opcode::YIELD_VALUE))
      return true;
  return false;
}

/// Whether every path runs RETURN_GENERATOR before anything else: it comes
/// first, after instructions that neither raise into a handler (none of
/// them is covered) nor touch the stack (MAKE_CELL, COPY_FREE_VARS, NOP);
/// a jump back to them runs it again. The compiler's generators (but 3.15's
/// generator expressions) are so, and need no walk.
bool returnGeneratorFirst(const CFG &G) {
  const InstructionStream &Insts = G.code().Insts;
  for (uint32_t I = 0; I < Insts.size(); ++I) {
    if (G.coverOf(I) >= 0)
      return false;
    if (Insts[I].is(Opcode::RETURN_GENERATOR))
      return true;
    if (!Insts[I].is(Opcode::MAKE_CELL) &&
        !Insts[I].is(Opcode::COPY_FREE_VARS) && !Insts[I].is(Opcode::NOP))
      return false;
  }
  return false;
}

/// YIELD_VALUEs that a path reaches without RETURN_GENERATOR.
void checkYields(const CFG &G, std::vector<Finding> &Out) {
  const DecodedCode &D = G.code();
  if (G.size() == 0 || returnGeneratorFirst(G) || !holdsYield(D))
    return;
  const InstructionStream &Insts = D.Insts;
  std::vector<Ran> In(G.size());
  In[G.entry().Id].join(Ran{false, false, true});
  // Round-robin in block order until nothing changes: two bits a block,
  // each changing at most once (Must falls, May rises, Seen rises).
  auto Exit = [&](unsigned B) {
    Ran R = In[B];
    for (uint32_t I = G.block(B).Begin; I < G.block(B).End; ++I)
      if (Insts[I].is(Opcode::RETURN_GENERATOR))
        R.Must = R.May = true;
    return R;
  };
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (unsigned B = 0; B < G.size(); ++B) {
      if (!In[B].Seen)
        continue;
      Ran AtExit = Exit(B);
      for (unsigned EI : G.block(B).Succs) {
        const CFGEdge &E = G.edge(EI);
        // An exception edge: raised anywhere in the block.
        Ran Along =
            E.isException() ? Ran{In[B].Must, AtExit.May, true} : AtExit;
        Changed |= In[E.Target].join(Along);
      }
    }
  }
  for (unsigned B = 0; B < G.size(); ++B) {
    if (!In[B].Seen || !G.reachable().test(B))
      continue;
    Ran R = In[B];
    for (uint32_t I = G.block(B).Begin; I < G.block(B).End; ++I) {
      const Instruction &Ins = Insts[I];
      if (Ins.is(Opcode::RETURN_GENERATOR))
        R.Must = R.May = true;
      if (!Ins.is(Opcode::YIELD_VALUE) || R.Must)
        continue;
      Finding F(
          CheckId::GeneratorFrame, Ins.Offset,
          llvm::formatv(
              "{0} {1} suspends the frame, but {2} RETURN_GENERATOR: the "
              "frame belongs to no generator{3}; CPython does not check, "
              "and takes the memory before the frame for the generator's "
              "(3.11 leaves its evaluation loop, 3.12 writes there, 3.13+ "
              "abort)",
              Ins.Offset, describeInstruction(Ins),
              R.May ? "a path from the code's start to it ran no"
                    : "no path from the code's start to it ran",
              R.May ? " on that path" : "")
              .str());
      F.Cert = R.May ? Certainty::Possible : Certainty::Definite;
      Out.push_back(std::move(F));
    }
  }
}

} // namespace

void pyverify::checkGeneratorFrame(const CFG &G, std::vector<Finding> &Out) {
  checkYields(G, Out);
}
