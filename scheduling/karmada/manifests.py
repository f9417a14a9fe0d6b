"""The manifest a member cluster should hold: template, replica revision, overrides, Karmada's metadata."""

from __future__ import annotations

import copy
import uuid
from typing import Any

from scheduling.karmada import names
from scheduling.karmada.documents import Workload
from scheduling.karmada.interpreter import has_replicas, revise_replicas
from scheduling.karmada.overrides import OverrideSource, override_in_place
from scheduling.karmada.shapes import BindingLike, TemplateLike
from scheduling.planner import ClusterSnapshot, Placement


def copy_document(value: Any) -> Any:
    """A deep copy of a JSON document (maps, lists and scalars), without deepcopy's memo bookkeeping:
    a member copy is rendered from the template once per cluster."""
    if isinstance(value, dict):
        return {key: copy_document(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_document(item) for item in value]
    return value


def needs_replica_revision(binding: BindingLike) -> bool:
    """Karmada revises replicas only for Divided placements of workloads with replicas."""
    return binding.replicas > 0 and Placement.from_dict(binding.placement).strategy not in (
        "Duplicated",
        None,
    )


def karmada_metadata(
    binding: BindingLike,
    template: TemplateLike,
    work_name: str,
    work_namespace: str,
    work_id: uuid.UUID,
) -> tuple[dict[str, str], dict[str, str]]:
    """The labels and annotations Karmada stamps on a member copy (spec §5.2)."""
    claim_labels, claim_annotations = template.claim_metadata()
    labels = {
        names.MANAGED_LABEL: "true",
        binding.permanent_id_label: str(binding.permanent_id),
        names.WORK_PERMANENT_ID: str(work_id),
        **claim_labels,
    }
    annotations = {
        names.WORK_NAME: work_name,
        names.WORK_NAMESPACE: work_namespace,
        names.TEMPLATE_UID: str(template.uid),
    }
    if binding.is_cluster_scoped:
        annotations[names.CRB_NAME] = binding.name
    else:
        annotations[names.RB_NAME] = binding.name
        annotations[names.RB_NAMESPACE] = binding.namespace
    if template.generation > 0:
        annotations[names.TEMPLATE_GENERATION] = str(template.generation)
    annotations[names.CONFLICT_RESOLUTION] = binding.conflict_resolution.lower()
    annotations.update(claim_annotations)
    return labels, annotations


def member_manifest(
    *,
    binding: BindingLike,
    template: TemplateLike,
    workload: Workload,
    cluster: ClusterSnapshot,
    replicas: int | None,
    sources: list[OverrideSource],
    work_name: str,
    work_id: uuid.UUID,
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The member copy for one cluster and the override policies applied to it.

    Keeps the template's name and namespace. Raises OverrideError when an overrider cannot apply.
    """
    manifest = copy_document(template.manifest)
    if replicas is not None and has_replicas(manifest):
        revise_replicas(manifest, replicas)
    applied = override_in_place(manifest, cluster, sources, workload)
    labels, annotations = karmada_metadata(
        binding, template, work_name, names.execution_namespace(cluster.name), work_id
    )
    metadata = manifest.setdefault("metadata", {})
    metadata["labels"] = {**(metadata.get("labels") or {}), **labels}
    merged = {**(metadata.get("annotations") or {}), **annotations}
    merged[names.MANAGED_LABELS] = ",".join(sorted(metadata["labels"]))
    merged[names.MANAGED_ANNOTATIONS] = ",".join(sorted({*merged, names.MANAGED_ANNOTATIONS}))
    metadata["annotations"] = merged
    return manifest, applied


def retain_member_fields(live: dict[str, Any], desired: dict[str, Any]) -> dict[str, Any]:
    """The update body: the desired copy plus labels and annotations others added in the member cluster.

    Keys Karmada managed before (the live managed-labels/-annotations lists) but no longer wants are dropped.
    """
    body = copy_document(desired)
    live_meta, meta = live.get("metadata") or {}, body.setdefault("metadata", {})
    for field, record in (("labels", names.MANAGED_LABELS), ("annotations", names.MANAGED_ANNOTATIONS)):
        previously = set(((live_meta.get("annotations") or {}).get(record) or "").split(","))
        kept = {k: v for k, v in (live_meta.get(field) or {}).items() if k not in previously}
        meta[field] = {**kept, **(meta.get(field) or {})}
    return body


def released_copy(live: dict[str, Any]) -> dict[str, Any]:
    """A member copy with every Karmada label and annotation stripped (preserved on deletion)."""
    body = copy.deepcopy(live)
    metadata = body.setdefault("metadata", {})
    for field, keys in (("labels", names.KARMADA_LABELS), ("annotations", names.KARMADA_ANNOTATIONS)):
        values = {k: v for k, v in (metadata.get(field) or {}).items() if k not in keys}
        metadata[field] = values
    body.pop("status", None)
    return body
