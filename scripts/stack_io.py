"""What each CPython instruction really does to the operand stack, and whether it
may raise, per version: the facts Python/ceval.c (3.11) and Python/bytecodes.c (3.12,
3.13) encode and `dis` does not expose, written once here and read by
scripts/gen-opcodes.py (run with each version: Opcodes311.def, Opcodes312.def,
Opcodes313.def), which checks every entry against the interpreter it runs under (`dis.stack_effect` on both edges; for 3.13 also
the interpreter's own pycore_opcode_metadata.h where it is installed).
"""

# What each instruction really does to the operand stack (Python/ceval.c, 3.11), written
# once here: counts are (formula, constant) pairs, value = COUNT_FORMULAS[formula](arg) + k.
#   pops / pushes   values taken off / put on the real stack on the fall-through edge; a
#                   value replaced in place (SET_TOP) counts as popped and pushed, so an
#                   analysis that tags slots sees it consumed
#   jpops / jpushes the same on the jump edge (only where it differs)
#   reads           the deepest slot read (PEEK(n)), counting the pops; default: pops
#   null_in         bit mask over the popped values (bit 0 = the deepest) that may be NULL
#   null_out        bit mask over the pushed values (bit 0 = the deepest) that may be NULL
# The generator checks pushes - pops == dis.stack_effect on both edges over the sweep, except
# PRECALL/CALL, whose real effects (PRECALL moves nothing, CALL pops n + 2) sum to the
# compiler's. The stdlib corpus test checks that no real pop or read goes below the stack.
COUNT_FORMULAS = {
    "Zero": lambda a: 0,
    "Arg": lambda a: a,
    "TwoArg": lambda a: 2 * a,
    "ArgBit0": lambda a: a & 1,
    "ArgBit2": lambda a: (a >> 2) & 1,
    "Popcount4": lambda a: bin(a & 0xF).count("1"),
    "UnpackEx": lambda a: (a & 0xFF) + (a >> 8),
    "ArgIs3": lambda a: 1 if a == 3 else 0,
    "TwoArgBit0": lambda a: 2 * (a & 1),
}
Z = ("Zero", 0)


def K(n):
    return ("Zero", n)


def io(pops, pushes, jpops=None, jpushes=None, reads=None, null_in=Z, null_out=Z):
    return dict(pops=pops, pushes=pushes, jpops=jpops or pops, jpushes=jpushes or pushes,
                reads=reads or pops, null_in=null_in, null_out=null_out)


S311 = {}
for n in ("CACHE", "NOP", "EXTENDED_ARG", "RESUME", "MAKE_CELL", "COPY_FREE_VARS", "KW_NAMES",
          "SETUP_ANNOTATIONS", "DELETE_NAME", "DELETE_GLOBAL",
          "DELETE_FAST", "DELETE_DEREF", "JUMP_FORWARD", "JUMP_BACKWARD",
          "JUMP_BACKWARD_NO_INTERRUPT"):
    S311[n] = io(K(0), K(0))
# RETURN_GENERATOR makes the generator and moves the frame into it; the frame goes on when
# the generator is first resumed, which pushes the value sent (gen_send_ex2:
# _PyFrame_StackPush(frame, arg)), and the compiler's POP_TOP after it drops that value.
# 3.11's and 3.12's dis.stack_effect count 0 (their compilers count the value in the code's
# start depth instead; RESUMED_WITH_SENT_VALUE), 3.13's bytecodes.c declares the push.
# Counted here, every frame starts with an empty stack, whatever runs before it.
S311["RETURN_GENERATOR"] = io(K(0), K(1))
# PRECALL moves nothing but reads the method-or-NULL slot (is_method: PEEK(oparg + 2)).
S311["PRECALL"] = io(K(0), K(0), reads=("Arg", 2))
for n in ("POP_TOP", "RETURN_VALUE", "PRINT_EXPR", "IMPORT_STAR", "POP_EXCEPT", "STORE_NAME",
          "STORE_GLOBAL", "STORE_FAST", "STORE_DEREF", "DELETE_ATTR",
          "POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_FORWARD_IF_NONE",
          "POP_JUMP_FORWARD_IF_NOT_NONE", "POP_JUMP_BACKWARD_IF_FALSE",
          "POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_NONE",
          "POP_JUMP_BACKWARD_IF_NOT_NONE"):
    S311[n] = io(K(1), K(0))
# v = POP(); container = PEEK(oparg)
for n in ("LIST_APPEND", "SET_ADD", "LIST_EXTEND", "SET_UPDATE", "DICT_UPDATE"):
    S311[n] = io(K(1), K(0), reads=("Arg", 1))
# update = POP(); dict = PEEK(oparg); on error the callable at PEEK(oparg + 2)
S311["DICT_MERGE"] = io(K(1), K(0), reads=("Arg", 3))
# val = POP(); with oparg, lasti = PEEK(oparg + 1) before the pop
S311["RERAISE"] = io(K(1), K(0), reads=("Arg", 1))
for n in ("LOAD_BUILD_CLASS", "LOAD_ASSERTION_ERROR", "LOAD_CONST", "LOAD_NAME", "LOAD_FAST",
          "LOAD_CLOSURE", "LOAD_DEREF", "LOAD_CLASSDEREF"):
    S311[n] = io(K(0), K(1))
S311["PUSH_NULL"] = io(K(0), K(1), null_out=K(1))
# Push a value computed from TOP (or TOP and SECOND) without popping.
for n in ("GET_LEN", "MATCH_MAPPING", "MATCH_SEQUENCE", "GET_ANEXT", "IMPORT_FROM"):
    S311[n] = io(K(0), K(1), reads=K(1))
S311["MATCH_KEYS"] = io(K(0), K(1), reads=K(2))
# res = PEEK(4)(type, val, tb): the bound __exit__ under lasti, prev_exc and exc
S311["WITH_EXCEPT_START"] = io(K(0), K(1), reads=K(4))
S311["COPY"] = io(K(0), K(1), reads=("Arg", 0))
S311["SWAP"] = io(K(0), K(0), reads=("Arg", 0))
for n in ("UNARY_POSITIVE", "UNARY_NEGATIVE", "UNARY_NOT", "UNARY_INVERT", "GET_AITER",
          "GET_ITER", "GET_YIELD_FROM_ITER", "LIST_TO_TUPLE", "YIELD_VALUE", "ASYNC_GEN_WRAP",
          "LOAD_ATTR", "GET_AWAITABLE"):
    S311[n] = io(K(1), K(1))
# right = POP(); left = TOP(); PUSH(match)
S311["CHECK_EXC_MATCH"] = io(K(1), K(1), reads=K(2))
for n in ("PUSH_EXC_INFO", "BEFORE_WITH", "BEFORE_ASYNC_WITH"):
    S311[n] = io(K(1), K(2))
# [obj] -> [meth, obj] or [NULL, attr]
S311["LOAD_METHOD"] = io(K(1), K(2), null_out=K(1))
for n in ("BINARY_SUBSCR", "BINARY_OP", "COMPARE_OP", "IS_OP", "CONTAINS_OP", "IMPORT_NAME",
          "PREP_RERAISE_STAR"):
    S311[n] = io(K(2), K(1))
S311["CHECK_EG_MATCH"] = io(K(2), K(2))
for n in ("END_ASYNC_FOR", "DELETE_SUBSCR", "STORE_ATTR"):
    S311[n] = io(K(2), K(0))
# value = POP(); key = POP(); map = PEEK(oparg)
S311["MAP_ADD"] = io(K(2), K(0), reads=("Arg", 2))
S311["STORE_SUBSCR"] = io(K(3), K(0))
S311["MATCH_CLASS"] = io(K(3), K(1))
S311["UNPACK_SEQUENCE"] = io(K(1), ("Arg", 0))
S311["UNPACK_EX"] = io(K(1), ("UnpackEx", 1))
# The iterator stays on the fall-through; exhausted, it is popped.
S311["FOR_ITER"] = io(K(0), K(1), jpops=K(1), jpushes=K(0), reads=K(1))
# v = POP(); receiver = TOP(); returned: SET_TOP(retval) and jump; else PUSH(retval)
S311["SEND"] = io(K(1), K(1), jpops=K(2), jpushes=K(1), reads=K(2))
for n in ("JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP"):
    S311[n] = io(K(1), K(0), jpops=K(0), jpushes=K(0), reads=K(1))
for n in ("BUILD_TUPLE", "BUILD_LIST", "BUILD_SET", "BUILD_STRING"):
    S311[n] = io(("Arg", 0), K(1))
S311["BUILD_MAP"] = io(("TwoArg", 0), K(1))
S311["BUILD_CONST_KEY_MAP"] = io(("Arg", 1), K(1))
# oparg & 1: NULL first, then the global
S311["LOAD_GLOBAL"] = io(K(0), ("ArgBit0", 1), null_out=("ArgBit0", 0))
S311["RAISE_VARARGS"] = io(("Arg", 0), K(0))
# [method-or-NULL, self-or-callable, args...] -> [result]
S311["CALL"] = io(("Arg", 2), K(1), null_in=K(1))
# [NULL, func, callargs, (kwargs)] -> [result]
S311["CALL_FUNCTION_EX"] = io(("ArgBit0", 3), K(1), null_in=K(1))
S311["MAKE_FUNCTION"] = io(("Popcount4", 1), K(1))
S311["BUILD_SLICE"] = io(("ArgIs3", 2), K(1))
S311["FORMAT_VALUE"] = io(("ArgBit2", 1), K(1))




def copy_table(base, drop=()):
    return {k: dict(v) for k, v in base.items() if k not in drop}


# --- 3.12 (Python/bytecodes.c at v3.12.1) -------------------------------------------------
# PRECALL is gone; LOAD_METHOD is a pseudo opcode (LOAD_ATTR with bit 0 of the argument);
# POP_JUMP_FORWARD/BACKWARD_IF_* became POP_JUMP_IF_* (forward only); the comprehension
# is inlined (LOAD_FAST_AND_CLEAR saves a local that may be unbound: NULL on the stack, and
# STORE_FAST restores it).
S312 = copy_table(S311)
S312["RETURN_CONST"] = io(K(0), K(0))
for n in ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE",
          "INTERPRETER_EXIT"):
    S312[n] = io(K(1), K(0))
for n in ("LOAD_LOCALS", "LOAD_FAST_CHECK"):
    S312[n] = io(K(0), K(1))
# The saved local may be unbound: the pushed value may be NULL.
S312["LOAD_FAST_AND_CLEAR"] = io(K(0), K(1), null_out=K(1))
# STORE_FAST also restores what LOAD_FAST_AND_CLEAR saved (STORE_FAST_MAYBE_NULL).
S312["STORE_FAST"] = io(K(1), K(0), null_in=K(1))
S312["RESERVED"] = io(K(0), K(0))
# (receiver, value -- value); 3.12's END_FOR is POP_TOP twice: (iter, value --)
S312["END_SEND"] = io(K(2), K(1))
S312["END_FOR"] = io(K(2), K(0))
# (sub_iter, last_sent_val, exc_value -- none, value)
S312["CLEANUP_THROW"] = io(K(3), K(2))
S312["BINARY_SLICE"] = io(K(3), K(1))
S312["STORE_SLICE"] = io(K(4), K(0))
for n in ("CALL_INTRINSIC_1", "LOAD_FROM_DICT_OR_GLOBALS", "LOAD_FROM_DICT_OR_DEREF"):
    S312[n] = io(K(1), K(1))
S312["CALL_INTRINSIC_2"] = io(K(2), K(1))
# (owner -- res2 if (oparg & 1), res): [meth, self] or [NULL, attr]
S312["LOAD_ATTR"] = io(K(1), ("ArgBit0", 1), null_out=("ArgBit0", 0))
# (global_super, class, self -- res2 if (oparg & 1), res)
S312["LOAD_SUPER_ATTR"] = io(K(3), ("ArgBit0", 1), null_out=("ArgBit0", 0))
# (method, callable, args[oparg] -- res): no PRECALL, CALL pops all of it
S312["CALL"] = io(("Arg", 2), K(1), null_in=K(1))
# Returned: (receiver, retval) and jump to END_SEND, which pops the receiver.
S312["SEND"] = io(K(1), K(1), reads=K(2))
# Exhausted: the iterator is popped and the jump skips the END_FOR at its target
# (JUMPBY(oparg + 1)); see SKIPPED_AFTER_TARGET.
S312["FOR_ITER"] = io(K(0), K(1), jpops=K(1), jpushes=K(0), reads=K(1))

# --- 3.13 (Python/bytecodes.c at v3.13.0) -------------------------------------------------
# The NULL of a call moved after the callable (LOAD_GLOBAL, LOAD_ATTR, LOAD_SUPER_ATTR push it
# on top; CALL and CALL_FUNCTION_EX take it second); conditional jumps need a bool (TO_BOOL);
# KW_NAMES became CALL_KW; MAKE_FUNCTION's flags became SET_FUNCTION_ATTRIBUTE; FORMAT_VALUE
# became CONVERT_VALUE / FORMAT_SIMPLE / FORMAT_WITH_SPEC; END_FOR pops one value and is
# followed by a POP_TOP of the iterator; RETURN_GENERATOR pushes the value POP_TOP drops.
S313 = copy_table(S312, drop=("KW_NAMES", "LOAD_CLOSURE", "FORMAT_VALUE"))
for n in ("TO_BOOL", "FORMAT_SIMPLE", "CONVERT_VALUE", "MAKE_FUNCTION"):
    S313[n] = io(K(1), K(1))
for n in ("FORMAT_WITH_SPEC", "SET_FUNCTION_ATTRIBUTE"):
    S313[n] = io(K(2), K(1))
S313["END_FOR"] = io(K(1), K(0))
S313["EXIT_INIT_CHECK"] = io(K(1), K(0))
S313["RETURN_GENERATOR"] = io(K(0), K(1))
S313["LOAD_FAST_LOAD_FAST"] = io(K(0), K(2))
S313["STORE_FAST_LOAD_FAST"] = io(K(1), K(1), null_in=K(1))
S313["STORE_FAST_STORE_FAST"] = io(K(2), K(0), null_in=K(3))
# (-- res, null if (oparg & 1))
S313["LOAD_GLOBAL"] = io(K(0), ("ArgBit0", 1), null_out=("TwoArgBit0", 0))
# (owner -- attr, self_or_null if (oparg & 1))
S313["LOAD_ATTR"] = io(K(1), ("ArgBit0", 1), null_out=("TwoArgBit0", 0))
# (global_super, class, self -- attr, null if (oparg & 1))
S313["LOAD_SUPER_ATTR"] = io(K(3), ("ArgBit0", 1), null_out=("TwoArgBit0", 0))
# (callable, unused, unused, dict, unused[oparg - 1], update -- ...): the callable it
# names in a bad ** argument's message is under its NULL or self (3.11, 3.12: PEEK(3 +
# oparg), the NULL under the callable). Measured: 3.13.0 SIGSEGVs on a NULL 4 + oparg - 1
# below the top, not on one 3 + oparg - 1 below (tests/lit/check/null-stack-value-in-place.py).
S313["DICT_MERGE"] = io(K(1), K(0), reads=("Arg", 4))
# (callable, self_or_null, args[oparg] -- res)
S313["CALL"] = io(("Arg", 2), K(1), null_in=K(2))
# (callable, self_or_null, args[oparg], kwnames -- res)
S313["CALL_KW"] = io(("Arg", 3), K(1), null_in=K(2))
# (func, unused, callargs, kwargs if (oparg & 1) -- result): the NULL is second
S313["CALL_FUNCTION_EX"] = io(("ArgBit0", 3), K(1), null_in=K(2))

# --- 3.14 (CPython 3.14.2, measured in Pyodide's build of it) ------------------------------
# BEFORE_WITH / BEFORE_ASYNC_WITH are gone: a with statement loads __enter__ and __exit__ with
# LOAD_SPECIAL, each with its self (or NULL), and calls them with CALL; BINARY_SUBSCR is
# BINARY_OP's NB_SUBSCR; RETURN_CONST is LOAD_CONST (or LOAD_SMALL_INT) + RETURN_VALUE;
# LOAD_FAST_BORROW pushes a local without a new reference; an exhausted FOR_ITER jumps past
# the END_FOR to POP_ITER with the iterator still on the stack; CALL_FUNCTION_EX always has
# its kwargs slot (NULL when there are none).
S314 = copy_table(S313, drop=("BEFORE_WITH", "BEFORE_ASYNC_WITH", "BINARY_SUBSCR",
                              "BUILD_CONST_KEY_MAP", "LOAD_ASSERTION_ERROR", "RETURN_CONST"))
for n in ("LOAD_FAST_BORROW", "LOAD_SMALL_INT", "LOAD_COMMON_CONSTANT"):
    S314[n] = io(K(0), K(1))
S314["LOAD_FAST_BORROW_LOAD_FAST_BORROW"] = io(K(0), K(2))
S314["NOT_TAKEN"] = io(K(0), K(0))
# POP_TOP closes a NULL too (PyStackRef_XCLOSE): the with handler pops LOAD_SPECIAL's
# self-or-NULL with it (measured: PUSH_NULL; POP_TOP runs on 3.14.2, SIGSEGV on 3.13.0).
S314["POP_TOP"] = io(K(1), K(0), null_in=K(1))
S314["POP_ITER"] = io(K(1), K(0))
# (owner -- attr, self_or_null): the method and its self, or the bound value and NULL.
S314["LOAD_SPECIAL"] = io(K(1), K(2), null_out=K(2))
# (exit_func, exit_self, lasti, unused, val -- exit_func, exit_self, lasti, unused, val, res)
S314["WITH_EXCEPT_START"] = io(K(0), K(1), reads=K(5))
# (func, unused, callargs, kwargs -- result): the NULL second, kwargs NULL when absent.
S314["CALL_FUNCTION_EX"] = io(K(4), K(1), null_in=K(0b1010))
# (value, str, format[oparg & 1] -- interpolation); (strings, interpolations -- template)
S314["BUILD_INTERPOLATION"] = io(("ArgBit0", 2), K(1))
S314["BUILD_TEMPLATE"] = io(K(2), K(1))
# (args[oparg] -- slice): the count is the argument now (2 or 3), not arg == 3.
S314["BUILD_SLICE"] = io(("Arg", 0), K(1))
# (retval -- res): the frame ends here; res is pushed on the caller's stack, which
# dis.stack_effect counts (RETURNS_TO_CALLER).
S314["RETURN_VALUE"] = io(K(1), K(0))
# Exhausted: JUMPBY(oparg + 1) skips the END_FOR at the target and lands on POP_ITER, the
# iterator still on the stack (measured: an opcode trace goes FOR_ITER -> POP_ITER).
S314["FOR_ITER"] = io(K(0), K(1), jpops=K(0), jpushes=K(0), reads=K(1))

# --- 3.15 (CPython 3.15.0rc1, measured in Pyodide's build of it) ---------------------------
# GET_YIELD_FROM_ITER is gone: GET_ITER takes an argument (0 for a loop, 3 for yield from)
# and pushes the iterator and an index-or-NULL above it (a list or tuple is iterated in
# place: the iterable itself and a tagged integer index, which is not an object; else the
# iterator and NULL); the loop's slots stay two deep: FOR_ITER reads the iterator under
# the index, POP_ITER and a break's two POP_TOPs drop both. A delegating SEND keeps its
# receiver and a NULL (PUSH_NULL after GET_AWAITABLE / GET_ANEXT, GET_ITER 3's second
# output) under the sent value; END_SEND drops both, CLEANUP_THROW keeps the NULL's slot.
# TRACE_RECORD (255) is not a row: in co_code it aborts 3.15.0rc1 ("JIT instruction
# executed in non-jit build"; measured), as ENTER_EXECUTOR would.
S315 = copy_table(S314, drop=("GET_YIELD_FROM_ITER",))
# (iterable -- iter, index_or_null)
S315["GET_ITER"] = io(K(1), K(2), null_out=K(2))
# (iter, index_or_null -- iter, index_or_null, next); exhausted: lands on POP_ITER with both.
S315["FOR_ITER"] = io(K(0), K(1), jpops=K(0), jpushes=K(0), reads=K(2))
# (iter, index_or_null --)
S315["POP_ITER"] = io(K(2), K(0), null_in=K(2))
# (receiver, null, v -- receiver, null, retval) on both edges
S315["SEND"] = io(K(1), K(1), reads=K(3))
# (receiver, null, value -- val)
S315["END_SEND"] = io(K(3), K(1), null_in=K(2))
# (sub_iter, null, last_sent_val, exc_value -- none, null, value)
S315["CLEANUP_THROW"] = io(K(4), K(3), null_in=K(2), null_out=K(2))

STACK_IO = {(3, 11): S311, (3, 12): S312, (3, 13): S313, (3, 14): S314, (3, 15): S315}

# Instructions the interpreter jumps over after taking a jump (exhausted FOR_ITER: 3.12's
# JUMPBY(oparg + 1) skips the END_FOR at the target; 3.13's JUMPBY(oparg + 2) skips END_FOR
# and the POP_TOP after it). The real jump edge lands after them; its pops and pushes are
# the compiler's jump effect plus theirs.
SKIPPED_AFTER_TARGET = {
    (3, 11): {},
    (3, 12): {"FOR_ITER": ("END_FOR",)},
    (3, 13): {"FOR_ITER": ("END_FOR", "POP_TOP")},
    (3, 14): {"FOR_ITER": ("END_FOR",)},
    (3, 15): {"FOR_ITER": ("END_FOR",)},
}

# Instructions whose dis.stack_effect counts the value they hand to the caller's frame as
# pushed (3.14's bytecodes.c declares RETURN_VALUE (retval -- res)); in this frame they
# only pop.
RETURNS_TO_CALLER = {(3, 11): set(), (3, 12): set(), (3, 13): set(),
                     (3, 14): {"RETURN_VALUE"}, (3, 15): {"RETURN_VALUE"}}

# Instructions whose dis.stack_effect leaves out the value their frame is resumed with (3.11's
# and 3.12's RETURN_GENERATOR: see S311), which the real stack counts.
RESUMED_WITH_SENT_VALUE = {(3, 11): {"RETURN_GENERATOR"}, (3, 12): {"RETURN_GENERATOR"},
                           (3, 13): set(), (3, 14): set(), (3, 15): set()}

# Opcodes in the interpreter's hasjrel whose argument is not a jump the instruction takes:
# 3.14's END_ASYNC_FOR names the loop's SEND for the monitoring BRANCH event only; it pops
# the awaitable and the StopAsyncIteration and falls through, or re-raises.
NOT_TAKEN_JUMPS = {(3, 11): set(), (3, 12): set(), (3, 13): set(),
                   (3, 14): {"END_ASYNC_FOR"}, (3, 15): {"END_ASYNC_FOR"}}

# No fall-through successor (a return, a raise or an unconditional jump ends it).
_TERM = {"RAISE_VARARGS", "RERAISE", "RETURN_VALUE", "JUMP_FORWARD", "JUMP_BACKWARD",
         "JUMP_BACKWARD_NO_INTERRUPT"}
TERMINATORS = {(3, 11): _TERM, (3, 12): _TERM | {"RETURN_CONST"},
               (3, 13): _TERM | {"RETURN_CONST"}, (3, 14): _TERM, (3, 15): _TERM}

# Instructions that cannot raise without a tracer (3.11: the bytecode doc, section 1.3; a
# failure to allocate is not counted, as for MAKE_CELL). RESUME raises only with argument
# 0 or 1 (the eval breaker; 3.13 tests arg & 3, the same values) and is listed apart.
_NEVER311 = {"NOP", "LOAD_CONST", "SWAP", "COPY", "PUSH_NULL", "POP_TOP", "STORE_FAST",
             "STORE_DEREF", "IS_OP", "KW_NAMES", "EXTENDED_ARG", "POP_EXCEPT",
             "PUSH_EXC_INFO", "JUMP_FORWARD", "POP_JUMP_FORWARD_IF_NONE",
             "POP_JUMP_FORWARD_IF_NOT_NONE", "RETURN_VALUE", "LOAD_ASSERTION_ERROR",
             "COPY_FREE_VARS", "LOAD_CLOSURE", "MAKE_CELL", "RETURN_GENERATOR", "CACHE"}
# 3.12: LOAD_FAST no longer checks for NULL (LOAD_FAST_CHECK does); END_FOR / END_SEND only
# pop; RETURN_CONST returns; conditional jumps still call __bool__.
_NEVER312 = (_NEVER311 - {"POP_JUMP_FORWARD_IF_NONE", "POP_JUMP_FORWARD_IF_NOT_NONE"}) | {
    "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE", "RETURN_CONST", "END_FOR", "END_SEND",
    "LOAD_FAST", "LOAD_FAST_AND_CLEAR", "JUMP_BACKWARD_NO_INTERRUPT", "RESERVED",
    "INTERPRETER_EXIT"}
# 3.13: what pycore_opcode_metadata.h flags neither HAS_ERROR nor HAS_EVAL_BREAK (checked
# by gen-opcodes.py where the header is installed), plus the allocation-only
# failures of MAKE_CELL and RETURN_GENERATOR: conditional jumps take a bool (TO_BOOL
# raises instead), UNARY_NOT negates a bool.
_NEVER313 = (_NEVER312 - {"KW_NAMES", "LOAD_CLOSURE"}) | {
    "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "UNARY_NOT", "MATCH_MAPPING", "MATCH_SEQUENCE",
    "LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST",
    "SET_FUNCTION_ATTRIBUTE"}
# 3.14: RETURN_CONST and LOAD_ASSERTION_ERROR are gone; the new loads (a borrowed local, a
# small int, a common constant), NOT_TAKEN (a marker for branch monitoring) and POP_ITER
# (POP_TOP of the iterator) cannot fail.
_NEVER314 = (_NEVER313 - {"RETURN_CONST", "LOAD_ASSERTION_ERROR"}) | {
    "LOAD_FAST_BORROW", "LOAD_FAST_BORROW_LOAD_FAST_BORROW", "LOAD_SMALL_INT",
    "LOAD_COMMON_CONSTANT", "NOT_TAKEN", "POP_ITER"}
# 3.15: the same set (GET_ITER's argument does not change whether it raises).
NEVER_RAISE = {(3, 11): _NEVER311, (3, 12): _NEVER312, (3, 13): _NEVER313,
               (3, 14): _NEVER314, (3, 15): _NEVER314}
ALLOCATION_ONLY = {"MAKE_CELL", "RETURN_GENERATOR"}
# Raise points the metadata's flags do not show: YIELD_VALUE itself cannot fail, but a frame
# suspended there is resumed by throw(), whose exception is looked up at the yield (every
# await loop's YIELD_VALUE has an entry of its own to a CLEANUP_THROW for that).
RAISES_WITHOUT_ERROR_FLAG = {"YIELD_VALUE"}
ARG_DEPENDENT_RAISE = {"RESUME"}


def count(c, a):
    return COUNT_FORMULAS[c[0]](a) + c[1]


def fmt(c):
    return f"({c[0]}, {c[1]})"


def raises(version, name):
    if name in ARG_DEPENDENT_RAISE:
        return "ArgDependent"
    return "Never" if name in NEVER_RAISE[version] else "Always"


def check_stack_io(version, op, name, has_arg, is_jump, stack_effect, sweep, c_int):
    """pushes - pops must be dis.stack_effect on both edges: for 3.11's PRECALL/CALL their
    sum; for a jump that skips instructions, the compiler's jump effect plus theirs."""
    table = STACK_IO[version]
    if name not in table:
        raise SystemExit(f"{version}: no real stack effect for {name}")
    e = table[name]
    skipped = SKIPPED_AFTER_TARGET[version].get(name, ())
    for a in (sweep if has_arg else [0]):
        for jump in (False, True):
            if jump and not is_jump:
                continue
            want = stack_effect(name, a, jump)
            if want is None:
                continue
            pops = count(e["jpops" if jump else "pops"], a)
            pushes = count(e["jpushes" if jump else "pushes"], a)
            if jump:
                want += sum(stack_effect(s, 0, False) for s in skipped)
            if name in RETURNS_TO_CALLER[version]:
                want -= 1
            if name in RESUMED_WITH_SENT_VALUE[version]:
                want += 1
            if name in ("PRECALL", "CALL") and version == (3, 11):
                other = "CALL" if name == "PRECALL" else "PRECALL"
                pops += count(table[other]["pops"], a)
                pushes += count(table[other]["pushes"], a)
                want += stack_effect(other, a, jump)
            if c_int(pushes - pops) != want:
                raise SystemExit(f"{version} {name} {a} jump={jump}: real {pushes - pops}, "
                                 f"dis {want}")
            if max(pops, count(e["reads"], a)) != count(e["reads"], a):
                raise SystemExit(f"{version} {name} {a}: reads fewer slots than it pops")
