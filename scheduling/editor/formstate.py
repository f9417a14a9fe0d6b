"""The editor form as plain rows, and the conversions policy document → form → policy document.

The form manages a fixed set of fields. Everything else in the document — fields the form does not
show, extra keys inside list items — travels in hidden JSON (``base`` for the document, ``*_extra`` per
row) and is merged back, so switching between form and YAML loses nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from scheduling.editor import policy
from scheduling.editor.policy import as_list, as_map
from scheduling.planner import DIVISION_ANNOTATION, LARGEST_REMAINDER, WEBSTER

DUPLICATED = "Duplicated"
DIVIDED = "Divided"
WEIGHTED = "Weighted"
STATIC = "static"
DYNAMIC = "dynamic"
SPREAD_BY_LABEL = "label"


class MultiValue(Protocol):
    """What the conversion reads: Django's QueryDict or anything with get/getlist."""

    def get(self, key: str, default: Any = ...) -> Any: ...

    def getlist(self, key: str) -> list[Any]: ...


@dataclass
class SelectorRow:
    api_version: str = "apps/v1"
    kind: str = "Deployment"
    namespace: str = ""
    name: str = ""
    extra: str = "{}"


@dataclass
class ExpressionRow:
    key: str = ""
    operator: str = "In"
    values: str = ""


@dataclass
class TolerationRow:
    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""
    seconds: str = ""
    extra: str = "{}"


@dataclass
class SpreadRow:
    by: str = "cluster"
    label: str = ""
    min_groups: str = ""
    max_groups: str = ""
    extra: str = "{}"


@dataclass
class WeightRow:
    """One staticWeightList rule; ``cluster`` is set when the target is exactly one cluster by name."""

    target: str
    label: str
    weight: int
    cluster: str = ""


@dataclass
class FormState:
    """Everything the form shows, as strings and rows, plus the document it came from."""

    kind: str = policy.PROPAGATION_POLICY
    name: str = ""
    namespace: str = "default"
    priority: str = ""
    division_method: str = WEBSTER
    selectors: list[SelectorRow] = field(default_factory=list)
    cluster_names: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    match_labels: list[tuple[str, str]] = field(default_factory=list)
    match_expressions: list[ExpressionRow] = field(default_factory=list)
    field_expressions: list[ExpressionRow] = field(default_factory=list)
    tolerations: list[TolerationRow] = field(default_factory=list)
    spread: list[SpreadRow] = field(default_factory=list)
    replica_type: str = DUPLICATED
    division_preference: str = WEIGHTED
    weight_mode: str = STATIC
    weights: list[WeightRow] = field(default_factory=list)
    uses_affinity_groups: bool = False
    priority_class: str = ""
    affinity_key: str = ""
    anti_affinity_key: str = ""
    base: str = "{}"

    @property
    def weight_max(self) -> int:
        """One range for every weight slider: room to double the largest weight, at least 10."""
        return max([10, *(2 * row.weight for row in self.weights)])


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _dump(value: dict[str, Any]) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=False)


def _without(item: Any, keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in as_map(item).items() if k not in keys}


def _expression_label(expression: dict[str, Any]) -> str:
    values = ",".join(map(str, as_list(expression.get("values"))))
    return f"{expression.get('key')} {expression.get('operator')} {values}".strip()


def target_label(target: dict[str, Any]) -> str:
    """A short description of a weight rule's target cluster affinity."""
    parts = []
    names = as_list(target.get("clusterNames"))
    if names:
        parts.append(", ".join(str(n) for n in names))
    selector = as_map(target.get("labelSelector"))
    labels = [f"{k}={v}" for k, v in as_map(selector.get("matchLabels")).items()]
    labels += [_expression_label(as_map(e)) for e in as_list(selector.get("matchExpressions"))]
    if labels:
        parts.append(" ".join(labels).strip())
    for e in as_list(as_map(target.get("fieldSelector")).get("matchExpressions")):
        parts.append(_expression_label(as_map(e)))
    if target.get("exclude"):
        parts.append("exclude " + ", ".join(map(str, as_list(target.get("exclude")))))
    return "; ".join(parts) or "every cluster"


def _expression_rows(items: Any) -> list[ExpressionRow]:
    rows = []
    for item in as_list(items):
        item = as_map(item)
        values = ", ".join(str(v) for v in as_list(item.get("values")))
        rows.append(ExpressionRow(_text(item.get("key")), _text(item.get("operator")) or "In", values))
    return rows


def form_from_policy(doc: dict[str, Any]) -> FormState:
    """Read the form's fields out of a policy document."""
    meta = policy.metadata(doc)
    spec = policy.spec(doc)
    placement = policy.placement(doc)
    state = FormState(
        kind=str(doc["kind"]) if doc.get("kind") in policy.KINDS else policy.PROPAGATION_POLICY,
        name=_text(meta.get("name")),
        namespace=_text(meta.get("namespace")),
        priority=_text(spec.get("priority")),
        division_method=policy.division_method(doc),
        base=_dump(doc),
    )
    for item in as_list(spec.get("resourceSelectors")):
        item = as_map(item)
        state.selectors.append(
            SelectorRow(
                api_version=_text(item.get("apiVersion")),
                kind=_text(item.get("kind")),
                namespace=_text(item.get("namespace")),
                name=_text(item.get("name")),
                extra=_dump(_without(item, ("apiVersion", "kind", "namespace", "name"))),
            )
        )
    state.uses_affinity_groups = "clusterAffinities" in placement
    state.priority_class = _text(as_map(spec.get("schedulePriority")).get("priorityClassName"))
    groups = as_map(placement.get("workloadAffinity"))
    state.affinity_key = _text(as_map(groups.get("affinity")).get("groupByLabelKey"))
    state.anti_affinity_key = _text(as_map(groups.get("antiAffinity")).get("groupByLabelKey"))
    affinity = as_map(placement.get("clusterAffinity"))
    state.cluster_names = [str(n) for n in as_list(affinity.get("clusterNames"))]
    state.exclude = [str(n) for n in as_list(affinity.get("exclude"))]
    selector = as_map(affinity.get("labelSelector"))
    state.match_labels = [(str(k), _text(v)) for k, v in as_map(selector.get("matchLabels")).items()]
    state.match_expressions = _expression_rows(selector.get("matchExpressions"))
    state.field_expressions = _expression_rows(as_map(affinity.get("fieldSelector")).get("matchExpressions"))
    for item in as_list(placement.get("clusterTolerations")):
        item = as_map(item)
        state.tolerations.append(
            TolerationRow(
                key=_text(item.get("key")),
                operator=_text(item.get("operator")) or "Equal",
                value=_text(item.get("value")),
                effect=_text(item.get("effect")),
                seconds=_text(item.get("tolerationSeconds")),
                extra=_dump(_without(item, ("key", "operator", "value", "effect", "tolerationSeconds"))),
            )
        )
    for item in as_list(placement.get("spreadConstraints")):
        item = as_map(item)
        by = SPREAD_BY_LABEL if item.get("spreadByLabel") else _text(item.get("spreadByField")) or "cluster"
        state.spread.append(
            SpreadRow(
                by=by,
                label=_text(item.get("spreadByLabel")),
                min_groups=_text(item.get("minGroups")),
                max_groups=_text(item.get("maxGroups")),
                extra=_dump(_without(item, ("spreadByField", "spreadByLabel", "minGroups", "maxGroups"))),
            )
        )
    scheduling = placement.get("replicaScheduling")
    if isinstance(scheduling, dict):
        state.replica_type = _text(scheduling.get("replicaSchedulingType")) or DIVIDED
        state.division_preference = _text(scheduling.get("replicaDivisionPreference")) or WEIGHTED
        preference = as_map(scheduling.get("weightPreference"))
        state.weight_mode = DYNAMIC if preference.get("dynamicWeight") else STATIC
        for rule in as_list(preference.get("staticWeightList")):
            rule = as_map(rule)
            target = as_map(rule.get("targetCluster"))
            names = as_list(target.get("clusterNames"))
            single = str(names[0]) if len(names) == 1 and set(target) == {"clusterNames"} else ""
            weight = rule.get("weight")
            state.weights.append(
                WeightRow(
                    target=_dump(target),
                    label=target_label(target),
                    weight=weight if isinstance(weight, int) and not isinstance(weight, bool) else 1,
                    cluster=single,
                )
            )
    return state


# --- form → document -------------------------------------------------------------------------------


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _put(container: dict[str, Any], key: str, value: Any) -> None:
    """Set ``key``, or drop it when the form left it empty — unless the document already had it empty."""
    if not _empty(value):
        container[key] = value
    elif key in container and not _empty(container[key]):
        del container[key]


def _json_map(text: Any) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _rows(data: MultiValue, *names: str) -> list[tuple[str, ...]]:
    """Parallel lists of row inputs, zipped; rows are padded so a missing input reads as empty."""
    columns = [list(data.getlist(name)) for name in names]
    count = max((len(column) for column in columns), default=0)
    return [tuple(_text(c[i] if i < len(c) else "").strip() for c in columns) for i in range(count)]


def _split_values(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _expressions(rows: list[tuple[str, ...]]) -> list[dict[str, Any]]:
    result = []
    for key, operator, values in rows:
        if not key and not values:
            continue
        item: dict[str, Any] = {"key": key, "operator": operator or "In"}
        if operator not in ("Exists", "DoesNotExist") or values:
            item["values"] = _split_values(values)
        result.append(item)
    return result


class FormProblems(list):
    """(field path, message) pairs found while reading the form (numbers that are not numbers)."""


def _int(text: str, path: str, problems: FormProblems) -> int | None:
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        problems.append((path, "must be a whole number"))
        return None


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(v.strip() for v in values if v.strip()))


def policy_from_form(data: MultiValue) -> tuple[dict[str, Any], FormProblems]:
    """Merge the submitted form over its ``base`` document; returns the document and form-level problems."""
    problems = FormProblems()
    kind = _text(data.get("kind")) or policy.PROPAGATION_POLICY
    doc = _json_map(data.get("base")) or policy.new_policy(kind)
    doc.setdefault("apiVersion", policy.API_VERSION)
    doc["kind"] = kind
    meta = doc["metadata"] = as_map(doc.get("metadata")) or {}
    meta["name"] = _text(data.get("name")).strip()
    if kind == policy.CLUSTER_PROPAGATION_POLICY:
        meta.pop("namespace", None)
    else:
        meta["namespace"] = _text(data.get("namespace")).strip()
    method = _text(data.get("division_method")) or WEBSTER
    annotations = as_map(meta.get("annotations"))
    if method == LARGEST_REMAINDER or DIVISION_ANNOTATION in annotations:
        meta["annotations"] = {**annotations, DIVISION_ANNOTATION: method}

    spec = doc["spec"] = as_map(doc.get("spec")) or {}
    _put(spec, "priority", _int(_text(data.get("priority")).strip(), "spec.priority", problems))
    _merge_schedule_priority(spec, _text(data.get("priority_class")).strip())
    spec["resourceSelectors"] = _selectors(data)
    placement = spec["placement"] = as_map(spec.get("placement")) or {}
    if "clusterAffinities" not in placement:
        _merge_affinity(placement, data)
    _merge_workload_affinity(placement, data)
    _put(placement, "clusterTolerations", _tolerations(data, problems))
    _put(placement, "spreadConstraints", _spread(data, problems))
    _merge_replica_scheduling(placement, data, problems)
    return doc, problems


def _merge_schedule_priority(spec: dict[str, Any], class_name: str) -> None:
    """schedulePriority names a Kubernetes PriorityClass; an empty name removes it."""
    if class_name:
        kept = as_map(spec.get("schedulePriority"))
        spec["schedulePriority"] = {
            **kept,
            "priorityClassSource": kept.get("priorityClassSource") or "KubePriorityClass",
            "priorityClassName": class_name,
        }
    else:
        spec.pop("schedulePriority", None)


def _merge_workload_affinity(placement: dict[str, Any], data: MultiValue) -> None:
    """placement.workloadAffinity from the two group keys (an empty key drops its term)."""
    groups = dict(as_map(placement.get("workloadAffinity")))
    for part, name in (("affinity", "affinity_key"), ("antiAffinity", "anti_affinity_key")):
        key = _text(data.get(name)).strip()
        if key:
            groups[part] = {**as_map(groups.get(part)), "groupByLabelKey": key}
        else:
            groups.pop(part, None)
    if groups:
        placement["workloadAffinity"] = groups
    else:
        placement.pop("workloadAffinity", None)


def _selectors(data: MultiValue) -> list[dict[str, Any]]:
    selectors = []
    for api_version, kind, namespace, name, extra in _rows(
        data, "sel_api_version", "sel_kind", "sel_namespace", "sel_name", "sel_extra"
    ):
        if not (api_version or kind or namespace or name):
            continue
        item = {"apiVersion": api_version, "kind": kind}
        if namespace:
            item["namespace"] = namespace
        if name:
            item["name"] = name
        selectors.append({**item, **_json_map(extra)})
    return selectors


def _tolerations(data: MultiValue, problems: FormProblems) -> list[dict[str, Any]]:
    tolerations = []
    rows = _rows(data, "tol_key", "tol_operator", "tol_value", "tol_effect", "tol_seconds", "tol_extra")
    for i, (key, operator, value, effect, seconds, extra) in enumerate(rows):
        if not (key or value or effect or seconds or operator == "Exists"):
            continue
        item: dict[str, Any] = {"key": key, "operator": operator or "Equal"}
        if value:
            item["value"] = value
        if effect:
            item["effect"] = effect
        number = _int(seconds, f"spec.placement.clusterTolerations[{i}].tolerationSeconds", problems)
        if number is not None:
            item["tolerationSeconds"] = number
        tolerations.append({**item, **_json_map(extra)})
    return tolerations


def _spread(data: MultiValue, problems: FormProblems) -> list[dict[str, Any]]:
    spread = []
    for i, (by, label, low, high, extra) in enumerate(
        _rows(data, "sc_by", "sc_label", "sc_min", "sc_max", "sc_extra")
    ):
        item: dict[str, Any] = (
            {"spreadByLabel": label} if by == SPREAD_BY_LABEL else {"spreadByField": by or "cluster"}
        )
        for key, text in (("minGroups", low), ("maxGroups", high)):
            number = _int(text, f"spec.placement.spreadConstraints[{i}].{key}", problems)
            if number is not None:
                item[key] = number
        spread.append({**item, **_json_map(extra)})
    return spread


def _merge_affinity(placement: dict[str, Any], data: MultiValue) -> None:
    affinity = as_map(placement.get("clusterAffinity"))
    affinity = dict(affinity)
    _put(affinity, "clusterNames", _unique(data.getlist("cluster_names")))
    selector = dict(as_map(affinity.get("labelSelector")))
    labels = {key: value for key, value in _rows(data, "ml_key", "ml_value") if key or value}
    _put(selector, "matchLabels", labels)
    _put(selector, "matchExpressions", _expressions(_rows(data, "me_key", "me_operator", "me_values")))
    _put(affinity, "labelSelector", selector)
    fields = dict(as_map(affinity.get("fieldSelector")))
    _put(fields, "matchExpressions", _expressions(_rows(data, "fs_key", "fs_operator", "fs_values")))
    _put(affinity, "fieldSelector", fields)
    _put(affinity, "exclude", _unique(data.getlist("exclude")))
    if affinity or "clusterAffinity" in placement:
        placement["clusterAffinity"] = affinity


def _merge_replica_scheduling(placement: dict[str, Any], data: MultiValue, problems: FormProblems) -> None:
    replica_type = _text(data.get("replica_type")) or DUPLICATED
    existing = placement.get("replicaScheduling")
    if replica_type == DUPLICATED:
        if isinstance(existing, dict):
            kept = {
                k: v
                for k, v in existing.items()
                if k not in ("replicaDivisionPreference", "weightPreference")
            }
            placement["replicaScheduling"] = {**kept, "replicaSchedulingType": DUPLICATED}
        return
    scheduling = dict(as_map(existing))
    scheduling["replicaSchedulingType"] = DIVIDED
    scheduling["replicaDivisionPreference"] = _text(data.get("division_preference")) or WEIGHTED
    preference = dict(as_map(scheduling.get("weightPreference")))
    rules = []
    for i, (target, weight) in enumerate(_rows(data, "w_target", "w_weight")):
        number = _int(
            weight,
            f"spec.placement.replicaScheduling.weightPreference.staticWeightList[{i}].weight",
            problems,
        )
        rules.append({"targetCluster": _json_map(target), "weight": 1 if number is None else number})
    _put(preference, "staticWeightList", rules)
    if _text(data.get("weight_mode")) == DYNAMIC:
        preference["dynamicWeight"] = "AvailableReplicas"
    else:
        preference.pop("dynamicWeight", None)
    _put(scheduling, "weightPreference", preference)
    placement["replicaScheduling"] = scheduling
