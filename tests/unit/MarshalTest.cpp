#include "pyverify/Bytecode/Marshal.h"
#include "gtest/gtest.h"
using namespace pyverify;
TEST(Marshal, None) {
  auto V = readMarshal("N");
  ASSERT_TRUE(bool(V));
  EXPECT_TRUE(V->is<NoneValue>());
}
