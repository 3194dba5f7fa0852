//===- FuzzCheck.h - Invariant checks for the fuzz targets ------*- C++ -*-===//
//
// FUZZ_CHECK(Cond, Fmt, ...) is the fuzz targets' "our bug" assert: when an
// invariant the library promises fails it prints what broke and traps, so
// libFuzzer records the input as a crash. It is active whatever NDEBUG says.
// Malformed input is never a reason to trap: the library reports that as an
// llvm::Error or a Finding.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_TESTS_FUZZ_FUZZCHECK_H
#define PYVERIFY_TESTS_FUZZ_FUZZCHECK_H

#include <cstdio>

#define FUZZ_CHECK(Cond, ...)                                                  \
  do {                                                                         \
    if (!(Cond)) {                                                             \
      std::fprintf(stderr, "%s:%d: invariant failed: %s: ", __FILE__,          \
                   __LINE__, #Cond);                                           \
      std::fprintf(stderr, __VA_ARGS__);                                       \
      std::fputc('\n', stderr);                                                \
      __builtin_trap();                                                        \
    }                                                                          \
  } while (false)

#endif
