"""What the pure Karmada functions read of a template or a binding row: Protocols, so they need no ORM."""

from __future__ import annotations

import uuid
from typing import Any, Protocol


class TemplateLike(Protocol):
    """A resource template: its manifest, identity and the detector's claim."""

    uid: uuid.UUID
    generation: int
    manifest: dict[str, Any]

    def claim_metadata(self) -> tuple[dict[str, str], dict[str, str]]: ...


class BindingLike(Protocol):
    """A (Cluster)ResourceBinding: identity, replicas, placement and conflict resolution."""

    name: str
    namespace: str
    permanent_id: uuid.UUID
    replicas: int
    placement: dict[str, Any]
    conflict_resolution: str

    @property
    def is_cluster_scoped(self) -> bool: ...

    @property
    def permanent_id_label(self) -> str: ...
