"""Known secrets for the tests that look for them: a client key pair and a kubeconfig carrying it."""

from __future__ import annotations

import base64
import datetime
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def client_certificate(common_name: str = "karmada-ui-tests") -> tuple[bytes, bytes]:
    """(certificate PEM, private key PEM) of a fresh self-signed client certificate."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return cert.public_bytes(serialization.Encoding.PEM), key_pem


def with_client_key(kubeconfig: dict[str, Any], user: str, cert_pem: bytes, key_pem: bytes) -> dict[str, Any]:
    """The kubeconfig with the user's client certificate and key inline, beside its token."""
    for entry in kubeconfig["users"]:
        if entry["name"] == user:
            entry["user"]["client-certificate-data"] = base64.b64encode(cert_pem).decode()
            entry["user"]["client-key-data"] = base64.b64encode(key_pem).decode()
    return kubeconfig


def forms_of(secret: str | bytes) -> dict[str, str]:
    """The ways a secret could leak into text: as it is, base64 (standard, URL-safe), each line of a PEM.

    Lines of a PEM body are searched one by one because a page could wrap or escape the newlines.
    """
    raw = secret.encode() if isinstance(secret, str) else secret
    text = raw.decode()
    forms = {
        "plain": text.strip(),
        "base64": base64.b64encode(raw).decode(),
        "base64url": base64.urlsafe_b64encode(raw).decode().rstrip("="),
    }
    body = [line for line in text.splitlines() if line and not line.startswith("-----")]
    forms.update({f"pem line {i}": line for i, line in enumerate(body) if len(line) >= 16})
    # A base64 value cut anywhere still carries most of itself: its first 40 characters are enough.
    forms.update({f"{label} prefix": value[:40] for label, value in list(forms.items()) if len(value) > 40})
    return forms


def leaks(text: str, secrets: dict[str, str | bytes]) -> list[str]:
    """Which forms of which secrets occur in the text: ["token (base64)", ...]."""
    found = []
    for name, secret in secrets.items():
        for form, value in forms_of(secret).items():
            if value and value in text:
                found.append(f"{name} ({form})")
    return found
