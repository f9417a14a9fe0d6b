"""`manage.py join NAME --kubeconfig FILE [--context CTX] [--label k=v ...] [--update]`."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from clusters import services
from clusters.joining import JoinError, connection_from_kubeconfig
from kubesyntax.labels import LabelSyntaxError, parse_assignment


class Command(BaseCommand):
    help = "Register a member cluster from a kubeconfig context (connects first; saves nothing on failure)."

    def add_arguments(self, parser):
        parser.add_argument("name", help="cluster name: a DNS label of at most 48 characters")
        parser.add_argument("--kubeconfig", required=True, help="path of the kubeconfig file")
        parser.add_argument("--context", help="context to use (default: the kubeconfig's current context)")
        parser.add_argument(
            "--label", action="append", default=[], metavar="KEY=VALUE", help="cluster label (repeatable)"
        )
        parser.add_argument("--provider", default="", help="default: from the nodes' providerID")
        parser.add_argument("--region", default="", help="default: from the nodes' topology labels")
        parser.add_argument("--zone", action="append", default=[], dest="zones", help="repeatable")
        parser.add_argument(
            "--update",
            action="store_true",
            help="refresh the endpoint, credentials and labels of an existing cluster instead of failing",
        )

    def handle(self, *args, **options):
        path = Path(options["kubeconfig"]).expanduser()
        try:
            text = path.read_text()
        except OSError as exc:
            raise CommandError(f"cannot read the kubeconfig {path}: {exc.strerror}") from exc
        except UnicodeDecodeError:
            raise CommandError(f"cannot read the kubeconfig {path}: it is not UTF-8 text") from None
        try:
            labels = dict(parse_assignment(item) for item in options["label"])
        except LabelSyntaxError as exc:
            raise CommandError(f"--label {exc}") from exc
        try:
            conn = connection_from_kubeconfig(
                text, options["context"], base_dir=str(path.parent.resolve()), files=True
            )
            cluster, seen, created = services.join(
                options["name"],
                conn,
                labels=labels,
                provider=options["provider"],
                region=options["region"],
                zones=options["zones"],
                update=options["update"],
            )
        except JoinError as exc:
            raise CommandError(f"{options['name']}: {exc.message}") from exc
        verb = "Joined" if created else "Updated"
        self.stdout.write(
            f"{verb} {cluster.name}: {seen.version}, {seen.nodes_ready}/{seen.nodes_total} nodes Ready, "
            f"endpoint {cluster.api_endpoint}"
        )
