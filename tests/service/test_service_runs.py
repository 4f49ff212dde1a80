"""The service over real HTTP (uvicorn on 127.0.0.1): runs start, stream, stop, cancel, several at once."""

from __future__ import annotations

import json
import time

import httpx

import cadence

LONG = 100_000  # epochs: a run that only ends when it is stopped or cancelled


def decoded(messages):
    return [json.loads(m.data) for m in messages if m.event == "message"]


def follow_until(server, run_id, predicate):
    """Read the run's stream until an event satisfies `predicate`; return the events read."""
    seen = []
    for message in server.events(run_id):
        event = json.loads(message.data)
        seen.append(event)
        if predicate(event):
            return seen
    raise AssertionError(f"the stream ended before the awaited event: {seen[-3:]}")


def wait_for(condition, what, timeout=60.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_a_run_completes_and_its_stream_holds_every_event(server):
    assert server.client.get("/health").json() == {
        "status": "ok",
        "active_runs": 0,
        "max_runs": 2,
    }
    reply = server.client.post("/runs", json={"epochs": 2, "batch_size": 64})
    assert reply.status_code == 201
    created = reply.json()
    assert reply.headers["location"] == f"/runs/{created['id']}"
    assert created["status"] in ("starting", "running")
    assert created["request"]["epochs"] == 2
    messages = list(server.events(created["id"]))
    types = [e["type"] for e in decoded(messages)]
    assert types[0] == "TrainBegin"
    assert types[-1] == "RunCompleted"
    assert types.count("TrainEpochEnd") == 2
    assert [int(m.id) for m in messages] == list(range(1, len(messages) + 1))
    view = server.client.get(f"/runs/{created['id']}").json()
    assert (view["status"], view["kind"], view["outcome"]["type"]) == (
        "completed",
        "fit",
        "RunCompleted",
    )
    assert (
        view["progress"]["epoch"],
        view["progress"]["epochs"],
        view["progress"]["steps_per_epoch"],
    ) == (2, 2, 23)
    assert 0.0 <= view["progress"]["metrics"]["accuracy"] <= 1.0
    assert view["events"] == {"first_id": 1, "last_id": len(messages), "dropped": 0}
    assert view["checkpoints"] == []
    assert server.client.get("/runs").json()["runs"] == [view]


def test_two_runs_at_once_then_the_limit_answers_429(server):
    a = server.start(epochs=LONG, eval_every=0)
    b = server.start(epochs=LONG, eval_every=0, model="lenet5", batch_size=128)
    for run in (a, b):  # both are training
        follow_until(server, run["id"], lambda e: e["type"] == "TrainEpochEnd")
    assert server.client.get("/health").json()["active_runs"] == 2
    refused = server.client.post("/runs", json={"epochs": 1})
    assert refused.status_code == 429
    assert refused.headers["retry-after"] == "5"
    assert (
        "2 runs are already running and this server runs at most 2 at once"
        in refused.json()["error"]
    )
    for run in (a, b):
        assert server.client.post(f"/runs/{run['id']}/stop").status_code == 202
    views = [server.wait_ended(run["id"]) for run in (a, b)]
    assert [v["status"] for v in views] == ["stopped", "stopped"]
    assert [v["outcome"]["type"] for v in views] == ["RunStopped", "RunStopped"]
    assert server.client.get("/health").json()["active_runs"] == 0
    assert len(server.client.get("/runs").json()["runs"]) == 2
    server.wait_ended(
        server.start(epochs=1, eval_every=0)["id"]
    )  # a slot is free again


def test_stop_mid_run_saves_a_final_checkpoint_and_records_the_outcome(server):
    run = server.start(
        epochs=LONG, output="stopped", checkpoint={"every_steps": 20, "keep": 3}
    )
    follow_until(server, run["id"], lambda e: e["type"] == "CheckpointSaved")
    stopping = server.client.post(f"/runs/{run['id']}/stop")
    assert stopping.status_code == 202
    assert stopping.json()["status"] in ("stopping", "stopped")
    events = decoded(server.events(run["id"]))
    types = [e["type"] for e in events]
    assert (
        types[-4:] == ["StopRequested", "TrainEpochEnd", "TrainEnd", "RunStopped"]
        or types[-1] == "RunStopped"
    )
    view = server.client.get(f"/runs/{run['id']}").json()
    assert (view["status"], view["outcome"]["type"], view["output"]) == (
        "stopped",
        "RunStopped",
        "stopped",
    )
    kept = [c for c in view["checkpoints"] if c["exists"]]
    assert (
        1 <= len(kept) <= 3 + 1
    )  # retention keeps 3 (+ the forced save at the end of training)
    assert (
        kept[-1]["step"] == view["outcome"]["step"]
    )  # the last step was saved on the way out
    for checkpoint in kept:
        params = cadence.load_checkpoint(str(server.output / checkpoint["path"]))
        assert params  # every kept file is complete and readable
    assert not [p for p in (server.output / "stopped").iterdir() if "tmp" in p.name]


def test_cancel_mid_run_keeps_committed_checkpoints_intact(server):
    run = server.start(
        epochs=LONG,
        output="cancelled",
        checkpoint={"every_steps": 10, "format": "safetensors"},
    )
    follow_until(
        server, run["id"], lambda e: e["type"] == "CheckpointSaved" and e["step"] >= 30
    )
    cancelling = server.client.delete(f"/runs/{run['id']}")
    assert cancelling.status_code == 202
    assert cancelling.json()["status"] in ("cancelling", "cancelled")
    view = server.wait_ended(run["id"])
    assert (view["status"], view["outcome"]["type"]) == ("cancelled", "RunCancelled")
    kept = [c for c in view["checkpoints"] if c["exists"]]
    assert kept
    for checkpoint in kept:
        assert cadence.load_checkpoint(
            str(server.output / checkpoint["path"]), format="safetensors"
        )
    assert not [p for p in (server.output / "cancelled").iterdir() if "tmp" in p.name]
    again = server.client.delete(f"/runs/{run['id']}")
    assert again.status_code == 409
    assert again.json() == {
        "error": f"Run {run['id']!r} already ended (cancelled); there is nothing to cancel."
    }


def test_a_reconnecting_consumer_resumes_after_its_last_event_id(server, parse_sse):
    run = server.start(epochs=3, eval_every=0, batch_size=64)
    first_part = []
    for message in server.events(run["id"]):
        first_part.append(message)
        if len(first_part) == 5:
            break  # the connection drops here
    assert [m.id for m in first_part] == ["1", "2", "3", "4", "5"]
    rest = list(server.events(run["id"], last_event_id=first_part[-1].id))
    ids = [int(m.id) for m in first_part + rest]
    assert ids == list(range(1, len(ids) + 1))
    assert json.loads(rest[-1].data)["type"] == "RunCompleted"
    # Once the client has everything, reconnecting gets 204, which stops a browser's EventSource.
    done = server.client.get(
        f"/runs/{run['id']}/events", headers={"Last-Event-ID": rest[-1].id}
    )
    assert done.status_code == 204
    # A query parameter does what the header does, for clients that cannot set headers.
    last_two = server.client.get(
        f"/runs/{run['id']}/events", params={"last_event_id": ids[-3]}
    )
    assert [m.id for m in parse_sse(last_two.iter_lines())] == [
        str(ids[-2]),
        str(ids[-1]),
    ]


def test_a_consumer_that_stops_reading_stalls_nothing(make_server, parse_sse):
    server = make_server(history=64)
    run = server.start(epochs=LONG, eval_every=0, batch_size=16)

    def epoch():
        return server.client.get(f"/runs/{run['id']}").json()["progress"]["epoch"] or 0

    wait_for(lambda: epoch() >= 2, "2 epochs")  # over 64 events: the oldest are gone
    with (
        httpx.Client(base_url=server.url, timeout=60) as stalled,
        stalled.stream("GET", f"/runs/{run['id']}/events") as response,
    ):
        messages = parse_sse(response.iter_lines())
        first = next(messages)  # then it stops reading
        assert first.event == "gap"
        assert json.loads(first.data)["first"] == 1
        # Meanwhile the run trains on, the server answers, and other readers keep up.
        wait_for(lambda: epoch() >= 30, "30 epochs")
        assert server.client.get("/health").status_code == 200
        assert server.client.post(f"/runs/{run['id']}/stop").status_code == 202
        view = server.wait_ended(run["id"])
        assert view["status"] == "stopped"
        # Reading again: ids only go up, and every range it missed is announced by a gap message.
        late = [first, *messages]
    last_id = 0
    for message in late:
        if message.event == "gap":
            gap = json.loads(message.data)
            assert gap["first"] == last_id + 1
            assert gap["last"] >= gap["first"]
            last_id = gap["last"]
        else:
            assert int(message.id) == last_id + 1
            last_id = int(message.id)
    assert last_id == view["events"]["last_id"]
    assert json.loads(late[-1].data)["type"] == "RunStopped"


def test_shutting_down_cancels_running_runs_and_keeps_their_checkpoints(server):
    run = server.start(epochs=LONG, output="interrupted", checkpoint={"every_steps": 5})
    follow_until(server, run["id"], lambda e: e["type"] == "CheckpointSaved")
    server.stop()  # returns once uvicorn and the app's lifespan have ended (asserts it did)
    files = sorted((server.output / "interrupted").glob("*.ckpt"))
    assert files
    for path in files:
        assert cadence.load_checkpoint(str(path))
    assert not [p for p in (server.output / "interrupted").iterdir() if "tmp" in p.name]


def test_checkpoints_are_uploaded_when_asked(server, s3_environment):
    from cadence.callbacks import list_remote_checkpoints

    destination = f"s3://{s3_environment.bucket}/run"
    run = server.start(
        epochs=2,
        eval_every=0,
        output="up",
        checkpoint={"every_steps": 20},
        upload=destination,
    )
    assert run["upload"] == {"destination": destination, "report": None}
    view = server.wait_ended(run["id"])
    assert view["status"] == "completed"
    report = view["upload"]["report"]
    assert report["failed"] == {}
    assert report["pending"] == []
    assert report["complete"] is True
    local = {c["path"] for c in view["checkpoints"]}
    assert set(report["uploaded"]) == local
    assert {f"up/{c.name}" for c in list_remote_checkpoints(destination)} == local
