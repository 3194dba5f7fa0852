//===- SpareBlockTest.cpp - A thread's spare heap block and objects ------===//

#include "pyverify/Support/SpareBlock.h"

#include "gtest/gtest.h"

#include <memory>
#include <thread>
#include <vector>

using namespace pyverify;

namespace {

struct TagA {};
struct TagB {};
struct TagThread {};

TEST(SpareBlock, AGivenBlockIsTakenAgainWhenItFits) {
  size_t Cap = 0;
  void *P = SpareBlock<TagA>::take(2000, Cap);
  EXPECT_EQ(Cap, 2000u);
  SpareBlock<TagA>::give(P, Cap);
  size_t Cap2 = 0;
  EXPECT_EQ(SpareBlock<TagA>::take(1500, Cap2), P); // fits: reused
  EXPECT_EQ(Cap2, 2000u);
  size_t Cap3 = 0;
  void *Q = SpareBlock<TagA>::take(100, Cap3); // the spare is taken
  EXPECT_NE(Q, P);
  EXPECT_EQ(Cap3, 100u);
  SpareBlock<TagA>::give(Q, Cap3);
  SpareBlock<TagA>::give(P, Cap2); // the larger is kept, Q freed
  size_t Cap4 = 0;
  EXPECT_EQ(SpareBlock<TagA>::take(1800, Cap4), P);
  SpareBlock<TagA>::give(P, Cap4);
}

TEST(SpareBlock, KindsAndLargeBlocksAreKeptApart) {
  size_t Cap = 0;
  void *P = SpareBlock<TagB>::take(64, Cap);
  SpareBlock<TagB>::give(P, Cap);
  size_t CapA = 0;
  void *A = SpareBlock<TagA>::take(64, CapA); // TagA's spare, not TagB's
  EXPECT_NE(A, P);
  SpareBlock<TagA>::give(A, CapA);
  size_t Big = SpareBlock<TagB>::MaxBytes + 1, CapBig = 0;
  void *L = SpareBlock<TagB>::take(Big, CapBig);
  SpareBlock<TagB>::give(L, CapBig); // freed, not kept
  size_t Cap2 = 0;
  EXPECT_EQ(SpareBlock<TagB>::take(64, Cap2), P);
  SpareBlock<TagB>::give(P, Cap2);
  SpareBlock<TagB>::give(nullptr, 0); // nothing
}

TEST(SpareBlock, EachThreadHasItsOwn) {
  size_t Cap = 0;
  void *Mine = SpareBlock<TagThread>::take(512, Cap);
  SpareBlock<TagThread>::give(Mine, Cap);
  void *Theirs = nullptr;
  std::thread T([&] {
    size_t C = 0;
    Theirs = SpareBlock<TagThread>::take(512, C);
    SpareBlock<TagThread>::give(Theirs, C); // freed when the thread ends
  });
  T.join();
  EXPECT_NE(Theirs, Mine);
  size_t Cap2 = 0;
  EXPECT_EQ(SpareBlock<TagThread>::take(512, Cap2), Mine);
  SpareBlock<TagThread>::give(Mine, Cap2);
}

// ThreadSpare: the object kept is the one taken next (its buffer with it);
// a take() with none kept, or a second one, gets an empty object; each
// thread and each tag has its own.
TEST(ThreadSpare, TheKeptObjectIsTakenNextWithItsBuffer) {
  using Spare = ThreadSpare<std::vector<int>, TagA>;
  EXPECT_TRUE(Spare::take().empty()); // none kept yet
  std::vector<int> V(100, 7);
  const int *Buffer = V.data();
  V.clear();
  Spare::keep(std::move(V));
  std::vector<int> W = Spare::take();
  EXPECT_EQ(W.data(), Buffer);
  EXPECT_GE(W.capacity(), 100u);
  EXPECT_EQ(Spare::take().capacity(), 0u); // taken: nothing left
  Spare::keep(std::move(W));
  EXPECT_EQ((ThreadSpare<std::vector<int>, TagB>::take().capacity()), 0u);
  std::thread T([&] {
    EXPECT_EQ(Spare::take().capacity(), 0u); // another thread: its own
    ThreadSpare<std::unique_ptr<int>, TagThread>::keep(
        std::make_unique<int>(1)); // freed when the thread ends
  });
  T.join();
  EXPECT_EQ((ThreadSpare<std::unique_ptr<int>, TagThread>::take()), nullptr);
  EXPECT_EQ(Spare::take().data(), Buffer);
}

// threadObject: one object per (type, owner) and thread, the same on every
// call, made on the thread's first call and destroyed when it ends.
struct Counted {
  static inline int Live = 0;
  int Value = 0;
  Counted() { ++Live; }
  ~Counted() { --Live; }
};

TEST(ThreadObject, OnePerThreadAndOwnerDestroyedWithTheThread) {
  Counted &Mine = threadObject<Counted, TagA>();
  Mine.Value = 1;
  EXPECT_EQ((&threadObject<Counted, TagA>()), &Mine);
  EXPECT_NE((&threadObject<Counted, TagB>()), &Mine); // another owner
  int Before = Counted::Live;
  const Counted *Theirs = nullptr;
  std::thread T([&] {
    Counted &C = threadObject<Counted, TagA>();
    EXPECT_EQ(C.Value, 0); // a new object, not this thread's
    EXPECT_EQ((&threadObject<Counted, TagA>()), &C);
    EXPECT_EQ(Counted::Live, Before + 1);
    Theirs = &C;
  });
  T.join();
  EXPECT_NE(Theirs, &Mine);
  EXPECT_EQ(Counted::Live, Before); // the thread's object went with it
  EXPECT_EQ((threadObject<Counted, TagA>().Value), 1);
}

} // namespace
