"""`manage.py export_rules`: print the alert rules as a Prometheus rules file or a PrometheusRule."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from observability.export import FORMATS, PROMETHEUS, export_yaml


class Command(BaseCommand):
    help = "Print the alert rules as a Prometheus rules file (default) or a PrometheusRule manifest."

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=FORMATS, default=PROMETHEUS)
        parser.add_argument("--namespace", default="", help="metadata.namespace of the PrometheusRule")

    def handle(self, *args, format: str, namespace: str, **options):
        try:
            text = export_yaml(format, namespace)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(text, ending="")
