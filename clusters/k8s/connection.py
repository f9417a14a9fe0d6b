"""How to reach one member cluster (`ClusterConnection`), read from a kubeconfig context."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from clusters.k8s.errors import InvalidKubeconfig
from core import useryaml


@dataclass(frozen=True)
class ClusterConnection:
    """Everything needed to talk to one API server; secrets stay out of repr()."""

    name: str
    server: str
    token: str | None = field(default=None, repr=False)
    ca_data: bytes | None = field(default=None, repr=False)
    client_cert_data: bytes | None = field(default=None, repr=False)
    client_key_data: bytes | None = field(default=None, repr=False)
    insecure_skip_tls_verify: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "server", validate_server(self.server))
        if (self.client_cert_data is None) != (self.client_key_data is None):
            raise InvalidKubeconfig("A client certificate needs its key, and a key needs its certificate.")


def validate_server(server: str) -> str:
    """An http(s) URL with a host, optionally with a path prefix; returned without a trailing slash."""
    text = (server or "").strip()
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidKubeconfig(f"The server URL {text!r} is not an http(s) URL with a host.")
    if parts.query or parts.fragment:
        raise InvalidKubeconfig(f"The server URL {text!r} must not have a query or fragment.")
    try:
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError as exc:
        raise InvalidKubeconfig(f"The server URL {text!r} has an invalid port.") from exc
    return text.rstrip("/")


def load_kubeconfig(text_or_dict: str | bytes | dict[str, Any]) -> dict[str, Any]:
    """Parse kubeconfig YAML (or accept a dict) and check its top-level shape."""
    if isinstance(text_or_dict, dict):
        data: Any = text_or_dict
    else:
        try:
            data = useryaml.load(text_or_dict)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
            if isinstance(exc, useryaml.YAMLTooComplex):
                where = f": {exc.problem}"
            raise InvalidKubeconfig(f"The kubeconfig is not valid YAML{where}.") from exc
    if not isinstance(data, dict):
        raise InvalidKubeconfig("The kubeconfig must be a YAML mapping with clusters, users and contexts.")
    for key in ("clusters", "users", "contexts"):
        value = data.get(key) or []
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            raise InvalidKubeconfig(f"The kubeconfig's {key!r} must be a list of named entries.")
    return data


def contexts(text_or_dict: str | bytes | dict[str, Any]) -> list[str]:
    """The context names of a kubeconfig, in file order."""
    data = load_kubeconfig(text_or_dict)
    return [str(item.get("name")) for item in data.get("contexts") or [] if item.get("name")]


def current_context(text_or_dict: str | bytes | dict[str, Any]) -> str | None:
    data = load_kubeconfig(text_or_dict)
    value = data.get("current-context")
    return str(value) if value else None


def _named(data: dict[str, Any], section: str, name: str, what: str) -> dict[str, Any]:
    for item in data.get(section) or []:
        if item.get("name") == name:
            body = item.get(what)
            if not isinstance(body, dict):
                raise InvalidKubeconfig(f"The kubeconfig's {what} {name!r} has no {what!r} section.")
            return body
    raise InvalidKubeconfig(f"The kubeconfig has no {what} named {name!r}.")


def _b64(value: Any, what: str) -> bytes:
    try:
        return base64.b64decode(str(value), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InvalidKubeconfig(f"{what} is not valid base64.") from exc


def _read_file(path: Any, what: str, base_dir: Path | None, files: bool) -> bytes:
    if not files:
        raise InvalidKubeconfig(
            f"{what} refers to a file ({path}); paste a kubeconfig with the data inline "
            "(the *-data fields or token) instead."
        )
    resolved = Path(str(path)).expanduser()
    if not resolved.is_absolute() and base_dir is not None:
        resolved = base_dir / resolved
    try:
        return resolved.read_bytes()
    except OSError as exc:
        raise InvalidKubeconfig(f"{what}: cannot read {resolved}: {exc.strerror}.") from exc


def _data_or_file(
    body: dict[str, Any], key: str, what: str, base_dir: Path | None, files: bool
) -> bytes | None:
    if body.get(f"{key}-data"):
        return _b64(body[f"{key}-data"], what)
    if body.get(key):
        return _read_file(body[key], what, base_dir, files)
    return None


def from_kubeconfig(
    text_or_dict: str | bytes | dict[str, Any],
    context: str | None = None,
    *,
    base_dir: str | Path | None = None,
    files: bool = True,
) -> ClusterConnection:
    """The connection for one context (the current one by default).

    `files=False` refuses kubeconfigs that point at files on this machine, which is what a kubeconfig
    pasted into the web UI or sent to the API must do.
    """
    data = load_kubeconfig(text_or_dict)
    base = Path(base_dir) if base_dir is not None else None
    name = context or data.get("current-context")
    if not name:
        raise InvalidKubeconfig("The kubeconfig has no current-context; choose a context.")
    ctx = _named(data, "contexts", str(name), "context")
    cluster_name, user_name = ctx.get("cluster"), ctx.get("user")
    if not cluster_name:
        raise InvalidKubeconfig(f"The context {name!r} names no cluster.")
    cluster = _named(data, "clusters", str(cluster_name), "cluster")
    user = _named(data, "users", str(user_name), "user") if user_name else {}

    if not cluster.get("server"):
        raise InvalidKubeconfig(f"The cluster {cluster_name!r} has no server URL.")
    if user.get("exec"):
        raise InvalidKubeconfig(
            f"The user {user_name!r} gets its credentials from an exec plugin, which is not supported; "
            "use a service-account token or a client certificate."
        )
    if user.get("auth-provider"):
        raise InvalidKubeconfig(
            f"The user {user_name!r} uses an auth-provider plugin, which is not supported; "
            "use a service-account token or a client certificate."
        )
    if user.get("username") or user.get("password"):
        raise InvalidKubeconfig(
            f"The user {user_name!r} uses basic authentication, which Kubernetes no longer supports; "
            "use a service-account token or a client certificate."
        )

    token: str | None = None
    if user.get("token"):
        token = str(user["token"]).strip()
    elif user.get("tokenFile"):
        token = (
            _read_file(user["tokenFile"], f"The user {user_name!r} tokenFile", base, files).decode().strip()
        )

    return ClusterConnection(
        name=str(name),
        server=str(cluster["server"]),
        token=token or None,
        ca_data=_data_or_file(
            cluster,
            "certificate-authority",
            f"The cluster {cluster_name!r} certificate-authority",
            base,
            files,
        ),
        client_cert_data=_data_or_file(
            user, "client-certificate", f"The user {user_name!r} client-certificate", base, files
        ),
        client_key_data=_data_or_file(user, "client-key", f"The user {user_name!r} client-key", base, files),
        insecure_skip_tls_verify=bool(cluster.get("insecure-skip-tls-verify", False)),
    )
