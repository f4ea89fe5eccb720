#!/usr/bin/env python3
"""xpb sync and xpb bridge, measured (issue 10), next to autocutsel where it does the same job.

Usage:  make bench                       (runs bench/run.py, then this)
        XPB_BIN=path/to/xpb python3 bench/sync.py [--runs N]

Python 3 standard library only. Starts two private Xvfb servers and stops them, and everything
it started, by process id when it ends.

Latency of a change is measured from just before `xpb copy` is started on the source selection
to the moment `xpb watch`, already running on the target selection, prints the change: it
includes the copy's own start-up (a few ms), alike for every tool. autocutsel keeps CLIPBOARD
and only changes the value it serves, which no watch sees: PRIMARY -> CLIPBOARD is also measured
by pasting CLIPBOARD in a loop until the copied text comes back, for both tools. Throughput is 64 MiB over
the time from the moment a copy owns it on one display to the end of a paste of all of it on the
other (to /dev/null; the bytes are compared once after the timed runs). Idle CPU
is what the sync process used in 2 s without changes (from /proc/PID/stat).

Writes bench/results/sync-latest.json.
"""

import argparse
import json
import os
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MiB = 1024 * 1024
# The process and Xvfb helpers of the main benchmark: every child is stopped by its process id.
sys.path.insert(0, HERE)
from run import _stop as stop, cleanup, start, start_xvfb  # noqa: E402


class Watch:
    """`xpb watch` on one selection of one display; lines are read as they come."""

    def __init__(self, xpb, display, flag):
        self.p = start([xpb, "watch", "--display", display, flag], stdout=subprocess.PIPE)
        self.fd = self.p.stdout.fileno()
        os.set_blocking(self.fd, False)
        self.buf = b""
        time.sleep(0.3)  # subscribed

    def next_change(self, timeout):
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return None
            self.buf += os.read(self.fd, 4096) or b""
        line, self.buf = self.buf.split(b"\n", 1)
        return time.monotonic()

    def drain(self):
        time.sleep(0.2)
        try:
            while os.read(self.fd, 4096):
                pass
        except BlockingIOError:
            pass
        self.buf = b""

    def close(self):
        stop(self.p)


def copy(xpb, display, args, data=None):
    subprocess.run([xpb, "copy", "--display", display] + args, input=data, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def paste(xpb, display, args=()):
    return subprocess.run([xpb, "paste", "--display", display] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL).stdout


def latencies(xpb, src_display, src_flag, dst_display, dst_flag, runs, timeout=5.0):
    """Median ms from a copy on the source to the change on the target, checking the content."""
    watch = Watch(xpb, dst_display, dst_flag)
    values, wrong = [], 0
    try:
        for i in range(runs):
            token = f"latency token {i} {time.time()}".encode()
            watch.drain()
            t0 = time.monotonic()
            copy(xpb, src_display, [src_flag], token)
            t1 = watch.next_change(timeout)
            if t1 is None:
                values.append(None)
                continue
            # the change may be an intermediate owner (autocutsel's cut buffer); wait for the token
            deadline = time.monotonic() + timeout
            while paste(xpb, dst_display, [dst_flag]) != token and time.monotonic() < deadline:
                t1 = watch.next_change(0.5) or t1
            if paste(xpb, dst_display, [dst_flag]) != token:
                wrong += 1
            values.append((t1 - t0) * 1000)
            time.sleep(0.25)  # no coalescing with the next run
    finally:
        watch.close()
    ok = [v for v in values if v is not None]
    problems = []
    if len(ok) < len(values):
        problems.append(f"{len(values) - len(ok)} of {len(values)} never arrived within {timeout:.0f} s")
    if wrong:
        problems.append(f"{wrong} arrived with the wrong content")
    return (statistics.median(ok) if ok else None), values, "; ".join(problems)


def latencies_by_paste(xpb, display, src_flag, dst_flag, runs, timeout=5.0):
    """Median ms from a copy to the first paste of the target that gives it back, pasting in a
    loop: for a peer that changes what it serves without a change of owner (autocutsel keeps
    CLIPBOARD and only updates its value), which a watch cannot see."""
    values = []
    for i in range(runs):
        token = f"paste token {i} {time.time()}".encode()
        t0 = time.monotonic()
        copy(xpb, display, [src_flag], token)
        deadline = t0 + timeout
        while paste(xpb, display, [dst_flag]) != token:
            if time.monotonic() > deadline:
                break
        t1 = time.monotonic()
        values.append((t1 - t0) * 1000 if t1 <= deadline else None)
        time.sleep(0.25)
    ok = [v for v in values if v is not None]
    missed = len(values) - len(ok)
    return (statistics.median(ok) if ok else None), values, (f"{missed} of {len(values)} never arrived" if missed else "")


def throughput(xpb, src, dst, blob, runs):
    """MB/s of 64 MiB: from the moment a copy owns it on src until a paste on dst (to /dev/null)
    has all of it; the content is checked once after the timed runs."""
    watch = Watch(xpb, dst, "-b")
    values = []
    try:
        for run in range(runs + 1):
            watch.drain()
            copy(xpb, src, [blob])
            t0 = time.monotonic()
            if watch.next_change(30) is None:
                values.append(None)
                continue
            if run == runs:
                if paste(xpb, dst) != open(blob, "rb").read():
                    values = [None]
                break
            done = subprocess.run([xpb, "paste", "--display", dst], stdout=subprocess.DEVNULL)
            t1 = time.monotonic()
            values.append(64 * MiB / (t1 - t0) / 1e6 if done.returncode == 0 else None)
            # back to something small, so the next run is a change again
            copy(xpb, src, [], b"small")
            watch.next_change(5)
    finally:
        watch.close()
    ok = [v for v in values if v is not None]
    return (statistics.median(ok) if ok else None), values


def cpu_ticks(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--big-runs", type=int, default=3)
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    xpb = os.environ.get("XPB_BIN") or os.path.join(ROOT, ".build", "release", "xpb")
    if not os.access(xpb, os.X_OK):
        sys.exit(f"bench: no xpb at {xpb}")
    tmp = tempfile.mkdtemp(prefix="xpb-sync-bench-")
    blob = os.path.join(tmp, "blob64")
    with open(blob, "wb") as f:
        f.write(os.urandom(64 * MiB))
    rows = []
    try:
        a, b = start_xvfb()[1], start_xvfb()[1]
        print(f"bench: displays {a} and {b}, xpb = {xpb}", flush=True)

        # 0. what the method itself costs: a copy seen on the very selection it went to
        med, runs, wrong = latencies(xpb, a, "-b", a, "-b", args.runs)
        rows.append(("baseline: copy to change seen", "xpb copy, xpb watch, no sync", med, "ms", wrong))

        # 1. PRIMARY -> CLIPBOARD on one display
        sync = start([xpb, "sync", "--display", a, "--from", "primary", "--to", "clipboard"])
        time.sleep(0.3)
        med, runs, wrong = latencies(xpb, a, "-p", a, "-b", args.runs)
        polled, _, polled_problems = latencies_by_paste(xpb, a, "-p", "-b", args.runs)
        before = cpu_ticks(sync.pid)
        time.sleep(2)
        idle = cpu_ticks(sync.pid) - before
        stop(sync)
        rows.append(("PRIMARY -> CLIPBOARD latency", "xpb sync --from primary --to clipboard", med, "ms", wrong))
        rows.append(("PRIMARY -> CLIPBOARD, by pasting", "xpb sync --from primary --to clipboard", polled, "ms", polled_problems))
        rows.append(("idle CPU over 2 s", "xpb sync", idle * 1000 / os.sysconf("SC_CLK_TCK"), "ms", ""))
        if shutil.which("autocutsel"):
            env = dict(os.environ, DISPLAY=a)
            cut = [start(["autocutsel"], env=env), start(["autocutsel", "-selection", "PRIMARY"], env=env)]
            time.sleep(0.5)
            med, runs, wrong = latencies_by_paste(xpb, a, "-p", "-b", args.runs)
            for p in cut:
                stop(p)
            rows.append(("PRIMARY -> CLIPBOARD, by pasting", "autocutsel (two instances)", med, "ms", wrong))
        else:
            rows.append(("PRIMARY -> CLIPBOARD, by pasting", "autocutsel: not installed", None, "ms", ""))

        # 2. a small copy on one display, pasteable on the other
        sync = start([xpb, "sync", "--display", a, "--to-display", b])
        time.sleep(0.3)
        med, runs, wrong = latencies(xpb, a, "-b", b, "-b", args.runs)
        rows.append(("small copy, display to display", "xpb sync --to-display", med, "ms", wrong))
        med, runs = throughput(xpb, a, b, blob, args.big_runs)
        rows.append(("64 MiB, display to display", "xpb sync --to-display", med, "MB/s", ""))
        stop(sync)

        # 3. through xpb bridge over a pipe
        fifo = os.path.join(tmp, "fifo")
        os.mkfifo(fifo)
        bridge = start(["/bin/sh", "-c", f"exec {xpb} bridge --display {a} < {fifo} | {xpb} bridge --display {b} > {fifo}"],
                       start_new_session=True)
        time.sleep(0.5)
        med, runs, wrong = latencies(xpb, a, "-b", b, "-b", args.runs)
        rows.append(("small copy through a bridge", "xpb bridge (pipe)", med, "ms", wrong))
        med, runs = throughput(xpb, a, b, blob, args.big_runs)
        rows.append(("64 MiB through a bridge", "xpb bridge (pipe)", med, "MB/s", ""))
        os.killpg(bridge.pid, signal.SIGTERM)
        bridge.wait()
    finally:
        cleanup()
        shutil.rmtree(tmp, ignore_errors=True)

    print()
    print(f"{'case':36} {'tool':42} {'median':>10}")
    for case, tool, med, unit, wrong in rows:
        shown = "-" if med is None else f"{med:.1f} {unit}"
        print(f"{case:36} {tool:42} {shown:>10}" + (f"  ({wrong})" if wrong else ""))
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "sync-latest.json"), "w") as f:
        json.dump([dict(case=c, tool=t, median=m, unit=u, problems=w) for c, t, m, u, w in rows], f, indent=1)


if __name__ == "__main__":
    try:
        main()
    finally:
        cleanup()
