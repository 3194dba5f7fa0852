//===- SurrogatePass.cpp - A str's text as marshal stores it --------------===//

#include "pyverify/Bytecode/SurrogatePass.h"

#include "llvm/Support/ConvertUTF.h"

#include <cassert>

using namespace pyverify;

unsigned pyverify::decodeSurrogatePass(const unsigned char *P,
                                       const unsigned char *End, uint32_t &CP) {
  assert(P < End && "a sequence needs a byte");
  unsigned Len;
  if (*P < 0x80) {
    Len = 1;
  } else if (P[0] == 0xED && End - P >= 3 && (P[1] & 0xE0) == 0xA0 &&
             (P[2] & 0xC0) == 0x80) {
    Len = 3; // a lone surrogate, which strict UTF-8 rejects
  } else {
    Len = llvm::getNumBytesForUTF8(*P);
    if (Len > size_t(End - P) || !llvm::isLegalUTF8Sequence(P, P + Len))
      return 0;
  }
  // The lead byte's payload bits, then six per continuation byte.
  static constexpr unsigned char LeadMask[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
  CP = P[0] & LeadMask[Len];
  for (unsigned K = 1; K < Len; ++K)
    CP = CP << 6 | (P[K] & 0x3f);
  return Len;
}
