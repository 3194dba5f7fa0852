//===- ExceptionTableText.h - Exception-table entries as text ---*- C++ -*-===//
//
// Contract: the one way pyverify writes an exception-table entry for people,
// dis's notation "A to B -> T [d] lasti" with B the last covered unit --
// except that an entry covering nothing (End == Start, which dis would print
// like a one-unit entry) is written "A to A (empty) -> T [d]", so that the
// two never look alike. Every listing and message that shows an entry's
// range uses these.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_EXCEPTIONTABLETEXT_H
#define PYVERIFY_BYTECODE_EXCEPTIONTABLETEXT_H

#include "pyverify/Bytecode/ExceptionTable.h"

#include <string>

namespace pyverify {

/// "4 to 14", or "4 to 4 (empty)" for an entry that covers nothing.
inline std::string entryRangeText(const ExceptionTableEntry &E) {
  if (E.End <= E.Start)
    return std::to_string(E.Start) + " to " + std::to_string(E.Start) +
           " (empty)";
  return std::to_string(E.Start) + " to " + std::to_string(E.End - 2);
}

/// "4 to 14 -> 18 [0]", "18 to 36 -> 46 [1] lasti", "4 to 4 (empty) -> 18
/// [0]".
inline std::string entryText(const ExceptionTableEntry &E) {
  return entryRangeText(E) + " -> " + std::to_string(E.Target) + " [" +
         std::to_string(E.Depth) + "]" + (E.Lasti ? " lasti" : "");
}

} // namespace pyverify

#endif
