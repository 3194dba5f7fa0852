"""Build test inputs from a lit test file.

  mkcode.py pyc SRC OUT       compile SRC (a .py test file) to a .pyc at OUT
  mkcode.py marshal SRC OUT [--object NAME]
                              exec SRC with __name__ == "mkcode" and marshal
                              the code object it leaves in the global NAME
                              (default CODE) -- test files build broken code
                              objects with types.CodeType.replace there; a
                              bytes object is written verbatim (raw marshal
                              data that CodeType cannot express).
  mkcode.py raw HEX OUT       write bytes given in hex (for malformed input)
"""
import importlib.util
import marshal
import py_compile
import sys


def main():
    mode, src, out = sys.argv[1:4]
    if mode == "pyc":
        py_compile.compile(src, cfile=out, dfile=src, doraise=True)
    elif mode == "marshal":
        name = "CODE"
        if "--object" in sys.argv:
            name = sys.argv[sys.argv.index("--object") + 1]
        g = {"__name__": "mkcode", "__file__": src}
        with open(src) as f:
            exec(compile(f.read(), src, "exec"), g)
        obj = g[name]
        with open(out, "wb") as f:
            if isinstance(obj, bytes):  # raw marshal data built by the test
                f.write(obj)
            else:
                marshal.dump(obj, f)
    elif mode == "raw":
        with open(out, "wb") as f:
            f.write(bytes.fromhex(src))
    else:
        sys.exit(f"mkcode: unknown mode {mode}")


if __name__ == "__main__":
    main()
