# stacksize-too-large: a frame of co_stacksize + nlocalsplus slots that the
# interpreter cannot allocate. Measured on 3.11.2, 3.12.1 and 3.13.0 (64-bit;
# tests/versions/check_frame_limit.py): a call pushes the frame on the
# thread's data stack, whose push_chunk doubles an int byte count from 16 KiB
# until it holds 8 * (frame slots + 1000 + 9); past 2**30 bytes the int
# overflows. co_stacksize + nlocalsplus <= 2**27 - 1009 = 134216719 runs;
# one slot more hangs the call (the doubling never ends), from 2**28 slots
# the chunk is too small (a nested call segfaults) or the call raises
# MemoryError (2**31 - 1 on 3.11). Before this check 2**31 - 1 was clean.


def f(a, b):
    return a + b


if __name__ == "mkcode":
    LIMIT = 2**27 - 1009
    # f has 2 locals: the largest co_stacksize that runs.
    OK = f.__code__.replace(co_stacksize=LIMIT - 2)
    OVER = f.__code__.replace(co_stacksize=LIMIT - 1)
    HUGE = f.__code__.replace(co_stacksize=2**31 - 1)

# RUN: %mkcode marshal %s %t.huge --object HUGE
# RUN: %not --code 1 %pyverify check %t.huge | FileCheck %s --check-prefix=HUGE
# HUGE: error: co_stacksize 2147483647 and 2 local slot(s) make a frame of 2147483649 slots; CPython cannot allocate a frame of more than 134216719 (its data-stack chunk size overflows: the call hangs, crashes or raises MemoryError) [stacksize-too-large]
# HUGE-NEXT: in f (line 12) at offset 0: RESUME 0

# RUN: %mkcode marshal %s %t.over --object OVER
# RUN: %not --code 1 %pyverify check %t.over | FileCheck %s --check-prefix=OVER
# OVER: error: co_stacksize 134216718 and 2 local slot(s) make a frame of 134216720 slots; CPython cannot allocate a frame of more than 134216719 {{.*}} [stacksize-too-large]

# RUN: %mkcode marshal %s %t.ok --object OK
# RUN: %pyverify check %t.ok | FileCheck %s --check-prefix=OK
# OK-NOT: stacksize-too-large
# OK: 0 error(s)
