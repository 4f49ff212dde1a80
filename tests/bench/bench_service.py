"""`/health` latency of the reference service while two runs train, against the same server idle.

Run: `python tests/bench/bench_service.py [--requests N]`. Starts `cadence serve` in its
own process on 127.0.0.1 (an ephemeral port), then measures sequential `GET /health`
round trips from this process in three phases on the same server: idle, while two
MLP runs train on the digits (each streamed to an SSE reader, as a dashboard would),
and idle again after both were stopped. Prints a markdown table (median, p99, max)
and the training speed, for docs/performance.md. Not collected by pytest.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from _bench_common import cpu_model

TARGET_P99_MS = 50.0


def machine() -> str:
    return f"{cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()} {platform.release()}"


def start_server(output: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "cadence", "serve", "--port", "0", "--output-dir", output, "--log-level", "warning"],
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--requests", type=int, default=2000, help="requests per phase (default 2000)"
    )
    args = parser.parse_args()
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
