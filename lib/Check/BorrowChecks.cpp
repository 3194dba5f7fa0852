//===- BorrowChecks.cpp - Borrowed references used after their local ------===//

#include "pyverify/Check/BorrowChecks.h"
#include "pyverify/Analysis/BorrowedRefs.h"

#include "llvm/Support/FormatVariadic.h"

using namespace pyverify;

/// What \p Kill does to its local, for the message.
static llvm::StringRef killVerb(const Instruction &Kill) {
  if (Kill.is(Opcode::DELETE_FAST))
    return "deletes";
  if (Kill.is(Opcode::LOAD_FAST_AND_CLEAR))
    return "clears";
  return "overwrites";
}

static std::string describe(const Instruction &I) {
  return llvm::formatv("{0} {1}", I.Offset, I.name()).str();
}

llvm::Error pyverify::checkBorrows(const CFG &G, std::vector<Finding> &Out,
                                   uint32_t *BorrowLoads) {
  const DecodedCode &D = G.code();
  auto R = findBorrowsOutlivingLocals(G);
  if (!R)
    return R.takeError();
  if (BorrowLoads)
    *BorrowLoads = R->BorrowLoads;
  // The uses are sorted by kill, then load: one finding per pair, at the
  // kill, naming its first use; every use is a note.
  for (size_t I = 0; I < R->Uses.size();) {
    const BorrowAfterKill &U = R->Uses[I];
    const Instruction &Load = D.Insts[U.Load], &Kill = D.Insts[U.Kill];
    std::string Local = D.Code->describeLocal(U.Local);
    size_t J = I;
    bool Possible = true;
    for (; J < R->Uses.size() && R->Uses[J].Kill == U.Kill &&
           R->Uses[J].Load == U.Load && R->Uses[J].Local == U.Local;
         ++J)
      Possible &= R->Uses[J].Possible;
    std::string Msg = llvm::formatv(
        "{0} {4} local '{1}' while the value {2} borrowed from it "
        "(without a reference) is still on the stack, and {3} takes that "
        "value after: the object may have been freed (use after free); "
        "load '{1}' with LOAD_FAST, or consume the borrow before the store",
        describe(Kill), Local, describe(Load), describe(D.Insts[U.Use]),
        killVerb(Kill));
    Finding F(CheckId::BorrowOutlivesLocal, Kill.Offset, std::move(Msg));
    if (Possible)
      F.Cert = Certainty::Possible;
    F.note(Load.Offset, llvm::formatv("'{0}' borrowed here", Local).str());
    for (size_t K = I; K < J; ++K)
      F.note(D.Insts[R->Uses[K].Use].Offset,
             "the borrowed value used here, after the store");
    F.Cause = llvm::formatv("borrow {0} {1}", U.Load, U.Kill).str();
    Out.push_back(std::move(F));
    I = J;
  }
  return llvm::Error::success();
}
