"""Failed sign-ins lock out the user name and, separately, the address, on the login page and the token
endpoint alike: 429 with the reason and Retry-After, until the cool-off has passed."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.test import Client
from django.utils import timezone

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
TOKEN = "/api/v1/auth/token/"


@pytest.fixture(autouse=True)
def lockout_after_three(settings):
    settings.AXES_FAILURE_LIMIT = 3
    settings.AXES_COOLOFF_TIME = timedelta(minutes=15)


def sign_in(username: str, password: str, address: str = "192.0.2.10"):
    return Client(REMOTE_ADDR=address).post(LOGIN, {"username": username, "password": password})


def test_the_third_wrong_password_locks_the_user_out_with_the_reason_and_retry_after(viewer):
    for _ in range(2):
        assert sign_in(viewer.username, "wrong").status_code == 200
    locked = sign_in(viewer.username, "wrong")
    assert locked.status_code == 429
    assert 14 * 60 < int(locked["Retry-After"]) <= 15 * 60
    assert "Too many failed sign-ins" in locked.content.decode()
    assert "Try again in 15 minutes." in locked.content.decode()
    assert b'name="password"' in locked.content  # the sign-in form is still there
    # The right password does not get in during the lockout, and does not extend it either.
    again = sign_in(viewer.username, PASSWORD)
    assert again.status_code == 429 and "_auth_user_id" not in again.wsgi_request.session
    assert int(again["Retry-After"]) <= int(locked["Retry-After"])


def test_the_user_name_is_locked_from_every_address(viewer):
    for address in ("192.0.2.1", "192.0.2.2", "192.0.2.3"):
        sign_in(viewer.username, "wrong", address)
    assert sign_in(viewer.username, PASSWORD, "198.51.100.7").status_code == 429


def test_an_address_that_guesses_many_user_names_is_locked_for_every_user(viewer):
    for name in ("root", "admin", "operator"):
        sign_in(name, "guess", "203.0.113.9")
    assert sign_in(viewer.username, PASSWORD, "203.0.113.9").status_code == 429
    assert sign_in(viewer.username, PASSWORD, "203.0.113.10").status_code == 302


def test_the_lockout_ends_after_the_cool_off(viewer):
    for _ in range(3):
        sign_in(viewer.username, "wrong")
    assert sign_in(viewer.username, PASSWORD).status_code == 429
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=15, seconds=1))
    assert sign_in(viewer.username, PASSWORD).status_code == 302


def test_a_success_before_the_limit_forgets_the_failures(viewer):
    for _ in range(2):
        sign_in(viewer.username, "wrong")
    assert sign_in(viewer.username, PASSWORD).status_code == 302
    for _ in range(2):
        sign_in(viewer.username, "wrong")
    assert sign_in(viewer.username, PASSWORD).status_code == 302


def test_the_token_endpoint_counts_failures_and_answers_a_lockout_in_json(viewer):
    api = Client(REMOTE_ADDR="192.0.2.20")
    for _ in range(2):
        assert api.post(TOKEN, {"username": viewer.username, "password": "wrong"}).status_code == 400
    locked = api.post(TOKEN, {"username": viewer.username, "password": "wrong"})
    assert locked.status_code == 429
    assert locked["Content-Type"] == "application/json"
    assert "Too many failed sign-ins" in locked.json()["detail"]
    assert int(locked["Retry-After"]) > 14 * 60
    # The login page now refuses the same user too: one count for both doors.
    assert sign_in(viewer.username, PASSWORD, "198.51.100.8").status_code == 429


def test_behind_a_trusted_proxy_the_forwarded_address_is_the_one_counted(viewer, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    proxy = "10.0.0.5"

    def through_proxy(client_address: str, username: str, password: str):
        return Client(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=f"{client_address}").post(
            LOGIN, {"username": username, "password": password}
        )

    for name in ("root", "admin", "operator"):
        through_proxy("203.0.113.50", name, "guess")
    assert through_proxy("203.0.113.50", viewer.username, PASSWORD).status_code == 429
    assert through_proxy("203.0.113.51", viewer.username, PASSWORD).status_code == 302


def test_without_a_trusted_proxy_a_forged_forwarded_header_changes_nothing(viewer):
    for index, name in enumerate(("root", "admin", "operator")):
        Client(REMOTE_ADDR="203.0.113.60", HTTP_X_FORWARDED_FOR=f"198.51.100.{index}").post(
            LOGIN, {"username": name, "password": "guess"}
        )
    assert sign_in(viewer.username, PASSWORD, "203.0.113.60").status_code == 429
