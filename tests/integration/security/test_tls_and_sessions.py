"""In production (DJANGO_DEBUG=0) over TLS: HSTS, cookies that travel encrypted only, a trusted proxy's
word on the scheme; and sessions that end after SESSION_MAX_AGE."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.sessions.models import Session
from django.test import Client, override_settings
from django.utils import timezone

from tests.conftest import PASSWORD

ROOT = Path(__file__).resolve().parents[3]
READ_SETTINGS = """
import json
from karmada_ui import settings as s
print(json.dumps({name: getattr(s, name) for name in [
    "SECURE_HSTS_SECONDS", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_PROXY_SSL_HEADER",
    "SESSION_COOKIE_AGE", "SESSION_EXPIRE_AT_BROWSER_CLOSE", "SECURE_SSL_REDIRECT",
]}))
"""


def settings_with(tmp_path: Path, **env: str) -> dict:
    """The settings module as a fresh process reads it with this environment."""
    base = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("SECURE_", "SESSION_", "CSRF_", "BEHIND_", "DJANGO_"))
    }
    base.update(
        DJANGO_DEBUG="0",
        SECRET_KEY="production-secret-key-for-this-test-only-0123456789",
        KARMADA_UI_ENCRYPTION_KEY="x" * 44,
        KARMADA_UI_VAR_DIR=str(tmp_path),
        **env,
    )
    done = subprocess.run(
        [sys.executable, "-c", READ_SETTINGS], cwd=ROOT, env=base, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_production_settings_send_hsts_and_secure_cookies_and_end_sessions_after_12_hours(tmp_path):
    production = settings_with(tmp_path)
    assert production["SECURE_HSTS_SECONDS"] == 31_536_000
    assert production["SESSION_COOKIE_SECURE"] is True and production["CSRF_COOKIE_SECURE"] is True
    assert production["SECURE_PROXY_SSL_HEADER"] is None
    assert production["SESSION_COOKIE_AGE"] == 12 * 3600
    assert production["SESSION_EXPIRE_AT_BROWSER_CLOSE"] is False


def test_the_environment_sets_the_proxy_header_and_the_session_lifetime(tmp_path):
    configured = settings_with(
        tmp_path, BEHIND_TLS_PROXY="1", SESSION_MAX_AGE="30m", SESSION_EXPIRE_AT_BROWSER_CLOSE="1"
    )
    assert configured["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert configured["SESSION_COOKIE_AGE"] == 1800
    assert configured["SESSION_EXPIRE_AT_BROWSER_CLOSE"] is True


def test_a_bad_session_lifetime_fails_with_the_variable_named(tmp_path):
    with pytest.raises(subprocess.CalledProcessError) as failed:
        settings_with(tmp_path, SESSION_MAX_AGE="half a day")
    assert "SESSION_MAX_AGE" in failed.value.stderr


PRODUCTION_TLS = {
    "SECURE_HSTS_SECONDS": 31_536_000,
    "SESSION_COOKIE_SECURE": True,
    "CSRF_COOKIE_SECURE": True,
    "SECURE_PROXY_SSL_HEADER": ("HTTP_X_FORWARDED_PROTO", "https"),
}


@pytest.mark.django_db
@override_settings(**PRODUCTION_TLS)
def test_over_tls_behind_the_proxy_hsts_is_sent_and_the_cookies_are_secure(viewer):
    client = Client(HTTP_X_FORWARDED_PROTO="https")
    page = client.get("/accounts/login/")
    assert page["Strict-Transport-Security"] == "max-age=31536000"
    assert page.cookies["csrftoken"]["secure"] is True
    signed_in = client.post("/accounts/login/", {"username": viewer.username, "password": PASSWORD})
    assert signed_in.status_code == 302
    assert signed_in.cookies["sessionid"]["secure"] is True
    assert signed_in.cookies["sessionid"]["httponly"] is True


@pytest.mark.django_db
@override_settings(**PRODUCTION_TLS)
def test_plain_http_gets_no_hsts():
    assert "Strict-Transport-Security" not in Client().get("/accounts/login/")


@pytest.mark.django_db
def test_a_session_lasts_session_max_age_and_then_asks_for_the_password_again(client, viewer, settings):
    settings.SESSION_COOKIE_AGE = 3600
    signed_in = client.post("/accounts/login/", {"username": viewer.username, "password": PASSWORD})
    assert signed_in.cookies["sessionid"]["max-age"] == 3600
    assert client.get("/clusters/").status_code == 200
    Session.objects.update(expire_date=timezone.now() - timedelta(seconds=1))
    expired = client.get("/clusters/")
    assert expired.status_code == 302 and expired["Location"].startswith("/accounts/login/")
