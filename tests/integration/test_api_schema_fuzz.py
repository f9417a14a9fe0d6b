"""Fuzz every operation of the OpenAPI schema on a live server: no 5xx, always the documented shape."""

from __future__ import annotations

import time

import pytest
import requests
import schemathesis
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import (
    content_type_conformance,
    negative_data_rejection,
    not_a_server_error,
    response_schema_conformance,
)
from schemathesis.core.failures import FailureGroup
from schemathesis.core.media_types import YAML_MEDIA_TYPES

from tests.support.members import member_spec, started_members

pytestmark = pytest.mark.xdist_group("api-fuzz")

BUDGET_SECONDS = 60
EXAMPLES_PER_OPERATION = 12
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]
SCALARS = {"string", "number", "integer", "boolean"}


def rejects_invalid_input(ctx, response, case):
    """Schemathesis's negative_data_rejection, except for a scalar's type in a JSON body.

    DRF fields coerce scalars on purpose (5 for a text field is "5", "true" for a flag is true); anything
    else that violates the schema must be refused with a 4xx.
    """
    mutations = getattr(case.meta.phase.data, "mutations", ()) if case.meta else ()
    if mutations and all(
        m.parameter_location.value == "body"
        and m.operator.value == "change_type"
        and {m.original_value, m.new_value} <= SCALARS
        for m in mutations
    ):
        return None
    return negative_data_rejection(ctx, response, case)


NEGATIVE_CHECKS = [*CHECKS, rejects_invalid_input]
SPECS = [member_spec("beijing", labels={"env": "prod"}), member_spec("shanghai", labels={"env": "dev"})]


@schemathesis.deserializer(*YAML_MEDIA_TYPES)
def yaml_text(ctx, response):
    """YAML bodies are documented as text: check that they parse, then compare them as text."""
    text = response.content.decode("utf-8")
    list(yaml.safe_load_all(text))
    return text


@pytest.fixture
def fleet(transactional_db):
    """Two joined simulated clusters; tasks run inline, their failures recorded as a worker would."""
    with started_members(SPECS, propagate=False) as members:
        yield list(members.values())


@pytest.fixture
def admin_headers(admin_user):
    from rest_framework.authtoken.models import Token

    return {"Authorization": f"Token {Token.objects.create(user=admin_user).key}"}


def _run_operation(operation, mode, checks, base_url, headers, session, deadline, failures):
    """Call the operation with generated cases until the first failure, the example count or the deadline."""
    found: list[str] = []

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def exercise(case):
        if found or time.monotonic() > deadline:
            return
        response = case.call(base_url=base_url, headers=headers, session=session, timeout=20)
        try:
            case.validate_response(response, checks=checks, headers=headers)
        except (AssertionError, FailureGroup) as exc:
            found.append(f"{operation.label} [{mode.value}]: {str(exc).strip()[:2500]}")

    try:
        exercise()
    except Unsatisfiable:
        pass  # nothing in this operation can be made invalid (negative mode)
    failures.extend(found)


def test_every_api_operation_answers_generated_input_without_5xx_and_as_documented(
    live_server, fleet, admin_headers
):
    schema = schemathesis.openapi.from_url(f"{live_server.url}/api/schema/", headers=admin_headers)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) > 30, "the schema lost operations"
    failures: list[str] = []
    with requests.Session() as session:
        for mode, checks in (
            (schemathesis.GenerationMode.POSITIVE, CHECKS),
            (schemathesis.GenerationMode.NEGATIVE, NEGATIVE_CHECKS),
        ):
            for operation in operations:
                # an equal share of the budget for every operation, with valid and with invalid input
                deadline = time.monotonic() + BUDGET_SECONDS / (2 * len(operations))
                _run_operation(
                    operation, mode, checks, live_server.url, admin_headers, session, deadline, failures
                )
    assert not failures, "\n\n".join(failures)
