"""The environment readers accept good values and fail loudly, naming the variable, on bad ones."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from core.env import env_bool, env_float, env_int, env_list, env_str, local_secret


def test_env_bool_reads_the_usual_words(monkeypatch):
    monkeypatch.setenv("FLAG", "yes")
    assert env_bool("FLAG", False) is True
    monkeypatch.setenv("FLAG", "0")
    assert env_bool("FLAG", True) is False


def test_env_bool_rejects_an_unknown_word_and_names_the_variable(monkeypatch):
    monkeypatch.setenv("FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="FLAG='maybe'"):
        env_bool("FLAG", False)


def test_env_int_rejects_text_and_values_below_the_minimum(monkeypatch):
    monkeypatch.setenv("COUNT", "ten")
    with pytest.raises(ImproperlyConfigured, match="COUNT"):
        env_int("COUNT", 1)
    monkeypatch.setenv("COUNT", "-1")
    with pytest.raises(ImproperlyConfigured, match="at least 0"):
        env_int("COUNT", 1, minimum=0)


def test_env_int_rejects_values_above_the_maximum(monkeypatch):
    monkeypatch.setenv("ENGINE_NICENESS", "20")
    with pytest.raises(ImproperlyConfigured, match="ENGINE_NICENESS=20: must be at most 19"):
        env_int("ENGINE_NICENESS", 5, minimum=0, maximum=19)
    monkeypatch.setenv("ENGINE_NICENESS", "19")
    assert env_int("ENGINE_NICENESS", 5, minimum=0, maximum=19) == 19


def test_env_float_uses_the_default_when_unset(monkeypatch):
    monkeypatch.delenv("INTERVAL", raising=False)
    assert env_float("INTERVAL", 10.0) == 10.0


def test_env_list_splits_on_commas(monkeypatch):
    monkeypatch.setenv("HOSTS", "a.example, b.example,,")
    assert env_list("HOSTS", []) == ["a.example", "b.example"]


def test_secrets_can_come_from_a_file(monkeypatch, tmp_path):
    secret = tmp_path / "key"
    secret.write_text("s3cret\n")
    monkeypatch.setenv("TOKEN_FILE", str(secret))
    assert env_str("TOKEN") == "s3cret"


def test_a_missing_secret_file_is_reported_by_name(monkeypatch, tmp_path):
    monkeypatch.setenv("TOKEN_FILE", str(tmp_path / "absent"))
    with pytest.raises(ImproperlyConfigured, match="TOKEN_FILE"):
        env_str("TOKEN")


def test_local_secret_is_created_once_and_then_kept(tmp_path):
    path = tmp_path / "var" / "secret"
    first = local_secret(path)
    assert len(first) > 40
    assert local_secret(path) == first
    assert oct(path.stat().st_mode & 0o777) == "0o600"


def test_manage_py_refuses_a_bad_setting_in_one_line():
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "SCHEDULE_NICENESS": "25"}
    done = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=root, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0
    assert done.stderr.strip() == "manage.py: SCHEDULE_NICENESS=25: must be at most 19"
