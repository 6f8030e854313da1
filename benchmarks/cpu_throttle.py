"""A CPU N× slower for every thread of a browser, the interpreter's worker included
(bench_ask_browser.py).

Chromium's own throttle (CDP `Emulation.setCPUThrottlingRate`) slows only a page's main thread:
sent to a dedicated worker's target it answers "Operation is only supported for pages, not
workers" (checked by `cdp_worker_throttle_refused`), and the interpreter runs in a worker. So
the worker is throttled by the kernel instead: a cgroup-v1 CPU quota (root, a writable
/sys/fs/cgroup/cpu) of 1/N of a CPU *per thread* — each thread of every chromium process is moved
into a cgroup of its own as soon as it appears, as a phone whose every core is N× slower would run
it (one quota shared by all the threads would starve the worker whenever the compiler's threads
run, as no phone does). A thread starts in its creator's cgroup and is moved within `POLL`
seconds. The slowdown is not assumed but measured: `busy_loop_ms` times the same loop in a
dedicated worker, throttled and not.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path
from typing import Iterator, Optional

CPU_CGROUP = Path("/sys/fs/cgroup/cpu")
PERIOD_US = 50_000               # the quota's period (a quota is ≥ 1 ms: down to 1/50 of a CPU)
POLL = 0.02                      # seconds between looks for new threads

# the same loop, timed in a dedicated worker and on the page's thread (milliseconds)
LOOP = "let x = 0; for (let i = 0; i < 2e7; i++) x = (x + i * 7) % 1000003;"
WORKER_LOOP_JS = """async () => {
  const src = "onmessage = () => { const t = performance.now(); %s postMessage(performance.now() - t); };";
  const w = new Worker(URL.createObjectURL(new Blob([src], { type: "text/javascript" })));
  const once = () => new Promise((r) => { w.onmessage = (e) => r(e.data); w.postMessage(0); });
  const times = [];
  for (let i = 0; i < 3; i++) times.push(await once());
  w.terminate();
  return Math.min(...times);
}""" % LOOP
PAGE_LOOP_JS = "() => { const times = []; for (let i = 0; i < 3; i++) { const t = performance.now(); %s times.push(performance.now() - t); } return Math.min(...times); }" % LOOP


def unavailable() -> Optional[str]:
    """Why the kernel throttle cannot be used here, or None."""
    if not (CPU_CGROUP / "cpu.cfs_quota_us").exists():
        return f"no cgroup-v1 cpu controller at {CPU_CGROUP}"
    if not os.access(CPU_CGROUP, os.W_OK):
        return f"{CPU_CGROUP} is not writable (needs root)"
    return None


def busy_loop_ms(page) -> dict:
    """The loop's best of three in a new dedicated worker and on the page's thread, in ms."""
    return {"worker_ms": page.evaluate(WORKER_LOOP_JS), "page_ms": page.evaluate(PAGE_LOOP_JS)}


def cdp_worker_throttle_refused(browser, page) -> Optional[str]:
    """What chromium answers when asked to throttle a dedicated worker through CDP (None if it
    accepts: then the kernel throttle is not needed)."""
    import json
    page.evaluate("window.__probe = new Worker(URL.createObjectURL(new Blob(['onmessage = () => 0'])))")
    session = browser.new_browser_cdp_session()
    replies: list = []
    session.on("Target.receivedMessageFromTarget", lambda e: replies.append(json.loads(e["message"])))
    deadline = time.monotonic() + 30
    targets: list = []
    while not targets and time.monotonic() < deadline:
        targets = [t for t in session.send("Target.getTargets")["targetInfos"] if t["type"] == "worker"]
    if not targets:
        return "no worker target found"
    sid = session.send("Target.attachToTarget", {"targetId": targets[0]["targetId"], "flatten": False})["sessionId"]
    session.send("Target.sendMessageToTarget", {"sessionId": sid, "message": json.dumps(
        {"id": 1, "method": "Emulation.setCPUThrottlingRate", "params": {"rate": 4}})})
    while time.monotonic() < deadline:
        reply = next((r for r in replies if r.get("id") == 1), None)
        if reply is not None:
            page.evaluate("window.__probe.terminate()")
            session.detach()
            return reply["error"]["message"] if "error" in reply else None
        page.wait_for_timeout(20)
    return "no reply"


class PerThreadQuota:
    """Every thread of the processes started under `group` held to 1/`rate` of a CPU."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.group = CPU_CGROUP / f"rulesdsl-bench-{os.getpid()}-{int(time.time() * 1000)}"
        self.quota = max(1000, int(PERIOD_US / rate))
        self._stop = threading.Event()
        self._moved: set[int] = set()
        self._thread: Optional[threading.Thread] = None

    def _own(self, name: str) -> Path:
        sub = self.group / name
        sub.mkdir()
        (sub / "cpu.cfs_period_us").write_text(str(PERIOD_US))
        (sub / "cpu.cfs_quota_us").write_text(str(self.quota))
        return sub

    def set_rate(self, rate: float) -> None:
        """Change the quota of every thread (and of those to come) to 1/`rate` of a CPU."""
        self.rate, self.quota = rate, max(1000, int(PERIOD_US / rate))
        for sub in [p for p in self.group.iterdir() if p.is_dir()]:
            with contextlib.suppress(OSError):
                (sub / "cpu.cfs_quota_us").write_text(str(self.quota))

    def calibrate(self, page, desktop_ms: float, want: float, tries: int = 5) -> dict:
        """Set the quota so that the busy loop in a worker runs `want` times slower than
        `desktop_ms` (on a loaded machine an unthrottled thread gets less than a CPU, so 1/want
        of a CPU slows it less than `want` times): measured, corrected, measured again."""
        for _ in range(tries):
            got = busy_loop_ms(page)
            ratio = got["worker_ms"] / desktop_ms
            if abs(ratio / want - 1) <= 0.1 or (ratio < want and self.quota <= 1000):
                break
            self.set_rate(max(1.0, self.rate * want / ratio))
        return {**got, "slowdown": ratio, "quota_of_a_cpu": self.quota / PERIOD_US}

    def wrapper(self, executable: str, folder: Path) -> str:
        """A script that puts itself (and so chromium, which it becomes) into the group."""
        script = folder / "chromium-throttled.sh"
        script.write_text(f'#!/bin/sh\necho $$ > {self.group}/cgroup.procs\nexec {executable} "$@"\n')
        script.chmod(0o700)
        return str(script)

    def _tasks(self) -> Iterator[tuple[Path, int]]:
        for folder in [self.group, *(p for p in self.group.iterdir() if p.is_dir())]:
            with contextlib.suppress(OSError):
                for line in (folder / "tasks").read_text().split():
                    yield folder, int(line)

    def _watch(self) -> None:
        while not self._stop.is_set():
            for folder, tid in list(self._tasks()):
                if folder.name == f"t{tid}":
                    continue
                with contextlib.suppress(OSError):      # a thread that ended meanwhile
                    sub = self.group / f"t{tid}"
                    if not sub.exists():
                        sub = self._own(f"t{tid}")
                    (sub / "tasks").write_text(str(tid))
                    self._moved.add(tid)
            self._stop.wait(POLL)

    def __enter__(self) -> "PerThreadQuota":
        self.group.mkdir()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join()
        deadline = time.monotonic() + 30            # the browser's processes are ending
        while self.group.exists() and time.monotonic() < deadline:
            for sub in [p for p in self.group.iterdir() if p.is_dir()] + [self.group]:
                with contextlib.suppress(OSError):
                    sub.rmdir()
            if self.group.exists():
                time.sleep(0.05)

    @property
    def threads_moved(self) -> int:
        return len(self._moved)
