"""Apply an edited policy through the control plane's apply service and audit the placement diff."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from core import audit
from scheduling import services
from scheduling.editor import inventory, policy
from scheduling.editor.document import dump_yaml
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
        services.apply_yaml(dump_yaml(doc), user=user)
        for item in whatif.captured:
            audit.record(
                user,
                "policy:placement",
                kind,
                name,
                namespace=namespace,
                summary=f"{item.label}: {item.moved} replica(s) move",
                before=item.before,
                after=item.after,
            )
        PolicyDraft.objects.filter(kind=kind, namespace=namespace, name=name).delete()
    return whatif
