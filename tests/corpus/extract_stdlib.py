#!/usr/bin/env python3
"""Extract the running interpreter's zipped standard library into SRC_DEST,
then compile it into PYC_DEST (compile_corpus.py).

Pyodide's CPython (the 3.14 / 3.15 oracles, scripts/pyodide/python.mjs)
keeps its standard library in /lib/python3NN.zip, a path only it can read.
The corpus oracles need the sources in a directory both sides read: the AST
oracle (test_block_stack_ast.py) parses them, and co_filename names them.
Each member's modification time is the zip's, so a second run rewrites no
file whose size and time already match, and compile_corpus.py keeps every
.pyc: the test is incremental like corpus-compile-stdlib-3.12 / 3.13.
Prints one line for the extraction and compile_corpus.py's summary line.
"""
import os
import sys
import time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compile_corpus  # noqa: E402  (same directory)


def stdlib_zip():
    """The pythonXY.zip on sys.path (the interpreter's own stdlib)."""
    name = "python%d%d.zip" % sys.version_info[:2]
    for p in sys.path:
        if os.path.basename(p) == name and os.path.isfile(p):
            return p
    sys.exit(f"extract_stdlib.py: no {name} on sys.path {sys.path}")


def extract(zpath, dest):
    written = kept = 0
    with zipfile.ZipFile(zpath) as z:
        for info in z.infolist():
            if info.is_dir() or not info.filename.endswith(".py"):
                continue
            out = os.path.join(dest, *info.filename.split("/"))
            mtime = time.mktime(info.date_time + (0, 0, -1))
            if os.path.exists(out) and os.path.getsize(out) == info.file_size \
                    and int(os.path.getmtime(out)) == int(mtime):
                kept += 1
                continue
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with open(out, "wb") as f:
                f.write(z.read(info))
            os.utime(out, (mtime, mtime))
            written += 1
    return written, kept


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: extract_stdlib.py SRC_DEST PYC_DEST")
    src, pyc = sys.argv[1:]
    zpath = stdlib_zip()
    written, kept = extract(zpath, src)
    print(f"stdlib {zpath} -> {src}: {written + kept} sources, "
          f"{written} written, {kept} up to date")
    sys.argv = [sys.argv[0], src, pyc]
    compile_corpus.main()


if __name__ == "__main__":
    main()
