//===- FrameModes.h - The modes a rewritten frame holds ---------*- C++ -*-===//
//
// Contract: frameModesBefore() says which torch-function modes a bundle's
// rewritten frame holds before one of its instructions (the break
// instruction), by a forward abstract interpretation from the frame's entry
// over normal edges. Its state is the real operand stack (getStackIO) and
// the locals, each slot tagged with what it is for the mode stack -- a
// mode-stack module or one of its operations (Environment.def), the saved
// stack a GetStack returned, a compiled graph or its output -- and the list
// of modes pushed so far. Each CALL is judged by the one recogniser
// (recogniseContextEvent, ContextEvents.h), as the prover's symbolic frame
// does: a push pushes a mode, a pop pops the latest, a SetStack of the
// saved stack pops every mode, any other SetStack is the side-effect replay
// (one push per mode the bundle claims).
//
// Each mode records how many ordinary contexts the frame held when it was
// pushed (\p OrdinaryBefore, the context-balance pass's active contexts), so
// that a caller can print the frame's contexts in entry order.
//
// Known is false -- and the caller must not judge the modes -- when the
// instruction is not reached on normal edges, when paths reaching it hold
// different modes or stacks of different depths, or when the visit cap is
// hit; Why says which. Exception edges are not followed: a rewriter's frame
// reaches its break instruction without raising (prove explores the
// raising paths). Pure, deterministic, bounded by the frame's size.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_CHECK_FRAMEMODES_H
#define PYVERIFY_CHECK_FRAMEMODES_H

#include "pyverify/Bytecode/DecodedCode.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pyverify {

struct FrameModes {
  bool Known = false;
  /// Per mode held, outermost first: the number of ordinary contexts the
  /// frame held when it was pushed.
  std::vector<uint32_t> OrdinaryBelow;
  std::string Why; ///< Why not Known ("" when Known).
};

/// \p ClaimedModes is the number of modes the bundle's resume 0 claims (what
/// the side-effect replay installs); \p OrdinaryBefore(I) the number of
/// ordinary contexts active before instruction I. \p Frame must be
/// well-formed.
FrameModes
frameModesBefore(const DecodedCode &Frame, uint32_t Index,
                 unsigned ClaimedModes,
                 llvm::function_ref<uint32_t(uint32_t)> OrdinaryBefore);

} // namespace pyverify

#endif
