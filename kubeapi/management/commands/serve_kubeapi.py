"""`manage.py serve_kubeapi`: serve karmada-ui over HTTPS (the Kubernetes API under /k8s) for kubectl."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler
from django.core.management.base import BaseCommand, CommandError

from kubeapi.tls import ensure_certificates, https_server


class Command(BaseCommand):
    help = "Serve karmada-ui over HTTPS with a local CA, so kubectl can use the Kubernetes API under /k8s."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8443)
        parser.add_argument("--tls-dir", default=str(Path(settings.KUBEAPI_TLS_DIR)))

    def handle(self, *args: Any, **options: Any) -> None:
        certificates = ensure_certificates(Path(options["tls_dir"]), (options["host"], "localhost"))
        try:
            server = https_server(WSGIHandler(), options["host"], options["port"], certificates)
        except OSError as exc:
            raise CommandError(
                f"cannot listen on {options['host']}:{options['port']}: {exc.strerror}"
            ) from None
        self.stdout.write(
            f"Kubernetes API on https://{options['host']}:{options['port']}/k8s (CA {certificates.ca})"
        )
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
