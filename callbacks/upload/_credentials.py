"""Whether an object-store destination has credentials, decided before any request is made.

obstore (the Rust `object_store` crate) falls back to the cloud's instance-metadata
endpoint (`169.254.169.254`, `metadata.google.internal`) when it finds no other
credential. Off the cloud that request hangs until a time-out, after training, and
reveals nothing useful; on a shared host it may even answer with someone else's
identity. So cadence looks for the credential sources obstore reads (explicit
options, then the standard environment variables and files) itself, and refuses to
start when none is there, unless the user asked for the metadata endpoint.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from cadence import CadenceError

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["MissingCredentialsError", "missing_credentials"]


class MissingCredentialsError(CadenceError, ValueError):
    """An object-store destination has no credentials, and the instance-metadata endpoint is not allowed."""


# Each credential source: the names (obstore config keys, lower case; environment variables
# are the upper-case `aws_`/`google_`/`azure_` ones) that must all be set for it to count.
_S3_SOURCES: tuple[tuple[tuple[str, ...], ...], ...] = (
    (
        ("aws_access_key_id", "access_key_id"),
        ("aws_secret_access_key", "secret_access_key"),
    ),
    (("aws_web_identity_token_file",), ("aws_role_arn",)),
    (("aws_container_credentials_relative_uri",),),
    (("aws_container_credentials_full_uri",),),
)
_GCS_SOURCES: tuple[tuple[tuple[str, ...], ...], ...] = (
    (
        (
            "google_service_account",
            "service_account",
            "google_service_account_path",
            "service_account_path",
        ),
    ),
    (("google_service_account_key", "service_account_key"),),
    (("google_application_credentials", "application_credentials"),),
)
_AZURE_SOURCES: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("azure_storage_account_key", "azure_storage_access_key", "azure_storage_master_key",
      "account_key", "access_key", "master_key"),),
    (("azure_storage_sas_key", "azure_storage_sas_token", "sas_key", "sas_token"),),
    (("azure_storage_token", "bearer_token", "token"),),
    (("azure_storage_client_secret", "azure_client_secret", "client_secret"),),
    (("azure_federated_token_file", "federated_token_file"),),
)  # fmt: skip
_FLAGS = {
    "s3": ("aws_skip_signature", "skip_signature"),
    "gs": ("google_skip_signature", "skip_signature"),
    "az": (
        "azure_skip_signature", "skip_signature", "azure_storage_use_emulator", "use_emulator",
        "azure_use_azure_cli", "use_azure_cli",
    ),
}  # fmt: skip
_HINTS = {
    "s3": "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_WEB_IDENTITY_TOKEN_FILE with "
    "AWS_ROLE_ARN; or AWS_SKIP_SIGNATURE=true for a public bucket)",
    "gs": "set GOOGLE_APPLICATION_CREDENTIALS or GOOGLE_SERVICE_ACCOUNT to a service-account key file "
    "(or GOOGLE_SERVICE_ACCOUNT_KEY to its JSON), or run `gcloud auth application-default login`",
    "az": "set AZURE_STORAGE_ACCOUNT_KEY or AZURE_STORAGE_SAS_KEY (with AZURE_STORAGE_ACCOUNT_NAME), "
    "AZURE_STORAGE_TOKEN, or AZURE_CLIENT_ID, AZURE_CLIENT_SECRET and AZURE_TENANT_ID "
    "(AZURE_STORAGE_USE_EMULATOR=true for Azurite)",
}
_SCHEME = {
    "s3": "s3", "s3a": "s3", "gs": "gs", "az": "az", "abfs": "az", "abfss": "az",
    "azure": "az", "adl": "az",
}  # fmt: skip


def missing_credentials(
    destination: str,
    config: Mapping[str, Any] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> str | None:
    """Return why `destination` has no credentials (naming what to set), or None when it has some.

    `file://` and `memory://` need none. `config` holds explicit store options by
    obstore's names (`access_key_id`, `account_key`, ...); `environ` defaults to
    `os.environ`. Only presence is checked: a wrong key still fails at the first request.
    """
    scheme = _SCHEME.get(urlsplit(destination).scheme.lower())
    if scheme is None:
        return None
    env = os.environ if environ is None else environ
    given = {k.lower(): v for k, v in (config or {}).items() if v not in (None, "")}
    prefix = {"s3": "aws_", "gs": "google_", "az": "azure_"}[scheme]
    given.update(
        (k.lower(), v) for k, v in env.items() if k.lower().startswith(prefix) and v
    )
    if any(_truthy(given.get(flag)) for flag in _FLAGS[scheme]):
        return None
    sources = {"s3": _S3_SOURCES, "gs": _GCS_SOURCES, "az": _AZURE_SOURCES}[scheme]
    for source in sources:
        if all(any(name in given for name in names) for names in source):
            return None
    if scheme == "gs" and _gcloud_default_credentials(env).is_file():
        return None
    return f"no credentials for {destination!r} were found: {_HINTS[scheme]}."


def _truthy(value: Any) -> bool:
    return value is True or (
        isinstance(value, str) and value.strip().lower() in ("1", "true", "yes")
    )


def _gcloud_default_credentials(env: Mapping[str, str]) -> Path:
    # Where `gcloud auth application-default login` writes, which obstore also reads.
    home = env.get("HOME") or str(Path.home())
    return Path(home) / ".config" / "gcloud" / "application_default_credentials.json"
