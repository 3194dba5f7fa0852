//===- DecodedCode.cpp - One code object, decoded and validated -----------===//

#include "pyverify/Bytecode/DecodedCode.h"

#include "llvm/Support/FormatVariadic.h"

using namespace pyverify;

DecodedCode DecodedCode::decode(const CodeObject &C) {
  DecodedCode D;
  D.Code = &C;
  D.Insts = InstructionStream::decode(C.Code, D.Findings, C.Version);

  std::vector<uint32_t> NonCanonical;
  auto Table = decodeExceptionTable(C.ExceptionTable, &NonCanonical);
  if (Table) {
    D.Table = std::move(*Table);
    D.TableDecoded = true;
    // Depths against co_stacksize are judged by the Check layer, on live
    // entries only: dead entries must not make the code ill-formed.
    validateExceptionTable(D.Table, D.Insts, C.StackSize, D.Findings,
                           /*CheckDepths=*/false);
    for (uint32_t At : NonCanonical) {
      Finding F(CheckId::ExceptionTableNonCanonical, 0,
                llvm::formatv("non-minimal varint at exception-table byte "
                              "{0} (a leading zero chunk); CPython accepts "
                              "it but never writes it",
                              At));
      D.Findings.push_back(std::move(F));
    }
  } else {
    D.Findings.emplace_back(CheckId::ExceptionTableDecode, 0,
                            "co_exceptiontable " +
                                llvm::toString(Table.takeError()));
  }

  if (llvm::Error E = validateLocationTable(C.LineTable, C.FirstLineNo,
                                            D.Insts.codeSize() / 2))
    D.Findings.emplace_back(CheckId::LocationTableDecode, 0,
                            "co_linetable " + llvm::toString(std::move(E)));
  else
    D.LocationsDecoded = true;
  return D;
}

const std::vector<Position> &DecodedCode::positions() const {
  if (!PositionCache) {
    PositionCache.emplace();
    if (LocationsDecoded) {
      auto P = decodeLocationTable(Code->LineTable, Code->FirstLineNo,
                                   Insts.codeSize() / 2);
      assert(P && "validated by decode()");
      if (P)
        *PositionCache = std::move(*P);
      else
        llvm::consumeError(P.takeError());
    }
  }
  return *PositionCache;
}

const Finding *DecodedCode::firstMalformation() const {
  for (const Finding &F : Findings)
    if (F.Sev == Severity::Error && F.Check != CheckId::LocationTableDecode)
      return &F;
  return nullptr;
}

bool DecodedCode::isWellFormed() const { return !firstMalformation(); }
