"""Generator frames, built and run by the interpreter that runs this script
(lit check/generator-frame*.py): the compiler's generators and code that
yields in a frame no generator owns.

    generator_frames.py build OUTDIR   writes OUTDIR/<shape>.pyc
    generator_frames.py run FILE.pyc   calls the code's function with 5

From 3.11 a call of generator code runs the code in a plain frame, and its
first instruction, RETURN_GENERATOR, makes the generator and moves the frame
into it; YIELD_VALUE then suspends a frame the generator owns. The shapes:

  gen-control             the compiler's `def g(a): yield a`
  closure-gen-control     the compiler's generator with a cell: MAKE_CELL
                          comes before RETURN_GENERATOR
  yield-in-plain          g's code without RETURN_GENERATOR (it and its
                          POP_TOP made NOPs, the same offsets) and without
                          the generator flag: YIELD_VALUE in a plain frame
  gen-no-return-generator the same with the generator flag kept
  plain-with-gen-flag     `def p(a): return a` given the generator flag
  return-generator-twice  g's prefix RETURN_GENERATOR; POP_TOP made
                          RETURN_GENERATOR; RETURN_GENERATOR: the second runs
                          in the frame the first one's generator owns
  pop-empty-generator     p's code after a POP_TOP, given the generator flag:
                          without RETURN_GENERATOR the POP_TOP pops the empty
                          stack (the slot below it)

`run` calls it with an object only the frame holds and prints "calling",
what the call did ("returned TYPE", "generator [items]", "raised E"), then
"finished"; a crash ends the process before. The object prints
"finalized" when it is: before "returned", the frame dropped its reference
while the object was still in use. `freed` runs `run` in a child (native
interpreters) and says whether the argument was freed before the call
returned, or the child crashed.
"""
import importlib._bootstrap_external as be
import marshal
import opcode
import os
import sys


def g(a):
    yield a


def gc(a):
    def inner():
        return a
    yield inner()


def p(a):
    return a


def nop_prefix(code):
    """code's co_code with its RETURN_GENERATOR and the POP_TOP after it
    made NOPs (neither has caches)."""
    b = bytearray(code.co_code)
    rg, pop, nop = (opcode.opmap[n] for n in
                    ("RETURN_GENERATOR", "POP_TOP", "NOP"))
    k = b.index(bytes([rg, 0]))
    assert k % 2 == 0 and b[k + 2] == pop, code.co_code.hex()
    b[k:k + 4] = bytes([nop, 0, nop, 0])
    return bytes(b)


def twice_prefix(code):
    """code's co_code with the POP_TOP after RETURN_GENERATOR made a second
    RETURN_GENERATOR."""
    b = bytearray(code.co_code)
    rg = opcode.opmap["RETURN_GENERATOR"]
    k = b.index(bytes([rg, 0]))
    b[k + 2:k + 4] = bytes([rg, 0])
    return bytes(b)


def with_pop(code):
    """code (no exception table) after a POP_TOP; every unit without a
    location."""
    body = bytes([opcode.opmap["POP_TOP"], 0]) + code.co_code
    assert not code.co_exceptiontable
    return code.replace(co_code=body,
                        co_linetable=bytes([0x80 | (15 << 3)]) * (len(body) // 2))


def shapes():
    gen = g.__code__
    plain_flags = p.__code__.co_flags
    return {
        "gen-control": gen,
        "closure-gen-control": gc.__code__,
        "yield-in-plain": gen.replace(co_code=nop_prefix(gen),
                                      co_flags=plain_flags),
        "gen-no-return-generator": gen.replace(co_code=nop_prefix(gen)),
        "plain-with-gen-flag": p.__code__.replace(co_flags=gen.co_flags),
        "return-generator-twice": gen.replace(co_code=twice_prefix(gen)),
        "pop-empty-generator": with_pop(p.__code__).replace(
            co_flags=gen.co_flags),
    }


def build(out):
    os.makedirs(out, exist_ok=True)
    for name, code in shapes().items():
        with open(os.path.join(out, name + ".pyc"), "wb") as f:
            f.write(be._code_to_timestamp_pyc(code))


class Arg:
    """The argument: an object only the call's frame holds, whose
    finalization is recorded."""
    def __del__(self):
        print("finalized", flush=True)

    def __repr__(self):
        return "arg"


def run(path):
    with open(path, "rb") as f:
        code = marshal.loads(f.read()[16:])
    fn = type(p)(code, {})
    print("calling", flush=True)
    try:
        r = fn(Arg())
        if type(r).__name__ == "generator":
            print("generator", list(r), flush=True)
        else:
            print("returned", type(r).__name__, flush=True)
        del r
    except Exception as e:  # noqa: BLE001 - what the call did
        print("raised", type(e).__name__, flush=True)
    print("finished", flush=True)


def freed(path):
    """`run` in a child, for a call that may free its argument too early:
    "freed during the call" when the child's argument was finalized before
    the call returned, or "crashed" when the child died of a signal (the
    freed object used after), else "kept"."""
    import subprocess
    p = subprocess.run([sys.executable, __file__, "run", path],
                       capture_output=True, text=True)
    lines = p.stdout.split()
    if p.returncode < 0:
        print("crashed")
    elif "finalized" in lines and "returned" in lines and \
            lines.index("finalized") < lines.index("returned"):
        print("freed during the call")
    else:
        print("kept")


def child(path):
    """`run` in a child whose ending may vary (undefined behaviour): its
    output, then "crashed" when it died of a signal."""
    import subprocess
    p = subprocess.run([sys.executable, __file__, "run", path],
                       capture_output=True, text=True)
    print(p.stdout + p.stderr)
    if p.returncode < 0:
        print("crashed")


if __name__ == "__main__":
    {"build": build, "run": run, "freed": freed,
     "child": child}[sys.argv[1]](sys.argv[2])
