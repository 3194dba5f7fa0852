//===- SmallStack.h - Run a test body on a small thread stack ---*- C++ -*-===//
//
// The readers, the walks and the prover must not use stack in proportion to
// their input's nesting: a caller of `import pyverify` may be a thread with a
// small stack. onSmallStack() runs a test body on a new thread with
// \p StackBytes of stack (64 KiB by default, where a recursion per level
// overflows after a few hundred levels).
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_TESTS_UNIT_SMALLSTACK_H
#define PYVERIFY_TESTS_UNIT_SMALLSTACK_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <gtest/gtest.h>
#include <pthread.h>

namespace pyverify::testing {

/// Runs \p F on a new thread whose stack is \p StackBytes.
inline void onSmallStack(llvm::function_ref<void()> F,
                         size_t StackBytes = 64 * 1024) {
  pthread_attr_t Attr;
  ASSERT_EQ(pthread_attr_init(&Attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&Attr, StackBytes), 0);
  pthread_t T;
  auto Run = [](void *P) -> void * {
    (*static_cast<llvm::function_ref<void()> *>(P))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&T, &Attr, +Run, &F), 0);
  pthread_join(T, nullptr);
  pthread_attr_destroy(&Attr);
}

} // namespace pyverify::testing

#endif
