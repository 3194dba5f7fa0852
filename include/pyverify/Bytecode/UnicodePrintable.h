//===- UnicodePrintable.h - What repr() of a str escapes --------*- C++ -*-===//
//
// Contract: isPrintableCodePoint(V, C) is CPython V's Py_UNICODE_ISPRINTABLE
// for code point C: true for the characters V's repr() of a str writes as
// they are, false for those it escapes (\xhh, \uhhhh, \Uhhhhhhhh). ASCII is
// the same in every version (0x20..0x7e printable); above it, the answer is
// V's Unicode database (categories Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs but the
// space are unprintable), which moves with each version, so the non-ASCII
// part is UnicodeUnprintable.def's table for V, generated from V's own repr()
// (scripts/gen-unicode-unprintable.py) and re-checked against each
// interpreter by tests/versions/check_str_repr.py. C above 0x10ffff is
// unprintable.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_UNICODEPRINTABLE_H
#define PYVERIFY_BYTECODE_UNICODEPRINTABLE_H

#include "pyverify/Bytecode/PythonVersion.h"

#include <cstdint>

namespace pyverify {

bool isPrintableCodePoint(PythonVersion V, uint32_t C);

} // namespace pyverify

#endif
