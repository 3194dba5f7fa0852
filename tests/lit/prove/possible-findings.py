# `check` marks a context finding that holds only on some merged paths as
# possible (certainty apart from severity); `prove` settles each of check's
# context findings on the target: confirmed when a path violates
# exactly-once at its offset (the possible finding becomes a counterexample),
# discharged when exactly-once is proved (no feasible path has it),
# undecided otherwise. Text, and JSON's "check_findings".
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %mkcode pyc %s %t/possible.pyc
# RUN: %not --code 1 %pyverify check --format=json %t/possible.pyc | FileCheck %s --check-prefix=CHECK-CMD
# CHECK-CMD: "certainty": "possible"
#
# RUN: %not --code 1 %pyverify prove %t/possible.pyc | FileCheck %s
# The same flag tested twice: merged, check cannot tell the paths apart; the
# prover correlates them and discharges the finding.
# CHECK:      possible.pyc: [code:1] proved
# CHECK:        possible finding of check discharged: offset {{[0-9]+}}: {{.*}}[context-exit-without-enter]
# A context exited on one branch only: the possible finding is a real path.
# CHECK:      possible.pyc: [code:2] refuted: exactly-once:
# CHECK:        possible finding of check confirmed: offset {{[0-9]+}}: {{.*}}RETURN_VALUE returns while the context {{.*}}[context-not-exited]
#
# RUN: %not --code 1 %pyverify prove --format=json %t/possible.pyc | FileCheck %s --check-prefix=JSON
# JSON: "check_findings": [
# JSON: "certainty": "possible",
# JSON: "status": "discharged"


def enter_if_flag(flag, cm, work):
    if flag:
        cm.__enter__()
    try:
        work()
    finally:
        if flag:
            cm.__exit__(None, None, None)


def exit_on_one_branch(cm, c):
    cm.__enter__()
    if c:
        cm.__exit__(None, None, None)
    return 1
