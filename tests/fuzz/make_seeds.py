#!/usr/bin/env python3.11
"""Write libFuzzer seed corpora for the pyverify fuzz targets.

Run with CPython 3.11 (the bytecode version pyverify reads):

    /usr/bin/python3.11 tests/fuzz/make_seeds.py --out build-fuzz/fuzz/seeds

Writes one directory per target under --out, which must be in a CMake build
tree or outside the source tree, and never under /usr:

  fuzz_marshal/          real .pyc files from the 3.11 stdlib, .pyc images of
                         in-memory compiled modules (timestamp and hash-based),
                         marshal.dumps() of code objects (all marshal
                         versions for a few) and of a few plain values
  fuzz_exception_table/  u16 len(co_code) | u16 co_stacksize | co_code |
                         co_exceptiontable   (the fuzz_exception_table layout)
  fuzz_instructions/     co_code
  fuzz_location_table/   i32 co_firstlineno | u32 code units | co_linetable
  fuzz_bundle/           .pvb bundles of the rewriter's fixtures (every
                         variant, python -m pyverify_rewriter gen-fixtures)

The sample is deterministic (sorted file lists, evenly spaced picks) and the
total stays well under 20 MB. Files are named by the SHA-1 of their content,
as libFuzzer names corpus units, so duplicates collapse.
"""

import argparse
import hashlib
import importlib.util
import marshal
import os
import struct
import subprocess
import sys
import tempfile
from importlib import _bootstrap_external

STDLIB = "/usr/lib/python3.11"
SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TARGETS = ("fuzz_marshal", "fuzz_exception_table", "fuzz_instructions",
           "fuzz_location_table", "fuzz_bundle")
# Bump when the seed layout changes so run_fuzz_smoke.py regenerates.
SEED_VERSION = "3"


def evenly(items, n):
    """n items spread evenly over the sorted list (deterministic)."""
    if len(items) <= n:
        return list(items)
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


def walk_code(code):
    yield code
    for c in code.co_consts:
        if hasattr(c, "co_code"):
            yield from walk_code(c)


class SeedDir:
    def __init__(self, path, budget):
        self.path = path
        self.budget = budget
        self.used = 0
        self.count = 0
        os.makedirs(path, exist_ok=True)

    def add(self, data):
        if self.used + len(data) > self.budget:
            return False
        name = hashlib.sha1(data).hexdigest()
        full = os.path.join(self.path, name)
        if os.path.exists(full):
            return True
        with open(full, "wb") as f:
            f.write(data)
        self.used += len(data)
        self.count += 1
        return True


def in_build_tree(path):
    """True if path is inside a CMake build tree (an ancestor has a cache)."""
    while True:
        if os.path.isfile(os.path.join(path, "CMakeCache.txt")):
            return True
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent


def check_out_dir(out):
    out = os.path.realpath(out)
    if out == "/usr" or out.startswith("/usr/"):
        sys.exit("make_seeds.py: refusing to write seeds under /usr")
    under_source = out == SOURCE_ROOT or out.startswith(SOURCE_ROOT + os.sep)
    if under_source and not in_build_tree(out):
        sys.exit(f"make_seeds.py: {out} is in the source tree but not in a "
                 f"build tree (no CMakeCache.txt above it); pass a build "
                 f"directory")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="seed root (in a build dir)")
    ap.add_argument("--stdlib", default=STDLIB)
    ap.add_argument("--pyc-files", type=int, default=250,
                    help="real .pyc files to copy")
    ap.add_argument("--modules", type=int, default=150,
                    help=".py files to compile in memory")
    ap.add_argument("--field-seeds", type=int, default=1000,
                    help="code objects sampled for the per-field targets")
    # Whole-module seeds run every downstream pass on every code object under
    # ASan; past a few KiB that costs milliseconds per execution.
    ap.add_argument("--max-seed-bytes", type=int, default=8 * 1024,
                    help="largest marshal/.pyc seed")
    args = ap.parse_args()

    if sys.version_info[:2] != (3, 11):
        sys.exit("make_seeds.py: needs CPython 3.11 (found %d.%d)" %
                 sys.version_info[:2])
    out = check_out_dir(args.out)
    budgets = {"fuzz_marshal": 10 << 20, "fuzz_exception_table": 3 << 20,
               "fuzz_instructions": 3 << 20, "fuzz_location_table": 1 << 20,
               "fuzz_bundle": 2 << 20}
    dirs = {t: SeedDir(os.path.join(out, t), budgets[t]) for t in TARGETS}
    magic = importlib.util.MAGIC_NUMBER
    max_seed = args.max_seed_bytes

    # Real .pyc files (opt level 0, 3.11 magic), smallest first within the
    # evenly spaced pick so the budget is spread over many files.
    pycs = []
    for root, subdirs, files in os.walk(args.stdlib):
        subdirs.sort()
        if "site-packages" in root or "dist-packages" in root:
            continue
        for f in sorted(files):
            if f.endswith(".cpython-311.pyc"):
                p = os.path.join(root, f)
                if os.path.getsize(p) <= max_seed:
                    pycs.append(p)
    for p in evenly(pycs, args.pyc_files):
        with open(p, "rb") as f:
            data = f.read()
        if data[:4] == magic:
            dirs["fuzz_marshal"].add(data)

    # Compile a sample of the stdlib in memory.
    sources = []
    for root, subdirs, files in os.walk(args.stdlib):
        subdirs.sort()
        if ("site-packages" in root or "dist-packages" in root
                or "__pycache__" in root):
            continue
        for f in sorted(files):
            if f.endswith(".py"):
                sources.append(os.path.join(root, f))
    codes = []
    for i, p in enumerate(evenly(sources, args.modules)):
        try:
            with open(p, "rb") as f:
                src = f.read()
            mod = compile(src, p, "exec", dont_inherit=True)
        except (SyntaxError, ValueError, OSError):
            continue  # lib2to3 test data and the like
        codes.extend(walk_code(mod))
        blob = marshal.dumps(mod)
        if len(blob) <= max_seed:
            dirs["fuzz_marshal"].add(blob)
            if i % 3 == 0:
                dirs["fuzz_marshal"].add(bytes(
                    _bootstrap_external._code_to_hash_pyc(
                        mod, hashlib.sha1(src).digest()[:8],
                        checked=bool(i % 2))))
            else:
                dirs["fuzz_marshal"].add(bytes(
                    _bootstrap_external._code_to_timestamp_pyc(
                        mod, 0x5f000000 + i, len(src))))

    # Nested code objects alone (small, fast to fuzz), and in every marshal
    # version for a few (versions 0 and 1 use text floats and no refs).
    for k, c in enumerate(evenly(codes, 400)):
        blob = marshal.dumps(c)
        if len(blob) <= max_seed:
            dirs["fuzz_marshal"].add(blob)
            if k % 40 == 0:
                for version in range(4):
                    dirs["fuzz_marshal"].add(marshal.dumps(c, version))
    small = [c for c in codes if len(marshal.dumps(c)) < 2048][:40]
    for container in (tuple(small[:5]), list(small[5:10]),
                      {c.co_name: c for c in small[10:15]}):
        dirs["fuzz_marshal"].add(marshal.dumps(container))
    # Plain values exercising every type code the reader knows.
    values = [None, True, False, ..., StopIteration, 0, -1, 2**31 - 1, 2**31,
              -2**63, 2**64 + 1, -(10**40), 1.5, float("inf"), float("nan"),
              -0.0, 1e300, 2j, complex(1.5, -2.5), b"", b"\x00\xff", "",
              "ascii", "\u00e9t\u00e9", "\ud800 lone surrogate", "\U0001f600",
              (), (1, (2, (3,))), [1, 2], {1, 2}, frozenset({"a"}),
              {"k": (1, 2.0)}]
    for v in values:
        for version in (2, 4):
            try:
                dirs["fuzz_marshal"].add(marshal.dumps(v, version))
            except ValueError:
                pass
    for v in (1.5, 2j, float("-inf")):
        dirs["fuzz_marshal"].add(marshal.dumps(v, 1))

    # Per-field seeds from an even sample of the compiled code objects.
    for c in evenly(codes, args.field_seeds):
        code = c.co_code
        table = c.co_exceptiontable
        if len(code) <= 0xFFFF:
            hdr = struct.pack("<HH", len(code), min(c.co_stacksize, 0xFFFF))
            dirs["fuzz_exception_table"].add(hdr + code + table)
        dirs["fuzz_instructions"].add(code)
        dirs["fuzz_location_table"].add(
            struct.pack("<iI", c.co_firstlineno, len(code) // 2) +
            c.co_linetable)

    # Bundles: the rewriter's fixture corpus, an even pick per variant.
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pyverify_rewriter",
                        "gen-fixtures", tmp], check=True,
                       stdout=subprocess.DEVNULL,
                       env=dict(os.environ, PYTHONPATH=os.path.join(
                           SOURCE_ROOT, "python")))
        for variant in sorted(os.listdir(tmp)):
            vdir = os.path.join(tmp, variant)
            if not os.path.isdir(vdir):
                continue
            files = sorted(f for f in os.listdir(vdir) if f.endswith(".pvb"))
            for f in evenly(files, 20):
                with open(os.path.join(vdir, f), "rb") as fh:
                    data = fh.read()
                if len(data) <= max_seed:
                    dirs["fuzz_bundle"].add(data)

    total = 0
    for t in TARGETS:
        d = dirs[t]
        total += d.used
        print(f"{t}: {d.count} seeds, {d.used / 1024:.0f} KiB")
    print(f"total {total / (1 << 20):.1f} MiB in {out}")
    with open(os.path.join(out, "VERSION"), "w") as f:
        f.write(SEED_VERSION + "\n")


if __name__ == "__main__":
    main()
