//===- SurrogatePass.h - A str's text as marshal stores it ------*- C++ -*-===//
//
// Contract: a str's text is UTF-8 as CPython's "surrogatepass" writes it:
// well-formed UTF-8, plus a lone surrogate (U+D800..U+DFFF, which code can
// hold and marshal writes) as its three bytes ED A0..BF xx. The reader
// accepts exactly these texts (MarshalReader::checkStrText) and repr()
// decodes them (printPyStrRepr), both through decodeSurrogatePass.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_SURROGATEPASS_H
#define PYVERIFY_BYTECODE_SURROGATEPASS_H

#include <cstdint>

namespace pyverify {

/// The code point whose sequence starts at \p P (P < End), into \p CP, and
/// the sequence's length (1 to 4); 0, leaving CP unspecified, when no
/// well-formed sequence (a lone surrogate's included) starts there.
unsigned decodeSurrogatePass(const unsigned char *P, const unsigned char *End,
                             uint32_t &CP);

} // namespace pyverify

#endif
