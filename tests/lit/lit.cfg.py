# lit configuration for pyverify's CLI tests.
#
# A test is a Python source file (.py) whose RUN lines build code objects from
# it with %mkcode, run %pyverify on them, and FileCheck the output against the
# CHECK lines next to the input they describe.
import os

import lit.formats

config.name = "pyverify"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".py", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.pyverify_obj_root, "tests", "lit-out")

config.substitutions.append(("%pyverify", config.pyverify_tool))
# %python312 / %python313 / %python314 / %python315 and the features of the
# same names, where the build found those interpreters (3.14 / 3.15: Pyodide
# under Node, cmake/pyverifyPyodide.cmake); before %python, which is a prefix
# of them.
for name in ("python312", "python313", "python314", "python315"):
    exe = getattr(config, name, "")
    if exe and not exe.endswith("NOTFOUND"):
        config.available_features.add(name)
        config.substitutions.append(("%" + name, exe))
config.substitutions.append(("%python", config.python))
config.substitutions.append(
    ("%mkcode", f"{config.python} {config.test_source_root}/Inputs/mkcode.py"))
config.substitutions.append(("FileCheck", config.filecheck))
config.substitutions.append(("%not", f"/bin/sh {config.test_source_root}/Inputs/not.sh"))
config.environment["PYTHONHASHSEED"] = "0"
config.environment["PYTHONDONTWRITEBYTECODE"] = "1"
