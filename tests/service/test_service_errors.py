"""Every bad request gets a 4xx whose message says what is wrong, and starts nothing."""

from __future__ import annotations

import os

import pytest

BAD_BODIES = [
    (b"{not json", 400, "The request body is not valid JSON: "),
    (b'{"epochs": 2', 400, "The request body is not valid JSON: "),
    (b"[1, 2]", 422, "Invalid run request: Expected `object`, got `array`."),
    (
        b'{"epochs": -1}',
        422,
        "Invalid run request: Expected `int` >= 1 - at `$.epochs`.",
    ),
    (
        b'{"epochs": 0}',
        422,
        "Invalid run request: Expected `int` >= 1 - at `$.epochs`.",
    ),
    (
        b'{"epochs": "ten"}',
        422,
        "Invalid run request: Expected `int`, got `str` - at `$.epochs`.",
    ),
    (
        b'{"batch_size": 0}',
        422,
        "Invalid run request: Expected `int` >= 1 - at `$.batch_size`.",
    ),
    (
        b'{"learning_rate": 0}',
        422,
        "Invalid run request: Expected `float` > 0.0 - at `$.learning_rate`.",
    ),
    (
        b'{"epoch": 3}',
        422,
        "Invalid run request: Object contains unknown field `epoch`.",
    ),
    (
        b'{"checkpoint": {"keep": 0}}',
        422,
        "Invalid run request: Expected `int` >= 1 - at `$.checkpoint.keep`.",
    ),
    (
        b'{"checkpoint": {"format": "pt"}}',
        422,
        "Invalid run request: Invalid enum value 'pt' - at `$.checkpoint.format`.",
    ),
    (
        b'{"checkpoint": {"prefix": "a/b"}}',
        422,
        "Invalid run request: Expected `str` matching regex '^[A-Za-z0-9_.-]+$' - at `$.checkpoint.prefix`.",
    ),
    (
        b'{"model": "resnet"}',
        422,
        "Unknown model preset 'resnet' at `$.model`; known presets: 'lenet5', 'mlp'.",
    ),
    (
        b'{"dataset": "imagenet"}',
        422,
        "Unknown data set preset 'imagenet' at `$.dataset`; known presets: 'digits'.",
    ),
    (
        b'{"upload": "file:///etc", "checkpoint": {}}',
        422,
        "`$.upload` may not be a file:// URL, got 'file:///etc': clients may not choose where this server "
        "writes files. Checkpoints are kept in the run's `output` directory anyway.",
    ),
    (
        b'{"upload": "ftp://host/dir", "checkpoint": {}}',
        422,
        "`$.upload` must be an object-store URL (s3://, gs://, az://), got 'ftp://host/dir'.",
    ),
    (
        b'{"upload": "s3://bucket/run"}',
        422,
        "`$.upload` needs `$.checkpoint`: only saved checkpoints are uploaded.",
    ),
    (
        b'{"upload": "memory://store/run", "checkpoint": {}}',
        422,
        "`$.upload` may not be a memory:// URL, got 'memory://store/run': its objects would stay in this "
        "server's memory for as long as it runs. Checkpoints are kept in the run's `output` directory anyway.",
    ),
    (
        b'{"model": "\xff"}',
        400,
        "The request body is not valid UTF-8: byte 11 (0xff) cannot start or continue a character.",
    ),
    (
        b'{"output": "caf\xc3"}',
        400,
        "The request body is not valid UTF-8: byte 15 (0xc3) cannot start or continue a character.",
    ),
]

ESCAPES = [
    "../outside",
    "/etc",
    "a/../../outside",
    "a/..",
    ".",
    "./",
    "a\\..\\b",
    "x\x00y",
]


def assert_nothing_started(server):
    assert server.client.get("/runs").json() == {"runs": []}
    assert list(server.output.iterdir()) == []


@pytest.mark.parametrize(("body", "status", "message"), BAD_BODIES)
def test_bad_bodies_get_a_4xx_that_says_what_is_wrong(server, body, status, message):
    reply = server.client.post(
        "/runs", content=body, headers={"Content-Type": "application/json"}
    )
    assert reply.status_code == status
    assert reply.headers["content-type"] == "application/json"
    error = reply.json()["error"]
    assert error.startswith(message) if message.endswith(": ") else error == message
    assert_nothing_started(server)


@pytest.mark.parametrize("name", ESCAPES)
def test_an_output_name_may_not_leave_the_output_directory(server, name):
    reply = server.client.post("/runs", json={"epochs": 1, "output": name})
    assert reply.status_code == 422
    assert reply.json() == {
        "error": "`$.output` must be a relative path that stays inside the server's output directory "
        f"(no '..', no leading '/'), got {name!r}."
    }
    assert_nothing_started(server)


def test_a_symlink_out_of_the_output_directory_is_refused(server, tmp_path):
    (server.output / "link").symlink_to(tmp_path)
    reply = server.client.post("/runs", json={"epochs": 1, "output": "link/run"})
    assert reply.status_code == 422


def test_an_empty_body_means_every_default_and_a_huge_one_is_refused(server):
    assert (
        server.client.post("/runs", content=b"x" * (64 * 1024 + 1)).status_code == 413
    )
    reply = server.client.post("/runs", content=b"")
    assert reply.status_code == 201
    run = reply.json()
    assert (run["request"]["model"], run["request"]["epochs"]) == ("mlp", 10)
    assert server.client.delete(f"/runs/{run['id']}").status_code == 202
    assert server.wait_ended(run["id"])["status"] == "cancelled"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/runs/nope"),
        ("POST", "/runs/nope/stop"),
        ("DELETE", "/runs/nope"),
        ("GET", "/runs/nope/events"),
    ],
)
def test_unknown_runs_are_404(server, method, path):
    reply = server.client.request(method, path)
    assert reply.status_code == 404
    assert reply.json() == {
        "error": "No run with id 'nope'; `GET /runs` lists the runs."
    }


def test_unknown_endpoints_and_methods_answer_in_json(server):
    missing = server.client.get("/nothing")
    assert (missing.status_code, missing.json()) == (
        404,
        {"error": "No such endpoint: GET /nothing."},
    )
    wrong = server.client.put("/runs")
    assert wrong.status_code == 405
    assert wrong.json() == {"error": "PUT is not allowed on /runs."}


def test_stopping_an_ended_run_is_a_conflict(server):
    run = server.start(epochs=1, eval_every=0, batch_size=256)
    server.wait_ended(run["id"])
    reply = server.client.post(f"/runs/{run['id']}/stop")
    assert reply.status_code == 409
    assert reply.json() == {
        "error": f"Run {run['id']!r} already ended (completed); there is nothing to stop."
    }


def test_bad_last_event_ids(server):
    run = server.start(epochs=100_000, eval_every=0)
    for bad in ("abc", "-1", "1.5", "9" * 30):
        reply = server.client.get(
            f"/runs/{run['id']}/events", headers={"Last-Event-ID": bad}
        )
        assert reply.status_code == 400
        assert reply.json() == {
            "error": f"Last-Event-ID must be a whole number >= 0 (an event id this server sent), got {bad!r}."
        }
    ahead = server.client.get(
        f"/runs/{run['id']}/events", headers={"Last-Event-ID": "99999999"}
    )
    assert ahead.status_code == 400
    assert ahead.json()["error"].startswith(
        f"Last-Event-ID 99999999 is beyond run {run['id']!r}'s latest event id "
    )
    server.client.delete(f"/runs/{run['id']}")
    server.wait_ended(run["id"])


def test_the_concurrent_run_limit_answers_429_and_starts_nothing(make_server):
    server = make_server(max_runs=1)
    run = server.start(epochs=100_000, eval_every=0, output="first")
    refused = server.client.post("/runs", json={"epochs": 1, "output": "second"})
    assert refused.status_code == 429
    assert refused.json()["error"] == (
        "1 runs are already running and this server runs at most 1 at once; try again when one has ended (or stop one)."
    )
    assert [r["id"] for r in server.client.get("/runs").json()["runs"]] == [run["id"]]
    assert not (server.output / "second").exists()
    server.client.delete(f"/runs/{run['id']}")
    server.wait_ended(run["id"])


def test_an_output_directory_in_use_is_a_conflict(server):
    run = server.start(epochs=100_000, eval_every=0, output="shared", checkpoint={})
    reply = server.client.post(
        "/runs", json={"epochs": 1, "output": "shared", "checkpoint": {}}
    )
    assert reply.status_code == 409
    assert reply.json() == {
        "error": "Output directory 'shared' is in use by a running run; choose another `output`."
    }
    server.client.delete(f"/runs/{run['id']}")
    server.wait_ended(run["id"])
    again = server.start(
        epochs=1, eval_every=0, output="shared", checkpoint={}
    )  # free once it ended
    server.wait_ended(again["id"])


def test_a_bearer_token_protects_the_mutating_endpoints(make_server, monkeypatch):
    server = make_server(token="s3cret")
    no_token = server.client.post("/runs", json={"epochs": 1})
    assert no_token.status_code == 401
    assert no_token.headers["www-authenticate"] == 'Bearer realm="cadence"'
    assert no_token.json() == {
        "error": "This server needs a bearer token: send `Authorization: Bearer <token>`."
    }
    wrong = server.client.post(
        "/runs", json={"epochs": 1}, headers={"Authorization": "Bearer guess"}
    )
    assert wrong.status_code == 401
    assert wrong.json() == {"error": "The bearer token is not valid for this server."}
    assert server.client.get("/runs").json() == {"runs": []}
    run = server.start(token="s3cret", epochs=100_000, eval_every=0)
    # Reading needs no token; stopping and cancelling do.
    assert server.client.get(f"/runs/{run['id']}").status_code == 200
    assert server.client.get("/health").status_code == 200
    assert server.client.post(f"/runs/{run['id']}/stop").status_code == 401
    assert server.client.delete(f"/runs/{run['id']}").status_code == 401
    assert server.client.get(f"/runs/{run['id']}").json()["status"] in (
        "starting",
        "running",
    )
    auth = {"Authorization": "Bearer s3cret"}
    assert server.client.delete(f"/runs/{run['id']}", headers=auth).status_code == 202
    assert server.wait_ended(run["id"])["status"] == "cancelled"


def test_create_app_checks_its_arguments(tmp_path):
    from cadence.service import create_app

    with pytest.raises(
        ValueError,
        match="For 'create_app', the argument 'max_runs' must be an int > 0, but got 0",
    ):
        create_app(tmp_path, max_runs=0)
    with pytest.raises(ValueError, match="'history' must be an int > 0, but got -5"):
        create_app(tmp_path, history=-5)
    with pytest.raises(
        ValueError, match="'heartbeat_s' must be a number > 0, but got 0"
    ):
        create_app(tmp_path, heartbeat_s=0)
    with pytest.raises(ValueError, match="'token' must be a non-blank str or None"):
        create_app(tmp_path, token=" ")
    with pytest.raises(
        TypeError, match="'output_dir' must be a str or Path, but got 3"
    ):
        create_app(3)  # type: ignore[arg-type]


@pytest.mark.parametrize("output", ["taken", "taken/run", "taken/a/b"])
def test_an_output_under_an_existing_file_is_a_conflict_that_shows_no_server_path(
    server, output
):
    (server.output / "taken").write_text("a file, not a directory")
    reply = server.client.post(
        "/runs", json={"epochs": 1, "output": output, "checkpoint": {}}
    )
    assert reply.status_code == 409
    assert reply.json() == {
        "error": f"`$.output` {output!r} cannot be a directory: 'taken' is an existing file."
    }
    assert str(server.output) not in reply.text
    assert server.client.get("/runs").json() == {"runs": []}


def test_an_upload_without_credentials_is_refused_before_training(server, monkeypatch):
    for name in list(os.environ):
        if name.startswith(("AWS_", "GOOGLE_", "AZURE_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv(
        "HOME", str(server.output)
    )  # no gcloud default credentials either
    for url, variable in [
        ("s3://bucket/run", "AWS_ACCESS_KEY_ID"),
        ("gs://bucket/run", "GOOGLE_APPLICATION_CREDENTIALS"),
        ("az://container/run", "AZURE_STORAGE_ACCOUNT_KEY"),
    ]:
        reply = server.client.post(
            "/runs", json={"epochs": 1, "checkpoint": {}, "upload": url}
        )
        assert reply.status_code == 422
        error = reply.json()["error"]
        assert error.startswith(
            f"`$.upload` cannot be used on this server: no credentials for {url!r} were found: set "
        )
        assert variable in error
    assert_nothing_started(server)
