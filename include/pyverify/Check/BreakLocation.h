//===- BreakLocation.h - The frame's break instruction ----------*- C++ -*-===//
//
// Contract: locateFrameBreak() finds, in a bundle's rewritten frame F, the
// instruction that is the original's break instruction (the one at
// break_offset), structurally -- so that frames emitted without a location
// table, as real rewriters often emit them, are located too:
//
//   1. the bundle names it (frame_break_offset): it must be an instruction
//      of F with the original's opcode and argument, else an error;
//   2. otherwise the candidates are F's instructions with the original's
//      opcode and argument; one candidate is the break;
//   3. of several, the one whose result flows into the resume call (the
//      CALL whose callable is the resume-function global of
//      Environment.def), followed forward through the stack -- COPY, SWAP,
//      STORE_FAST / LOAD_FAST of a local -- on normal edges (for a PRECALL
//      or KW_NAMES, the result of the CALL that completes the call);
//   4. source positions only break a tie left after that.
// The result is the instruction index, or the reason it cannot be located.
// Pure and deterministic; bounded by the frame's size.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_CHECK_BREAKLOCATION_H
#define PYVERIFY_CHECK_BREAKLOCATION_H

#include "pyverify/Bytecode/DecodedCode.h"

#include <cstdint>
#include <optional>
#include <string>

namespace pyverify {

struct BreakLocation {
  int64_t Index = -1; ///< Instruction index in the frame, -1 if not found.
  std::string Why;    ///< Why not found ("" when found).
  bool found() const { return Index >= 0; }
};

/// \p OriginalIndex is the index of the original's instruction at
/// break_offset; \p Named the bundle's frame_break_offset.
BreakLocation locateFrameBreak(const DecodedCode &Frame,
                               const DecodedCode &Original,
                               int64_t OriginalIndex,
                               std::optional<uint32_t> Named);

/// Whether the value \p Index of \p Frame produces (for PRECALL / KW_NAMES:
/// the CALL completing the call) reaches an argument of the resume call.
bool flowsIntoResumeCall(const DecodedCode &Frame, int64_t Index);

} // namespace pyverify

#endif
