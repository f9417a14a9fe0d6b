"""Every kind of response carries the strict Content-Security-Policy and the other security headers."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token

from clusters.models import Cluster
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

STRICT_DIRECTIVES = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "frame-ancestors": ["'none'"],
    "form-action": ["'self'"],
}


def policy_of(response) -> dict[str, list[str]]:
    directives = {}
    for part in response["Content-Security-Policy"].split(";"):
        name, *values = part.split()
        directives[name] = values
    return directives


def assert_security_headers(response) -> None:
    policy = policy_of(response)
    for directive, sources in STRICT_DIRECTIVES.items():
        assert policy[directive] == sources, directive
    everything = " ".join(" ".join(sources) for sources in policy.values())
    assert "'unsafe-inline'" not in everything and "'unsafe-eval'" not in everything
    assert response["X-Frame-Options"] == "DENY"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Content-Type-Options"] == "nosniff"


@pytest.fixture
def signed_in(client, admin_user):
    Cluster.objects.create(name="beijing", api_endpoint="https://10.0.0.1:6443")
    client.force_login(admin_user)
    return client


@pytest.mark.parametrize(
    "path",
    ["/clusters/", "/clusters/c/beijing/", "/policies/new/", "/alerts/", "/api/docs/", "/api/schema/"],
)
def test_pages_and_the_api_docs_carry_the_headers(signed_in, path):
    response = signed_in.get(path)
    assert response.status_code == 200
    assert_security_headers(response)


def test_the_api_docs_load_their_start_up_code_as_a_script_file(signed_in):
    page = signed_in.get("/api/docs/").content.decode()
    assert "<script>" not in page and "<style>" not in page
    script = signed_in.get("/api/docs/?script=")
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert b"SwaggerUIBundle" in script.content
    assert_security_headers(script)


def test_the_login_page_healthz_and_metrics_carry_the_headers(client):
    for path in ("/accounts/login/", "/healthz", "/metrics"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert_security_headers(response)


def test_the_api_carries_the_headers_with_a_token_and_when_it_refuses(admin_user):
    token = Token.objects.create(user=admin_user)
    answered = Client().get("/api/v1/clusters/", HTTP_AUTHORIZATION=f"Token {token.key}")
    assert answered.status_code == 200
    assert_security_headers(answered)
    refused = Client().get("/api/v1/clusters/")
    assert refused.status_code == 403  # not signed in (DRF says 403 when session auth comes first)
    assert_security_headers(refused)


def test_error_pages_carry_the_headers(signed_in, viewer):
    missing = signed_in.get("/clusters/c/nowhere/")
    assert missing.status_code == 404
    assert_security_headers(missing)
    wrong_method = signed_in.get("/accounts/logout/")
    assert wrong_method.status_code == 405
    assert_security_headers(wrong_method)
    as_viewer = Client()
    as_viewer.force_login(viewer)
    forbidden = as_viewer.post("/clusters/c/beijing/unjoin/")
    assert forbidden.status_code == 403
    assert_security_headers(forbidden)
    csrf_refused = Client(enforce_csrf_checks=True)
    csrf_refused.force_login(viewer)
    refused = csrf_refused.post("/clusters/c/beijing/unjoin/")
    assert refused.status_code == 403
    assert_security_headers(refused)


def test_a_failed_sign_in_page_carries_the_headers(client, viewer):
    response = client.post("/accounts/login/", {"username": viewer.username, "password": PASSWORD + "x"})
    assert response.status_code == 200
    assert_security_headers(response)
