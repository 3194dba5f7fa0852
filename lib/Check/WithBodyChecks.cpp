//===- WithBodyChecks.cpp - Every with-body instruction is covered --------===//

#include "pyverify/Check/WithBodyChecks.h"

#include "pyverify/Analysis/ContextEvents.h"
#include "pyverify/Bytecode/RaiseModel.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <optional>

using namespace pyverify;

namespace {

/// Consecutive instructions that lose context Ctx through one lookup.
struct Run {
  uint32_t First, Last;
  uint32_t Ctx;     ///< The enter instruction's index.
  int64_t Slot;     ///< Its bound __exit__'s stack slot.
  int64_t EntryIdx; ///< The table entry found, -1 for none.
};

std::string describeEntry(const DecodedCode &D, int64_t K) {
  const ExceptionTableEntry &E = D.Table[size_t(K)];
  return llvm::formatv("entry {0} ({1} to {2} -> {3} [{4}]{5})", K, E.Start,
                       E.End - 2, E.Target, E.Depth, E.Lasti ? " lasti" : "");
}

/// withEnterAt of each context id met (an enter instruction), asked once:
/// the same few contexts are active across a whole with body. A map, not a
/// list: a code object may hold thousands of withs (a list searched per
/// instruction made the check quadratic, bench_linear.py's code family).
struct EnterCache {
  explicit EnterCache(const InstructionStream &Insts) : Insts(Insts) {}

  const InstructionStream &Insts;
  llvm::DenseMap<uint32_t, std::optional<WithEnter>> Known;

  std::optional<WithEnter> of(uint32_t Ctx) {
    auto [It, New] = Known.try_emplace(Ctx);
    if (New)
      It->second = withEnterAt(Insts, Ctx);
    return It->second;
  }
};

} // namespace

void pyverify::checkWithBodyCoverage(const DecodedCode &D,
                                     const StackDepthResult &Depth,
                                     const ContextBalanceResult &R,
                                     std::vector<Finding> &Out) {
  // Nothing can enter a context here (the pass was skipped: activeBefore()
  // is empty everywhere), so no instruction is in a with body.
  if (R.ActiveBefore.empty())
    return;
  const InstructionStream &Insts = D.Insts;
  llvm::DenseSet<uint32_t> Reported;
  for (const Finding &F : Out)
    if (F.Check == CheckId::ContextNotExited ||
        F.Check == CheckId::WithHandlerMismatch)
      Reported.insert(F.Offset);
  std::vector<Finding> New;
  std::optional<Run> Cur;
  EnterCache Enters(Insts);
  auto Flush = [&] {
    if (!Cur)
      return;
    const Instruction &A = Insts[Cur->First], &B = Insts[Cur->Last];
    const Instruction &Enter = Insts[Cur->Ctx];
    std::string What =
        Cur->First == Cur->Last
            ? llvm::formatv("{0} {1}", A.Offset, A.name()).str()
            : llvm::formatv("{0} {1} .. {2} {3} ({4} instructions)", A.Offset,
                            A.name(), B.Offset, B.name(),
                            Cur->Last - Cur->First + 1)
                  .str();
    std::string Lookup =
        Cur->EntryIdx < 0
            ? std::string("no exception-table entry covers it")
            : describeEntry(D, Cur->EntryIdx) +
                  llvm::formatv(" unwinds below its bound __exit__ (slot {0})",
                                Cur->Slot)
                      .str();
    Finding F(CheckId::WithBodyUncovered, A.Offset,
              llvm::formatv(
                  "{0} runs in the body of the with entered at {1}, but {2}: "
                  "an exception a trace function raises there (a line or "
                  "opcode event: pdb, coverage tools; the tracing tier of the "
                  "raise model) leaves the context entered. CPython's compiler "
                  "covers every with-body instruction but NOPs, the exit "
                  "sequence and the handler's start",
                  What, Enter.Offset, Lookup)
                  .str());
    F.note(Enter.Offset, "the context is entered here");
    New.push_back(std::move(F));
    Cur.reset();
  };
  for (uint32_t I = 0; I < Insts.size(); ++I) {
    llvm::ArrayRef<uint32_t> Active = R.activeBefore(I);
    const Instruction &In = Insts[I];
    llvm::SmallVector<uint32_t, 2> Offs;
    if (!Active.empty() && In.Valid && Depth.Before[I] &&
        !Reported.count(In.Offset))
      Offs = tracingRaiseOffsets(In);
    // The innermost with-statement context, entered on every path here, a
    // trace raise here loses.
    std::optional<Run> Lost;
    bool Innermost = true;
    for (size_t K = Active.size(); K-- > 0 && !Offs.empty() && !Lost;) {
      std::optional<WithEnter> Enter = Enters.of(Active[K]);
      if (!Enter)
        continue;
      std::optional<int64_t> Dp = Depth.Before[Active[K]];
      bool Inner = Innermost;
      Innermost = false;
      if (!Dp || *Dp < int64_t(Enter->ExitPeek) || !R.definitelyActive(I, K))
        continue;
      int64_t Slot = *Dp - Enter->ExitPeek;
      // The lookups first: whether the compiler leaves I outside the body
      // (the costlier question) matters only where one loses the context.
      for (uint32_t Off : Offs) {
        const ExceptionTableEntry *E = lookupHandler(D.Table, Off);
        if (!E || int64_t(E->Depth) <= Slot) {
          Lost =
              Run{I, I, Active[K], Slot, E ? int64_t(E - D.Table.data()) : -1};
          break;
        }
      }
      if (Lost &&
          isOutsideCompiledWithBody(D, I, *Depth.Before[I], Slot, Inner))
        Lost.reset();
    }
    if (!Lost) {
      Flush();
      continue;
    }
    if (Cur && Cur->Ctx == Lost->Ctx && Cur->EntryIdx == Lost->EntryIdx &&
        Cur->Last + 1 == I) {
      Cur->Last = I;
      continue;
    }
    Flush();
    Cur = Lost;
  }
  Flush();
  Out.insert(Out.end(), std::make_move_iterator(New.begin()),
             std::make_move_iterator(New.end()));
}
