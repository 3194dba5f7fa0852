//===- fuzz_instructions.cpp - Fuzz InstructionStream::decode -------------===//
//
// Input: raw co_code bytes. Every byte string must decode (findings, never a
// crash) into a stream that keeps the invariants checkInstructionStream()
// states -- as the bytecode of every version with tables (3.11, 3.12, 3.13).
//
//===----------------------------------------------------------------------===//

#include "InstructionChecks.h"

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>

using namespace pyverify;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Code(reinterpret_cast<const char *>(Data), Size);
  for (PythonVersion V : AllPythonVersions) {
    std::vector<Finding> Findings;
    InstructionStream S = InstructionStream::decode(Code, Findings, V);
    fuzz::checkInstructionStream(S, Size, Findings);
    for (const Finding &F : Findings)
      FUZZ_CHECK(F.Offset <= Size && !F.Message.empty(),
                 "finding at %u for %zu bytes: %s", F.Offset, Size,
                 F.Message.c_str());
  }
  return 0;
}
