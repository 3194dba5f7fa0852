#!/usr/bin/env python3.11
"""Compile every .py under SRC into .pyc files under DEST (mirroring paths).

Uses the running interpreter (python3.11 for the main corpus; python3.12 and
python3.13 compile their own stdlib for issue 15), never writes outside DEST, and is
incremental: a .pyc newer than its source is kept. Files that do not compile
(lib2to3 test data written in Python 2, deliberately broken test inputs) are
skipped and counted. Prints one summary line.
"""
import argparse
import concurrent.futures
import os
import py_compile
import sys


def compile_one(args):
    src, dst = args
    try:
        if os.path.exists(dst) and os.path.getmtime(dst) >= os.path.getmtime(src):
            return "kept"
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        py_compile.compile(src, cfile=dst, dfile=src, doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP)
        return "compiled"
    except (py_compile.PyCompileError, SyntaxError, ValueError, UnicodeDecodeError):
        return "failed"


def run_all(fn, jobs):
    """fn over jobs in worker processes, or serially where the interpreter
    has none (Pyodide's WebAssembly CPython: no multiprocessing)."""
    try:
        ex = concurrent.futures.ProcessPoolExecutor()
    except (ImportError, NotImplementedError, OSError):
        return map(fn, jobs)
    with ex:
        return list(ex.map(fn, jobs, chunksize=64))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("dest")
    ap.add_argument("--exclude", action="append", default=["site-packages", "dist-packages"],
                    help="directory names not to descend into")
    a = ap.parse_args()
    jobs = []
    for root, dirs, files in os.walk(a.src):
        dirs[:] = sorted(d for d in dirs if d not in a.exclude and d != "__pycache__")
        for f in sorted(files):
            if f.endswith(".py"):
                src = os.path.join(root, f)
                rel = os.path.relpath(src, a.src)
                jobs.append((src, os.path.join(a.dest, rel + "c")))
    counts = {"compiled": 0, "kept": 0, "failed": 0}
    for r in run_all(compile_one, jobs):
        counts[r] += 1
    print(f"corpus {a.src} -> {a.dest}: {len(jobs)} sources, "
          f"{counts['compiled']} compiled, {counts['kept']} up to date, "
          f"{counts['failed']} do not compile")


if __name__ == "__main__":
    main()
