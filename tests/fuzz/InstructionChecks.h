//===- InstructionChecks.h - InstructionStream invariants -------*- C++ -*-===//
//
// checkInstructionStream() traps unless a decoded stream keeps every promise
// of InstructionStream.h: the instructions tile the even part of the code in
// order, Start <= Offset < End with the prefixes between Start and Offset, the
// index lookups agree with the tiling, resolved jump targets marked valid are
// instruction starts, and hasErrors() is set exactly when an error-severity
// finding was reported. Shared by fuzz_instructions and fuzz_marshal.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_TESTS_FUZZ_INSTRUCTIONCHECKS_H
#define PYVERIFY_TESTS_FUZZ_INSTRUCTIONCHECKS_H

#include "FuzzCheck.h"

#include "pyverify/Bytecode/InstructionStream.h"

#include <cstdint>
#include <vector>

namespace pyverify::fuzz {

inline void checkInstructionStream(const InstructionStream &S,
                                   size_t CodeLength,
                                   const std::vector<Finding> &Findings) {
  uint64_t CodeBytes = S.codeSize();
  FUZZ_CHECK(CodeBytes == CodeLength / 2 * 2, "codeSize %llu for %zu bytes",
             (unsigned long long)CodeBytes, CodeLength);
  FUZZ_CHECK((CodeBytes == 0) == (S.size() == 0),
             "%zu instructions for %llu code bytes", S.size(),
             (unsigned long long)CodeBytes);

  uint64_t Expected = 0;
  for (size_t K = 0; K < S.size(); ++K) {
    const Instruction &I = S[K];
    FUZZ_CHECK(I.Start == Expected, "instruction %zu starts at %u, not %llu", K,
               I.Start, (unsigned long long)Expected);
    FUZZ_CHECK(I.Start <= I.Offset && I.Offset < I.End,
               "instruction %zu: Start %u Offset %u End %u", K, I.Start,
               I.Offset, I.End);
    FUZZ_CHECK(I.Start % 2 == 0 && I.Offset % 2 == 0 && I.End % 2 == 0,
               "instruction %zu has an odd bound", K);
    FUZZ_CHECK(I.Offset - I.Start == 2 * uint64_t(I.NumPrefixes),
               "instruction %zu: %u prefixes between %u and %u", K,
               I.NumPrefixes, I.Start, I.Offset);
    FUZZ_CHECK(I.End <= CodeBytes, "instruction %zu ends at %u past %llu", K,
               I.End, (unsigned long long)CodeBytes);
    FUZZ_CHECK(I.units() == (I.End - I.Start) / 2, "units() of %zu", K);
    FUZZ_CHECK(S.indexAtStart(I.Start) == int64_t(K), "indexAtStart(%u)",
               I.Start);
    FUZZ_CHECK(S.indexAtOffset(I.Offset) == int64_t(K), "indexAtOffset(%u)",
               I.Offset);
    for (uint64_t B = I.Start; B < I.End; ++B) {
      FUZZ_CHECK(S.indexContaining(B) == int64_t(K),
                 "indexContaining(%llu) != %zu", (unsigned long long)B, K);
      if (B != I.Start)
        FUZZ_CHECK(S.indexAtStart(B) == -1, "indexAtStart(%llu) inside %zu",
                   (unsigned long long)B, K);
      if (B != I.Offset)
        FUZZ_CHECK(S.indexAtOffset(B) == -1, "indexAtOffset(%llu) inside %zu",
                   (unsigned long long)B, K);
    }
    if (I.Valid) {
      // The version's own table (the only one: VersionOpcodes.h).
      const VersionOpcodeInfo *Info = getVersionOpcodeInfo(I.Ver, I.OpByte);
      FUZZ_CHECK(I.OpByte != 0 && Info,
                 "instruction %zu valid with opcode byte %u", K, I.OpByte);
      FUZZ_CHECK(I.Op == Info->Op && &I.info() == Info,
                 "instruction %zu: its identity is not its row's", K);
      if (!Info->HasArg)
        FUZZ_CHECK(I.Arg == 0, "argument-less instruction %zu has arg %u", K,
                   I.Arg);
      if (Info->isJump() && I.TargetValid)
        FUZZ_CHECK(I.Target >= 0 && S.indexAtStart(uint64_t(I.Target)) >= 0,
                   "instruction %zu: valid target %lld is no instruction", K,
                   (long long)I.Target);
      if (!Info->isJump())
        FUZZ_CHECK(I.Target == -1, "non-jump %zu has target %lld", K,
                   (long long)I.Target);
    } else {
      FUZZ_CHECK(I.Target == -1, "invalid instruction %zu has target %lld", K,
                 (long long)I.Target);
    }
    // name() must work on anything the decoder produces.
    FUZZ_CHECK(!I.name().empty(), "instruction %zu has no name", K);
    for (unsigned P = 0; P < I.NumPrefixes; ++P)
      (void)I.prefixRowArg(P);
    Expected = I.End;
  }
  FUZZ_CHECK(Expected == CodeBytes, "instructions end at %llu, code at %llu",
             (unsigned long long)Expected, (unsigned long long)CodeBytes);
  FUZZ_CHECK(S.indexContaining(CodeBytes) == -1 &&
                 S.indexAtStart(CodeBytes) == -1 &&
                 S.indexAtOffset(CodeBytes) == -1,
             "lookup past the end");

  bool AnyError = false;
  for (const Finding &F : Findings)
    AnyError |= F.Sev == Severity::Error;
  FUZZ_CHECK(AnyError == S.hasErrors(), "hasErrors() %d, error findings %d",
             int(S.hasErrors()), int(AnyError));
  if (CodeLength % 2)
    FUZZ_CHECK(S.hasErrors(), "odd-length code without an error");
  for (const Instruction &I : S.instructions())
    if (!I.Valid || !I.TargetValid)
      FUZZ_CHECK(S.hasErrors(), "invalid instruction at %u without an error",
                 I.Offset);
}

} // namespace pyverify::fuzz

#endif
