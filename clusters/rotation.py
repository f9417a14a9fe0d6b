"""Key rotation: every stored cluster credential re-encrypted with the first KARMADA_UI_ENCRYPTION_KEY."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction

from clusters.credentials import CredentialsUnreadable, reencrypted
from clusters.models import Cluster
from core import audit


@dataclass
class Rotation:
    """What a re-encryption found, by cluster name; nothing is written when `unreadable` is not empty."""

    reencrypted: list[str] = field(default_factory=list)
    current: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)
    without_credentials: int = 0


def reencrypt_credentials(*, dry_run: bool = False, user=None) -> Rotation:
    """Re-encrypt every credential not yet under the first key, all or nothing.

    One unreadable row (no configured key decrypts it) stops the whole run before anything is written,
    so an operator who dropped the old key too early loses nothing and can put it back.
    """
    outcome = Rotation()
    with transaction.atomic():
        # Locked so that a join or update between the read and the write cannot be overwritten.
        rows = Cluster.objects.select_for_update().order_by("name").values_list("pk", "name", "credentials")
        updates: list[tuple[int, str, str]] = []
        for pk, name, blob in rows:
            if not blob:
                outcome.without_credentials += 1
                continue
            try:
                new_blob = reencrypted(blob)
            except CredentialsUnreadable:
                outcome.unreadable.append(name)
                continue
            if new_blob is None:
                outcome.current.append(name)
            else:
                updates.append((pk, name, new_blob))
                outcome.reencrypted.append(name)
        if outcome.unreadable or dry_run:
            return outcome
        for pk, name, new_blob in updates:
            Cluster.objects.filter(pk=pk).update(credentials=new_blob)
            audit.record(user, "CredentialsReencrypted", "Cluster", name, summary="with the first key")
    return outcome
