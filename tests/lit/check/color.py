# --color (listed in --help) is accepted by every subcommand, before or
# after the subcommand name. Severities are coloured only when the output is
# a terminal, unless --color forces it (--color=false turns it off);
# messages on stderr follow the same option. Before, --color was rejected in
# every position.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def k(x):
    return x + 1

if __name__ == "mkcode":
    # RUN: %mkcode marshal %s %t.bin
    CODE = bc.set_stacksize(k.__code__, 1)

# Forced: the escape sequences of LLVM's WithColor around the severity.
# RUN: %not --code 1 %pyverify check --color %t.bin | FileCheck %s --check-prefix=FORCED
# RUN: %not --code 1 %pyverify --color check %t.bin | FileCheck %s --check-prefix=FORCED
# RUN: %not --code 1 %pyverify check --color=true %t.bin | FileCheck %s --check-prefix=FORCED
# FORCED: {{.*}}.py:11:16: {{.}}[0;1;31merror:{{.}}[0m the stack reaches depth 2

# A pipe is not a terminal: no colour by default, none with --color=false.
# RUN: %not --code 1 %pyverify check %t.bin | FileCheck %s --check-prefix=PLAIN
# RUN: %not --code 1 %pyverify check --color=false %t.bin | FileCheck %s --check-prefix=PLAIN
# RUN: %not --code 1 %pyverify --color=false check %t.bin | FileCheck %s --check-prefix=PLAIN
# PLAIN: {{.*}}.py:11:16: error: the stack reaches depth 2

# stderr follows the option.
# RUN: %not --code 2 %pyverify check --color %t.missing 2>&1 | FileCheck %s --check-prefix=STDERR
# STDERR: pyverify: {{.}}[0;1;31merror: {{.}}[0m{{.*}}.missing: no such file or directory
# RUN: %not --code 2 %pyverify check %t.missing 2>&1 | FileCheck %s --check-prefix=STDERR-PLAIN
# STDERR-PLAIN: pyverify: error: {{.*}}.missing: no such file or directory

# Every subcommand takes it; other options may precede the subcommand too.
# RUN: %mkcode pyc %s %t.pyc
# RUN: %pyverify dis --color %t.pyc > /dev/null
# RUN: %pyverify --color=false cfg %t.pyc > /dev/null
# RUN: %pyverify analyze --color --print=stack-depth %t.pyc > /dev/null
# RUN: %pyverify stats --color %t.pyc > /dev/null
# RUN: %pyverify --python=%python --color prove %t.pyc > /dev/null
# RUN: %pyverify check --help | FileCheck %s --check-prefix=HELP
# HELP: --color {{.*}}Use colors in output
