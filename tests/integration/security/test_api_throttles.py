"""API throttles: per user for signed-in and token callers, per address for anonymous callers and for the
token endpoint; 429 with Retry-After. The rates come from the environment; the shipped defaults bite."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client
from rest_framework.authtoken.models import Token

from core.env import env_rate
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

TOKEN = "/api/v1/auth/token/"


def with_token(user, address: str = "192.0.2.30") -> Client:
    token, _ = Token.objects.get_or_create(user=user)
    return Client(REMOTE_ADDR=address, HTTP_AUTHORIZATION=f"Token {token.key}")


def test_a_token_caller_over_the_user_rate_gets_429_with_retry_after(viewer, settings):
    settings.API_THROTTLE_RATES = {**settings.API_THROTTLE_RATES, "user": "3/min"}
    api = with_token(viewer)
    assert [api.get("/api/v1/clusters/").status_code for _ in range(3)] == [200, 200, 200]
    throttled = api.get("/api/v1/clusters/")
    assert throttled.status_code == 429
    assert 1 <= int(throttled["Retry-After"]) <= 60
    assert "throttled" in throttled.json()["detail"].lower()
    # Counted per user: another user, even from the same address, is not held back.
    from tests.conftest import make_user

    other = with_token(make_user("someone-else", "viewer"))
    assert other.get("/api/v1/clusters/").status_code == 200


def test_the_user_rate_counts_a_user_whether_by_session_or_by_token(viewer, settings):
    settings.API_THROTTLE_RATES = {**settings.API_THROTTLE_RATES, "user": "2/min"}
    session = Client()
    session.force_login(viewer)
    assert session.get("/api/v1/clusters/").status_code == 200
    assert with_token(viewer).get("/api/v1/clusters/").status_code == 200
    assert session.get("/api/v1/clusters/").status_code == 429


def test_the_token_endpoint_is_throttled_per_address_whatever_the_credentials(viewer, settings):
    settings.API_THROTTLE_RATES = {**settings.API_THROTTLE_RATES, "auth-token": "2/min"}
    settings.AXES_FAILURE_LIMIT = 100  # the throttle, not the lockout, is under test here
    door = Client(REMOTE_ADDR="192.0.2.40")
    assert door.post(TOKEN, {"username": viewer.username, "password": PASSWORD}).status_code == 200
    assert door.post(TOKEN, {"username": "x", "password": "y"}).status_code == 400
    throttled = door.post(TOKEN, {"username": viewer.username, "password": PASSWORD})
    assert throttled.status_code == 429 and int(throttled["Retry-After"]) >= 1
    elsewhere = Client(REMOTE_ADDR="192.0.2.41")
    assert elsewhere.post(TOKEN, {"username": viewer.username, "password": PASSWORD}).status_code == 200


def test_refused_anonymous_calls_and_guessed_tokens_count_against_the_anonymous_rate(settings):
    settings.API_THROTTLE_RATES = {**settings.API_THROTTLE_RATES, "anonymous": "2/min"}
    guesser = Client(REMOTE_ADDR="192.0.2.50", HTTP_AUTHORIZATION="Token " + "0" * 40)
    assert [guesser.get("/api/v1/clusters/").status_code for _ in range(2)] == [403, 403]
    throttled = guesser.get("/api/v1/clusters/")
    assert throttled.status_code == 429 and int(throttled["Retry-After"]) >= 1
    anonymous = Client(REMOTE_ADDR="192.0.2.50")
    assert anonymous.get("/api/v1/clusters/").status_code == 429
    assert Client(REMOTE_ADDR="192.0.2.51").get("/api/v1/clusters/").status_code == 403


@pytest.mark.real_throttles
def test_the_shipped_default_rates_bite(viewer):
    anonymous = Client(REMOTE_ADDR="192.0.2.60")
    answers = [anonymous.get("/api/v1/clusters/").status_code for _ in range(61)]
    assert answers[:60] == [403] * 60 and answers[60] == 429  # 60/min for anonymous callers
    door = Client(REMOTE_ADDR="192.0.2.61")
    answers = [
        door.post(TOKEN, {"username": viewer.username, "password": PASSWORD}).status_code for _ in range(11)
    ]
    assert answers[:10] == [200] * 10 and answers[10] == 429  # 10/min for the token endpoint


def test_rates_from_the_environment_are_checked(monkeypatch):
    monkeypatch.setenv("API_THROTTLE_USER", "500/hour")
    assert env_rate("API_THROTTLE_USER", "1200/min") == "500/h"
    monkeypatch.setenv("API_THROTTLE_USER", "fast")
    with pytest.raises(ImproperlyConfigured, match="API_THROTTLE_USER='fast'"):
        env_rate("API_THROTTLE_USER", "1200/min")
    monkeypatch.setenv("API_THROTTLE_USER", "0/min")
    with pytest.raises(ImproperlyConfigured, match="API_THROTTLE_USER"):
        env_rate("API_THROTTLE_USER", "1200/min")
