# prove on CPython 3.14.2's with statement (no BEFORE_WITH: COPY 1;
# LOAD_SPECIAL __exit__; SWAP 2; SWAP 3; LOAD_SPECIAL __enter__; CALL 0, the
# context in two slots, the exit CALL 3): the compiler's own code is proved
# exactly-once, the mutants of check/with-314.py (the exit call dropped, the
# body's entry at 3.13's depth, no __exit__ loaded) are refuted, and the async
# function is unknown, naming why (the prover runs no coroutine).
#
# REQUIRES: python314
# RUN: rm -rf %t && mkdir -p %t
# RUN: env PYTHONDONTWRITEBYTECODE=1 %python314 %S/../check/with-314.py %t
# RUN: %not --code 3 %pyverify prove %t/clean.pyc | FileCheck %s --check-prefix=CLEAN
# CLEAN-DAG: clean.pyc: [code:1] proved
# CLEAN-DAG: clean.pyc: [code:2] proved
# CLEAN-DAG: clean.pyc: [code:3] proved
# CLEAN-DAG: clean.pyc: [code:4] proved
# CLEAN-DAG: clean.pyc: [code:5] unknown: exactly-once: unsupported: opcode RETURN_GENERATOR
# CLEAN-DAG: clean.pyc: [code:6] proved
# CLEAN: pyverify: 1 file(s), 8 result(s): 7 proved, 0 refuted, 1 unknown
#
# RUN: %not --code 1 %pyverify prove %t/no_exit.pyc | FileCheck %s --check-prefix=NOEXIT
# NOEXIT: no_exit.pyc: [code:1] refuted: exactly-once: original returns with ctx#0 still active
# RUN: %not --code 1 %pyverify prove %t/depth.pyc | FileCheck %s --check-prefix=DEPTH
# DEPTH: depth.pyc: [code:1] refuted: well-formed
# RUN: %not --code 1 %pyverify prove %t/no_exit_load.pyc | FileCheck %s --check-prefix=NOLOAD
# NOLOAD: no_exit_load.pyc: [code:1] refuted: exactly-once: original raises out with ctx#0 still active
