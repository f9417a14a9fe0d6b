"""The editor's writes: save a draft, and apply an edited policy through the control plane's apply
service with its reviewed placement diff in the one audit entry of the apply (the draft goes with it)."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from core import audit
from scheduling import services
from scheduling.editor import inventory, policy
from scheduling.editor.models import PolicyDraft
from scheduling.editor.whatif import WhatIf, build_whatif


def apply_policy(doc: dict[str, Any], user: Any) -> WhatIf:
    """Apply ``doc`` (ApplyError when the control plane refuses it); returns the what-if it acted on."""
    kind = str(doc.get("kind"))
    meta = policy.metadata(doc)
    namespace = "" if policy.is_cluster_scoped(doc) else str(meta.get("namespace") or "")
    name = str(meta.get("name") or "")
    whatif = build_whatif(doc, inventory.fleet())
    with transaction.atomic():
        services.apply_reviewed_policy(
            doc, [(item.label, item.before, item.after) for item in whatif.captured], user=user
        )
        PolicyDraft.objects.filter(kind=kind, namespace=namespace, name=name).delete()
    return whatif


def save_draft(doc: dict[str, Any], kind: str, namespace: str, name: str, user: Any) -> PolicyDraft:
    """Store the policy as a draft (not applied), one per policy identity; audited with the change."""
    with transaction.atomic():
        previous = (
            PolicyDraft.objects.select_for_update().filter(kind=kind, namespace=namespace, name=name).first()
        )
        old = {"document": previous.document} if previous else None
        draft, _created = PolicyDraft.objects.update_or_create(
            kind=kind, namespace=namespace, name=name, defaults={"document": doc, "author": user}
        )
        audit.record(user, "draft:saved", kind, name, namespace=namespace, old=old, new={"document": doc})
    return draft
