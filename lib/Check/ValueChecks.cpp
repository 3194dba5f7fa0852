//===- ValueChecks.cpp - Findings about NULL and unbound locals -----------===//

#include "pyverify/Check/ValueChecks.h"
#include "pyverify/Analysis/MicroOps.h"
#include "pyverify/Analysis/SlotKinds.h"
#include "pyverify/Analysis/ValueKinds.h"
#include "pyverify/Check/StackChecks.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace pyverify;

/// "3.11's and 3.12's": the versions whose calls put the NULL on the other
/// side of the callable from \p V's.
static std::string otherLayoutVersions(PythonVersion V) {
  llvm::SmallVector<PythonVersion, 4> Others;
  for (PythonVersion W : AllPythonVersions)
    if (traits(W).NullAfterCallable != traits(V).NullAfterCallable)
      Others.push_back(W);
  return pythonVersionList(Others, "'s");
}

/// What the \p Which-th popped slot (0: the deepest) of \p I is, when
/// \p I is a call and that slot is NULL: in the two slots below the
/// arguments, a call laid out for another version (where this version's
/// call wants its NULL); above them, an argument, which no layout allows
/// to be NULL.
static std::string callSlotText(const Instruction &I, uint32_t Which) {
  std::optional<uop::Call> C;
  for (const MicroOp &Op : lowerInstruction(I))
    if (const auto *X = std::get_if<uop::Call>(&Op))
      C = *X;
  if (!C)
    return "";
  if (Which >= 2)
    return Which - 2 < C->NArgs
               ? llvm::formatv(": argument {0} of {1} is NULL", Which - 1,
                               C->NArgs)
                     .str()
               : std::string(": the keyword-names tuple is NULL");
  if (traits(I.Ver).NullAfterCallable)
    return llvm::formatv("; CPython {0} calls take the callable first and "
                         "its NULL (or self) second: NULL before the callable "
                         "is {1} layout",
                         pythonVersionName(I.Ver), otherLayoutVersions(I.Ver))
        .str();
  return llvm::formatv("; CPython {0} calls take the NULL (or method) first "
                       "and the callable second: the callable before its "
                       "NULL is {1} layout",
                       pythonVersionName(I.Ver), otherLayoutVersions(I.Ver))
      .str();
}

/// "on top of the stack" or "#N from the top": the slot issue \p V reads.
static std::string slotText(const ValueIssue &V) {
  return V.Which == 0 ? std::string("on top of the stack")
                      : "#" + std::to_string(V.Which + 1) + " from the top";
}

/// " (pushed by OP at N)" when an instruction pushed the value \p V reads.
static std::string pushedByText(const DecodedCode &D, const ValueIssue &V) {
  if (V.From == ValueIssue::NoInst)
    return "";
  const Instruction &P = D.Insts[V.From];
  return llvm::formatv(" (pushed by {0} at {1})", P.name(), P.Offset).str();
}

/// The message of an ExceptionSlot issue.
static std::string exceptionSlotText(const DecodedCode &D, const ValueIssue &V,
                                     const std::string &At) {
  std::string Found = describeSlotKinds(V.Found);
  if (V.From != ValueIssue::NoInst) {
    const Instruction &P = D.Insts[V.From];
    if (P.is(Opcode::PUSH_EXC_INFO) && V.Found == (KExc | KNone))
      Found = llvm::formatv("the exception state PUSH_EXC_INFO at {0} saved "
                            "(None unless an exception is being handled)",
                            P.Offset);
    else
      Found += pushedByText(D, V);
  }
  std::string Slot = slotText(V);
  std::string Needed = V.Allowed == KExc ? "an exception"
                       : V.Allowed == (KExc | KNone)
                           ? "an exception or None"
                           : describeSlotKinds(V.Allowed);
  return llvm::formatv("{0} takes the value {1}, which is {2}, where it needs "
                       "{3}: CPython does not check, and crashes or keeps a "
                       "non-exception as the handled exception",
                       At, Slot, Found, Needed)
      .str();
}

/// The message of a KindMismatch issue.
static std::string kindMismatchText(const DecodedCode &D, const ValueIssue &V,
                                    const std::string &At) {
  return llvm::formatv("{0} takes the value {1}, which is {2}{3}, where it "
                       "needs {4}: CPython does not check, and crashes",
                       At, slotText(V), describeSlotKinds(V.Found),
                       pushedByText(D, V), describeSlotKinds(V.Allowed))
      .str();
}

/// The message of a NullRead issue.
static std::string nullReadText(const DecodedCode &D, const ValueIssue &V,
                                const std::string &At,
                                const std::string &Where) {
  return llvm::formatv("{0} reads the value {1} without popping it, which is "
                       "NULL{2}{3}, where it needs an object: CPython does "
                       "not check, and dereferences it",
                       At, slotText(V), Where, pushedByText(D, V))
      .str();
}

/// The message of a ShortTuple issue.
static std::string shortTupleText(const DecodedCode &D, const ValueIssue &V,
                                  const std::string &At) {
  std::string Items = V.Found == ValueIssue::UnknownCount
                          ? std::string("a tuple of a count of items not known")
                          : "a tuple of " + std::to_string(V.Found) + " item" +
                                (V.Found == 1 ? "" : "s");
  return llvm::formatv("{0} takes the value {1}, {2}{3}, where it needs at "
                       "least {4}: CPython does not check, and reads past "
                       "its end",
                       At, slotText(V), Items, pushedByText(D, V),
                       D.Insts[V.Inst].Arg)
      .str();
}

/// The message of a LocalKind issue.
static std::string localKindText(const DecodedCode &D, const ValueIssue &V,
                                 const std::string &At) {
  std::string Found = describeSlotKinds(V.Found);
  if (V.Found & KNull)
    Found += " (no MAKE_CELL or COPY_FREE_VARS made it)";
  return llvm::formatv("{0} uses local '{1}' as {2}, which holds {3}: CPython "
                       "does not check, and crashes",
                       At, D.Code->describeLocal(V.Which),
                       describeSlotKinds(V.Allowed), Found)
      .str();
}

llvm::Error pyverify::checkValueKinds(const CFG &G, std::vector<Finding> &Out) {
  const DecodedCode &D = G.code();
  auto Issues = analyzeValueKinds(G);
  if (!Issues)
    return Issues.takeError();
  for (const ValueIssue &V : *Issues) {
    const Instruction &I = D.Insts[V.Inst];
    std::string At = std::to_string(I.Offset) + " " + describeInstruction(I);
    std::string Where = V.Cert == Certainty::Possible ? " on some paths" : "";
    std::string Text;
    CheckId Id = CheckId::LocalUnbound;
    switch (V.K) {
    case ValueIssue::NullTaken:
      Id = CheckId::NullStackValue;
      Text =
          I.is(Opcode::COPY)
              ? llvm::formatv("{0} copies a stack slot that holds NULL{1}: "
                              "the interpreter increments its reference "
                              "count",
                              At, Where)
                    .str()
              : llvm::formatv("{0} takes the value it pops {1} from the "
                              "deepest, which is NULL{2}, where it needs "
                              "an object{3}",
                              At,
                              V.Which == 0 ? std::string("first")
                                           : "#" + std::to_string(V.Which + 1),
                              Where, callSlotText(I, V.Which))
                    .str();
      break;
    case ValueIssue::NullRead:
      Id = CheckId::NullStackValue;
      Text = nullReadText(D, V, At, Where);
      break;
    case ValueIssue::UnboundRead:
      Text = llvm::formatv("{0} reads local '{1}', which is unbound{2}: from "
                           "3.12 LOAD_FAST does not check and pushes NULL "
                           "(the compiler emits LOAD_FAST_CHECK here)",
                           At, D.Code->describeLocal(V.Which), Where)
                 .str();
      break;
    case ValueIssue::HandlerUnbound:
      Text = llvm::formatv("{0} in an exception handler reads local '{1}', "
                           "which no path to here assigns: the handler {2} "
                           "instead of doing its work",
                           At, D.Code->describeLocal(V.Which),
                           traits(I.Ver).LoadFastChecksBound ||
                                   I.is(Opcode::LOAD_FAST_CHECK)
                               ? "raises UnboundLocalError"
                               : "pushes NULL")
                 .str();
      break;
    case ValueIssue::ExceptionSlot:
      Id = CheckId::ExceptionSlotType;
      Text = exceptionSlotText(D, V, At);
      break;
    case ValueIssue::KindMismatch:
      Id = CheckId::ValueKindMismatch;
      Text = kindMismatchText(D, V, At);
      break;
    case ValueIssue::ShortTuple:
      Id = CheckId::ValueKindMismatch;
      Text = shortTupleText(D, V, At);
      break;
    case ValueIssue::LocalKind:
      Id = CheckId::ValueKindMismatch;
      Text = localKindText(D, V, At);
      break;
    }
    Finding F(Id, I.Offset, std::move(Text));
    F.Cert = V.Cert;
    Out.push_back(std::move(F));
  }
  return llvm::Error::success();
}
