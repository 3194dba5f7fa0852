# Regression test for a bug found by this test and fixed since.
# Was: the witness path of a context finding reached through an exception
# edge is cut short. For the second __exit__ on twice()'s exception path
# the note reads "witness path: 30 -> 250": it names neither the raising
# block nor the handler (168), though 250 is only reachable by raising in
# the try body. (The normal-path finding at 152 gets a full path.)
# Expected: the path shows the exception edge, e.g.
# "30 -> 44 (raises) -> 168 -> ... -> 250".
# RUN: %mkcode marshal %s %t.bin
# RUN: %not --code 1 %pyverify check %t.bin | FileCheck %s

def twice(m):
    m.__enter__()
    try:
        body()
    finally:
        m.__exit__(None, None, None)
        m.__exit__(None, None, None)

# twice: 30 CALL 0 (__enter__); 44..70 the try body (entry 44 to 70 -> 168
#   [0]); 72..166 the finally body on the normal path; 168 PUSH_EXC_INFO,
#   then the finally body again, with its second exit call at 250.

if __name__ == "mkcode":
    CODE = twice.__code__

# CHECK:      error: 152 CALL 3 calls __exit__ {{.*}} a second time [context-exited-twice]
# CHECK:      note: witness path: 30 -> 44 -> {{.*}}152 (offset 152)
# CHECK:      error: 250 CALL 3 calls __exit__ {{.*}} a second time [context-exited-twice]
# CHECK-NEXT:   in twice (line 12) at offset 250: CALL 3
# CHECK-NEXT: note: the context is entered here (offset 30)
# CHECK-NEXT: note: witness path: 30 -> {{.*}}(raises) -> 168 -> {{.*}}250 (offset 250)
