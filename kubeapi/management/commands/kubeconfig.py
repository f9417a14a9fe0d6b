"""`manage.py kubeconfig --user NAME`: a kubeconfig for kubectl with that user's API token."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from rest_framework.authtoken.models import Token

CONTEXT = "karmada-ui"


def kubeconfig(server: str, token: str, ca_pem: bytes | None, username: str) -> dict[str, Any]:
    cluster: dict[str, Any] = {"server": server}
    if ca_pem is not None:
        cluster["certificate-authority-data"] = base64.b64encode(ca_pem).decode()
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": CONTEXT, "cluster": cluster}],
        "users": [{"name": username, "user": {"token": token}}],
        "contexts": [{"name": CONTEXT, "context": {"cluster": CONTEXT, "user": username}}],
        "current-context": CONTEXT,
    }


class Command(BaseCommand):
    help = "Print a kubeconfig for the Kubernetes API (/k8s) with the token of --user."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--user", required=True, help="the karmada-ui user whose token kubectl sends")
        parser.add_argument("--server", default=settings.KUBEAPI_SERVER_URL, help="the API's URL, up to /k8s")
        parser.add_argument("--ca", default="", help="the CA file of an https server (default: the local CA)")

    def handle(self, *args: Any, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["user"]).first()
        if user is None or not user.is_active:
            raise CommandError(f"there is no active user named {options['user']!r}")
        server = str(options["server"]).rstrip("/")
        if not server.startswith(("https://", "http://")):
            raise CommandError(f"--server must be an http(s) URL, not {server!r}")
        ca_pem = None
        if server.startswith("https://"):
            ca_file = Path(options["ca"] or Path(settings.KUBEAPI_TLS_DIR) / "ca.crt")
            if ca_file.exists():
                ca_pem = ca_file.read_bytes()
            elif options["ca"]:
                raise CommandError(f"the CA file {ca_file} does not exist")
        else:
            self.stderr.write("kubectl sends tokens only over https; this kubeconfig will not authenticate")
        token, _ = Token.objects.get_or_create(user=user)
        document = kubeconfig(server, token.key, ca_pem, user.get_username())
        self.stdout.write(yaml.safe_dump(document, sort_keys=False), ending="")
