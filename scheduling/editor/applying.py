"""Apply an edited policy through the control plane's apply service, its reviewed placement diff in
the one audit entry of the apply; the draft goes with it."""

from __future__ import annotations

from typing import Any

from django.db import transaction

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
