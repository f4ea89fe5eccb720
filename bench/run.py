#!/usr/bin/env python3
"""xpb against xclip and xsel, side by side, on a private Xvfb (issue 5).

Usage:  make bench                      (installs what is missing, builds release, runs this)
        XPB_BIN=path/to/xpb python3 bench/run.py [--quick] [--no-1g]

Python 3 standard library only. Starts its own Xvfb (-displayfd, -nolisten tcp) and stops it,
and every owner it started, by process id when it ends, also on Ctrl-C or an error.

Each figure is the median of several runs. Wall time is measured here around posix_spawn +
waitpid of the whole reader process (stdout to /dev/null), runs of the tools interleaved so that
drift hits all of them alike. Peak RSS of readers comes from GNU time (`/usr/bin/time -f %M`):
rusage from a child of this Python process would include Python's own ~13 MB, since Linux
carries the pre-exec high-water mark into ru_maxrss. Peak RSS of owners is VmHWM from
/proc/PID/status, read after they served and just before they are made to exit.

Writes bench/results/latest.json and bench/results/<UTC timestamp>.json.
"""

import argparse
import ctypes
import ctypes.util
import datetime
import hashlib
import json
import os
import platform
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MiB = 1024 * 1024
SMALL_TEXT = b"hello clipboard small text\n"
BIN_TYPE = "application/octet-stream"

# ----------------------------------------------------------------------------------------------
# Process bookkeeping: everything we start is stopped by pid at exit.

_children = []  # subprocess.Popen objects still possibly alive
_tmpdir = None


def _stop(proc, grace=2.0):
    if proc.poll() is not None:
        return
    try:
        proc.terminate()
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    except ProcessLookupError:
        pass


def cleanup():
    # owners first, Xvfb (started first) last
    while _children:
        _stop(_children.pop())
    global _tmpdir
    if _tmpdir and os.path.isdir(_tmpdir):
        shutil.rmtree(_tmpdir, ignore_errors=True)
        _tmpdir = None


def _on_signal(signum, _frame):
    raise SystemExit(128 + signum)


def start(argv, **kw):
    kw.setdefault("stdin", subprocess.DEVNULL)
    kw.setdefault("stdout", subprocess.DEVNULL)
    kw.setdefault("stderr", subprocess.DEVNULL)
    p = subprocess.Popen(argv, **kw)
    _children.append(p)
    return p


def forget(p):
    if p in _children:
        _children.remove(p)


# ----------------------------------------------------------------------------------------------
# Xvfb


def start_xvfb():
    r, w = os.pipe()
    p = start(["Xvfb", "-displayfd", str(w), "-nolisten", "tcp", "-noreset",
               "-screen", "0", "640x480x24"], pass_fds=(w,))
    os.close(w)
    buf = b""
    deadline = time.monotonic() + 15
    while not buf.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([r], [], [], left)[0]:
            raise RuntimeError("Xvfb did not report a display number within 15 s")
        chunk = os.read(r, 64)
        if not chunk:
            raise RuntimeError("Xvfb exited before reporting a display number")
        buf += chunk
    os.close(r)
    return p, ":" + buf.decode().strip()


# ----------------------------------------------------------------------------------------------
# Running and timing a reader


def which(name):
    path = shutil.which(name)
    if not path:
        raise RuntimeError(f"{name} not found in PATH")
    return path


def spawn_time(argv, stdout_path="/dev/null", timeout=120.0):
    """Wall time (s) and exit status of one whole process, spawned with posix_spawn and reaped
    with a blocking waitpid (this process does not compete for a CPU meanwhile); SIGKILLed after
    `timeout` s, then (None, "timeout")."""
    fa = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
          (os.POSIX_SPAWN_OPEN, 1, stdout_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
          (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0)]
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=fa)
    killed = []

    def kill():
        killed.append(True)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    timer = threading.Timer(timeout, kill)
    timer.start()
    try:
        _, status = os.waitpid(pid, 0)
    finally:
        timer.cancel()
    t1 = time.perf_counter()
    if killed:
        return None, "timeout"
    return t1 - t0, os.waitstatus_to_exitcode(status)


def spawn_time_blocking(argv, stdout_path="/dev/null"):
    """As spawn_time, but waits in waitpid (no polling): for the small, millisecond-long runs."""
    fa = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
          (os.POSIX_SPAWN_OPEN, 1, stdout_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
          (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0)]
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=fa)
    _, status = os.waitpid(pid, 0)
    t1 = time.perf_counter()
    return t1 - t0, os.waitstatus_to_exitcode(status)


def spawn_time_from(argv, stdin_path):
    """As spawn_time_blocking, with stdin read from a file: for the copies, which detach, so the
    time is until the command returns, what a caller (an editor, `pass`) waits for."""
    fa = [(os.POSIX_SPAWN_OPEN, 0, stdin_path, os.O_RDONLY, 0),
          (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
          (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0)]
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=fa)
    _, status = os.waitpid(pid, 0)
    t1 = time.perf_counter()
    return t1 - t0, os.waitstatus_to_exitcode(status)


def run_output(argv, timeout=120):
    """stdout of one run (for correctness checks, not timed)."""
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    return r.returncode, r.stdout, r.stderr


def digest_of_output(argv, timeout=300):
    """(size, sha256) of a reader's stdout, streamed (for the 1 GiB check)."""
    p = start(argv, stdout=subprocess.PIPE)
    h = hashlib.sha256()
    n = 0
    deadline = time.monotonic() + timeout
    while True:
        b = p.stdout.read(4 * MiB)
        if not b:
            break
        h.update(b)
        n += len(b)
        if time.monotonic() > deadline:
            break
    p.stdout.close()
    try:
        rc = p.wait(timeout=max(1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        _stop(p)
        rc = "timeout"
    forget(p)
    return rc, n, h.hexdigest()


GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def peak_rss_kib(argv, timeout=120):
    """Peak RSS (KiB) of one run of argv (stdout to /dev/null), through GNU time."""
    if not GNU_TIME:
        return None
    with tempfile.NamedTemporaryFile("r", dir=_tmpdir, delete=False) as f:
        path = f.name
    cmd = [GNU_TIME, "-f", "%M", "-o", path] + argv
    subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=timeout)
    with open(path) as f:
        text = f.read().strip().splitlines()
    os.unlink(path)
    try:
        return int(text[-1])
    except (ValueError, IndexError):
        return None


def vm_hwm_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


# ----------------------------------------------------------------------------------------------
# Owners


class Owner:
    """A selection owner in the foreground, started by us; stopped with `xsel -b -c`, by pid if
    that does not make it exit."""

    def __init__(self, label, argv, stdin_path=None, ready_timeout=60):
        self.label = label
        self.argv = argv
        ensure_no_owner()
        stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
        try:
            self.proc = start(argv, stdin=stdin)
        finally:
            if stdin_path:
                stdin.close()
        t0 = time.monotonic()
        while True:
            rc, out, _ = run_output([XCLIP, "-o", "-selection", "clipboard", "-t", "TARGETS"], timeout=10)
            if rc == 0 and out.strip():
                break
            if self.proc.poll() is not None:
                raise RuntimeError(f"owner {label} exited with {self.proc.returncode} before owning")
            if time.monotonic() - t0 > ready_timeout:
                raise RuntimeError(f"owner {label} did not own CLIPBOARD within {ready_timeout} s")
            time.sleep(0.02)
        self.ready_s = time.monotonic() - t0
        self.hwm_kib = None

    def close(self):
        """Records VmHWM, takes the selection away, waits for the exit (by pid as a last resort)."""
        self.hwm_kib = vm_hwm_kib(self.proc.pid)
        subprocess.run([XSEL, "-b", "-c"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=10)
        try:
            self.proc.wait(timeout=5)
            self.exit = self.proc.returncode
        except subprocess.TimeoutExpired:
            self.exit = "did not exit on SelectionClear; killed"
            _stop(self.proc)
        forget(self.proc)
        return self.hwm_kib

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None or self.proc in _children:
            self.close()


def ensure_no_owner():
    rc, out, _ = run_output([XCLIP, "-o", "-selection", "clipboard", "-t", "TARGETS"], timeout=10)
    if rc == 0 and out.strip():
        subprocess.run([XSEL, "-b", "-c"], timeout=10)


# ----------------------------------------------------------------------------------------------
# Tiny Xlib client through ctypes, to take ownership at a known instant (watch latency)


class XlibOwner:
    """Owns CLIPBOARD from this process and answers TARGETS / UTF8_STRING, so that a watcher that
    asks the new owner for its types gets an answer at once."""

    def __init__(self, display):
        name = ctypes.util.find_library("X11")
        if not name:
            raise RuntimeError("libX11 not found")
        x = ctypes.CDLL(name)
        self.x = x
        x.XOpenDisplay.restype = ctypes.c_void_p
        x.XOpenDisplay.argtypes = [ctypes.c_char_p]
        x.XDefaultRootWindow.restype = ctypes.c_ulong
        x.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
        x.XCreateSimpleWindow.restype = ctypes.c_ulong
        x.XCreateSimpleWindow.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int,
                                          ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                                          ctypes.c_ulong, ctypes.c_ulong]
        x.XInternAtom.restype = ctypes.c_ulong
        x.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
        x.XSetSelectionOwner.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
        x.XGetSelectionOwner.restype = ctypes.c_ulong
        x.XGetSelectionOwner.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
        x.XFlush.argtypes = [ctypes.c_void_p]
        x.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
        x.XPending.argtypes = [ctypes.c_void_p]
        x.XNextEvent.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        x.XConnectionNumber.argtypes = [ctypes.c_void_p]
        x.XChangeProperty.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong,
                                      ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
        x.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long, ctypes.c_void_p]
        x.XCloseDisplay.argtypes = [ctypes.c_void_p]
        self.dpy = x.XOpenDisplay(display.encode())
        if not self.dpy:
            raise RuntimeError("XOpenDisplay failed")
        root = x.XDefaultRootWindow(self.dpy)
        self.wins = [x.XCreateSimpleWindow(self.dpy, root, 0, 0, 1, 1, 0, 0, 0) for _ in range(2)]
        atom = lambda s: x.XInternAtom(self.dpy, s.encode(), 0)
        self.CLIPBOARD, self.TARGETS, self.UTF8 = atom("CLIPBOARD"), atom("TARGETS"), atom("UTF8_STRING")
        self.TIMESTAMP, self.ATOM, self.INTEGER = atom("TIMESTAMP"), 4, 19
        x.XSync(self.dpy, 0)
        self.fd = x.XConnectionNumber(self.dpy)
        self.turn = 0
        self.ev = (ctypes.c_long * 24)()

    def take(self):
        """SetSelectionOwner(CLIPBOARD) with CurrentTime from the other of two windows; flushed."""
        self.turn ^= 1
        self.x.XSetSelectionOwner(self.dpy, self.CLIPBOARD, self.wins[self.turn], 0)
        self.x.XFlush(self.dpy)

    def pump(self):
        """Answers pending SelectionRequests (TARGETS, UTF8_STRING; anything else refused)."""
        x, ev = self.x, self.ev
        while x.XPending(self.dpy):
            x.XNextEvent(self.dpy, ev)
            etype = ctypes.c_int.from_buffer(ev, 0).value
            if etype != 30:  # SelectionRequest
                continue
            # XSelectionRequestEvent: type, serial, send_event, display, owner, requestor,
            # selection, target, property, time (8-byte slots on LP64)
            requestor, selection, target, prop, tstamp = ev[5], ev[6], ev[7], ev[8], ev[9]
            if prop == 0:
                prop = target
            if target == self.TARGETS:
                atoms = (ctypes.c_ulong * 3)(self.TARGETS, self.TIMESTAMP, self.UTF8)
                x.XChangeProperty(self.dpy, requestor, prop, self.ATOM, 32, 0, atoms, 3)
            elif target == self.UTF8:
                data = ctypes.create_string_buffer(b"latency probe\n")
                x.XChangeProperty(self.dpy, requestor, prop, self.UTF8, 8, 0, data, 14)
            else:
                prop = 0
            reply = (ctypes.c_long * 24)()
            reply[0] = 31  # SelectionNotify; XSelectionEvent: type, serial, send_event, display,
            reply[4], reply[5], reply[6], reply[7], reply[8] = requestor, selection, target, prop, tstamp
            x.XSendEvent(self.dpy, requestor, 0, 0, reply)
            x.XFlush(self.dpy)

    def close(self):
        self.x.XCloseDisplay(self.dpy)


# ----------------------------------------------------------------------------------------------
# Helpers for the table


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(v, unit):
    if v is None:
        return "n/a"
    if unit == "ms":
        return f"{v:.2f} ms"
    if unit == "MB/s":
        return f"{v:,.0f} MB/s"
    if unit == "MiB":
        return f"{v:.1f} MiB"
    if unit == "%":
        return f"{v:.3f} %"
    if unit == "s":
        return f"{v:.2f} s"
    return f"{v} {unit}"


def machine_info():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = None
    try:
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) // 1024 // 1024
    except (OSError, ValueError):
        pass
    def version_of(pkg, fallback_cmd=None):
        try:
            r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True, text=True)
            if r.returncode == 0 and r.stdout:
                return r.stdout
        except OSError:
            pass
        if fallback_cmd:
            try:
                r = subprocess.run(fallback_cmd, capture_output=True, text=True)
                return (r.stdout + r.stderr).strip().splitlines()[0]
            except (OSError, IndexError):
                pass
        return "unknown"
    osname = "unknown"
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    osname = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "mem_gib": mem,
        "kernel": platform.release(),
        "os": osname,
        "xvfb": version_of("xvfb"),
        "xclip": version_of("xclip", ["xclip", "-version"]),
        "xsel": version_of("xsel", ["xsel", "--version"]),
        "python": platform.python_version(),
    }


def git_rev():
    try:
        rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no", "Sources"],
                               capture_output=True, text=True).stdout.strip()
        return rev + ("+dirty Sources" if dirty else "")
    except OSError:
        return "unknown"


# ----------------------------------------------------------------------------------------------
# The benchmark


def interleaved(cases, runs, warmup, fn):
    """cases: {name: argv}. Runs fn(argv) warmup+runs times per case, interleaved, rotating the
    order each round. Returns {name: [results of the timed runs]}."""
    names = list(cases)
    out = {n: [] for n in names}
    for i in range(warmup + runs):
        k = i % len(names)
        for n in names[k:] + names[:k]:
            r = fn(cases[n])
            if i >= warmup:
                out[n].append(r)
    return out


def main():
    global _tmpdir, XCLIP, XSEL
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer runs (for trying the script)")
    ap.add_argument("--no-1g", action="store_true", help="skip the 1 GiB xpb-to-xpb case")
    ap.add_argument("--small-runs", type=int, default=30)
    ap.add_argument("--big-runs", type=int, default=7)
    ap.add_argument("--xsel-cap", type=float, default=20.0,
                    help="seconds an xsel-served 64 MiB read may take before it is stopped (default 20)")
    args = ap.parse_args()
    if args.quick:
        args.small_runs, args.big_runs = 10, 3

    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, _on_signal)

    xpb = os.environ.get("XPB_BIN") or os.path.join(ROOT, ".build", "release", "xpb")
    if not os.path.isabs(xpb):
        xpb = os.path.join(os.getcwd(), xpb)
    if not os.access(xpb, os.X_OK):
        sys.exit(f"bench: no xpb binary at {xpb} (build with `swift build -c release` or set XPB_BIN)")
    XCLIP, XSEL = which("xclip"), which("xsel")

    started = datetime.datetime.now(datetime.timezone.utc)
    _tmpdir = tempfile.mkdtemp(prefix="xpb-bench-")
    xvfb, display = start_xvfb()
    os.environ["DISPLAY"] = display
    print(f"bench: private Xvfb on {display} (pid {xvfb.pid}), xpb = {xpb}", flush=True)

    machine = machine_info()
    load_start = open("/proc/loadavg").read().split()[:3]
    xpb_version = run_output([xpb, "--version"])[1].decode().strip()
    rows = []   # dicts: group, case, tool, unit, median, runs, better ("lower"/"higher"), peer (bool)
    notes = []

    def add(group, case, tool, unit, values, better, peer, extra=None):
        row = {"group": group, "case": case, "tool": tool, "unit": unit, "median": median(values),
               "runs": values, "n": len([v for v in values if v is not None]), "better": better,
               "is_peer": peer}
        if extra:
            row.update(extra)
        rows.append(row)
        return row

    def progress(msg):
        print(f"  .. {msg}", flush=True)

    # data
    blob64 = os.path.join(_tmpdir, "blob64")
    text64 = os.path.join(_tmpdir, "text64")
    small = os.path.join(_tmpdir, "small.txt")
    rnd = os.urandom(64 * MiB)
    with open(blob64, "wb") as f:
        f.write(rnd)
    import base64
    with open(text64, "wb") as f:
        f.write(base64.encodebytes(rnd)[:64 * MiB])   # NUL-free ASCII text, 76-char lines
    with open(small, "wb") as f:
        f.write(SMALL_TEXT)
    sha_blob64 = hashlib.sha256(rnd).hexdigest()
    sha_text64 = hashlib.sha256(open(text64, "rb").read()).hexdigest()
    del rnd

    ms = lambda argv: (lambda r: r[0] * 1000 if r[1] == 0 else None)(spawn_time_blocking(argv))

    # ---- 1. small text paste, whole process wall time --------------------------------------
    progress("1. small text paste")
    readers = {
        "xpb paste": [xpb, "paste"],
        "xsel -b -o": [XSEL, "-b", "-o"],
        "xclip -o -selection clipboard": [XCLIP, "-o", "-selection", "clipboard"],
    }
    with Owner("xclip", [XCLIP, "-quiet", "-selection", "clipboard", "-i", small]) as o:
        for name, argv in readers.items():
            rc, out, err = run_output(argv)
            if out != SMALL_TEXT:
                notes.append(f"1: {name} printed {out[:60]!r} (rc {rc}, {err[:80]!r}) instead of the copied text")
        res = interleaved(readers, args.small_runs, 3, ms)
    for name, vals in res.items():
        add("1. small text paste (xclip owner, 27 B)", name, name, "ms", vals, "lower", name != "xpb paste")
    progress("1b. start-up only")
    startup = {
        "xpb --version": [xpb, "--version"],
        "xsel --version": [XSEL, "--version"],
        "xclip -version": [XCLIP, "-version"],
    }
    res = interleaved(startup, args.small_runs, 3, ms)
    for name, vals in res.items():
        add("1b. process start-up, no X (--version)", name, name, "ms", vals, "lower", not name.startswith("xpb"))

    # ---- 1c. small text copy: until the command returns (each takes the selection from the last)
    progress("1c. small text copy")
    compat = os.path.join(_tmpdir, "compat")
    os.makedirs(compat)
    os.symlink(xpb, os.path.join(compat, "xsel"))
    copiers = {
        "xpb copy": [xpb, "copy"],
        "xpb as xsel -b -i": [os.path.join(compat, "xsel"), "-b", "-i"],
        "xsel -b -i": [XSEL, "-b", "-i"],
        "xclip -selection clipboard": [XCLIP, "-selection", "clipboard"],
    }
    copy_ms = lambda argv: (lambda r: r[0] * 1000 if r[1] == 0 else None)(spawn_time_from(argv, small))
    res = interleaved(copiers, args.small_runs, 3, copy_ms)
    for name, argv in copiers.items():
        subprocess.run(argv, stdin=open(small, "rb"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10)
        rc, out, err = run_output([XCLIP, "-o", "-selection", "clipboard"])
        if out != SMALL_TEXT:
            notes.append(f"1c: after {name}, xclip -o printed {out[:60]!r} (rc {rc}) instead of the copied text")
    subprocess.run([XSEL, "-b", "-c"], timeout=10)
    for name, vals in res.items():
        add("1c. small text copy (27 B from stdin, until it returns)", name, name, "ms", vals, "lower",
            not name.startswith("xpb"))

    # ---- 2. 64 MiB binary read from an xclip owner -----------------------------------------
    progress("2. 64 MiB read from an xclip owner")
    mbps = lambda size: (lambda argv: (lambda r: size / r[0] / 1e6 if r[1] == 0 and r[0] else None)(
        spawn_time(argv, timeout=120)))
    readers = {
        "xpb paste -t " + BIN_TYPE: [xpb, "paste", "-t", BIN_TYPE],
        "xclip -o -t " + BIN_TYPE: [XCLIP, "-o", "-selection", "clipboard", "-t", BIN_TYPE],
    }
    rss_reader = {}
    with Owner("xclip", [XCLIP, "-quiet", "-selection", "clipboard", "-t", BIN_TYPE, "-i", blob64]) as o:
        for name, argv in readers.items():
            rc, n, sha = digest_of_output(argv)
            if rc != 0 or sha != sha_blob64:
                notes.append(f"2: {name}: rc {rc}, {n} bytes, content {'matches' if sha == sha_blob64 else 'DIFFERS'}")
        res = interleaved(readers, args.big_runs, 1, mbps(64 * MiB))
        for name, argv in readers.items():
            rss_reader[name] = [peak_rss_kib(argv) for _ in range(3)]
    for name, vals in res.items():
        add("2. 64 MiB binary read from an xclip owner", name, name, "MB/s", vals, "higher",
            not name.startswith("xpb"))

    # ---- 3. 64 MiB served to xclip -o --------------------------------------------------------
    progress("3. 64 MiB served to xclip -o")
    reader_bin = [XCLIP, "-o", "-selection", "clipboard", "-t", BIN_TYPE]
    owner_hwm = {}
    owners = [
        ("xpb copy --foreground", [xpb, "copy", "--foreground", "-t", BIN_TYPE, blob64], None, reader_bin, sha_blob64),
        ("xclip -quiet -i", [XCLIP, "-quiet", "-selection", "clipboard", "-t", BIN_TYPE, "-i", blob64], None,
         reader_bin, sha_blob64),
    ]
    for label, argv, stdin_path, reader, sha in owners:
        with Owner(label, argv, stdin_path) as o:
            rc, n, got = digest_of_output(reader)
            if rc != 0 or got != sha:
                notes.append(f"3: {label} -> xclip -o: rc {rc}, {n} bytes, content "
                             f"{'matches' if got == sha else 'DIFFERS'}")
            vals = [mbps(64 * MiB)(reader) for _ in range(args.big_runs)]
            owner_hwm[label] = o.close()
        add("3. 64 MiB served to `xclip -o -t " + BIN_TYPE + "`", label + " (binary)", label, "MB/s", vals,
            "higher", not label.startswith("xpb"))
    # xsel serves only STRING/TEXT (from stdin); text data, read as STRING; capped
    reader_str = [XCLIP, "-o", "-selection", "clipboard", "-t", "STRING"]
    with Owner("xsel -n -b -i", [XSEL, "-n", "-b", "-i"], text64) as o:
        vals = []
        capped = False
        for i in range(min(3, args.big_runs)):
            t, rc = spawn_time(reader_str, timeout=args.xsel_cap)
            if t is None:
                capped = True
                notes.append(f"3: the xsel-served read did not finish within {args.xsel_cap:.0f} s; stopped")
                break
            vals.append(64 * MiB / t / 1e6 if rc == 0 else None)
        owner_hwm["xsel -n -b -i (text, STRING)"] = o.close()
    add("3. 64 MiB served to `xclip -o` (xsel: text, -t STRING)", "xsel -n -b -i (text, STRING; 4000 B chunks)",
        "xsel -n -b -i", "MB/s", vals, "higher", True, {"capped": capped})
    # xpb serving the same text as STRING, for a like-for-like look at the xsel row
    with Owner("xpb copy --foreground (text)", [xpb, "copy", "--foreground", text64]) as o:
        rc, n, got = digest_of_output(reader_str)
        if rc != 0 or got != sha_text64:
            notes.append(f"3: xpb text owner -> xclip -o -t STRING: rc {rc}, {n} bytes, content "
                         f"{'matches' if got == sha_text64 else 'DIFFERS'}")
        vals = [mbps(64 * MiB)(reader_str) for _ in range(min(3, args.big_runs))]
        owner_hwm["xpb copy --foreground (text, STRING)"] = o.close()
    add("3. 64 MiB served to `xclip -o` (xsel: text, -t STRING)", "xpb copy --foreground (text, STRING)",
        "xpb copy --foreground", "MB/s", vals, "higher", False, {"informative": True})

    # ---- 4. xpb to xpb ----------------------------------------------------------------------
    progress("4. xpb to xpb, 64 MiB")
    reader_xpb = [xpb, "paste", "-t", BIN_TYPE]
    with Owner("xpb", [xpb, "copy", "--foreground", "-t", BIN_TYPE, blob64]) as o:
        vals = [mbps(64 * MiB)(reader_xpb) for _ in range(args.big_runs)]
        xpb_reader_rss_from_xpb = [peak_rss_kib(reader_xpb) for _ in range(3)]
        owner_hwm["xpb copy --foreground (64 MiB, after row 4)"] = o.close()
    add("4. xpb to xpb", "64 MiB", "xpb paste", "MB/s", vals, "higher", False)
    if not args.no_1g:
        progress("4. xpb to xpb, 1 GiB")
        gib = os.path.join(_tmpdir, "blob1g")
        with open(blob64, "rb") as f:
            chunk = f.read()
        with open(gib, "wb") as f:
            for _ in range(16):
                f.write(chunk)
        sha_1g = hashlib.sha256()
        for _ in range(16):
            sha_1g.update(chunk)
        sha_1g = sha_1g.hexdigest()
        del chunk
        with Owner("xpb 1 GiB", [xpb, "copy", "--foreground", "-t", BIN_TYPE, gib], ready_timeout=120) as o:
            rc, n, got = digest_of_output(reader_xpb, timeout=300)
            if rc != 0 or got != sha_1g:
                notes.append(f"4: xpb -> xpb 1 GiB: rc {rc}, {n} bytes, content {'matches' if got == sha_1g else 'DIFFERS'}")
            vals = [mbps(1024 * MiB)(reader_xpb) for _ in range(min(3, args.big_runs))]
            owner_hwm["xpb copy --foreground (1 GiB)"] = o.close()
        os.unlink(gib)
        add("4. xpb to xpb", "1 GiB", "xpb paste", "MB/s", vals, "higher", False)
    else:
        add("4. xpb to xpb", "1 GiB", "xpb paste", "MB/s", [], "higher", False, {"skipped": "--no-1g"})

    # ---- 5. peak RSS --------------------------------------------------------------------------
    kib2mib = lambda v: v / 1024 if v is not None else None
    g5r = "5. peak RSS, reader of 64 MiB (xclip owner)"
    for name, vals in rss_reader.items():
        add(g5r, name, name, "MiB", [kib2mib(v) for v in vals], "lower", not name.startswith("xpb"),
            {"method": "/usr/bin/time -f %M" if GNU_TIME else "unavailable (no GNU time)"})
    add(g5r, "xpb paste (xpb owner)", "xpb paste", "MiB", [kib2mib(v) for v in xpb_reader_rss_from_xpb], "lower",
        False, {"informative": True, "method": "/usr/bin/time -f %M"})
    g5o = "5. peak RSS, owner of 64 MiB (after serving)"
    for name, v in owner_hwm.items():
        if "1 GiB" in name:
            continue
        add(g5o, name, name, "MiB", [kib2mib(v)], "lower", not name.startswith("xpb"),
            {"method": "VmHWM", "informative": "text" in name or "row 4" in name})
    if "xpb copy --foreground (1 GiB)" in owner_hwm:
        add(g5o.replace("64 MiB", "1 GiB"), "xpb copy --foreground (1 GiB)", "xpb copy", "MiB",
            [kib2mib(owner_hwm["xpb copy --foreground (1 GiB)"])], "lower", False,
            {"method": "VmHWM", "informative": True})

    # ---- 6. watcher -----------------------------------------------------------------------------
    progress("6. xpb watch")
    help_out = run_output([xpb, "watch", "--help"])[1].decode(errors="replace")
    watch = {"available": "USAGE: xpb watch" in help_out}
    if watch["available"]:
        watch.update(measure_watch(xpb, display, args.small_runs))
    else:
        watch["reason"] = "n/a (xpb watch not built)"
    g6 = "6. watcher (xpb watch --json)"
    add(g6, "latency SetSelectionOwner -> line", "xpb watch", "ms", watch.get("latencies_ms", []), "lower", False,
        {"na": None if watch["available"] else watch["reason"], "error": watch.get("error")})
    add(g6, "idle CPU over %.0f s" % watch.get("idle_seconds", 3), "xpb watch", "%",
        [watch["idle_cpu_percent"]] if "idle_cpu_percent" in watch else [], "lower", False,
        {"na": None if watch["available"] else watch["reason"], "idle_wakeups": watch.get("idle_wakeups"),
         "idle_cpu_ms": watch.get("idle_cpu_ms")})

    # ---- 7. history ----------------------------------------------------------------------------
    progress("7. xpb history --json over 1000 entries")
    g7 = "7. history (1000 entries)"
    writer = os.path.join(os.path.dirname(xpb), "history-writer")
    help_out = run_output([xpb, "history", "--help"])[1].decode(errors="replace")
    if "USAGE: xpb history" in help_out and os.access(writer, os.X_OK):
        hdir = os.path.join(_tmpdir, "history")
        subprocess.run([writer, hdir, "1000"], check=True)
        listing = [xpb, "history", "--json", "--directory", hdir]
        if len(json.loads(run_output(listing)[1])) != 1000:
            notes.append("xpb history --json did not list 1000 entries")
        times = interleaved({"json": listing}, args.small_runs, 3, lambda a: spawn_time_blocking(a)[0])
        add(g7, "xpb history --json", "xpb", "ms", [t * 1000 for t in times["json"]], "lower", False)
    else:
        add(g7, "xpb history --json", "xpb", "ms", [], "lower", False,
            {"na": "n/a (xpb history or history-writer not built)"})

    # ---- 8. clipboard manager ------------------------------------------------------------------
    progress("8. xpb daemon: snapshot latency, RSS, restart; the Qt hand-off against xfce4-clipman")
    g8 = "8. clipboard manager"
    daemon = measure_daemon(xpb, display, max(3, args.big_runs))
    for key, case, unit in (("snap_1m_ms", "snapshot of a 10-representation 1 MiB copy (change -> kept)", "ms"),
                            ("snap_64m_ms", "snapshot of a 64 MiB copy (change -> kept)", "ms"),
                            ("restore_ms", "content back after a restart (start -> CLIPBOARD owned)", "ms"),
                            ("rss_idle_mib", "daemon RSS, idle after start", "MiB"),
                            ("hwm_64m_mib", "daemon peak RSS, 64 MiB copies read while earlier ones are written", "MiB"),
                            ("rss_64m_settled_mib", "daemon RSS holding the 64 MiB entry, history written", "MiB"),
                            ("idle_cpu_ms", "daemon CPU over 3 s idle", "ms")):
        if daemon.get(key) is not None:
            # no peer measures these: no ratio
            add(g8, case, "xpb daemon", unit, daemon[key] if isinstance(daemon[key], list) else [daemon[key]],
                "lower", False, {"informative": True})
    for tool, result in daemon.get("qt_handoff", {}).items():
        add(g8, "Qt5 copies HTML + text and exits: seconds until it has exited", tool, "s",
            [result["seconds"]] if result.get("seconds") is not None else [], "lower", tool != "xpb daemon",
            {"kept": result.get("kept"), "na": result.get("na")})
    for note in daemon.get("notes", []):
        notes.append("8: " + note)

    # ---- ratios -------------------------------------------------------------------------------
    for r in rows:
        r["vs_best_peer"] = None
        if r["is_peer"] or r["median"] is None or r.get("informative"):
            continue
        peers = [p for p in rows if p["group"] == r["group"] and p["is_peer"] and p["median"]
                 and not ("owner" in r["group"] and "text" in p["case"])]
        if r["group"].startswith("3.") and "STRING" in r["group"]:
            peers = [p for p in rows if p["group"].startswith("3.") and p["is_peer"] and p["median"]]
        if not peers:
            continue
        if r["better"] == "lower":
            best = min(peers, key=lambda p: p["median"])
            r["vs_best_peer"] = best["median"] / r["median"]
        else:
            best = max(peers, key=lambda p: p["median"])
            r["vs_best_peer"] = r["median"] / best["median"]
        r["best_peer"] = best["tool"]

    # ---- goals --------------------------------------------------------------------------------
    def find(group_prefix, case_prefix):
        for r in rows:
            if r["group"].startswith(group_prefix) and r["case"].startswith(case_prefix):
                return r["median"]
        return None

    goals = []

    def goal(text, value, holds, detail):
        goals.append({"goal": text, "holds": holds, "value": value, "detail": detail})

    xpb_small, xsel_small = find("1.", "xpb paste"), find("1.", "xsel")
    goal("small paste no slower than `xsel -b -o`", xpb_small,
         None if None in (xpb_small, xsel_small) else xpb_small <= xsel_small,
         f"xpb {fmt(xpb_small, 'ms')} vs xsel {fmt(xsel_small, 'ms')}")
    xpb_copy, xsel_copy = find("1c.", "xpb copy"), find("1c.", "xsel")
    goal("small copy no slower than `xsel -b -i`", xpb_copy,
         None if None in (xpb_copy, xsel_copy) else xpb_copy <= xsel_copy,
         f"xpb {fmt(xpb_copy, 'ms')} vs xsel {fmt(xsel_copy, 'ms')}")
    xpb_r, xclip_r = find("2.", "xpb"), find("2.", "xclip")
    goal("64 MiB read >= 3x faster than `xclip -o`", xpb_r,
         None if None in (xpb_r, xclip_r) else xpb_r >= 3 * xclip_r,
         f"xpb {fmt(xpb_r, 'MB/s')} vs xclip {fmt(xclip_r, 'MB/s')} = {xpb_r / xclip_r:.2f}x" if xpb_r and xclip_r else "")
    x64, x1g = find("4.", "64 MiB"), find("4.", "1 GiB")
    vals = [v for v in (x64, x1g) if v is not None]
    goal(">= 1 GB/s xpb to xpb (64 MiB and 1 GiB)", min(vals) if vals else None,
         (min(vals) >= 1000) if vals else None,
         f"64 MiB {fmt(x64, 'MB/s')}, 1 GiB {fmt(x1g, 'MB/s')}")
    s_xpb, s_xclip = find("3.", "xpb copy --foreground (binary)"), find("3.", "xclip -quiet -i (binary)")
    goal("serving 64 MiB at least as fast as an xclip owner", s_xpb,
         None if None in (s_xpb, s_xclip) else s_xpb >= s_xclip,
         f"xpb owner {fmt(s_xpb, 'MB/s')} vs xclip owner {fmt(s_xclip, 'MB/s')}")
    rr = find("5. peak RSS, reader", "xpb paste -t")
    goal("`xpb paste` peak RSS < 24 MiB for 64 MiB", rr, None if rr is None else rr < 24, fmt(rr, "MiB"))
    ro = find("5. peak RSS, owner", "xpb copy --foreground")
    goal("owner RSS < payload + 16 MiB (80 MiB)", ro, None if ro is None else ro < 64 + 16, fmt(ro, "MiB"))
    lat = find("6.", "latency")
    goal("watcher latency < 5 ms", lat, None if lat is None else lat < 5,
         fmt(lat, "ms") if watch["available"] else watch["reason"])
    idle = watch.get("idle_cpu_ms")
    goal("zero CPU while idle", idle, None if idle is None else (idle < 1.0 and not watch.get("idle_wakeups")),
         (f"{idle:.2f} ms CPU, {watch.get('idle_wakeups')} wake-ups in {watch.get('idle_seconds')} s"
          if idle is not None else watch.get("reason", watch.get("error", "n/a"))))

    hj = find("7.", "xpb history --json")
    goal("`xpb history --json` over 1000 entries < 30 ms", hj, None if hj is None else hj < 30, fmt(hj, "ms"))

    s1, s64, rs = find("8.", "snapshot of a 10"), find("8.", "snapshot of a 64"), find("8.", "content back")
    goal("daemon: 10-representation 1 MiB snapshot within 20 ms of the change", s1, None if s1 is None else s1 < 20, fmt(s1, "ms"))
    goal("daemon: 64 MiB snapshot within 150 ms of the change", s64, None if s64 is None else s64 < 150, fmt(s64, "ms"))
    goal("daemon: content back within 100 ms of a restart", rs, None if rs is None else rs < 100, fmt(rs, "ms"))
    r64 = find("8.", "daemon RSS holding")   # once the history has the entry
    goal("daemon RSS <= 30 MiB + the current entry (94 MiB with 64 MiB)", r64, None if r64 is None else r64 <= 94, fmt(r64, "MiB"))
    dc = find("8.", "daemon CPU")
    goal("daemon: zero CPU while idle", dc, None if dc is None else dc < 1.0, fmt(dc, "ms"))

    # ---- report -------------------------------------------------------------------------------
    finished = datetime.datetime.now(datetime.timezone.utc)
    command = "make bench" if os.environ.get("MAKELEVEL") else "XPB_BIN=%s python3 bench/run.py %s" % (
        os.path.relpath(xpb, ROOT), " ".join(sys.argv[1:]))
    report = {
        "started": started.isoformat(timespec="seconds"),
        "duration_s": round((finished - started).total_seconds(), 1),
        "command": command,
        "xpb": {"binary": xpb, "version": xpb_version, "repo": git_rev()},
        "machine": machine,
        "loadavg": {"start": load_start, "end": open("/proc/loadavg").read().split()[:3]},
        "display": {"server": "Xvfb " + machine["xvfb"], "args": "-displayfd -nolisten tcp -noreset -screen 0 640x480x24"},
        "method": {
            "wall_time": "posix_spawn + waitpid around the whole reader process, stdout to /dev/null, median",
            "small_runs": args.small_runs, "big_runs": args.big_runs,
            "MB": "10^6 bytes; 64 MiB = 67.1 MB",
            "reader_rss": "/usr/bin/time -f %M (max RSS), median of 3",
            "owner_rss": "VmHWM from /proc/PID/status after serving, before SelectionClear",
            "watch_latency": WATCH_METHOD,
        },
        "rows": rows,
        "goals": goals,
        "notes": notes,
        "watch": watch,
    }
    print_report(report)
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    stamp = started.strftime("%Y%m%dT%H%M%SZ")
    for name in ("latest.json", f"{stamp}.json"):
        with open(os.path.join(HERE, "results", name), "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")
    print(f"\nwrote bench/results/latest.json and bench/results/{stamp}.json ({report['duration_s']} s)")


def measure_daemon(xpb, display, runs):
    """xpb daemon on this Xvfb: how soon a new owner's content is kept, RSS, restart, and the Qt
    exit hand-off side by side with xfce4-clipman when it runs here."""
    out = {"notes": []}
    state = os.path.join(_tmpdir, "daemon-state")
    os.makedirs(state, exist_ok=True)
    env = dict(os.environ, XDG_STATE_HOME=state)
    try:
        probe = XlibOwner(display)   # for XGetSelectionOwner round trips only
    except Exception as e:  # noqa: BLE001
        out["notes"].append(f"no ctypes Xlib: {e}")
        return out

    def owner():
        return probe.x.XGetSelectionOwner(probe.dpy, probe.CLIPBOARD)

    class Daemon:
        def __init__(self):
            self.p = start([xpb, "daemon"], stderr=subprocess.PIPE, env=env, bufsize=0)
            self.buf = b""
            self.log = []

        def line(self, containing, timeout=10.0):
            """Time at which a stderr line containing `containing` was read, and the line."""
            deadline = time.perf_counter() + timeout
            while True:
                while b"\n" in self.buf:
                    raw, self.buf = self.buf.split(b"\n", 1)
                    text = raw.decode(errors="replace")
                    self.log.append(text)
                    if any(c in text for c in ((containing,) if isinstance(containing, str) else containing)):
                        return time.perf_counter(), text
                left = deadline - time.perf_counter()
                if left <= 0:
                    return None, None
                if select.select([self.p.stderr], [], [], left)[0]:
                    chunk = os.read(self.p.stderr.fileno(), 65536)
                    if not chunk:
                        return None, None
                    self.buf += chunk

        def stop(self):
            _stop(self.p, grace=30)
            forget(self.p)

    def snapshot_latency(files, n):
        lat, own = [], []
        for i in range(n + 1):
            before = owner()
            argv = [xpb, "copy", "--foreground"]
            for target, path in files:
                argv += ["-t", f"{target}={path}"]
            cp = start(argv)
            deadline = time.perf_counter() + 10
            while owner() == before and time.perf_counter() < deadline:
                pass
            t0 = time.perf_counter()
            t1, text = d.line("kept CLIPBOARD of", timeout=30)
            if t1 is None:
                out["notes"].append(f"no 'kept' line for {len(files)} representations")
                break
            if i > 0:   # the first run warms the page cache and the daemon's heap
                lat.append((t1 - t0) * 1000)
                try:
                    own.append(float(text.rsplit(" in ", 1)[1].split()[0]))
                except (IndexError, ValueError):
                    pass
            owners.append(cp)
        return lat, own

    owners = []
    d = Daemon()
    try:
        if d.line("managing the clipboard")[0] is None:
            out["notes"].append("xpb daemon did not start: " + " | ".join(d.log))
            return out
        time.sleep(0.2)
        out["rss_idle_mib"] = vm_rss_kib(d.p.pid) / 1024
        parts = []
        for i in range(10):
            path = os.path.join(_tmpdir, f"rep{i}")
            with open(path, "wb") as f:
                f.write(os.urandom(MiB // 10))
            parts.append((f"application/x-bench-{i}", path))
        out["snap_1m_ms"], out["snap_1m_own_ms"] = snapshot_latency(parts, runs)
        big = os.path.join(_tmpdir, "blob64")
        out["snap_64m_ms"], out["snap_64m_own_ms"] = snapshot_latency([(BIN_TYPE, big)], max(3, runs // 2))
        time.sleep(0.3)
        out["rss_64m_mib"] = vm_rss_kib(d.p.pid) / 1024
        out["hwm_64m_mib"] = vm_hwm_kib(d.p.pid) / 1024
        # idle CPU
        def cpu_ns(pid):
            total = 0
            for tid in os.listdir(f"/proc/{pid}/task"):
                try:
                    with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                        total += int(f.read().split()[0])
                except OSError:
                    pass
            return total
        # the history writer may still be hashing and syncing the 64 MiB entries: wait for quiet
        quiet_deadline = time.perf_counter() + 60
        while time.perf_counter() < quiet_deadline:
            c0 = cpu_ns(d.p.pid)
            time.sleep(0.5)
            if cpu_ns(d.p.pid) - c0 < 1e6:
                break
        out["rss_64m_settled_mib"] = vm_rss_kib(d.p.pid) / 1024
        c0 = cpu_ns(d.p.pid)
        time.sleep(3.0)
        out["idle_cpu_ms"] = (cpu_ns(d.p.pid) - c0) / 1e6
        # restart: the 1 MiB entry is the newest; nobody owns CLIPBOARD while no daemon runs
        restore = []
        copy = start([xpb, "copy", "--foreground", "-t", f"{parts[0][0]}={parts[0][1]}"])
        owners.append(copy)
        d.line("kept CLIPBOARD of")
        for i in range(runs + 1):
            if owners:
                # xpb copy hands its content to the daemon as it exits (or the daemon takes it over).
                for cp in owners:
                    _stop(cp)
                    forget(cp)
                owners.clear()
                d.line(("took CLIPBOARD over", "saved CLIPBOARD for"), timeout=5)
            d.stop()
            deadline = time.perf_counter() + 5
            while owner() != 0 and time.perf_counter() < deadline:
                time.sleep(0.005)
            t0 = time.perf_counter()
            d = Daemon()
            while owner() == 0 and time.perf_counter() - t0 < 5:
                pass
            t1 = time.perf_counter()
            if i > 0:
                restore.append((t1 - t0) * 1000)
        rc, got, _ = run_output([xpb, "paste", "-t", parts[0][0]])
        if got != open(parts[0][1], "rb").read():
            out["notes"].append("after a restart the restored entry differs from the copy")
        out["restore_ms"] = restore
    finally:
        for cp in owners:
            _stop(cp)
            forget(cp)
        d.stop()
    out["qt_handoff"] = qt_handoff(xpb, env, probe)
    probe.close()
    return out


def vm_rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


QT_COPY = """
import sys, time
from PyQt5.QtCore import QMimeData, QTimer
from PyQt5.QtWidgets import QApplication
app = QApplication(["bench"])
m = QMimeData(); m.setHtml("<b>bench html</b>"); m.setText("bench text")
app.clipboard().setMimeData(m)
QTimer.singleShot(200, app.quit)
app.exec_()
sys.stdout.write("%.6f\\n" % time.perf_counter()); sys.stdout.flush()
del app
"""


def qt_handoff(xpb, env, probe):
    """A Qt5 program copies HTML + text and quits: how long its exit takes (Qt waits for the
    manager's SAVE_TARGETS answer, 5 s at most) and what stays, with xpb daemon and with
    xfce4-clipman (Debian's, under dbus-run-session) as the manager."""
    results = {}
    if subprocess.run(["/usr/bin/python3", "-c", "import PyQt5"], capture_output=True).returncode != 0:
        return {"xpb daemon": {"na": "python3-pyqt5 not installed"}}
    managers = {"xpb daemon": [xpb, "daemon"]}
    clipman = shutil.which("xfce4-clipman")
    if clipman and shutil.which("dbus-run-session"):
        managers["xfce4-clipman"] = ["dbus-run-session", "--", clipman]
    else:
        results["xfce4-clipman"] = {"na": "xfce4-clipman not installed"}
    script = os.path.join(_tmpdir, "qt_copy.py")
    with open(script, "w") as f:
        f.write(QT_COPY)
    manager_atom = probe.x.XInternAtom(probe.dpy, b"CLIPBOARD_MANAGER", 0)

    def stop_group(m):
        # dbus-run-session leaves xfce4-clipman and its buses behind: end the whole group.
        try:
            os.killpg(m.pid, signal.SIGTERM)
            m.wait(timeout=5)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(m.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        forget(m)

    for name, argv in managers.items():
        ensure_no_owner()
        m = start(argv, env=env, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.perf_counter() + 10
        while probe.x.XGetSelectionOwner(probe.dpy, manager_atom) == 0 and time.perf_counter() < deadline:
            time.sleep(0.05)
        if probe.x.XGetSelectionOwner(probe.dpy, manager_atom) == 0:
            results[name] = {"na": "it never took CLIPBOARD_MANAGER (needs a session?)"}
            stop_group(m)
            continue
        times = []
        kept = None
        for _ in range(3):
            t0 = time.perf_counter()
            r = subprocess.run(["/usr/bin/python3", script], capture_output=True, env=env, timeout=30)
            times.append(time.perf_counter() - t0)
            time.sleep(1.0)   # time for the manager to put back what it saved
            kept = []
            for t in ("text/html", "UTF8_STRING"):
                rc, got, _ = run_output([xpb, "paste", "-t", t])
                if rc == 0 and got:
                    kept.append(t)
        results[name] = {"seconds": median(times), "kept": kept,
                         "qt_warned": b"clipboard manager" in r.stderr}
        stop_group(m)
        # its CLIPBOARD_MANAGER must be free before the next manager starts
        deadline = time.perf_counter() + 5
        while probe.x.XGetSelectionOwner(probe.dpy, manager_atom) != 0 and time.perf_counter() < deadline:
            time.sleep(0.05)
    return results


WATCH_METHOD = (
    "this script owns CLIPBOARD itself through libX11 (ctypes) from one of two windows and answers "
    "TARGETS/UTF8_STRING at once; t0 = just before XSetSelectionOwner+XFlush, t1 = when the JSON line "
    "is read from `xpb watch --json`'s stdout pipe (select, no polling); latency = t1 - t0, median. "
    "Idle CPU: utime+stime of all threads from /proc/PID/task/*/schedstat and voluntary+involuntary "
    "context switches over 3 s with no selection change.")


def measure_watch(xpb, display, runs):
    out = {}
    try:
        owner = XlibOwner(display)
    except Exception as e:  # noqa: BLE001
        return {"error": f"ctypes Xlib owner: {e}"}
    p = start([xpb, "watch", "--json"], stdout=subprocess.PIPE, bufsize=0)
    fd = p.stdout.fileno()
    buf = b""

    def wait_line(timeout):
        nonlocal buf
        deadline = time.perf_counter() + timeout
        while b"\n" not in buf:
            owner.pump()
            left = deadline - time.perf_counter()
            if left <= 0:
                return None, None
            rd = select.select([fd, owner.fd], [], [], min(left, 0.05))[0]
            if fd in rd:
                chunk = os.read(fd, 65536)
                if not chunk:
                    return None, None
                buf += chunk
        t = time.perf_counter()
        line, buf = buf.split(b"\n", 1)
        return t, line

    try:
        time.sleep(0.3)  # let it connect and select XFixes input
        lat = []
        lines = []
        misses = 0
        for i in range(runs + 2):
            owner.pump()
            t0 = time.perf_counter()
            owner.take()
            t1, line = wait_line(2.0)
            if t1 is None:
                misses += 1
                if misses >= 3:
                    out["error"] = "no line within 2 s after SetSelectionOwner (stdout buffered on a pipe?)"
                    break
                continue
            lines.append(line.decode(errors="replace"))
            if i >= 2:
                lat.append((t1 - t0) * 1000)
            # drain anything else it prints (e.g. a second event) and let it settle
            end = time.perf_counter() + 0.03
            while time.perf_counter() < end:
                owner.pump()
                time.sleep(0.002)
        out["latencies_ms"] = lat
        out["sample_line"] = lines[-1] if lines else None
        out["misses"] = misses
        # idle CPU
        def cpu_and_switches(pid):
            cpu_ns, sw = 0, 0
            for tid in os.listdir(f"/proc/{pid}/task"):
                try:
                    with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                        cpu_ns += int(f.read().split()[0])
                    with open(f"/proc/{pid}/task/{tid}/status") as f:
                        for l in f:
                            if l.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                                sw += int(l.split()[1])
                except OSError:
                    pass
            return cpu_ns, sw
        time.sleep(0.5)
        owner.pump()
        idle_s = 3.0
        c0, s0 = cpu_and_switches(p.pid)
        time.sleep(idle_s)
        c1, s1 = cpu_and_switches(p.pid)
        out["idle_seconds"] = idle_s
        out["idle_cpu_ms"] = (c1 - c0) / 1e6
        out["idle_cpu_percent"] = (c1 - c0) / 1e9 / idle_s * 100
        out["idle_wakeups"] = s1 - s0
        out["threads"] = len(os.listdir(f"/proc/{p.pid}/task"))
    finally:
        _stop(p)
        forget(p)
        owner.close()
    return out


def print_report(rep):
    m = rep["machine"]
    print()
    print("xpb benchmark (issue 5) -- medians; 'vs best peer' > 1.00x means xpb is better")
    print(f"machine: {m['nproc']} CPU ({m['cpu']}), {m['mem_gib']} GiB, Linux {m['kernel']}, {m['os']}")
    print(f"X server: Xvfb {m['xvfb']} (private, {rep['display']['args']}); "
          f"xclip {m['xclip']}, xsel {m['xsel']}")
    print(f"xpb: {rep['xpb']['version']} (repo at {rep['xpb']['repo']}) {rep['xpb']['binary']}")
    print(f"load average: {' '.join(rep['loadavg']['start'])} at start, {' '.join(rep['loadavg']['end'])} at end")
    print(f"reproduce: {rep['command']}   (runs: small {rep['method']['small_runs']}, big {rep['method']['big_runs']})")
    print()
    w_case = max(len(r["case"]) for r in rep["rows"]) + 2
    header = f"{'case':<{w_case}}{'median':>14}{'min':>12}{'max':>12}{'runs':>6}  vs best peer"
    group = None
    for r in rep["rows"]:
        if r["group"] != group:
            group = r["group"]
            print(group)
            print("  " + header)
        vals = [v for v in r["runs"] if v is not None]
        if r.get("na"):
            print(f"  {r['case']:<{w_case}}{r['na']}")
            continue
        if r.get("skipped"):
            print(f"  {r['case']:<{w_case}}skipped ({r['skipped']})")
            continue
        if r.get("error") and not vals:
            print(f"  {r['case']:<{w_case}}failed: {r['error']}")
            continue
        lo = fmt(min(vals), r["unit"]) if vals else "n/a"
        hi = fmt(max(vals), r["unit"]) if vals else "n/a"
        ratio = ""
        if r.get("vs_best_peer"):
            ratio = f"{r['vs_best_peer']:.2f}x vs {r['best_peer']}"
        elif r["is_peer"]:
            ratio = "(peer)"
        extra = ""
        if r.get("capped"):
            extra = "  [capped]"
        if r.get("idle_wakeups") is not None:
            extra = f"  ({r['idle_cpu_ms']:.2f} ms CPU, {r['idle_wakeups']} wake-ups)"
        if r.get("kept") is not None:
            extra = f"  kept: {', '.join(r['kept']) or 'nothing'}"
        print(f"  {r['case']:<{w_case}}{fmt(r['median'], r['unit']):>14}{lo:>12}{hi:>12}{r['n']:>6}  {ratio}{extra}")
    print()
    print("goals")
    for g in rep["goals"]:
        mark = {True: "HOLDS", False: "FAILS", None: "n/a  "}[g["holds"]]
        print(f"  [{mark}] {g['goal']}: {g['detail']}")
    print()
    print("method")
    for k in ("wall_time", "reader_rss", "owner_rss", "watch_latency"):
        print(f"  {k}: {rep['method'][k]}")
    if rep["notes"]:
        print()
        print("notes")
        for n in rep["notes"]:
            print("  - " + n)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        print("\nbench: interrupted", file=sys.stderr)
        sys.exit(130)
    finally:
        cleanup()
