//===- OtherVersions.h - Code objects of another Python version -*- C++ -*-===//
//
// Contract: a marshalled code object does not say which Python wrote it
// (a .pyc does, by its magic number: PycMagic.h). otherVersionNote() tells a
// code object of CPython 3.12 or 3.13 from a broken 3.11 one: when some code
// object of \p Roots (nested ones included) does not decode as 3.11 (a
// bytecode-decode error) while every one of them decodes cleanly as the
// other version -- each opcode one of its base opcodes
// (VersionOpcodes.h), followed by that many zero inline cache units
// -- and one of those that fail as 3.11 has an instruction 3.11 reads
// differently (another opcode, or other cache units) -- it returns a note
// naming the version and the first such instruction ("offset 8 of f holds
// 3.12's END_FOR (byte 4), not a 3.11 opcode"). Otherwise, and always for
// code that is valid 3.11, it returns "". A cheap byte scan decides first;
// 3.11 is decoded only when another version fits. otherVersionEvidence()
// gives the same finding as data: every version that fits so, and the first
// instruction of the first that shows it. Never proof: 3.11 and 3.12 compile
// `def f(x): return x` to the same bytes, and the marshal layout of a code
// object is the same in 3.11, 3.12 and 3.13 (measured), so a marshal stream
// that fits another version is named, not read as it (CodeInputs.h).
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_TOOLS_OTHERVERSIONS_H
#define PYVERIFY_TOOLS_OTHERVERSIONS_H

#include "pyverify/Bytecode/CodeObject.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace pyverify::tool {

struct OtherVersionEvidence {
  llvm::SmallVector<PythonVersion, 2> Versions; ///< Every version that fits.
  /// "offset 8 of f holds 3.12's END_FOR (byte 4), not a 3.11 opcode".
  std::string Why;
  /// "CPython 3.12" / "CPython 3.12 or 3.13".
  std::string versionsText() const;
};

std::optional<OtherVersionEvidence>
otherVersionEvidence(llvm::ArrayRef<const CodeObject *> Roots);

std::string otherVersionNote(llvm::ArrayRef<const CodeObject *> Roots);

} // namespace pyverify::tool

#endif
