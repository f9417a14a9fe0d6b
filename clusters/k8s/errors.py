"""The project's own Kubernetes error types and the one helper that maps client errors onto them."""

from __future__ import annotations

import json
import socket
import ssl
from collections.abc import Iterator
from contextlib import contextmanager

import urllib3.exceptions
from kubernetes.client.exceptions import ApiException


class KubeError(Exception):
    """Any failure talking to a member cluster; `message` is one clear sentence for people."""

    status: int | None = None

    def __init__(self, message: str, *, status: int | None = None, reason: str = "") -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status
        self.reason = reason


class ClusterUnreachable(KubeError):
    """No HTTP answer: refused, timed out, DNS, TLS."""


class Unauthorized(KubeError):
    status = 401


class Forbidden(KubeError):
    status = 403


class NotFound(KubeError):
    status = 404


class Conflict(KubeError):
    status = 409


class AlreadyExists(Conflict):
    """A 409 whose reason is AlreadyExists (a create of a name that is taken)."""


class Invalid(KubeError):
    status = 422


class InvalidKubeconfig(KubeError):
    """A kubeconfig we cannot use; raised before any network call."""


class ServerError(KubeError):
    """The API server answered with a 5xx or another status we do not map more precisely."""


def _status_message(exc: ApiException) -> tuple[str, str]:
    """The Status object's message and reason, when the body is one."""
    body = exc.body
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    if isinstance(body, str) and body.strip().startswith("{"):
        try:
            data = json.loads(body)
        except ValueError:
            data = {}
        if isinstance(data, dict):
            return str(data.get("message") or ""), str(data.get("reason") or "")
    return "", ""


def translate(exc: BaseException, server: str = "") -> KubeError:
    """Map an ApiException, urllib3 or socket error to our own type; callers raise it `from exc`."""
    where = f" at {server}" if server else ""
    if isinstance(exc, KubeError):
        return exc
    if isinstance(exc, ApiException):
        status = int(exc.status or 0)
        detail, reason = _status_message(exc)
        detail = detail or (exc.reason or "").strip()
        if status == 401:
            return Unauthorized(
                f"The API server{where} rejected the credentials (401 Unauthorized).", reason=reason
            )
        if status == 403:
            return Forbidden(f"The credentials are not allowed to do this{where}: {detail or 'forbidden'}.")
        if status == 404:
            return NotFound(detail or f"Not found{where}.", reason=reason)
        if status == 409:
            kind = AlreadyExists if reason == "AlreadyExists" else Conflict
            return kind(detail or f"Conflict{where}.", reason=reason)
        if status == 422:
            return Invalid(detail or f"The API server{where} rejected the object as invalid.", reason=reason)
        if status == 0:
            # The client reports TLS failures as status 0 with "SSLError\n<details>" as the reason.
            cause, _, rest = (exc.reason or "").partition("\n")
            if cause == "SSLError":
                return ClusterUnreachable(
                    f"TLS handshake with {server or 'the API server'} failed: {_one_line(rest)}."
                )
            return ClusterUnreachable(
                f"No answer from the API server{where}: {_one_line(detail or str(exc))}."
            )
        return ServerError(f"The API server{where} answered {status}: {detail or 'error'}.", status=status)
    if isinstance(exc, urllib3.exceptions.SSLError | ssl.SSLError):
        return ClusterUnreachable(
            f"TLS handshake with {server or 'the API server'} failed: {_one_line(_root(exc))}."
        )
    if isinstance(exc, urllib3.exceptions.NewConnectionError | ConnectionError):
        # Checked before timeouts: urllib3 makes NewConnectionError a subclass of ConnectTimeoutError.
        return ClusterUnreachable(f"Cannot connect to the API server{where}: {_one_line(_root(exc))}.")
    if isinstance(exc, urllib3.exceptions.TimeoutError | socket.timeout | TimeoutError):
        return ClusterUnreachable(f"The API server{where} did not answer in time.")
    if isinstance(exc, urllib3.exceptions.HTTPError | OSError):
        return ClusterUnreachable(f"Cannot connect to the API server{where}: {_one_line(_root(exc))}.")
    return KubeError(f"Unexpected error talking to the API server{where}: {exc}.")


def _one_line(text: str) -> str:
    return " ".join(text.split()).rstrip(".")


def _root(exc: BaseException) -> str:
    """The innermost reason, which is what a person can act on ("Connection refused")."""
    seen = exc
    for attr in ("reason", "__cause__", "__context__"):
        inner = getattr(seen, attr, None)
        if isinstance(inner, BaseException):
            seen = inner
    text = str(getattr(seen, "strerror", None) or seen)
    # urllib3 wraps messages as "<connection object>: Failed to establish a new connection: [Errno 111] ..."
    return text.split(": ", 1)[-1] if "object at 0x" in text else text


@contextmanager
def mapped_errors(server: str = "") -> Iterator[None]:
    """Run client calls, re-raising anything they throw as a KubeError with the cause chained."""
    try:
        yield
    except KubeError:
        raise
    except (ApiException, urllib3.exceptions.HTTPError, OSError) as exc:
        raise translate(exc, server) from exc
