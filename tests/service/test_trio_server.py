"""The same app served by Hypercorn's trio worker (`cadence serve --server hypercorn-trio`)."""

from __future__ import annotations

import json

import pytest


@pytest.fixture
def trio_server(make_server):
    return make_server(server="hypercorn-trio")


def test_a_run_trains_streams_and_ends_under_trio(trio_server):
    server = trio_server
    assert server.client.get("/health").json() == {
        "status": "ok",
        "active_runs": 0,
        "max_runs": 2,
    }
    run = server.start(epochs=2, eval_every=1, batch_size=256, checkpoint={})
    types = [json.loads(m.data)["type"] for m in server.events(run["id"])]
    assert types[0] == "TrainBegin"
    assert types[-1] == "RunCompleted"
    assert types.count("TrainEpochEnd") == 2
    view = server.client.get(f"/runs/{run['id']}").json()
    assert view["status"] == "completed"
    assert len(view["checkpoints"]) == 2
    # Everything was streamed: a reconnect with the last id gets 204.
    last = str(view["events"]["last_id"])
    assert list(server.events(run["id"], last_event_id=last)) == []


def test_cancel_and_errors_under_trio(trio_server):
    server = trio_server
    run = server.start(epochs=100_000, eval_every=0)
    assert server.client.delete(f"/runs/{run['id']}").status_code == 202
    assert server.wait_ended(run["id"])["status"] == "cancelled"
    missing = server.client.get("/runs/nope")
    assert (missing.status_code, missing.json()) == (
        404,
        {"error": "No run with id 'nope'; `GET /runs` lists the runs."},
    )
    bad = server.client.post("/runs", content=b'{"epochs": "\xff"}')
    assert bad.status_code == 400
    assert server.client.get("/openapi.json").json()["openapi"] == "3.1.0"


def test_stopping_the_trio_server_cancels_running_runs(make_server):
    server = make_server(server="hypercorn-trio")
    run = server.start(epochs=100_000, eval_every=0, checkpoint={"every_steps": 5})
    for message in server.events(run["id"]):
        if json.loads(message.data)["type"] == "CheckpointSaved":
            break
    server.stop()  # returns once the trio loop, Hypercorn and the app's lifespan ended
    assert any(server.output.rglob("*.ckpt"))
