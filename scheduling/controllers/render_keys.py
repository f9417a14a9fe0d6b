"""The render key: a digest of everything a binding's member manifests are rendered from and of its Works."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from clusters.models import Cluster
from scheduling.controllers import rollouts
from scheduling.karmada.overrides import OverrideSource
from scheduling.models import ResourceBinding, Work

# The Work columns a sync compares and writes; with them a Work's desired state is known without its
# manifest (desired_hash is the manifest's hash).
WORK_STATE = (
    "cluster_name",
    "pk",
    "permanent_id",
    "desired_hash",
    "deleting",
    "suspended",
    "applied_overrides",
)


def work_state(work: Work) -> tuple[Any, ...]:
    """A Work's WORK_STATE columns, as a values_list() read of them gives them."""
    return tuple(getattr(work, column) for column in WORK_STATE)


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def cluster_digest(cluster: Cluster) -> str:
    """What override rules match a cluster on (its name, labels, provider, region and zones)."""
    return _digest([cluster.name, cluster.labels, cluster.provider, cluster.region, cluster.zones])


def sources_digest(sources: list[OverrideSource]) -> str:
    """The override policies that can apply in one namespace, as the override step reads them."""
    return _digest([[s.kind, s.namespace, s.name, s.spec] for s in sources])


def keyed(binding: ResourceBinding) -> bool:
    """Whether a key can stand for this binding's render. A staged rollout's held revisions and due starts
    are read from its rollouts, so such a binding is rendered on every sync; so is one that writes other
    bindings (propagateDeps) or whose template is being deleted."""
    return (
        binding.template.deleting_since is None
        and not binding.propagate_deps
        and rollouts.spec_of(binding) is None
    )


def render_key(
    binding: ResourceBinding, clusters: Mapping[str, str], sources: str, works: Iterable[tuple[Any, ...]]
) -> str:
    """The key of one binding's render: the binding's and template's fields the manifests are built from,
    the digest of each target cluster (`clusters`: name to cluster_digest; absent: not registered), the
    namespace's override policies (`sources`: their sources_digest), and each Work's stored state (`works`:
    their WORK_STATE columns)."""
    template = binding.template
    claim = template.policy
    return _digest(
        {
            "binding": [
                binding.pk,
                binding.kind,
                binding.namespace,
                binding.name,
                binding.permanent_id,
                binding.conflict_resolution,
                binding.replicas,
                binding.placement,
                # by name: their order (a Duplicated re-plan reorders them) renders no Work differently
                sorted(binding.clusters, key=lambda target: str(target.get("name"))),
                binding.suspension,
                binding.graceful_eviction_tasks,
            ],
            "template": [
                template.pk,
                template.uid,
                template.api_version,
                template.kind,
                template.namespace,
                template.name,
                template.generation,
                template.manifest,
            ],
            "claim": None if claim is None else [claim.kind, claim.namespace, claim.name, claim.permanent_id],
            "clusters": {name: clusters.get(name) for name in binding.target_replicas()},
            "overrides": sources,
            "works": sorted(list(state) for state in works),
        }
    )
