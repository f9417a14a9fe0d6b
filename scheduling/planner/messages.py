"""Every human-readable string the planner produces, in one place so it can be translated."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Why a cluster was excluded, or another per-cluster fact.  Keys are stable codes.
REASONS = {
    "deleting": "cluster is being deleted",
    "api_disabled": "API {api} is not enabled on the cluster",
    "api_unknown": "API {api} is not in the cluster's (incomplete) API list",
    "taint_not_tolerated": "taint {taint} not tolerated",
    "excluded": "listed in exclude",
    "not_in_cluster_names": "not in clusterNames",
    "label_mismatch": "label {label} does not match {requirement}",
    "label_missing": "label {key} is missing, required by {requirement}",
    "invalid_label_selector": "label selector is invalid: {error}",
    "field_mismatch": "{field} {value} does not match {requirement}",
    "invalid_field_selector": "field selector is invalid: {error}",
    "spread_field_missing": "{field} is not set, required by the {field} spread constraint",
    "evicting": "a graceful eviction task is moving the workload off this cluster",
    "region_not_chosen": "region {region} was not chosen by the region spread constraint",
    "spread_limit": "not among the {limit} cluster(s) the spread constraints keep",
    "affinity_group_elsewhere": "{peer} of workload affinity group {group} does not run here",
    "anti_affinity_group_here": "{peer} of workload anti-affinity group {group} already runs here",
}

# Karmada's own filter messages, used for the NoClusterFit histogram.
KARMADA_FILTER_MESSAGES = {
    "APIEnablement": "cluster(s) did not have the API resource",
    "TaintToleration": "cluster(s) had untolerated taint {{{taint}}}",
    "ClusterAffinity": "cluster(s) did not match the placement cluster affinity constraint",
    "SpreadConstraint": "cluster(s) did not have {field} property",
    "ClusterEviction": "cluster(s) is in the process of eviction",
    "WorkloadAffinity": "ResourceBinding with the same affinity group does not target this cluster",
    "WorkloadAntiAffinity": "cluster already has workload with the same anti-affinity group",
}

ERRORS = {
    "no_cluster_fit": "0/{total} clusters are available: {reasons}.",
    "no_cluster_exists": "no cluster exists",
    "no_clusters_selected": "no clusters available to schedule",
    "not_enough_replicas": "Clusters available replicas {available} are not enough to schedule.",
    "overflow_not_enough": "Clusters available replicas are not enough to schedule.",
    "unsupported_strategy": (
        "unsupported replica scheduling strategy, replicaSchedulingType: {type}, "
        "replicaDivisionPreference: {preference}, please try another scheduling strategy"
    ),
    "spread_unsupported": "just support cluster and region spread constraint",
    "too_few_clusters": "the number of feasible clusters is less than spreadConstraint.MinGroups",
    "not_enough_resource": "no enough resource when selecting {count} clusters",
    "too_few_regions": "the number of feasible region is less than spreadConstraint.MinGroups",
    "no_region_combination": "the number of clusters is less than the cluster spreadConstraint.MinGroups",
    "quota_exceeded": (
        "FederatedResourceQuota({namespace}/{name}) exceeded for resource {resource}: "
        "requested sum {requested}, limit {limit}. Over by {over}."
    ),
}

SENTENCES = {
    "strategy": "Strategy {strategy} ({mode} mode), dividing with {method}.",
    "excluded": "{cluster} is excluded: {reasons}.",
    "not_selected": "{cluster} passed the filters but was not selected: {why}.",
    "assigned": "{cluster} gets {replicas} replica(s){detail}.",
    "selected_zero": "{cluster} was selected but received no replicas{detail}.",
    "seat": (
        "Replica {replica} went to {cluster} (priority {priority}) over {runner_up} "
        "(priority {runner_up_priority}){tie}."
    ),
    "seat_alone": "Replica {replica} went to {cluster} (priority {priority}), the only party left.",
    "tie": ", a tie settled by {rule}",
    "error": "Not scheduled ({reason}): {message}",
    "kept": "The previous result is kept: {clusters}.",
    "cleared": "The binding's clusters are cleared.",
    "quota_refused": "The proposed split {clusters} would take {quota} over its {resource} limit: "
    "{projected} of {limit}, {over} over.",
    "term": "Affinity term {term}: {outcome}.",
    "not_selected_spread": "the spread constraints chose other clusters",
    "detail_weight": "weight {weight}",
    "detail_capacity": "room for {allocatable} more",
    "detail_score": "score {score}",
}

TIE_RULES = {
    "fewer seats": "fewer seats",
    "name ascending (uid empty)": "name ascending (empty UID)",
    "name ascending (uid even)": "name ascending (even UID hash)",
    "name descending (uid odd)": "name descending (odd UID hash)",
    "larger weight": "larger weight",
    "name ascending": "name ascending",
}


@dataclass(frozen=True)
class Reason:
    """One structured fact about a cluster: which filter, a stable code, and its parameters."""

    filter: str
    code: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def message(self) -> str:
        return REASONS[self.code].format(**self.params)

    def as_dict(self) -> dict[str, Any]:
        return {
            "filter": self.filter,
            "code": self.code,
            "params": dict(self.params),
            "message": self.message,
        }


def error_message(code: str, **params: Any) -> str:
    """An error sentence by code."""
    return ERRORS[code].format(**params)


def karmada_filter_message(reason: Reason) -> str:
    """The message Karmada's filter plugin gives for this kind of exclusion."""
    if reason.filter == "TaintToleration":
        return KARMADA_FILTER_MESSAGES["TaintToleration"].format(taint=reason.params.get("taint", ""))
    if reason.filter == "SpreadConstraint":
        return KARMADA_FILTER_MESSAGES["SpreadConstraint"].format(field=reason.params.get("field", ""))
    return KARMADA_FILTER_MESSAGES.get(reason.filter, reason.message)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def describe(explanation: dict[str, Any]) -> list[str]:
    """Human sentences for a plan explanation (the structured ``Plan.explanation``)."""
    lines = [
        SENTENCES["strategy"].format(
            strategy=explanation.get("strategy", "?"),
            mode=explanation.get("mode", "steady"),
            method=explanation.get("division_method", "webster"),
        )
    ]
    for term in explanation.get("affinity_terms", []):
        lines.append(SENTENCES["term"].format(term=term["name"], outcome=term.get("error") or "scheduled"))
    for cluster in explanation.get("clusters", []):
        name = cluster["name"]
        outcome = cluster["outcome"]
        if outcome == "excluded":
            reasons = "; ".join(reason["message"] for reason in cluster["reasons"])
            lines.append(SENTENCES["excluded"].format(cluster=name, reasons=reasons))
            continue
        details = []
        if cluster.get("weight") is not None:
            details.append(SENTENCES["detail_weight"].format(weight=cluster["weight"]))
        if cluster.get("allocatable") is not None:
            details.append(SENTENCES["detail_capacity"].format(allocatable=cluster["allocatable"]))
        if cluster.get("score"):
            details.append(SENTENCES["detail_score"].format(score=cluster["score"]))
        detail = f" ({', '.join(details)})" if details else ""
        if outcome == "not_selected":
            why = "; ".join(r["message"] for r in cluster["reasons"]) or SENTENCES["not_selected_spread"]
            lines.append(SENTENCES["not_selected"].format(cluster=name, why=why))
        elif outcome == "assigned":
            lines.append(
                SENTENCES["assigned"].format(cluster=name, replicas=cluster["replicas"], detail=detail)
            )
        else:
            lines.append(SENTENCES["selected_zero"].format(cluster=name, detail=detail))
    for division in explanation.get("divisions", []):
        for seat in division.get("seats", []):
            if seat.get("runner_up") is None:
                lines.append(
                    SENTENCES["seat_alone"].format(
                        replica=seat["replica"], cluster=seat["cluster"], priority=_fmt(seat["priority"])
                    )
                )
                continue
            tie = ""
            if seat.get("tie_break"):
                tie = SENTENCES["tie"].format(rule=TIE_RULES.get(seat["tie_break"], seat["tie_break"]))
            lines.append(
                SENTENCES["seat"].format(
                    replica=seat["replica"],
                    cluster=seat["cluster"],
                    priority=_fmt(seat["priority"]),
                    runner_up=seat["runner_up"],
                    runner_up_priority=_fmt(seat["runner_up_priority"]),
                    tie=tie,
                )
            )
    lines.extend(_quota_lines(explanation.get("quota")))
    error = explanation.get("error")
    if error:
        lines.append(SENTENCES["error"].format(reason=error["reason"], message=error["message"]))
        kept = explanation.get("result_kept")
        if kept is not None:
            listing = ", ".join(f"{c['name']}={c['replicas']}" for c in kept) or "none"
            lines.append(SENTENCES["kept"].format(clusters=listing))
        else:
            lines.append(SENTENCES["cleared"])
    return lines


def _quota_lines(quota: dict[str, Any] | None) -> list[str]:
    """What a refused quota check found: each resource over its limit and by how much."""
    if not quota or not quota.get("exceeded"):
        return []
    proposed = ", ".join(f"{c['name']}={c['replicas']}" for c in quota.get("proposed", [])) or "none"
    lines = []
    for entry in quota.get("quotas", []):
        for resource in entry.get("resources", []):
            if resource.get("over"):
                lines.append(
                    SENTENCES["quota_refused"].format(
                        clusters=proposed,
                        quota=f"{entry['namespace']}/{entry['name']}",
                        resource=resource["resource"],
                        projected=resource["projected"],
                        limit=resource["limit"],
                        over=resource["over"],
                    )
                )
    return lines
