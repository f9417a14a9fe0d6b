"""`manage.py demo`: run the zero-setup demo until Ctrl-C."""

from __future__ import annotations

import os

from django.core.management.base import BaseCommand, CommandError

from karmada_ui import demo


class Command(BaseCommand):
    help = "Start simulated member clusters, a worker with beat and the web server; Ctrl-C stops them all."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, help="web server port (default: $PORT or 8000)")

    def handle(self, *args, port: int | None, **options):
        if port is None:
            raw = os.environ.get("PORT") or "8000"
            if not raw.isdigit():
                raise CommandError(f"PORT={raw}: must be a port number between 1 and 65535")
            port = int(raw)
        if not 0 < port < 65536:
            raise CommandError(f"--port {port}: must be between 1 and 65535")
        try:
            code = demo.run(self.stdout, port)
        except RuntimeError as exc:
            raise CommandError(str(exc)) from exc
        if code:
            raise CommandError("the demo stopped because one of its processes exited")
