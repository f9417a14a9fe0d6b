"""`manage.py export [-o FILE]`: everything the control plane holds as Karmada YAML."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from scheduling.controllers.export import export_documents, to_yaml


class Command(BaseCommand):
    help = "Write clusters, policies, resource templates and bindings as multi-document Karmada YAML."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("-o", "--output", help="write to this file instead of standard output")

    def handle(self, *args: Any, **options: Any) -> None:
        text = to_yaml(export_documents())
        if not options.get("output"):
            self.stdout.write(text, ending="")
            return
        try:
            with open(options["output"], "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as exc:
            raise CommandError(f"{options['output']}: {exc.strerror}") from None
