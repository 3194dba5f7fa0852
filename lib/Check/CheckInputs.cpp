//===- CheckInputs.cpp - What each check needs to run ---------------------===//

#include "pyverify/Check/CheckInputs.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"

using namespace pyverify;

CheckInput pyverify::getCheckInput(CheckId Id) {
  switch (Id) {
  case CheckId::BytecodeDecode:
  case CheckId::BytecodeExtendedArg:
  case CheckId::JumpTargetInvalid:
  case CheckId::ExceptionTableDecode:
  case CheckId::LocationTableDecode:
  case CheckId::AnalysisLimit:
  case CheckId::ChecksNotRun:
  case CheckId::OperandOutOfRange:
  case CheckId::StacksizeTooLarge:
    return CheckInput::Code;
  case CheckId::ExceptionTableZeroLength:
  case CheckId::ExceptionTableUnsorted:
  case CheckId::ExceptionTableOverlap:
  case CheckId::ExceptionTableBounds:
  case CheckId::ExceptionTableTargetNotInstruction:
  case CheckId::ExceptionTableDepthExceedsStacksize:
  case CheckId::ExceptionTableNonCanonical:
    return CheckInput::Table;
  case CheckId::ExceptionTableCalleeSplit: // needs reachability
  case CheckId::GeneratorFrame:
  case CheckId::FallsOffEnd:
  case CheckId::UnreachableCode:
    return CheckInput::Flow;
  case CheckId::StackUnderflow:
  case CheckId::CallWithoutNull:
  case CheckId::StackDepthConflict:
  case CheckId::StacksizeTooSmall:
  case CheckId::HandlerDepthExceedsStack:
  case CheckId::StacksizeLargerThanNeeded:
    return CheckInput::Depths;
  case CheckId::NullStackValue:
  case CheckId::LocalUnbound:
  case CheckId::ExceptionSlotType:
  case CheckId::ValueKindMismatch:
  case CheckId::BorrowOutlivesLocal:
    return CheckInput::Values;
  case CheckId::BlockNesting:
  case CheckId::ContextNotExited:
  case CheckId::ContextExitedTwice:
  case CheckId::ContextExitOrder:
  case CheckId::ContextExitWithoutEnter:
  case CheckId::WithHandlerMismatch:
  case CheckId::WithBodyEnteredWithoutEnter:
  case CheckId::WithBodyUncovered:
    return CheckInput::Contexts;
  case CheckId::ResumeContextsMismatch:
  case CheckId::BundleOffsetInvalid:
  case CheckId::FrameContextsMismatch:
    return CheckInput::Bundle;
  }
  llvm_unreachable("unknown check id");
}

/// The finding naming \p NotRun (enabled checks, in Checks.def order).
static std::optional<Finding> makeNotRun(llvm::SmallVector<CheckId, 0> NotRun,
                                         llvm::StringRef Why, CheckId Kind,
                                         uint32_t Offset) {
  if (NotRun.empty())
    return std::nullopt;
  std::string Names;
  for (CheckId Id : NotRun)
    Names += (Names.empty() ? "" : ", ") + getCheckName(Id).str();
  std::string Msg =
      Kind == CheckId::ChecksNotRun
          ? llvm::formatv("{0} enabled check{1} did not run on this code "
                          "object: {2}; not run: {3}",
                          NotRun.size(), NotRun.size() == 1 ? "" : "s", Why,
                          Names)
                .str()
          : llvm::formatv("{0}; not run: {1}", Why, Names).str();
  Finding F(Kind, Offset, std::move(Msg));
  F.NotRun = std::move(NotRun);
  return F;
}

std::optional<Finding>
pyverify::notRunFinding(const CheckOptions &O,
                        std::initializer_list<CheckInput> Missing,
                        llvm::StringRef Why, CheckId Kind, uint32_t Offset) {
  llvm::SmallVector<CheckId, 0> NotRun;
  for (const CheckInfo &C : allChecks())
    if (O.isEnabled(C.Id) && llvm::is_contained(Missing, getCheckInput(C.Id)))
      NotRun.push_back(C.Id);
  return makeNotRun(std::move(NotRun), Why, Kind, Offset);
}

std::optional<Finding> pyverify::notRunFinding(const CheckOptions &O,
                                               llvm::ArrayRef<CheckId> Checks,
                                               llvm::StringRef Why,
                                               uint32_t Offset) {
  llvm::SmallVector<CheckId, 0> NotRun;
  for (const CheckInfo &C : allChecks())
    if (O.isEnabled(C.Id) && llvm::is_contained(Checks, C.Id))
      NotRun.push_back(C.Id);
  return makeNotRun(std::move(NotRun), Why, CheckId::ChecksNotRun, Offset);
}
