"""`cadence train --upload` without credentials: one line, exit 2, before anything is written."""

from __future__ import annotations

import os
import subprocess
import sys


def test_an_upload_without_credentials_is_refused_before_the_run_starts(tmp_path):
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("AWS_", "GOOGLE_", "AZURE_"))
    }
    env["HOME"] = str(tmp_path)  # no gcloud default credentials either
    result = subprocess.run(
        [sys.executable, "-m", "cadence", "train", "--epochs", "1", "--output-dir", "out",
         "--upload", "s3://bucket/run"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [
        "cadence train: error: --upload: no credentials for 's3://bucket/run' were found: set "
        "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_WEB_IDENTITY_TOKEN_FILE with AWS_ROLE_ARN; "
        "or AWS_SKIP_SIGNATURE=true for a public bucket)."
    ]
    assert not (tmp_path / "out").exists()
