"""Fleet search: any object by kind, namespace, name or label selector in every member cluster, managed
by karmada-ui or not (and from which template), each cluster asked at once with its own deadline."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from clusters import fanout
from clusters.k8s import NotFound, ObjectSummary, objects
from clusters.k8s.search import find_objects, resolve_kind
from clusters.models import Cluster
from core.errors import FieldError
from kubesyntax.selector_text import parse_selector
from kubesyntax.selectors import SelectorError
from scheduling.karmada import names
from scheduling.models import ResourceTemplate

# What an empty kind searches: the kinds people look for by name or label.
DEFAULT_KINDS = ("deployments", "statefulsets", "daemonsets", "services", "configmaps", "pods")
CALL_TIMEOUT = (1.0, 3.0)  # longer than the deadline: a cluster too slow for it is named as timed out
DEADLINE = 1.5  # per cluster: the answer arrives within it, or the cluster is named as timed out
MAX_PER_CLUSTER = 200
PREFIXES = {"kind": "kind", "ns": "namespace", "namespace": "namespace", "name": "name"}


@dataclass(frozen=True)
class SearchQuery:
    kind: str = ""
    namespace: str = ""
    name: str = ""
    selector: str = ""

    @property
    def empty(self) -> bool:
        return not (self.kind or self.namespace or self.name or self.selector)

    def params(self) -> dict[str, str]:
        return {k: v for k, v in self.__dict__.items() if v}


def parse_box(text: str) -> SearchQuery:
    """The header's one box: `kind:deploy ns:default name:shop app=shop,tier in (web)` — prefixed words
    set kind, namespace and name; a bare word is part of a name; anything with an operator is labels."""
    fields: dict[str, str] = {}
    labels: list[str] = []
    words: list[str] = []
    for word in text.split():
        prefix, colon, value = word.partition(":")
        if colon and prefix.lower() in PREFIXES and value:
            fields[PREFIXES[prefix.lower()]] = value
        elif word in ("in", "notin") and words and not labels:
            labels += [words.pop(), word]  # `tier in (web)`: the word before is the label's key
        elif any(mark in word for mark in ("=", "!", "(", ")", ",")) or word in ("in", "notin") or labels:
            labels.append(word)
        else:
            words.append(word)
    if words and "name" not in fields:
        fields["name"] = " ".join(words)
    return checked(SearchQuery(selector=" ".join(labels), **fields))


def parse_query(params: Mapping[str, str]) -> SearchQuery:
    """The search page's and the API's fields; `q` (the header box) fills what they leave empty."""
    boxed = parse_box(params.get("q", "")) if params.get("q") else SearchQuery()
    given = {key: (params.get(key) or "").strip() for key in ("kind", "namespace", "name", "selector")}
    merged = {key: value or getattr(boxed, key) for key, value in given.items()}
    return checked(SearchQuery(**merged))


def checked(query: SearchQuery) -> SearchQuery:
    if query.selector:
        try:
            parse_selector(query.selector)
        except SelectorError as exc:
            raise FieldError("selector", str(exc)) from None
    return query


@dataclass(frozen=True)
class Hit:
    cluster: str
    summary: ObjectSummary

    @property
    def managed(self) -> bool:
        return self.summary.labels.get(names.MANAGED_LABEL) == "true"

    @property
    def template_uid(self) -> str:
        return self.summary.annotations.get(names.TEMPLATE_UID, "") if self.managed else ""


def search_cluster(cluster: Cluster, query: SearchQuery) -> list[Hit]:
    """One cluster's matches; a kind it does not serve is no match, anything else unreadable raises."""
    conn = cluster.connection()
    kinds = [query.kind] if query.kind else list(DEFAULT_KINDS)
    hits: list[Hit] = []
    for kind in kinds:
        try:
            info = resolve_kind(conn, kind, CALL_TIMEOUT)
        except NotFound:
            if query.kind:
                return []
            continue
        found = find_objects(
            conn, info, query.namespace, query.name, query.selector, MAX_PER_CLUSTER, CALL_TIMEOUT
        )
        hits += [Hit(cluster.name, summary) for summary in found.objects]
    return hits


def _templates(hits: list[Hit]) -> dict[str, ResourceTemplate]:
    uids = {hit.template_uid for hit in hits if hit.template_uid}
    if not uids:
        return {}
    return {str(t.uid): t for t in ResourceTemplate.objects.filter(uid__in=uids)}


def hit_dicts(hits: list[Hit]) -> list[dict[str, Any]]:
    """The rows shown and returned: identity, labels, managed and the template it comes from."""
    templates = _templates(hits)
    rows = []
    for hit in hits:
        summary = hit.summary
        template = templates.get(hit.template_uid)
        rows.append(
            {
                "cluster": hit.cluster,
                "apiVersion": summary.api_version,
                "kind": summary.kind,
                "namespace": summary.namespace,
                "name": summary.name,
                "labels": summary.labels,
                "created": summary.created,
                "managed": hit.managed,
                "template": (
                    {
                        "id": template.pk,
                        "kind": template.kind,
                        "namespace": template.namespace,
                        "name": template.name,
                    }
                    if template
                    else None
                ),
            }
        )
    return rows


@dataclass(frozen=True)
class ClusterAnswer:
    cluster: str
    rows: list[dict[str, Any]]
    error: str = ""
    timed_out: bool = False


def search_one(cluster: Cluster, query: SearchQuery, deadline: float = DEADLINE) -> ClusterAnswer:
    """One cluster, bounded by the deadline: the page asks each cluster in a request of its own."""
    (answer,) = list(fanout.each_answer([cluster], lambda c: search_cluster(c, query), deadline))
    return _answer(answer)


def _answer(answer: fanout.Answer[list[Hit]]) -> ClusterAnswer:
    if not answer.ok:
        return ClusterAnswer(answer.cluster, [], answer.error, answer.timed_out)
    return ClusterAnswer(answer.cluster, hit_dicts(answer.value or []))


def search_fleet(query: SearchQuery, deadline: float = DEADLINE) -> Iterator[ClusterAnswer]:
    """Every cluster's answer as it comes, then the ones that did not answer in time."""
    clusters = list(Cluster.objects.order_by("name"))
    for answer in fanout.each_answer(clusters, lambda c: search_cluster(c, query), deadline):
        yield _answer(answer)


def search_document(answers: list[ClusterAnswer]) -> dict[str, Any]:
    """The REST API's answer: every match, and which clusters answered, failed or timed out."""
    results = [row for answer in answers for row in answer.rows]
    results.sort(key=lambda r: (r["cluster"], r["kind"], r["namespace"], r["name"]))
    return {
        "results": results,
        "answered": sorted(a.cluster for a in answers if not a.error),
        "timedOut": sorted(a.cluster for a in answers if a.timed_out),
        "failed": [
            {"cluster": a.cluster, "error": a.error}
            for a in sorted(answers, key=lambda a: a.cluster)
            if a.error and not a.timed_out
        ],
    }


def read_object(cluster: Cluster, kind: str, namespace: str, name: str) -> dict[str, Any]:
    """One object of a member for its detail page (KubeError when it cannot be read)."""
    conn = cluster.connection()
    info = resolve_kind(conn, kind, CALL_TIMEOUT)
    return objects.get_object(conn, info.api_version, info.kind, name, namespace, timeout=CALL_TIMEOUT)
