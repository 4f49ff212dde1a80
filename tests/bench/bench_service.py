"""`/health` latency of the reference service while two runs train, or while hostile clients hold connections.

Run: `python tests/bench/bench_service.py [--requests N]`. Starts `cadence serve` in its
own process on 127.0.0.1 (an ephemeral port), then measures sequential `GET /health`
round trips from this process in three phases on the same server: idle, while two
MLP runs train on the digits (each streamed to an SSE reader, as a dashboard would),
and idle again after both were stopped. Prints a markdown table (median, p99, max)
and the training speed, for docs/performance.md. Not collected by pytest.

`--hostile [--server hypercorn-trio]`: instead, one run trains while another process
keeps 1,000 slow connections open (opened over 10 s; each sends a request head a byte a second
and never finishes it; when the server cuts one at its header time-out, a new one replaces it) and
150 Server-Sent-Events readers that never read. Phases: the run training alone, then
with the hostile clients; the target is p99 < 50 ms in the second.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import platform
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
from _bench_common import cpu_model, parse_options

if TYPE_CHECKING:
    import argparse

TARGET_P99_MS = 50.0


def machine() -> str:
    return f"{cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()} {platform.release()}"


def start_server(
    output: str, extra: list[str] | None = None
) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "cadence", "serve", "--port", "0", "--output-dir", output, "--log-level", "warning",
         *(extra or [])],
        stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert proc.stderr is not None
    # uvicorn at log level "warning" does not print its address: ask the OS which port the child listens on.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        port = _listening_port(proc.pid)
        if port is not None:
            url = f"http://127.0.0.1:{port}"
            try:
                httpx.get(f"{url}/health", timeout=1).raise_for_status()
                return proc, url
            except httpx.HTTPError:
                pass
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not start: " + proc.stderr.read())


def _listening_port(pid: int) -> int | None:
    try:
        inodes = {
            os.readlink(f"/proc/{pid}/fd/{fd}")[8:-1]
            for fd in os.listdir(f"/proc/{pid}/fd")
            if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
        }
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # state LISTEN
                return int(fields[1].split(":")[1], 16)
    except OSError:
        return None
    return None


def measure(client: httpx.Client, n: int) -> list[float]:
    """Return `n` sequential /health round-trip times in milliseconds."""
    times = []
    for _ in range(n):
        start = time.perf_counter()
        reply = client.get("/health")
        times.append((time.perf_counter() - start) * 1000)
        reply.raise_for_status()
    return times


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def follow(url: str, run_id: str, counts: dict[str, int]) -> None:
    """Read a run's event stream to its end, counting messages (a dashboard's reader)."""
    with (
        httpx.Client(base_url=url, timeout=None) as client,
        client.stream("GET", f"/runs/{run_id}/events") as r,
    ):
        for line in r.iter_lines():
            if line.startswith("data:"):
                counts[run_id] = counts.get(run_id, 0) + 1


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process and its threads, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def raise_open_files(wanted: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))


def attack(
    host: str, port: int, path: str, slow: int, stalled: int, stop: Any, report: Any
) -> None:
    """Hold `slow` slow request heads and `stalled` never-read event streams open until `stop` is set."""
    raise_open_files(slow + stalled + 256)

    def slow_socket() -> socket.socket:
        sock = socket.create_connection((host, port), timeout=10)
        sock.setblocking(False)
        sock.send(b"GET /health HTTP/1.1\r\nHost: bench\r\nX-Slow: ")
        return sock

    readers = []
    for _ in range(stalled):
        sock = socket.create_connection((host, port), timeout=10)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
        readers.append(sock)
    # Opened over one header time-out (10 s), so that they time out, and are replaced,
    # spread over time as a steady slow-client load does, not in one wave.
    heads: list[socket.socket] = []
    while len(heads) < slow:
        heads += [slow_socket() for _ in range(min(slow // 10 or 1, slow - len(heads)))]
        stop.wait(1.0)
    report.put(("ready", len(heads), len(readers)))
    replaced = 0
    open_counts = []
    while not stop.wait(1.0):
        for i, sock in enumerate(heads):
            try:
                sock.send(b"a")
                if sock.recv(1, socket.MSG_PEEK) == b"":
                    raise ConnectionResetError
            except BlockingIOError:
                pass  # nothing to read: still open
            except OSError:
                sock.close()
                heads[i] = slow_socket()
                replaced += 1
        open_counts.append(len(heads))
    report.put(("done", replaced, len(readers)))
    for sock in heads + readers:
        sock.close()


def hostile(args: argparse.Namespace) -> int:
    slow, stalled = args.slow, args.stalled
    raise_open_files(slow + stalled + 1024)
    output = tempfile.mkdtemp(prefix="cadence-bench-service-")
    proc, url = start_server(
        output, ["--server", args.server, "--max-streams-per-client", str(stalled + 10)]
    )
    ctx = multiprocessing.get_context("spawn")
    stop, report = ctx.Event(), ctx.Queue()
    try:
        with httpx.Client(base_url=url, timeout=30) as client:
            measure(client, 200)
            warm = client.post("/runs", json={"epochs": 1, "eval_every": 0}).json()[
                "id"
            ]
            follow(url, warm, {})
            run = client.post(
                "/runs", json={"epochs": 100_000, "eval_every": 1}
            ).json()["id"]
            while client.get(f"/runs/{run}").json()["progress"]["step"] == 0:
                time.sleep(0.05)
            cpu_0, t_0 = cpu_seconds(proc.pid), time.perf_counter()
            alone = measure(client, args.requests)
            cpu_alone = (cpu_seconds(proc.pid) - cpu_0) / (time.perf_counter() - t_0)
            host, port = url.removeprefix("http://").split(":")
            attacker = ctx.Process(
                target=attack,
                args=(
                    host,
                    int(port),
                    f"/runs/{run}/events",
                    slow,
                    stalled,
                    stop,
                    report,
                ),
            )
            attacker.start()
            ready = report.get(timeout=120)
            client.close()  # a fresh connection: the measured client is not one of the held ones
        with httpx.Client(base_url=url, timeout=30) as client:
            measure(client, 50)
            cpu_0, t_0 = cpu_seconds(proc.pid), time.perf_counter()
            under_attack = measure(client, args.requests)
            cpu_attack = (cpu_seconds(proc.pid) - cpu_0) / (time.perf_counter() - t_0)
            step = client.get(f"/runs/{run}").json()["progress"]["step"]
            stop.set()
            done = report.get(timeout=120)
            attacker.join(60)
            client.post(f"/runs/{run}/stop")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(60)
    print(
        f"Machine: {machine()}; server: {args.server}; load average (1 min) at the end: "
        f"{os.getloadavg()[0]:.1f}\n"
    )
    print("| server state | requests | median | p99 | max |")
    print("|---|---|---|---|---|")
    for name, times in (
        ("one run training", alone),
        (
            f"one run training + {ready[1]} slow heads + {ready[2]} stalled SSE readers",
            under_attack,
        ),
    ):
        print(
            f"| {name} | {len(times)} | {statistics.median(times):.2f} ms | {p99(times):.2f} ms | {max(times):.2f} ms |"
        )
    ok = p99(under_attack) < TARGET_P99_MS
    print(
        f"\np99 with hostile clients: {p99(under_attack):.2f} ms, target < {TARGET_P99_MS:.0f} ms "
        f"{'✔' if ok else '✘'}; slow heads cut by the server's header time-out and replaced: "
        f"{done[1]}; the run reached step {step}. Server CPU (cores busy): {cpu_alone:.2f} with the run "
        f"alone, {cpu_attack:.2f} with the hostile clients."
    )
    print(json.dumps({"alone_p99_ms": p99(alone), "hostile_p99_ms": p99(under_attack)}))
    return 0


OPTIONS: dict[str, dict[str, Any]] = {
    "--requests": {"type": int, "default": 2000, "help": "requests per phase (default 2000)"},
    "--hostile": {"action": "store_true", "help": "slow and stalled clients instead of two runs"},
    "--slow": {"type": int, "default": 1000, "help": "slow request heads (--hostile)"},
    "--stalled": {"type": int, "default": 150, "help": "stalled SSE readers (--hostile)"},
    "--server": {"default": "uvicorn", "choices": ["uvicorn", "hypercorn-trio"], "help": "--hostile's server"},
}  # fmt: skip


def main() -> int:
    args = parse_options(__doc__, OPTIONS)
    if args.hostile:
        return hostile(args)
    output = tempfile.mkdtemp(prefix="cadence-bench-service-")
    proc, url = start_server(output)
    try:
        with httpx.Client(base_url=url, timeout=30) as client:
            measure(client, 200)  # warm up connections and code paths
            warm = client.post("/runs", json={"epochs": 1, "eval_every": 0}).json()[
                "id"
            ]
            follow(url, warm, {})  # compile/load kernels before measuring
            idle = measure(client, args.requests)
            runs = [
                client.post("/runs", json={"epochs": 100_000, "eval_every": 1}).json()[
                    "id"
                ]
                for _ in range(2)
            ]
            counts: dict[str, int] = {}
            readers = [
                threading.Thread(target=follow, args=(url, r, counts)) for r in runs
            ]
            for reader in readers:
                reader.start()
            while any(
                client.get(f"/runs/{r}").json()["progress"]["step"] == 0 for r in runs
            ):
                time.sleep(0.05)
            steps_before = [
                client.get(f"/runs/{r}").json()["progress"]["step"] for r in runs
            ]
            started = time.perf_counter()
            busy = measure(client, args.requests)
            elapsed = time.perf_counter() - started
            views = [client.get(f"/runs/{r}").json() for r in runs]
            steps = [
                v["progress"]["step"] - s
                for v, s in zip(views, steps_before, strict=True)
            ]
            for r in runs:
                client.post(f"/runs/{r}/stop")
            for reader in readers:
                reader.join()
            after = measure(client, args.requests)
            final = [client.get(f"/runs/{r}").json() for r in runs]
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(30)
    load = os.getloadavg()[0]
    rows = [
        ("idle", idle),
        ("two runs training", busy),
        ("idle again, after stopping both", after),
    ]
    print(f"Machine: {machine()}; load average (1 min) at the end: {load:.1f}\n")
    print("| server state | requests | median | p99 | max |")
    print("|---|---|---|---|---|")
    for name, times in rows:
        print(
            f"| {name} | {len(times)} | {statistics.median(times):.2f} ms | {p99(times):.2f} ms | {max(times):.2f} ms |"
        )
    ok = p99(busy) < TARGET_P99_MS
    print(
        f"\np99 while training: {p99(busy):.2f} ms, target < {TARGET_P99_MS:.0f} ms {'✔' if ok else '✘'}"
    )
    rate = sum(steps) / elapsed
    print(
        f"Training meanwhile: {steps[0]} + {steps[1]} steps in {elapsed:.1f} s ({rate:.0f} steps/s together); "
        f"{sum(counts.values())} events streamed to two SSE readers; "
        f"outcomes {[v['outcome']['type'] for v in final]}"
    )
    print(json.dumps({"idle_p99_ms": p99(idle), "busy_p99_ms": p99(busy)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
