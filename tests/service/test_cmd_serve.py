"""`cadence serve`: options, the token from the environment, and a real server process."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from cadence.cli._entry import build_parser, main
from cadence.cli._serve import TOKEN_ENV, exposure_warning

if TYPE_CHECKING:
    from pathlib import Path


def parse(*argv):
    return build_parser(["serve"]).parse_args(["serve", *argv])


def test_defaults_bind_this_machine_only():
    args = parse()
    assert (args.host, args.port, args.max_runs, args.token, args.output_dir) == (
        "127.0.0.1", 8000, 2, None, "cadence-runs",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--port", "70000"],
            "argument --port: expected a port number from 0 to 65535, got '70000'",
        ),
        (
            ["--max-runs", "0"],
            "argument --max-runs: expected a positive whole number, got '0'",
        ),
        (
            ["--history", "x"],
            "argument --history: expected a positive whole number, got 'x'",
        ),
        (
            ["--header-timeout", "0"],
            "argument --header-timeout: expected a positive number, got '0'",
        ),
        (
            ["--keep-alive", "nan"],
            "argument --keep-alive: expected a positive number, got 'nan'",
        ),
        (
            ["--server", "gunicorn"],
            "argument --server: invalid choice: 'gunicorn' (choose from ",
        ),
    ],
)
def test_bad_options_exit_2_with_a_message(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["serve", *argv])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_exposure_warning():
    assert exposure_warning("127.0.0.1", None) is None
    assert exposure_warning("::1", None) is None
    assert exposure_warning("localhost", None) is None
    assert exposure_warning("0.0.0.0", "t") is None
    assert exposure_warning("0.0.0.0", None) == (
        "listening on 0.0.0.0 without a token: anyone who can reach this port can start and cancel runs "
        f"(set --token or ${TOKEN_ENV})"
    )


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.anyio
async def test_the_token_comes_from_the_environment(monkeypatch, tmp_path, capsys):
    import uvicorn

    served: dict[str, Any] = {}
    monkeypatch.setattr(
        uvicorn.Server,
        "run",
        lambda self, **kw: served.update(
            app=self.config.app, host=self.config.host, port=self.config.port
        ),
    )
    monkeypatch.setenv(TOKEN_ENV, "from-env")
    assert (
        main(
            ["serve", "--output-dir", str(tmp_path), "--host", "0.0.0.0", "--port", "0"]
        )
        == 0
    )
    assert capsys.readouterr().err == ""  # a token is set: no warning
    assert (served["host"], served["port"]) == ("0.0.0.0", 0)
    transport = httpx.ASGITransport(app=served["app"])
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        assert (await client.post("/runs", json={})).status_code == 401
        wrong = await client.post(
            "/runs", json={}, headers={"Authorization": "Bearer nope"}
        )
        assert wrong.status_code == 401


def _address(
    proc: subprocess.Popen[str], log: Path, banner: str, limit: float = 60.0
) -> str:
    """Return the URL the server's banner in `log` reports; fail past `limit` s or if it exits first."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        found = re.search(banner, log.read_text())
        if found:
            return found.group(1)
        if proc.poll() is not None:
            pytest.fail(f"the server exited with {proc.returncode}:\n{log.read_text()}")
        time.sleep(0.05)
    pytest.fail(
        f"the server did not report its address within {limit:g} s:\n{log.read_text()}"
    )


@pytest.mark.parametrize(
    ("server", "banner"),
    [
        ("uvicorn", r"Uvicorn running on (http://127\.0\.0\.1:\d+)"),
        ("hypercorn-trio", r"Running on (http://127\.0\.0\.1:\d+)"),
    ],
)
@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM])
def test_a_real_server_process_answers_and_stops_on_a_signal(
    tmp_path, server, banner, stop_signal
):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop(TOKEN_ENV, None)
    log_path = tmp_path / "serve.log"
    with log_path.open(
        "w"
    ) as log:  # a file, read with a deadline: a pipe read could block forever
        proc = subprocess.Popen(
            [sys.executable, "-m", "cadence", "serve", "--port", "0", "--output-dir", str(tmp_path / "out"),
             "--server", server],
            stderr=log, text=True, env=env,
        )  # fmt: skip
    try:
        url = _address(proc, log_path, banner)
        assert httpx.get(f"{url}/health").json() == {
            "status": "ok",
            "active_runs": 0,
            "max_runs": 2,
        }
        assert (
            httpx.get(f"{url}/openapi.json").json()["info"]["title"]
            == "cadence service"
        )
        proc.send_signal(stop_signal)
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
