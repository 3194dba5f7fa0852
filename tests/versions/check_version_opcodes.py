"""pyverify's opcode table for the running interpreter's version, field by
field against that interpreter (issue 15, item 1).

    python3.12 tests/versions/check_version_opcodes.py build/tools/pyverify/pyverify

Runs `pyverify dis --list-opcodes --python-version=X.Y --format=json` and
compares, for every base opcode the interpreter can put in co_code (not the
INSTRUMENTED_* ones, ENTER_EXECUTOR, RESERVED, INTERPRETER_EXIT, CACHE or the
pseudo opcodes): the set of names and numbers, the inline cache units, the
argument flag, the relative-jump kind and the net stack effect on both edges
at every argument pyverify evaluates that `dis.stack_effect` accepts. Exits
1 with every difference listed; prints the counts otherwise.
"""
import dis
import json
import opcode
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
import stack_io  # noqa: E402  (which hasjrel opcodes never jump: NOT_TAKEN_JUMPS)

VERSION = "%d.%d" % sys.version_info[:2]
EXCLUDED = {"RESERVED", "INTERPRETER_EXIT", "ENTER_EXECUTOR", "TRACE_RECORD", "CACHE"}
UNCONDITIONAL = {"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"}


def has_arg(op):
    if hasattr(opcode, "hasarg"):
        return op in opcode.hasarg
    return op >= opcode.HAVE_ARGUMENT


def caches(name, op):
    c = opcode._inline_cache_entries  # a list (3.11), a dict, a frozendict (3.15)
    return c.get(name, 0) if hasattr(c, "get") else c[op]


def jump(name, op):
    if op not in opcode.hasjrel or \
            name in stack_io.NOT_TAKEN_JUMPS[sys.version_info[:2]]:
        return "none"
    kind = "backward" if "BACKWARD" in name else "forward"
    return kind if name in UNCONDITIONAL else kind + "-cond"


def base_opcodes():
    specialized = set(getattr(opcode, "_specialized_instructions", ()))
    out = {}
    for name, op in opcode.opmap.items():
        if op >= 256 or name in EXCLUDED or name.startswith("INSTRUMENTED_") \
                or name in specialized:
            continue
        out[name] = op
    return out


def main():
    pyverify = sys.argv[1]
    r = subprocess.run([pyverify, "dis", "--list-opcodes",
                        "--python-version=" + VERSION, "--format=json"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("pyverify dis --list-opcodes failed: " + r.stderr)
    table = json.loads(r.stdout)
    assert table["python_version"] == VERSION, table["python_version"]
    mine = {o["name"]: o for o in table["opcodes"]}
    want = base_opcodes()
    errors = []
    for name in sorted(set(want) - set(mine)):
        errors.append("missing from pyverify: %s (%d)" % (name, want[name]))
    for name in sorted(set(mine) - set(want)):
        errors.append("not a %s base opcode: %s" % (VERSION, name))
    effects = 0
    for name in sorted(set(want) & set(mine)):
        op, o = want[name], mine[name]
        for field, value in (("number", op), ("caches", caches(name, op)),
                             ("has_arg", has_arg(op)),
                             ("jump", jump(name, op))):
            if o[field] != value:
                errors.append("%s: %s is %r, %s says %r"
                              % (name, field, o[field], VERSION, value))
        for arg, ft, jt in o["effects"]:
            for is_jump, got in ((False, ft), (True, jt)):
                try:
                    w = dis.stack_effect(op, arg if has_arg(op) else None,
                                         jump=is_jump)
                except ValueError:
                    continue  # an argument the compiler rejects
                effects += 1
                if got != w:
                    errors.append("%s(%d) jump=%s: effect %d, dis says %d"
                                  % (name, arg, is_jump, got, w))
    if errors:
        print("\n".join(errors))
        sys.exit(1)
    print("%s: %d base opcodes equal to the interpreter's (number, caches, "
          "argument, jump kind); %d stack effects equal to dis.stack_effect"
          % (VERSION, len(want), effects))


if __name__ == "__main__":
    main()
