"""Cluster credentials encrypted at rest with Fernet; keys (newest first) from KARMADA_UI_ENCRYPTION_KEY."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from clusters.k8s import ClusterConnection


class CredentialsUnreadable(Exception):
    """The stored credentials cannot be decrypted with the configured key(s)."""


def _fernet_key(secret: str) -> bytes:
    """Any secret string becomes a Fernet key, so a random token from a secrets file is enough."""
    digest = hashlib.sha256(b"karmada-ui cluster credentials\0" + secret.encode()).digest()
    return base64.urlsafe_b64encode(digest)


def key_secrets(keys: str) -> list[str]:
    """The secrets of a key setting, newest first, separated by commas or newlines (one a line in a file)."""
    return [part.strip() for part in re.split(r"[,\n]", keys) if part.strip()]


@lru_cache(maxsize=4)
def _ciphers(keys: str) -> tuple[Fernet, MultiFernet]:
    secrets = key_secrets(keys)
    if not secrets:
        raise ImproperlyConfigured("KARMADA_UI_ENCRYPTION_KEY is empty.")
    fernets = [Fernet(_fernet_key(secret)) for secret in secrets]
    # The first key encrypts; every key decrypts, so keys rotate by prepending a new one.
    return fernets[0], MultiFernet(fernets)


def cipher() -> MultiFernet:
    return _ciphers(settings.KARMADA_UI_ENCRYPTION_KEY)[1]


def reencrypted(blob: str) -> str | None:
    """The blob under the first key, or None if it already is; CredentialsUnreadable if no key fits."""
    primary, every = _ciphers(settings.KARMADA_UI_ENCRYPTION_KEY)
    token = blob.encode()
    try:
        primary.decrypt(token)
        return None
    except InvalidToken:
        pass
    try:
        return every.rotate(token).decode()
    except InvalidToken as exc:
        raise CredentialsUnreadable("no key in KARMADA_UI_ENCRYPTION_KEY decrypts them") from exc


def encrypt_connection(conn: ClusterConnection) -> str:
    """The secret parts of a connection as one encrypted token (text)."""
    payload = {
        "token": conn.token,
        "ca": base64.b64encode(conn.ca_data).decode() if conn.ca_data else None,
        "cert": base64.b64encode(conn.client_cert_data).decode() if conn.client_cert_data else None,
        "key": base64.b64encode(conn.client_key_data).decode() if conn.client_key_data else None,
    }
    return cipher().encrypt(json.dumps(payload).encode()).decode()


def decrypt_connection(blob: str, *, name: str, server: str, insecure: bool) -> ClusterConnection:
    if not blob:
        return ClusterConnection(name=name, server=server, insecure_skip_tls_verify=insecure)
    try:
        payload = json.loads(cipher().decrypt(blob.encode()))
    except InvalidToken as exc:
        raise CredentialsUnreadable(
            f"The credentials of cluster {name} cannot be decrypted; was KARMADA_UI_ENCRYPTION_KEY changed?"
        ) from exc

    def data(key: str) -> bytes | None:
        return base64.b64decode(payload[key]) if payload.get(key) else None

    return ClusterConnection(
        name=name,
        server=server,
        token=payload.get("token"),
        ca_data=data("ca"),
        client_cert_data=data("cert"),
        client_key_data=data("key"),
        insecure_skip_tls_verify=insecure,
    )
