"""The version-specific facts docs/emitted-code.md states about its running
example (section 3), measured on the interpreter running this script: one
line per fact, prefixed with the version; test_docs_citations.py checks each
line is in the document, under 3.11, 3.12 and 3.13.

Usage: pythonX.Y tests/python/emitted_code_facts.py
"""
import dis
import sys


def f(x):
    with Ctx(False):
        y = x + 1
        unsupported("graph break")
        y = y + 2
    return y


def _names(insts):
    return "; ".join(i.opname + ("" if i.opname not in ("LOAD_GLOBAL",
                                                        "LOAD_CONST")
                                 else " " + i.argrepr) for i in insts)


def facts(code=f.__code__):
    v = "%d.%d" % sys.version_info[:2]
    ins = list(dis.get_instructions(code))
    at = {i.offset: k for k, i in enumerate(ins)}
    table = dis._parse_exception_table(code)
    enter = next(i for i in ins if i.opname == "BEFORE_WITH")
    msg = next(k for k, i in enumerate(ins) if i.argval == "graph break")
    brk = next(i for i in ins[msg:] if i.opname == "CALL")
    resume = ins[at[brk.offset] + 1]
    k = at[enter.offset]
    call = ins[1:k]
    exit_at = next(k for k, i in enumerate(ins)
                   if k > at[resume.offset] and i.opname == "LOAD_CONST"
                   and i.argval is None)
    normal_exit = ins[exit_at:exit_at + ins[exit_at:].index(
        next(i for i in ins[exit_at:] if i.opname == "POP_TOP")) + 2]
    h = next(k for k, i in enumerate(ins) if i.opname == "PUSH_EXC_INFO")
    handler = ins[h:h + next(j for j, i in enumerate(ins[h:])
                             if i.opname == "RERAISE") + 1]

    def entry(e):
        return "%d to %d -> %d [%d]%s" % (e.start, e.end, e.target, e.depth,
                                         " lasti" if e.lasti else "")
    return [
        "%s: co_stacksize %d" % (v, code.co_stacksize),
        "%s: the context's construction: %s" % (v, _names(call)),
        "%s: BEFORE_WITH at %d; the break's %s at %d; the resume point %d"
        % (v, enter.offset, brk.opname, brk.offset, resume.offset),
        "%s: the normal exit: %s" % (v, _names(normal_exit)),
        "%s: the with-handler: %s" % (v, _names(handler)),
        "%s: exception table (end exclusive): %s"
        % (v, " | ".join(entry(e) for e in table)),
    ]


if __name__ == "__main__":
    print("\n".join(facts()))
