# dis on 3.12 and 3.13 bytecode prints each argument as that interpreter's
# `python3.X -m dis` does (its argrepr; issue 27): names, constants, locals,
# comparisons (3.12: cmp_op[arg >> 4]; 3.13: cmp_op[arg >> 5], bool() when
# bit 4 is set), LOAD_GLOBAL / LOAD_ATTR / LOAD_SUPER_ATTR with their NULL
# bits (3.13 puts the NULL after the name), BINARY_OP, jumps with their
# targets (backward ones and inline caches included; 3.13's dis shows a label
# "to L1" where pyverify shows the offset), 3.13's pairs of locals, the
# intrinsics, FORMAT_VALUE / CONVERT_VALUE and function flags. Every text
# comes from the version's generated opcode table (Opcodes3NN.def). The whole
# stdlib is compared with each interpreter's dis by
# tests/corpus/test_corpus.py (ctest corpus-bytecode-stdlib-3.12/3.13).
#
# The code is real 3.12 / 3.13 bytecode (Inputs/argrepr_versions.py), so no
# 3.12 or 3.13 interpreter is needed.
if __name__ == "mkcode":
    # RUN: %mkcode marshal %s %t.v312 --object CODE312
    # RUN: %mkcode marshal %s %t.v313 --object CODE313
    import os, sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
    from argrepr_versions import MARSHAL_312 as CODE312, MARSHAL_313 as CODE313

# RUN: %pyverify dis --python-version=3.12 %t.v312 | FileCheck %s --check-prefix=V312
# V312-LABEL: Disassembly of <code object f, file "argrepr.py", line 2>:
# V312:          0 MAKE_CELL                7 (c)
# V312:          4 LOAD_GLOBAL              1 (NULL + range)
# V312:         14 LOAD_FAST                0 (x)
# V312:      >> 26 FOR_ITER                61 (to 152)
# V312:         36 COMPARE_OP               2 (<)
# V312-NEXT:    40 POP_JUMP_IF_FALSE       43 (to 128)
# V312:         44 POP_JUMP_IF_NONE        41 (to 128)
# V312:         54 LOAD_GLOBAL              2 (os)
# V312-NEXT:    64 LOAD_ATTR                4 (path)
# V312-NEXT:    84 LOAD_ATTR                7 (NULL|self + join)
# V312:        110 FORMAT_VALUE             6 (repr, with format)
# V312:        132 JUMP_BACKWARD           54 (to 26)
# V312:        138 BINARY_OP               23 (-=)
# V312:        158 LOAD_FAST_AND_CLEAR      2 (a)
# V312:        188 LOAD_CLOSURE             7 (c)
# V312:        194 MAKE_FUNCTION            8 (closure)
# V312:        284 COMPARE_OP              40 (==)
# V312:        346 CALL_INTRINSIC_2         1 (INTRINSIC_PREP_RERAISE_STAR)
# V312-LABEL: Disassembly of <code object inner, file "argrepr.py", line 11>
# V312:          4 LOAD_DEREF               0 (c)
# V312-LABEL: Disassembly of <code object m, file "argrepr.py", line 19>
# V312:         18 LOAD_SUPER_ATTR          5 (NULL|self + m)
# V312:         44 LOAD_SUPER_ATTR          8 (n)

# RUN: %pyverify dis --python-version=3.13 %t.v313 | FileCheck %s --check-prefix=V313
# V313-LABEL: Disassembly of <code object f, file "argrepr.py", line 2>:
# V313:          0 MAKE_CELL                7 (c)
# V313:          4 LOAD_GLOBAL              1 (range + NULL)
# V313:      >> 26 FOR_ITER                76 (to 182)
# V313:         32 LOAD_FAST_LOAD_FAST     65 (i, y)
# V313-NEXT:    34 COMPARE_OP              18 (bool(<))
# V313-NEXT:    38 POP_JUMP_IF_FALSE       45 (to 132)
# V313:         48 LOAD_FAST_LOAD_FAST     66 (i, a)
# V313:         68 LOAD_ATTR                4 (path)
# V313-NEXT:    88 LOAD_ATTR                7 (join + NULL|self)
# V313-NEXT:   108 LOAD_FAST_LOAD_FAST     64 (i, x)
# V313-NEXT:   110 CONVERT_VALUE            2 (repr)
# V313:        146 JUMP_BACKWARD           62 (to 26)
# V313:        174 JUMP_BACKWARD           14 (to 150)
# V313:        190 LOAD_FAST_AND_CLEAR      2 (a)
# V313:        202 STORE_FAST_LOAD_FAST    34 (a, a)
# V313:        230 SET_FUNCTION_ATTRIBUTE   8 (closure)
# V313:        236 LOAD_GLOBAL             11 (print + NULL)
# V313:        280 LOAD_ATTR               17 (b + NULL|self)
# V313:        316 SET_FUNCTION_ATTRIBUTE   1 (defaults)
# V313:        320 COMPARE_OP              88 (bool(==))
# V313:        386 CALL_INTRINSIC_2         1 (INTRINSIC_PREP_RERAISE_STAR)
# V313:        398 JUMP_BACKWARD_NO_INTERRUPT 71 (to 258)
# V313-LABEL: Disassembly of <code object m, file "argrepr.py", line 19>
# V313:         18 LOAD_SUPER_ATTR          5 (m + NULL|self)

# The JSON rows carry the same text as "argrepr".
# RUN: %pyverify dis --python-version=3.13 --format=json %t.v313 | FileCheck %s --check-prefix=JSON
# JSON: "arg":18,"argrepr":"bool(<)",
# JSON: "arg":62,"argrepr":"to 26",
