"""`manage.py apply -f FILE|-`: apply Kubernetes and Karmada YAML to the control plane."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from scheduling.controllers.apply import ApplyError
from scheduling.services import apply_yaml


class Command(BaseCommand):
    help = "Create or update resource templates and policies from multi-document YAML (kubectl apply style)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "-f", "--filename", action="append", required=True, help="a YAML file, or - for stdin"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        texts = []
        for name in options["filename"]:
            if name == "-":
                texts.append(sys.stdin.read())
                continue
            try:
                with open(name, encoding="utf-8") as handle:
                    texts.append(handle.read())
            except OSError as exc:
                raise CommandError(f"{name}: {exc.strerror}") from None
            except UnicodeDecodeError:
                raise CommandError(f"{name}: not UTF-8 text") from None
        try:
            result = apply_yaml("\n---\n".join(texts))
        except ApplyError as exc:
            raise CommandError(str(exc)) from None
        for line in result.lines():
            self.stdout.write(line)
