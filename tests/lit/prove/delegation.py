# Delegation and forwarding (docs/context-balance.md): in plain code an
# explicit m.__enter__() / m.__exit__() is a context event only on a local
# whose __enter__ and __exit__ the code both calls. A lone enter hands the
# context to the caller (threading.Condition.__enter__, mock's start()), a
# lone exit forwards one the caller holds (tempfile's __exit__,
# ExitStack.close, stop()). Before, `prove` refuted all five stdlib shapes
# below while `check` passed them; now both pass them, and both still
# report the paired local that leaks on an exception.
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %mkcode pyc %s %t/delegation.pyc
# RUN: %not --code 1 %pyverify prove %t/delegation.pyc | FileCheck %s
# CHECK:      delegation.pyc: [code:1] proved
# CHECK:      delegation.pyc: [code:2] proved
# CHECK:      delegation.pyc: [code:3] proved
# CHECK:      delegation.pyc: [code:4] proved
# CHECK:      delegation.pyc: [code:5] proved
# CHECK:      delegation.pyc: [code:6] proved
# CHECK:      delegation.pyc: [code:7] refuted: exactly-once: original raises out with ctx#0 still active: never exited on this path
# CHECK:      delegation.pyc: [code:8] proved
# CHECK:      pyverify: 1 file(s), 12 result(s): 11 proved, 1 refuted, 0 unknown
#
# `check` agrees: only the paired local is reported.
# RUN: %not --code 1 %pyverify check --format=json %t/delegation.pyc | FileCheck %s --check-prefix=CHECK-CMD
# CHECK-CMD-NOT: "code": "{{condition_enter|wrapper_exit|close|start|stop|enter_context}}"
# CHECK-CMD:     "code": "paired_leaks"
# CHECK-CMD-NOT: "code": "{{condition_enter|wrapper_exit|close|start|stop|enter_context|ok_paired}}"
#
# Emitted code neither delegates nor forwards: a resume function that only
# exits (or only enters) a manager local is reported by `check` and refuted
# by `prove`, with the same fact.
# RUN: %python %s %t
# RUN: %not --code 1 %pyverify check %t/exit-only.pvb | FileCheck %s --check-prefix=EXIT
# EXIT: calls __exit__ of the manager in local 'cm', which was not entered on this path [context-exit-without-enter]
# RUN: %not --code 1 %pyverify prove %t/exit-only.pvb | FileCheck %s --check-prefix=EXIT-PROVE
# EXIT-PROVE: [resume:0] refuted: exactly-once: an explicit __exit__ call on a manager that holds no active context
# RUN: %not --code 1 %pyverify check %t/enter-only.pvb | FileCheck %s --check-prefix=ENTER
# ENTER: returns while the context entered at {{[0-9]+}} (__enter__ call) is still active [context-not-exited]
# RUN: %not --code 1 %pyverify prove %t/enter-only.pvb | FileCheck %s --check-prefix=ENTER-PROVE
# ENTER-PROVE: [resume:0] refuted: exactly-once: resume:0 raises out with ctx#0 still active

import marshal
import sys


def condition_enter(self):          # threading.Condition.__enter__
    return self._lock.__enter__()


def wrapper_exit(self, exc, value, tb):  # tempfile._TemporaryFileWrapper
    result = self.file.__exit__(exc, value, tb)
    self.close()
    return result


def close(self):                    # contextlib.ExitStack.close
    self.__exit__(None, None, None)


def start(self):                    # unittest.mock._patch.start
    result = self.__enter__()
    self._active_patches.append(self)
    return result


def stop(cm):                       # a forwarding exit on a local
    return cm.__exit__(None, None, None)


def enter_context(self, cm):        # contextlib._BaseExitStack.enter_context
    cls = type(cm)
    _enter = cls.__enter__
    _exit = cls.__exit__
    result = _enter(cm)
    self._push_cm_exit(cm, _exit)
    return result


def paired_leaks(cm, g):            # entered and exited here: g() may raise
    cm.__enter__()
    g()
    cm.__exit__(None, None, None)


def ok_paired(cm, g):
    cm.__enter__()
    try:
        g()
    finally:
        cm.__exit__(None, None, None)


def orig(cm, g):
    g()
    return 1


def resume_exit_only(cm, g):
    cm.__exit__(None, None, None)
    g()
    return 1


def resume_enter_only(cm, g):
    cm.__enter__()
    g()
    return 1


if __name__ == "__main__":
    for name, r in (("exit-only", resume_exit_only),
                    ("enter-only", resume_enter_only)):
        b = {"format": "pyverify-bundle", "version": 1,
             "original": orig.__code__, "break_offset": 0,
             "resumes": [{"code": r.__code__, "original_offset": 0,
                          "contexts": []}]}
        with open(sys.argv[1] + "/" + name + ".pvb", "wb") as f:
            f.write(marshal.dumps(b))
