"""`manage.py unjoin NAME [--delete-resources]`: remove a member cluster."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from clusters import services
from clusters.joining import JoinError
from clusters.models import Cluster


class Command(BaseCommand):
    help = "Remove a member cluster; --delete-resources first deletes what karmada-ui placed there."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument(
            "--delete-resources",
            action="store_true",
            help="delete the objects labelled karmada.io/managed=true from the member cluster first",
        )

    def handle(self, *args, **options):
        cluster = Cluster.objects.filter(name=options["name"]).first()
        if cluster is None:
            raise CommandError(f"no cluster named {options['name']}")
        try:
            deleted = services.unjoin(cluster, delete_resources=options["delete_resources"])
        except JoinError as exc:
            raise CommandError(f"{options['name']}: {exc.message}") from exc
        self.stdout.write(
            f"Unjoined {options['name']}" + (f"; deleted {len(deleted)} objects" if deleted else "")
        )
