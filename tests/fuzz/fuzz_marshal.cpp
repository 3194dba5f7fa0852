//===- fuzz_marshal.cpp - Fuzz the marshal/.pyc reader and everything after ===//
//
// Input: any bytes, read both as a raw marshal stream (readMarshal) and as a
// .pyc file (readPyc); the seeds are real .pyc files and marshal.dumps() of
// stdlib code objects. Every code object that loads goes through what
// `pyverify dis` does with it: DecodedCode::decode(), the text listing and
// the JSON listing, walking nested code objects like forEachCodeObject().
//
// Checks: errors name a byte offset; DecodedCode keeps its contract (positions
// per code unit or none, TableDecoded matches the findings); the JSON listing
// serialises to text that parses back to the same value.
//
//===----------------------------------------------------------------------===//

#include "FuzzCheck.h"

#include "pyverify/Bytecode/CodeObject.h"
#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Bytecode/Listing.h"
#include "pyverify/Bytecode/Marshal.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace pyverify;

namespace {

void checkError(llvm::Error E) {
  std::string Msg = llvm::toString(std::move(E));
  FUZZ_CHECK(llvm::StringRef(Msg).startswith("at byte "),
             "error without a byte offset: %s", Msg.c_str());
}

void exerciseCode(const CodeObject &C) {
  DecodedCode D = DecodedCode::decode(C);
  FUZZ_CHECK(D.Code == &C, "DecodedCode does not point at its code object");
  FUZZ_CHECK(D.Insts.codeSize() == C.Code.size() / 2 * 2, "code size %u of %zu",
             D.Insts.codeSize(), C.Code.size());
  FUZZ_CHECK(D.Positions.empty() || D.Positions.size() == C.Code.size() / 2,
             "%zu positions for %zu code units", D.Positions.size(),
             C.Code.size() / 2);
  bool TableError = false, PositionsError = false, AnyError = false;
  for (const Finding &F : D.Findings) {
    TableError |= F.Check == CheckId::ExceptionTableDecode;
    PositionsError |= F.Check == CheckId::LocationTableDecode;
    AnyError |= F.Sev == Severity::Error;
  }
  FUZZ_CHECK(D.TableDecoded != TableError, "TableDecoded %d, decode error %d",
             int(D.TableDecoded), int(TableError));
  FUZZ_CHECK(D.TableDecoded || D.Table.empty(), "undecoded table has entries");
  if (C.Code.size() >= 2)
    FUZZ_CHECK(D.Positions.empty() == PositionsError,
               "positions empty %d, decode error %d", int(D.Positions.empty()),
               int(PositionsError));
  FUZZ_CHECK(D.isWellFormed() == !AnyError, "isWellFormed() disagrees");
  for (const Instruction &I : D.Insts.instructions())
    (void)D.positionAt(I.Offset);

  // Text listing, and the repr of every constant (what --fields shows).
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  printListing(OS, D);
  for (const Value &V : C.Consts)
    (void)V.repr();
  (void)C.getNumLocals();
  (void)C.getVarNames();
  (void)C.getCellVars();
  (void)C.getFreeVars();

  // JSON listing: must serialise to valid JSON that parses back unchanged.
  llvm::json::Value J(listingToJSON(D));
  std::string Out;
  llvm::raw_string_ostream JS(Out);
  JS << J;
  JS.flush();
  auto Back = llvm::json::parse(Out);
  if (!Back) {
    std::string Msg = llvm::toString(Back.takeError());
    FUZZ_CHECK(false, "listing JSON does not parse: %s", Msg.c_str());
  }
  FUZZ_CHECK(*Back == J, "listing JSON changes when parsed back");
}

void exerciseRoot(const CodeObject &Root) {
  forEachCodeObject(Root, [](const CodeObject &C, unsigned) {
    exerciseCode(C);
  });
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Data), Size);

  if (auto V = readMarshal(Bytes)) {
    for (const auto &Root : collectTopLevelCode(*V))
      exerciseRoot(*Root);
    // A value's repr must work whatever it holds.
    (void)V->repr();
  } else {
    checkError(V.takeError());
  }

  if (auto Pyc = readPyc(Bytes)) {
    FUZZ_CHECK(Pyc->Code != nullptr, "readPyc succeeded without code");
    FUZZ_CHECK(Pyc->Header.Magic == PycMagic311 && Pyc->Header.Flags <= 3,
               "bad header accepted");
    exerciseRoot(*Pyc->Code);
  } else {
    checkError(Pyc.takeError());
  }
  return 0;
}
