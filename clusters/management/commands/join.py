"""`manage.py join NAME --kubeconfig FILE [--context CTX] [--label k=v ...] [--update]`, or
`manage.py join --all-contexts --kubeconfig FILE [--label k=v ...]` for every context at once."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from clusters import k8s, services
from clusters.joining import JoinError, JoinRequest, connection_from_kubeconfig
from kubesyntax.labels import LabelSyntaxError, parse_assignment


class Command(BaseCommand):
    help = (
        "Register a member cluster from a kubeconfig context, or with --all-contexts one cluster per "
        "context, named after it, in one transaction (connects first; saves nothing on failure)."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", nargs="?", help="cluster name: a DNS label of at most 48 characters")
        parser.add_argument("--kubeconfig", required=True, help="path of the kubeconfig file")
        parser.add_argument("--context", help="context to use (default: the kubeconfig's current context)")
        parser.add_argument(
            "--all-contexts",
            action="store_true",
            help="join every context of the kubeconfig as a new cluster named after the context",
        )
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
        if options["all_contexts"]:
            if options["name"] or options["context"] or options["update"]:
                raise CommandError(
                    "--all-contexts names each cluster after its context: give no NAME, --context or --update"
                )
        elif not options["name"]:
            raise CommandError("give the cluster's NAME, or --all-contexts")
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
        base_dir = str(path.parent.resolve())
        if options["all_contexts"]:
            self.join_all(text, base_dir, labels, options)
            return
        try:
            conn = connection_from_kubeconfig(text, options["context"], base_dir=base_dir, files=True)
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

    def join_all(self, text: str, base_dir: str, labels: dict[str, str], options: dict) -> None:
        try:
            names = k8s.contexts(text)
            if not names:
                raise JoinError("kubeconfig", "the kubeconfig has no context")
            requests = [
                JoinRequest(
                    name=name,
                    conn=connection_from_kubeconfig(text, name, base_dir=base_dir, files=True),
                    labels=labels,
                    provider=options["provider"],
                    region=options["region"],
                    zones=options["zones"],
                )
                for name in names
            ]
            joined = services.join_many(requests)
        except k8s.InvalidKubeconfig as exc:
            raise CommandError(f"kubeconfig: {exc.message}") from exc
        except JoinError as exc:
            raise CommandError(exc.message) from exc
        for cluster, seen in joined:
            self.stdout.write(
                f"Joined {cluster.name}: {seen.version}, {seen.nodes_ready}/{seen.nodes_total} nodes Ready, "
                f"endpoint {cluster.api_endpoint}"
            )
        self.stdout.write(f"Joined {len(joined)} clusters.")
