// python.mjs - run a CPython that Pyodide compiled to WebAssembly as if it
// were a native `python3.N` on this machine.
//
//   node python.mjs --pyodide DIR [--name python3.14] script.py [args...]
//   node python.mjs --pyodide DIR -c CODE [args...]
//   node python.mjs --pyodide DIR -m MODULE [args...]
//
// Contract (what the version tests rely on, docs/versions.md "The 3.14 and
// 3.15 oracles"):
//  - The host's top-level directories that Pyodide's own file system does not
//    have (/work, /root, /usr, ...) and /tmp are mounted at the same paths, so
//    host paths in arguments mean the same files; the working directory is
//    the host's.
//  - sys.argv, os.environ, stdin, stdout and stderr (raw bytes, unbuffered
//    at the JS side) are the host process's; the exit status is SystemExit's
//    (1 with a traceback for an uncaught exception).
//  - -B and -P style flags are accepted and ignored: Pyodide's sys.path[0] is
//    the script's directory as CPython's is, and bytecode is never written to
//    the mounted host folders unless a script asks.
//  - subprocess.run / check_output / check_call / call / Popen run host
//    commands synchronously (child_process.spawnSync); a pipe between two
//    running children is not possible. sys.executable is this runner (the
//    shim given by --name's directory or the PYVERIFY_PYODIDE_SHIM variable),
//    so a script that starts "itself" starts this interpreter again.
//  - A fault of the interpreter itself (out-of-bounds memory access, a trap)
//    kills the process with SIGSEGV, as it would kill a native CPython.
//  - No threads or processes inside Python (multiprocessing is unavailable):
//    scripts run their work serially here.
import { readdirSync, readSync, writeSync, existsSync, readFileSync, writeFileSync,
         renameSync, unlinkSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

function usage(msg) {
  process.stderr.write(`python.mjs: ${msg}\n` +
    'usage: node python.mjs --pyodide DIR [--shim PATH] (script | -c CODE | -m MODULE) [args...]\n');
  process.exit(2);
}

const argv = process.argv.slice(2);
let pyodideDir = null;
let shim = process.env.PYVERIFY_PYODIDE_SHIM || null;
while (argv.length && argv[0].startsWith('--')) {
  const a = argv.shift();
  if (a === '--pyodide') pyodideDir = argv.shift();
  else if (a === '--shim') shim = argv.shift();
  else usage(`unknown option ${a}`);
}
if (!pyodideDir || !existsSync(path.join(pyodideDir, 'pyodide.mjs')))
  usage(`no Pyodide at ${pyodideDir} (scripts/pyodide/install.sh installs it)`);
// Interpreter flags a native python accepts before the script.
let mode = 'script', target = null;
while (argv.length) {
  const a = argv.shift();
  if (a === '-c' || a === '-m') { mode = a === '-c' ? 'code' : 'module'; target = argv.shift(); break; }
  if (/^-[BPEsSuIq]+$/.test(a)) continue;
  if (a === '-X' || a === '-W') { argv.shift(); continue; }
  if (a.startsWith('-X') || a.startsWith('-W')) continue;
  if (a === '-') usage('reading a script from standard input is not supported');
  if (a.startsWith('-')) usage(`unsupported interpreter flag ${a}`);
  target = a;
  break;
}
if (target === null || target === undefined) usage('no script, -c or -m given');

const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, 'pyodide.mjs')).href);
const env = { ...process.env };
// Start-up from a memory snapshot: CPython's own initialisation (most of a
// start: 2.5-3 s of 3 on an idle machine) runs once per Pyodide package and
// its heap is saved beside the package; each start then restores it (0.5 s).
// The snapshot is taken before anything of this process's reaches Python
// (an empty environment, no mounts), and the boot code below gives Python
// this process's environment; what CPython reads from the environment only
// while it initialises is applied there too (PYTHONPATH,
// PYTHONDONTWRITEBYTECODE), and the hash seed is the snapshot's (one fixed
// seed, as PYTHONHASHSEED would give). PYVERIFY_PYODIDE_SNAPSHOT=0 starts
// without it.
const useSnapshot = process.env.PYVERIFY_PYODIDE_SNAPSHOT !== '0';
async function snapshotBytes() {
  const file = path.join(pyodideDir, 'pyverify-snapshot-v1.bin');
  if (existsSync(file)) return readFileSync(file);
  const maker = await loadPyodide({ indexURL: pyodideDir + '/', env: {}, _makeSnapshot: true });
  const bytes = maker.makeMemorySnapshot();
  // Written whole, then renamed: a concurrent start reads either no file or
  // the complete one. A cache it cannot write only costs the next start.
  const tmp = `${file}.${process.pid}.tmp`;
  try { writeFileSync(tmp, bytes); renameSync(tmp, file); } catch (e) { try { unlinkSync(tmp); } catch (_) {} }
  return bytes;
}
const py = await loadPyodide({
  indexURL: pyodideDir + '/',
  env,
  stdin: undefined,
  ...(useSnapshot ? { _loadSnapshot: await snapshotBytes() } : {}),
});
// Raw byte streams: what the script writes is what the host reads.
const writer = fd => ({ write: buf => { let off = 0; while (off < buf.length) off += writeSync(fd, buf, off); return buf.length; } });
py.setStdout(writer(1));
py.setStderr(writer(2));
py.setStdin({ read: buf => { try { return readSync(0, buf, 0, buf.length, null); } catch (e) { if (e.code === 'EAGAIN') return 0; if (e.code === 'EOF') return 0; throw e; } } });

// Mount the host's folders at their own paths.
const FS = py.FS;
const own = new Set(FS.readdir('/'));
const mounts = [];
for (const d of readdirSync('/')) {
  if (d === 'proc' || d === 'sys' || d === 'dev') continue;
  const p = '/' + d;
  if (own.has(d) && d !== 'tmp') continue;
  try {
    if (!own.has(d)) FS.mkdir(p);
    FS.mount(FS.filesystems.NODEFS, { root: p }, p);
    mounts.push(p);
  } catch (e) { /* a host entry that is not a folder */ }
}

// Host commands for subprocess: run(argv, cwd, env, input) -> [rc, out, err].
globalThis.pyverifyHostSpawn = (args, cwd, envObj, input, timeoutMs) => {
  const a = args.toJs ? args.toJs() : args;
  // The environment comes as a JS Map (to_js's dict_converter): spawnSync
  // wants a plain object (a Map's entries are no properties: none would pass).
  const e = envObj instanceof Map ? Object.fromEntries(envObj)
          : envObj && envObj.toJs ? Object.fromEntries(envObj.toJs()) : (envObj || process.env);
  const r = spawnSync(a[0], a.slice(1), {
    cwd: cwd || process.cwd(), env: e,
    input: input ? Buffer.from(input.toJs ? input.toJs() : input) : undefined,
    maxBuffer: 1 << 30, timeout: timeoutMs || undefined,
  });
  if (r.error && r.error.code === 'ENOENT') return [-2, new Uint8Array(), new Uint8Array()];
  const timedOut = r.error && r.error.code === 'ETIMEDOUT';
  return [timedOut ? -9999 : (r.status === null ? -(r.signal ? require_signal(r.signal) : 9) : r.status),
          u8(r.stdout), u8(r.stderr)];
};
function u8(b) { return b ? new Uint8Array(b.buffer, b.byteOffset, b.length) : new Uint8Array(); }
function require_signal(name) {
  const n = { SIGKILL: 9, SIGTERM: 15, SIGSEGV: 11, SIGABRT: 6, SIGINT: 2, SIGBUS: 7, SIGFPE: 8 }[name];
  return n || 9;
}

const selfShim = shim || process.argv[1];
py.globals.set('_pyv_boot', py.toPy({ mode, target, args: argv, cwd: process.cwd(), shim: selfShim,
                                      env, snapshot: useSnapshot }));
let rc;
try {
rc = py.runPython(String.raw`
import os, sys
_b = _pyv_boot.copy()
del _pyv_boot
sys.executable = _b["shim"]
os.chdir(_b["cwd"])
if _b["snapshot"]:
    # Started from the snapshot: its environment is the empty one it was
    # taken with. This process's replaces it (os.environ and the C
    # environment both), and what initialisation reads from it is applied.
    os.environ.clear()
    os.environ.update(dict(_b["env"]))
    sys.dont_write_bytecode = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
    while sys.path[:2] == ["", ""]:
        del sys.path[0]
    _at = 1 if sys.path[:1] == [""] else 0
    sys.path[_at:_at] = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    del _at
# PYTHONPATH's folders were looked up at start-up, before the host's folders
# were mounted: forget what the import system cached about them.
import importlib
sys.path_importer_cache.clear()
importlib.invalidate_caches()

def _pyv_install_subprocess():
    import subprocess, js
    from pyodide.ffi import to_js

    def _argv(args, shell):
        if shell:
            return ["/bin/sh", "-c", args if isinstance(args, str) else " ".join(args)]
        if isinstance(args, (str, bytes, os.PathLike)):
            args = [args]
        return [os.fsdecode(a) for a in args]

    class Popen:
        def __init__(self, args, bufsize=-1, executable=None, stdin=None, stdout=None,
                     stderr=None, preexec_fn=None, close_fds=True, shell=False, cwd=None,
                     env=None, universal_newlines=None, startupinfo=None, creationflags=0,
                     restore_signals=True, start_new_session=False, pass_fds=(), *,
                     text=None, encoding=None, errors=None, **kw):
            self.args = args
            self._argv = _argv(args, shell)
            if executable:
                self._argv[0] = os.fsdecode(executable)
            self._cwd = os.fsdecode(cwd) if cwd is not None else os.getcwd()
            self._env = dict(env) if env is not None else dict(os.environ)
            self._text = bool(text or universal_newlines or encoding or errors)
            self._encoding = encoding or "utf-8"
            self._errors = errors or "strict"
            self._stdin, self._stdout, self._stderr = stdin, stdout, stderr
            self.returncode = None
            self.pid = -1
            self._out = self._err = None
            self._ran = False
            self.stdin = None
            self.stdout = None
            self.stderr = None
            # The child runs to completion synchronously (spawnSync). With no
            # input to wait for, it runs now, as a host Popen starts it now:
            # its output reaches files the caller may close before wait().
            # run() defers it to communicate(), which has its input and timeout.
            if stdin is not subprocess.PIPE and not kw.get("_defer"):
                self._run()

        def _run(self, input=None, timeout=None):
            if self._ran:
                return
            self._ran = True
            if isinstance(input, str):
                input = input.encode(self._encoding, self._errors)
            if input is None and self._stdin not in (None, subprocess.PIPE, subprocess.DEVNULL):
                f = self._stdin
                input = os.read(f, 1 << 30) if isinstance(f, int) else f.read()
                if isinstance(input, str):
                    input = input.encode()
            rc, out, err = js.pyverifyHostSpawn(to_js(self._argv), self._cwd,
                                               to_js(self._env, dict_converter=js.Map.new),
                                               to_js(input) if input is not None else None,
                                               int(timeout * 1000) if timeout else 0)
            out = bytes(out.to_py()) if hasattr(out, "to_py") else bytes(out)
            err = bytes(err.to_py()) if hasattr(err, "to_py") else bytes(err)
            if rc == -2:
                raise FileNotFoundError(2, "No such file or directory", self._argv[0])
            if rc == -9999:
                raise subprocess.TimeoutExpired(self.args, timeout, out, err)
            self.returncode = rc

            def route(data, dest, stream):
                if dest is subprocess.PIPE:
                    return data
                if dest is subprocess.DEVNULL:
                    return None
                if dest is subprocess.STDOUT:
                    return None
                if dest is None:
                    stream.buffer.write(data) if hasattr(stream, "buffer") else stream.write(data.decode())
                    stream.flush()
                    return None
                if isinstance(dest, int):
                    os.write(dest, data)
                else:
                    if hasattr(dest, "buffer"):
                        dest.flush(); dest.buffer.write(data); dest.flush()
                    else:
                        try:
                            dest.write(data)
                        except TypeError:
                            dest.write(data.decode())
                return None

            if self._stderr is subprocess.STDOUT:
                out = out + err
                err = b""
            self._out = route(out, self._stdout, sys.stdout)
            self._err = route(err, self._stderr, sys.stderr)
            if self._text:
                dec = lambda b: None if b is None else b.decode(self._encoding, self._errors).replace("\r\n", "\n")
                self._out, self._err = dec(self._out), dec(self._err)

        def communicate(self, input=None, timeout=None):
            self._run(input, timeout)
            return self._out, self._err

        def wait(self, timeout=None):
            self._run(None, timeout)
            return self.returncode

        def poll(self):
            self._run()
            return self.returncode

        def kill(self):
            pass

        terminate = kill

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self._run()

    def run(*popenargs, input=None, capture_output=False, timeout=None, check=False, **kwargs):
        if capture_output:
            kwargs["stdout"] = subprocess.PIPE
            kwargs["stderr"] = subprocess.PIPE
        p = Popen(*popenargs, _defer=True, **kwargs)
        out, err = p.communicate(input, timeout)
        if check and p.returncode:
            raise subprocess.CalledProcessError(p.returncode, p.args, out, err)
        return subprocess.CompletedProcess(p.args, p.returncode, out, err)

    def call(*a, timeout=None, **k):
        return run(*a, timeout=timeout, **k).returncode

    def check_call(*a, **k):
        run(*a, check=True, **k)
        return 0

    def check_output(*a, **k):
        k.setdefault("stdout", subprocess.PIPE)
        return run(*a, check=True, **k).stdout

    subprocess.Popen, subprocess.run, subprocess.call = Popen, run, call
    subprocess.check_call, subprocess.check_output = check_call, check_output
    subprocess._can_fork_exec = True

_pyv_install_subprocess()
del _pyv_install_subprocess

def _pyv_main(b):
    import runpy
    sys.argv = [b["target"]] + list(b["args"])
    try:
        if b["mode"] == "code":
            sys.argv[0] = "-c"
            sys.path.insert(0, "")
            exec(compile(b["target"], "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
        elif b["mode"] == "module":
            sys.path.insert(0, os.getcwd())
            runpy.run_module(b["target"], run_name="__main__", alter_sys=True)
        else:
            sys.path.insert(0, os.path.dirname(os.path.abspath(b["target"])))
            runpy.run_path(b["target"], run_name="__main__")
        rc = 0
    except SystemExit as e:
        c = e.code
        if c is None:
            rc = 0
        elif isinstance(c, int):
            rc = c & 0xFF
        else:
            print(c, file=sys.stderr)
            rc = 1
    except BaseException:
        import traceback
        t, v, tb = sys.exc_info()
        # Drop this runner's own frames (runpy's and _pyv_main's).
        while tb is not None and tb.tb_frame.f_code.co_filename in ("<exec>", "<frozen runpy>"):
            tb = tb.tb_next
        traceback.print_exception(t, v, tb)
        rc = 1
    for s in (sys.stdout, sys.stderr):
        try:
            s.flush()
        except Exception:
            pass
    return rc

_pyv_main(_b)
`);
} catch (e) {
  // os._exit(n): Emscripten's ExitStatus, an exit, not a fault.
  if (e && (e.name === 'ExitStatus' || /exit\((\d+)\)/.test(String(e.message))) &&
      !(e instanceof WebAssembly.RuntimeError)) {
    const m = /exit\((\d+)\)/.exec(String(e.message));
    process.exit(e.status ?? (m ? Number(m[1]) : 1));
  }
  // A fault inside the interpreter (WebAssembly's "memory access out of
  // bounds", an unreachable trap): what a native CPython dies of by SIGSEGV.
  // Die the same way, so a caller sees a crash, not an error exit.
  if (e && (e.pyodide_fatal_error || e instanceof WebAssembly.RuntimeError)) {
    process.stderr.write(`python.mjs: the interpreter crashed: ${e.message}\n`);
    process.kill(process.pid, 'SIGSEGV');
  }
  throw e;
}
process.exitCode = rc;
