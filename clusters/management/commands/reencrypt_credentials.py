"""`manage.py reencrypt_credentials [--dry-run]`: re-encrypt cluster credentials with the newest key."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from clusters.rotation import reencrypt_credentials


def clusters_phrase(count: int) -> str:
    return f"{count} cluster" if count == 1 else f"{count} clusters"


class Command(BaseCommand):
    help = (
        "Re-encrypt every stored cluster credential with the first key of KARMADA_UI_ENCRYPTION_KEY "
        "(rotate: prepend the new key, restart, run this, then drop the old key)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="report what would be re-encrypted and change nothing"
        )

    def handle(self, *args, **options):
        outcome = reencrypt_credentials(dry_run=options["dry_run"])
        if outcome.unreadable:
            names = ", ".join(outcome.unreadable)
            raise CommandError(
                f"no key in KARMADA_UI_ENCRYPTION_KEY decrypts the credentials of {names}; "
                "nothing was re-encrypted (put the old key back after the new one and run again)"
            )
        verb = "would re-encrypt" if options["dry_run"] else "re-encrypted"
        self.stdout.write(
            f"{verb} {clusters_phrase(len(outcome.reencrypted))}; "
            f"{clusters_phrase(len(outcome.current))} already under the first key; "
            f"{clusters_phrase(outcome.without_credentials)} without credentials"
        )
