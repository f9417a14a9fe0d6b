"""Typed readers for settings that come from the environment, failing loudly on bad values."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from kubesyntax.durations import DurationError, parse_duration

TRUE_WORDS = {"1", "true", "yes", "on"}
FALSE_WORDS = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    """Return the variable, or the contents of the file named by NAME_FILE, or the default."""
    file_name = os.environ.get(f"{name}_FILE")
    if file_name:
        try:
            return Path(file_name).read_text().strip()
        except OSError as exc:
            raise ImproperlyConfigured(f"{name}_FILE={file_name}: {exc.strerror}") from exc
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r}: expected one of 1/0, true/false, yes/no, on/off")


def env_int(name: str, default: int, minimum: int | None = None, maximum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}={raw!r}: expected a whole number") from exc
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value}: must be at least {minimum}")
    if maximum is not None and value > maximum:
        raise ImproperlyConfigured(f"{name}={value}: must be at most {maximum}")
    return value


def env_float(name: str, default: float, minimum: float | None = None) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}={raw!r}: expected a number") from exc
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value}: must be at least {minimum}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def local_secret(path: Path, nbytes: int = 48) -> str:
    """Read a secret kept under var/ for local use, creating it on first use."""
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    value = secrets.token_urlsafe(nbytes)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process created it first
        return path.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        handle.write(value)
    return value


def env_duration(name: str, default: str) -> int:
    """Whole seconds from a Go duration (30s, 5m, 1h30m), days (1d) allowed as Prometheus writes them."""
    raw = os.environ.get(name)
    text = default if raw is None or raw.strip() == "" else raw.strip()
    try:
        seconds = parse_duration(text, days=True)
    except DurationError as exc:
        raise ImproperlyConfigured(f"{name}={exc}") from exc
    if seconds < 0 or seconds != int(seconds):
        raise ImproperlyConfigured(f"{name}={text!r}: must be a whole number of seconds, 0 or more")
    return int(seconds)


def email_url_parts(name: str, url: str) -> tuple[str, int, str, str, bool, bool]:
    """Split smtp://user:password@host:port?tls=1 (smtps:// for implicit TLS) into e-mail settings."""
    from urllib.parse import parse_qs, unquote, urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
        raise ImproperlyConfigured(f"{name}: expected smtp://user:password@host:port or smtps://…")
    query = {key: values[-1].lower() for key, values in parse_qs(parts.query).items()}
    use_ssl = parts.scheme == "smtps" or query.get("ssl") in TRUE_WORDS
    use_tls = not use_ssl and query.get("tls") in TRUE_WORDS
    try:
        port = parts.port or (465 if use_ssl else 587 if use_tls else 25)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}: the port is not a number") from exc
    return (
        parts.hostname,
        port,
        unquote(parts.username or ""),
        unquote(parts.password or ""),
        use_tls,
        use_ssl,
    )


RATE_PERIODS = {"s": "s", "sec": "s", "m": "m", "min": "m", "h": "h", "hour": "h", "d": "d", "day": "d"}


def env_rate(name: str, default: str) -> str:
    """A request rate such as 60/min, 10/s, 1000/h or 5000/day, as DRF's throttles read it."""
    raw = os.environ.get(name)
    text = default if raw is None or raw.strip() == "" else raw.strip()
    count, _, period = text.partition("/")
    if not count.isdigit() or int(count) < 1 or period not in RATE_PERIODS:
        raise ImproperlyConfigured(
            f"{name}={text!r}: expected a rate such as 60/min, 10/s, 1000/h or 5000/day"
        )
    return f"{int(count)}/{RATE_PERIODS[period]}"
