"""The OpenAPI document: served, generated from the types the endpoints use, and fuzzed with Schemathesis.

Schemathesis generates requests from the document (valid ones and, for bodies,
invalid ones too), sends them to a real server and checks every reply: never a
5xx, and status codes, content types and bodies as documented.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import positive_data_acceptance

from cadence.service import DATASETS, MODELS, RunRequest, RunView
from cadence.service._openapi import openapi_document


def test_the_document_is_served_and_describes_every_route(server):
    document = server.client.get("/openapi.json").json()
    assert document == msgspec.json.decode(
        msgspec.json.encode(openapi_document(token=False))
    )
    assert document["openapi"] == "3.1.0"
    routes = {
        (method.upper(), path)
        for path, item in document["paths"].items()
        for method in item
        if method != "parameters"
    }
    served = {
        (method, route.path)
        for route in server.app.routes
        for method in route.methods - {"HEAD"}
    }
    assert routes == served


def test_the_schemas_are_the_msgspec_types_the_endpoints_use(server):
    schemas = server.client.get("/openapi.json").json()["components"]["schemas"]
    _, expected = msgspec.json.schema_components(
        (RunRequest, RunView), ref_template="#/components/schemas/{name}"
    )
    # The document adds the preset names the server accepts; the rest is msgspec's.
    request = schemas["RunRequest"]["properties"]
    assert request["model"].pop("enum") == sorted(MODELS) == ["lenet5", "mlp"]
    assert request["dataset"].pop("enum") == sorted(DATASETS) == ["digits"]
    for name, schema in expected.items():
        assert schemas[name] == msgspec.json.decode(msgspec.json.encode(schema))


def test_a_token_is_documented_on_the_mutating_endpoints(make_server):
    server = make_server(token="s3cret")
    document = server.client.get("/openapi.json").json()
    assert document["components"]["securitySchemes"] == {
        "bearer": {"type": "http", "scheme": "bearer"}
    }
    secured = {
        (method, path)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method != "parameters" and "security" in operation
    }
    assert secured == {
        ("post", "/runs"),
        ("delete", "/runs/{run_id}"),
        ("post", "/runs/{run_id}/stop"),
    }


# The operations, listed from the document itself at collection time (schemathesis's own
# pytest plugin does not run on this pytest: it reads a private attribute pytest dropped).
_SCHEMA = schemathesis.openapi.from_dict(openapi_document(token=False))
OPERATIONS = {
    operation.label: operation
    for operation in (result.ok() for result in _SCHEMA.get_all_operations())  # type: ignore[union-attr]
}


FUZZED = [(label, GenerationMode.POSITIVE) for label in sorted(OPERATIONS)] + [
    # Only a body can be made invalid (paths, headers and queries are free strings).
    ("POST /runs", GenerationMode.NEGATIVE)
]


@pytest.mark.parametrize(("label", "mode"), FUZZED)
def test_fuzzed_requests_get_documented_answers_and_never_a_5xx(
    make_server, label, mode
):
    # One run at a time: fuzzed requests that are valid start a run, the rest get 429.
    server = make_server(max_runs=1)
    # A schema-valid run request may still be refused with a documented 422 (an `output`
    # leaving the output directory, an upload without credentials): not a finding.
    excluded = [positive_data_acceptance] if label == "POST /runs" else []

    @given(case=OPERATIONS[label].as_strategy(generation_mode=mode))
    @settings(
        max_examples=25,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def fuzz(case: Any) -> None:
        case.call_and_validate(
            base_url=server.url, timeout=30, excluded_checks=excluded
        )

    fuzz()
