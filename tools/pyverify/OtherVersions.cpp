//===- OtherVersions.cpp - Code objects of another Python version ---------===//

#include "OtherVersions.h"

#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Bytecode/VersionOpcodes.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <vector>

using namespace llvm;

namespace pyverify::tool {

namespace {

/// Every version but the default, which the code was read as.
llvm::SmallVector<PythonVersion, 4> otherVersions() {
  llvm::SmallVector<PythonVersion, 4> Out;
  for (PythonVersion V : AllPythonVersions)
    if (V != defaultPythonVersion())
      Out.push_back(V);
  return Out;
}

/// Whether every instruction of \p C is a base opcode of \p V followed by
/// its zero cache units, up to the end of the code.
bool decodesAs(PythonVersion V, const CodeObject &C) {
  StringRef Code = C.Code;
  if (Code.size() % 2)
    return false;
  for (size_t I = 0; I < Code.size();) {
    const VersionOpcodeInfo *Op = getVersionOpcodeInfo(V, uint8_t(Code[I]));
    if (!Op)
      return false;
    size_t End = I + 2 + 2 * size_t(Op->Caches);
    if (End > Code.size())
      return false;
    for (size_t K = I + 2; K < End; ++K)
      if (Code[K])
        return false;
    I = End;
  }
  return true;
}

/// The first instruction (in \p V's decoding) that the default version does
/// not read the same way: "offset 8 of f holds 3.12's END_FOR (byte 4), not
/// a 3.11 opcode"; "" when there is none.
std::string firstDifference(PythonVersion V, const CodeObject &C) {
  StringRef Code = C.Code;
  for (size_t I = 0; I < Code.size();) {
    uint8_t Byte = uint8_t(Code[I]);
    const VersionOpcodeInfo &Op = *getVersionOpcodeInfo(V, Byte);
    const VersionOpcodeInfo *Mine =
        getVersionOpcodeInfo(defaultPythonVersion(), Byte);
    std::string Head =
        formatv("offset {0} of {1} holds {2}'s {3} (byte {4})", I, C.QualName,
                pythonVersionName(V), Op.Name, Byte);
    StringRef Default = pythonVersionName(defaultPythonVersion());
    if (!Mine)
      return formatv("{0}, not a {1} opcode", Head, Default);
    if (StringRef(Mine->Name) != Op.Name)
      return formatv("{0}, {1}'s {2}", Head, Default, Mine->Name);
    if (Mine->Caches != Op.Caches)
      return formatv("{0}, with {1} inline cache unit(s) where {2} has {3}",
                     Head, Op.Caches, Default, Mine->Caches);
    I += 2 + 2 * size_t(Op.Caches);
  }
  return "";
}

bool hasDecodeError(const CodeObject &C) {
  for (const Finding &F : DecodedCode::decode(C).Findings)
    if (F.Check == CheckId::BytecodeDecode)
      return true;
  return false;
}

} // namespace

std::string OtherVersionEvidence::versionsText() const {
  std::string S = "CPython";
  for (size_t I = 0; I < Versions.size(); ++I)
    S += (I ? " or " : " ") + pythonVersionName(Versions[I]).str();
  return S;
}

std::optional<OtherVersionEvidence>
otherVersionEvidence(ArrayRef<const CodeObject *> Roots) {
  std::vector<const CodeObject *> All;
  CodeObjectWalk Walk;
  for (const CodeObject *R : Roots)
    Walk.visit(*R, [&](const CodeObject &C, unsigned) { All.push_back(&C); });
  OtherVersionEvidence Out;
  for (PythonVersion V : otherVersions()) {
    if (All.empty() || !llvm::all_of(All, [&](const CodeObject *C) {
          return decodesAs(V, *C);
        }))
      continue;
    for (const CodeObject *C : All) {
      if (!hasDecodeError(*C))
        continue;
      // The evidence: an instruction the default version reads
      // differently. Without one its error is not the version's (e.g. four
      // EXTENDED_ARGs).
      std::string Why = firstDifference(V, *C);
      if (Why.empty())
        continue;
      Out.Versions.push_back(V);
      if (Out.Why.empty())
        Out.Why = std::move(Why);
      break;
    }
  }
  if (Out.Versions.empty())
    return std::nullopt;
  return Out;
}

std::string otherVersionNote(ArrayRef<const CodeObject *> Roots) {
  std::optional<OtherVersionEvidence> E = otherVersionEvidence(Roots);
  if (!E)
    return "";
  return formatv("this looks like {0} bytecode, not {2}: every code object "
                 "decodes as {3} opcodes and their inline caches, and {1}; a "
                 "marshal stream is read as {2} unless --python-version says "
                 "otherwise",
                 E->versionsText(), E->Why,
                 pythonVersionName(defaultPythonVersion()),
                 pythonVersionName(E->Versions.front()));
}

} // namespace pyverify::tool
