"""`manage.py watch_members [--shard i/n]`: keep Works in step with member clusters by list+watch."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from scheduling.member_watch import RESYNC, Shard, Watcher


class Command(BaseCommand):
    help = (
        "Watch every joined cluster (of this shard) for the kinds its Works hold: status, health and "
        "drift into the Works, repairs onto the propagate queue; and its nodes and pods, for the health "
        "collection. Runs until SIGTERM or Ctrl-C."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--shard", default="0/1", help="i/n: watch the clusters whose name hashes to i")
        parser.add_argument(
            "--resync",
            type=float,
            default=RESYNC,
            help=f"seconds between two listings of a healthy watch (default {RESYNC:g})",
        )
        parser.add_argument(
            "--refresh", type=float, default=5.0, help="seconds between looks for new clusters and kinds"
        )
        parser.add_argument(
            "--no-inventory",
            action="store_true",
            help="keep no nodes and pods for the health collection (it lists them every probe instead)",
        )
        parser.add_argument(
            "--heartbeat",
            default="",
            help="a file touched on every look (for a health check); none by default",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            shard = Shard.parse(options["shard"])
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        for name in ("resync", "refresh"):
            if not options[name] > 0:
                raise CommandError(f"--{name} must be a positive number of seconds")
        heartbeat = Path(options["heartbeat"]) if options["heartbeat"] else None
        if heartbeat is not None and not heartbeat.parent.is_dir():
            raise CommandError(f"--heartbeat {heartbeat}: no directory {heartbeat.parent}")
        watcher = Watcher(
            shard,
            resync=options["resync"],
            refresh=options["refresh"],
            heartbeat=heartbeat,
            inventory=not options["no_inventory"],
        )
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, lambda *_: watcher.stop())
        self.stdout.write(f"watching shard {shard.index}/{shard.count}; resync every {options['resync']:g}s")
        watcher.run()
        self.stdout.write("stopped")
