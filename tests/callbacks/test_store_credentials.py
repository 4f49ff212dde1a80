"""Credentials are checked at run begin; the instance-metadata endpoint is asked only when allowed."""

from __future__ import annotations

import socket
import threading
from typing import TYPE_CHECKING, Any

import pytest

from cadence import Callback, Model, RunContext
from cadence.callbacks import (
    CheckpointUploader,
    MissingCredentialsError,
    missing_credentials,
)
from cadence.testing import ListDataset, constant_network
from tests.helpers.uploads import Saver

if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.parametrize(
    ("url", "names"),
    [
        ("s3://bucket/run", ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_WEB_IDENTITY_TOKEN_FILE"]),
        ("s3a://bucket/run", ["AWS_ACCESS_KEY_ID"]),
        ("gs://bucket/run", ["GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_SERVICE_ACCOUNT"]),
        ("az://container/run", ["AZURE_STORAGE_ACCOUNT_KEY", "AZURE_STORAGE_SAS_KEY", "AZURE_CLIENT_SECRET"]),
        ("abfs://container/run", ["AZURE_STORAGE_ACCOUNT_KEY"]),
    ],
)  # fmt: skip
def test_no_credentials_is_reported_naming_the_variables(tmp_path, url, names):
    message = missing_credentials(url, environ={"HOME": str(tmp_path)})
    assert message is not None
    assert message.startswith(f"no credentials for {url!r} were found: set ")

    for name in names:
        assert name in message


@pytest.mark.parametrize(
    ("url", "config", "environ"),
    [
        ("s3://b/p", {}, {"AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"}),
        ("s3://b/p", {"access_key_id": "k", "secret_access_key": "s"}, {}),
        ("s3://b/p", {}, {"AWS_SKIP_SIGNATURE": "true"}),
        ("s3://b/p", {}, {"AWS_WEB_IDENTITY_TOKEN_FILE": "/t", "AWS_ROLE_ARN": "arn"}),
        ("s3://b/p", {}, {"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "/v2/creds"}),
        ("gs://b/p", {}, {"GOOGLE_APPLICATION_CREDENTIALS": "/key.json"}),
        ("gs://b/p", {"service_account_key": "{}"}, {}),
        ("az://c/p", {}, {"AZURE_STORAGE_ACCOUNT_KEY": "k"}),
        ("az://c/p", {}, {"AZURE_STORAGE_USE_EMULATOR": "true"}),
        ("az://c/p", {"sas_key": "sv=1"}, {}),
        ("file:///tmp/x", {}, {}),
        ("memory://m/p", {}, {}),
    ],
)  # fmt: skip
def test_any_credential_source_is_enough(tmp_path, url, config, environ):
    assert (
        missing_credentials(url, config, environ={"HOME": str(tmp_path), **environ})
        is None
    )


@pytest.mark.parametrize(
    "environ",
    [
        {"AWS_ACCESS_KEY_ID": "k"},  # a key without its secret is no credential
        {"AWS_SKIP_SIGNATURE": "false"},
        {"AWS_ROLE_ARN": "arn"},
    ],
)
def test_half_a_credential_is_none(tmp_path, environ):
    assert missing_credentials("s3://b/p", environ={"HOME": str(tmp_path), **environ})


def test_gcloud_application_default_credentials_count(tmp_path):
    path = tmp_path / ".config" / "gcloud" / "application_default_credentials.json"
    path.parent.mkdir(parents=True)
    path.write_text("{}")
    assert missing_credentials("gs://b/p", environ={"HOME": str(tmp_path)}) is None


class MetadataListener:
    """A loopback TCP listener standing in for the instance-metadata endpoint; counts connections."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.1)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            conn.close()  # no credentials here

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)
        self.sock.close()


@pytest.fixture
def no_credentials(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    import os

    for name in list(os.environ):
        if name.startswith(("AWS_", "GOOGLE_", "AZURE_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    listener = MetadataListener()
    # obstore reads the metadata endpoint's address from this variable (default 169.254.169.254).
    monkeypatch.setenv("AWS_METADATA_ENDPOINT", listener.url)
    yield listener
    listener.close()


class StepCounter(Callback):
    def __init__(self) -> None:
        self.steps = 0

    def on_train_step_end(self, run_context: RunContext) -> None:
        self.steps += 1


def test_a_run_without_credentials_fails_at_begin_without_training_or_asking_metadata(
    tmp_path: Path, no_credentials: MetadataListener
) -> None:
    counter = StepCounter()
    uploader = CheckpointUploader(
        "s3://bucket/run", endpoint="http://127.0.0.1:9", attempts=1
    )
    model = Model(constant_network())
    with pytest.raises(MissingCredentialsError) as info:
        model.train(
            1, ListDataset.of_steps(3), callbacks=[counter, Saver(tmp_path), uploader]
        )
    assert str(info.value).startswith(
        "For 'CheckpointUploader', no credentials for 's3://bucket/run' were found: set AWS_ACCESS_KEY_ID"
    )
    assert str(info.value).endswith(
        "The cloud's instance-metadata endpoint is asked only when allowed: `allow_instance_metadata=True`."
    )
    assert counter.steps == 0
    assert no_credentials.connections == 0


def test_allowed_instance_metadata_is_asked(
    tmp_path: Path, no_credentials: MetadataListener
) -> None:
    """The control: the stand-in endpoint does see obstore's request once it is allowed."""
    counter = StepCounter()
    uploader = CheckpointUploader(
        "s3://bucket/run", endpoint="http://127.0.0.1:9", attempts=1,
        allow_instance_metadata=True, on_incomplete="ignore", drain_timeout=30,
    )  # fmt: skip
    model = Model(constant_network())
    model.train(
        1, ListDataset.of_steps(2), callbacks=[counter, Saver(tmp_path), uploader]
    )
    assert counter.steps == 2
    assert uploader.report is not None and uploader.report.failed
    assert no_credentials.connections > 0
