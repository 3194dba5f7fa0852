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
/// The initial value is the join's identity (no path arrived yet).
struct Ran {
  bool Must = true, May = false;
  bool join(Ran O) {
    Ran Old = *this;
    Must &= O.Must;
    May |= O.May;
    return Old.Must != Must || Old.May != May;
  }
};

/// YIELD_VALUE's and RETURN_GENERATOR's opcode bytes, per version.
struct GeneratorBytes {
  std::array<int, NumPythonVersions> Yield, ReturnGenerator;
};

const GeneratorBytes &generatorBytes() {
  static const GeneratorBytes Bytes = [] {
    GeneratorBytes T;
    for (PythonVersion V : AllPythonVersions) {
      auto Byte = [&](Opcode Op) {
        std::optional<uint8_t> B = opcodeByte(V, Op);
        return B ? int(*B) : -1;
      };
      T.Yield[unsigned(V)] = Byte(Opcode::YIELD_VALUE);
      T.ReturnGenerator[unsigned(V)] = Byte(Opcode::RETURN_GENERATOR);
    }
    return T;
  }();
  return Bytes;
}

/// Whether \p D's code holds an instruction of opcode byte \p Byte (of
/// opcode \p Op) from byte offset \p From on: co_code's bytes first (absent
/// from them, it is in no instruction), then the instructions.
bool holds(const DecodedCode &D, int Byte, Opcode Op, size_t From = 0) {
  llvm::StringRef Code = D.Code->Code;
  if (Byte < 0 || From >= Code.size() ||
      !std::memchr(Code.data() + From, Byte, Code.size() - From))
    return false;
  for (const Instruction &I : D.Insts.instructions())
    if (I.Offset >= From && I.is(Op))
      return true;
  return false;
}

/// The index of the RETURN_GENERATOR that every path runs first, before
/// anything that could raise into a handler (nothing before it is covered)
/// or touch the stack (only MAKE_CELL, COPY_FREE_VARS, NOP come before it),
/// and that no path runs again (no edge returns to the entry block); -1
/// when there is none such. The compiler's generators have one (but 3.15's
/// generator expressions, which take their iterator first).
int64_t returnGeneratorFirst(const CFG &G) {
  const InstructionStream &Insts = G.code().Insts;
  if (!G.entry().Preds.empty())
    return -1;
  for (uint32_t I = 0; I < Insts.size(); ++I) {
    if (G.coverOf(I) >= 0)
      return -1;
    if (Insts[I].is(Opcode::RETURN_GENERATOR))
      return G.blockOf(I) == G.entry().Id ? int64_t(I) : -1;
    if (!Insts[I].is(Opcode::MAKE_CELL) &&
        !Insts[I].is(Opcode::COPY_FREE_VARS) && !Insts[I].is(Opcode::NOP))
      return -1;
  }
  return -1;
}

/// RETURN_GENERATOR \p I reached on a path (\p Every: on every path) that
/// ran RETURN_GENERATOR already: the frame is a generator's, which it copies
/// into a second one while the first is executing.
Finding againFinding(const Instruction &I, bool Every) {
  Finding F(CheckId::GeneratorFrame, I.Offset,
            llvm::formatv("{0} RETURN_GENERATOR runs again in a frame {1} "
                          "generator already owns{2}: it moves the running "
                          "generator's frame into a second generator; "
                          "CPython does not check (the first raises "
                          "'generator already executing' when resumed, and "
                          "the heap is corrupted)",
                          I.Offset, Every ? "a" : "that",
                          Every ? "" : " on some path")
                .str());
  F.Cert = Every ? Certainty::Definite : Certainty::Possible;
  return F;
}

/// YIELD_VALUEs that a path reaches without RETURN_GENERATOR, and
/// RETURN_GENERATORs that a path reaches after one.
void checkWalk(const CFG &G, std::vector<Finding> &Out) {
  const DecodedCode &D = G.code();
  if (G.size() == 0)
    return;
  // Without a walk where no finding can come out: every path runs the one
  // RETURN_GENERATOR first, and there is no other; or the code holds
  // neither opcode.
  const GeneratorBytes &Bytes = generatorBytes();
  unsigned V = unsigned(D.Code->Version);
  if (int64_t First = returnGeneratorFirst(G); First >= 0) {
    if (!holds(D, Bytes.ReturnGenerator[V], Opcode::RETURN_GENERATOR,
               D.Insts[uint32_t(First)].End))
      return;
  } else if (!holds(D, Bytes.Yield[V], Opcode::YIELD_VALUE) &&
             !holds(D, Bytes.ReturnGenerator[V], Opcode::RETURN_GENERATOR)) {
    return;
  }
  const InstructionStream &Insts = D.Insts;
  std::vector<Ran> In(G.size());
  In[G.entry().Id] = Ran{false, false};
  const llvm::BitVector &Reached = G.reachable();
  // Round-robin over the reachable blocks in block order until nothing
  // changes: two bits a block, each changing at most once (Must falls, May
  // rises).
  auto Exit = [&](unsigned B) {
    Ran R = In[B];
    for (uint32_t I = G.block(B).Begin; I < G.block(B).End; ++I)
      if (Insts[I].is(Opcode::RETURN_GENERATOR))
        R.Must = R.May = true;
    return R;
  };
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (unsigned B : Reached.set_bits()) {
      Ran AtExit = Exit(B);
      for (unsigned EI : G.block(B).Succs) {
        const CFGEdge &E = G.edge(EI);
        // An exception edge: raised anywhere in the block.
        Ran Along = E.isException() ? Ran{In[B].Must, AtExit.May} : AtExit;
        Changed |= In[E.Target].join(Along);
      }
    }
  }
  for (unsigned B : Reached.set_bits()) {
    Ran R = In[B];
    for (uint32_t I = G.block(B).Begin; I < G.block(B).End; ++I) {
      const Instruction &Ins = Insts[I];
      if (Ins.is(Opcode::RETURN_GENERATOR)) {
        if (R.May)
          Out.push_back(againFinding(Ins, R.Must));
        R.Must = R.May = true;
        continue;
      }
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
  checkWalk(G, Out);
}
