"""Label and field selectors and ClusterAffinity matching, with the reason for a mismatch."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from kubesyntax.fieldpaths import join
from kubesyntax.selectors import LABEL_OPERATORS, NODE_OPERATORS, Expression

from .messages import Reason
from .parsing import get_list, get_map, get_str, get_str_list, get_str_map, require_map

if TYPE_CHECKING:
    from .model import ClusterSnapshot

FIELD_KEYS = ("provider", "region", "zone")


def _expression(data: Any, path: str) -> Expression:
    """One matchExpressions entry: key, operator and values."""
    data = require_map(data, path)
    return Expression(
        key=get_str(data.get("key"), join(path, "key")),
        operator=get_str(data.get("operator"), join(path, "operator")),
        values=get_str_list(data.get("values"), join(path, "values")),
    )


def _requirements(data: Any, path: str) -> tuple[Expression, ...]:
    items = get_list(data, path) or []
    return tuple(_expression(item, join(path, i)) for i, item in enumerate(items))


@dataclass(frozen=True)
class LabelSelector:
    """A metav1.LabelSelector: matchLabels and matchExpressions, ANDed."""

    match_labels: tuple[tuple[str, str], ...] = ()
    match_expressions: tuple[Expression, ...] = ()

    @cached_property
    def requirements(self) -> tuple[Expression, ...]:
        labels = tuple(Expression(key, "In", (value,)) for key, value in self.match_labels)
        return labels + self.match_expressions

    @cached_property
    def error(self) -> str | None:
        """Why this selector is invalid (it then matches nothing), or None."""
        for requirement in self.requirements:
            problem = requirement.error(LABEL_OPERATORS)
            if problem:
                return problem
        return None

    def mismatch(self, labels: dict[str, str]) -> Reason | None:
        """The first reason ``labels`` do not match, or None when they do."""
        if self.error:
            return Reason("ClusterAffinity", "invalid_label_selector", {"error": self.error})
        for requirement in self.requirements:
            if requirement.matches(labels):
                continue
            if requirement.key in labels:
                label = f"{requirement.key}={labels[requirement.key]}"
                return Reason(
                    "ClusterAffinity", "label_mismatch", {"label": label, "requirement": str(requirement)}
                )
            return Reason(
                "ClusterAffinity", "label_missing", {"key": requirement.key, "requirement": str(requirement)}
            )
        return None

    def matches(self, labels: dict[str, str]) -> bool:
        """Same answer as ``mismatch(labels) is None``, without building a reason."""
        if self.error:
            return False
        for key, value in self.match_labels:
            if labels.get(key) != value:
                return False
        for requirement in self.match_expressions:
            if not requirement.matches(labels):
                return False
        return True

    @classmethod
    def from_dict(cls, data: Any, path: str) -> LabelSelector | None:
        data = get_map(data, path)
        if data is None:
            return None
        labels = get_str_map(data.get("matchLabels"), join(path, "matchLabels"))
        return cls(
            match_labels=tuple(sorted(labels.items())),
            match_expressions=_requirements(data.get("matchExpressions"), join(path, "matchExpressions")),
        )

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {}
        if self.match_labels:
            result["matchLabels"] = dict(self.match_labels)
        if self.match_expressions:
            result["matchExpressions"] = [r.as_dict() for r in self.match_expressions]
        return result


@dataclass(frozen=True)
class FieldSelector:
    """Karmada's cluster field selector over provider, region and zone."""

    match_expressions: tuple[Expression, ...] = ()

    @classmethod
    def from_dict(cls, data: Any, path: str) -> FieldSelector | None:
        data = get_map(data, path)
        if data is None:
            return None
        return cls(_requirements(data.get("matchExpressions"), join(path, "matchExpressions")))


def _zones_match(requirement: Expression, zones: tuple[str, ...]) -> bool:
    op = requirement.operator
    if op == "In":
        return any(zone in requirement.values for zone in zones)
    if op == "NotIn":
        return not any(zone in requirement.values for zone in zones)
    if op == "Exists":
        return bool(zones)
    if op == "DoesNotExist":
        return not zones
    return False


def field_mismatch(selector: FieldSelector, cluster: ClusterSnapshot) -> Reason | None:
    """The first reason the cluster's provider/region/zones fail the field selector, or None."""
    others = []
    for requirement in selector.match_expressions:
        if requirement.key != "zone":
            others.append(requirement)
            continue
        if not _zones_match(requirement, cluster.zones):
            value = "[" + ", ".join(cluster.zones) + "]"
            return Reason(
                "ClusterAffinity",
                "field_mismatch",
                {"field": "zones", "value": value, "requirement": str(requirement)},
            )
    if not others:
        return None
    for requirement in others:
        problem = requirement.error(NODE_OPERATORS)
        if problem:
            return Reason("ClusterAffinity", "invalid_field_selector", {"error": problem})
    fields = {}
    if cluster.provider:
        fields["provider"] = cluster.provider
    if cluster.region:
        fields["region"] = cluster.region
    for requirement in others:
        if not requirement.matches(fields):
            value = fields.get(requirement.key, "<empty>")
            return Reason(
                "ClusterAffinity",
                "field_mismatch",
                {"field": requirement.key, "value": value, "requirement": str(requirement)},
            )
    return None


@dataclass(frozen=True)
class ClusterAffinity:
    """Karmada ClusterAffinity: exclude, label selector, field selector, cluster names (all must hold)."""

    label_selector: LabelSelector | None = None
    field_selector: FieldSelector | None = None
    cluster_names: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    def is_empty(self) -> bool:
        return (
            self.label_selector is None
            and self.field_selector is None
            and not self.cluster_names
            and not self.exclude
        )

    def mismatch(self, cluster: ClusterSnapshot) -> Reason | None:
        """The first reason the cluster does not match, in Karmada's evaluation order, or None."""
        if cluster.name in self.exclude:
            return Reason("ClusterAffinity", "excluded")
        if self.label_selector is not None:
            reason = self.label_selector.mismatch(cluster.labels)
            if reason:
                return reason
        if self.field_selector is not None:
            reason = field_mismatch(self.field_selector, cluster)
            if reason:
                return reason
        if self.cluster_names and cluster.name not in self.cluster_names:
            return Reason("ClusterAffinity", "not_in_cluster_names")
        return None

    def matches(self, cluster: ClusterSnapshot) -> bool:
        """Same answer as ``mismatch(cluster) is None``, without building a reason."""
        if cluster.name in self.exclude:
            return False
        if self.label_selector is not None and not self.label_selector.matches(cluster.labels):
            return False
        if self.field_selector is not None and field_mismatch(self.field_selector, cluster) is not None:
            return False
        return not self.cluster_names or cluster.name in self.cluster_names

    @classmethod
    def from_dict(cls, data: Any, path: str) -> ClusterAffinity:
        data = get_map(data, path) or {}
        return cls(
            label_selector=LabelSelector.from_dict(data.get("labelSelector"), join(path, "labelSelector")),
            field_selector=FieldSelector.from_dict(data.get("fieldSelector"), join(path, "fieldSelector")),
            cluster_names=get_str_list(data.get("clusterNames"), join(path, "clusterNames")),
            exclude=get_str_list(data.get("exclude"), join(path, "exclude")),
        )


@dataclass(frozen=True)
class NodeSelectorTerm:
    """One term of a required node affinity: matchExpressions on labels, matchFields on metadata.name."""

    match_expressions: tuple[Expression, ...] = ()
    match_fields: tuple[Expression, ...] = ()

    def matches(self, node_name: str, labels: dict[str, str]) -> bool:
        """Kubernetes semantics: an empty term matches nothing; invalid requirements match nothing."""
        if not self.match_expressions and not self.match_fields:
            return False
        for requirement in self.match_expressions:
            if requirement.error(NODE_OPERATORS) or not requirement.matches(labels):
                return False
        for requirement in self.match_fields:
            if requirement.key != "metadata.name" or requirement.operator not in ("In", "NotIn"):
                return False
            if not requirement.matches({"metadata.name": node_name}):
                return False
        return True

    @classmethod
    def from_dict(cls, data: Any, path: str) -> NodeSelectorTerm:
        data = get_map(data, path) or {}
        return cls(
            match_expressions=_requirements(data.get("matchExpressions"), join(path, "matchExpressions")),
            match_fields=_requirements(data.get("matchFields"), join(path, "matchFields")),
        )


def validate_field_selector(selector: FieldSelector | None) -> str | None:
    """Karmada webhook: keys provider/region/zone and operators In/NotIn only."""
    if selector is None:
        return None
    for requirement in selector.match_expressions:
        if requirement.key not in FIELD_KEYS:
            return f'unsupported key "{requirement.key}", must be provider, region, or zone'
        if requirement.operator not in ("In", "NotIn"):
            return f'unsupported operator "{requirement.operator}", must be In or NotIn'
    return None
