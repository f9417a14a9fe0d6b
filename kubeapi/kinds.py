"""The served kinds: group, version, names, scope, verbs, short names and categories, and their store."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from kubeapi.stores.base import Store
from kubeapi.stores.bindings import BindingStore, WorkStore
from kubeapi.stores.clusters import ClusterStore
from kubeapi.stores.policies import policy_stores
from kubeapi.stores.rebalancers import RebalancerStore
from kubeapi.stores.templates import TemplateStore

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
READ_VERBS = ("get", "list", "watch")
# bindings: read, and the fields Karmada lets users write (suspension.scheduling, rescheduleTriggeredAt)
BINDING_VERBS = ("get", "list", "patch", "update", "watch")
KARMADA_CATEGORY = ("karmada-io",)


@dataclass(frozen=True)
class Kind:
    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ALL_VERBS
    subresources: tuple[str, ...] = ()
    # A kind kubectl knows as a built-in (strategic-merge patches); the rest are custom resources.
    builtin: bool = False
    store: Store = field(default_factory=Store, compare=False, hash=False, repr=False)

    @property
    def singular(self) -> str:
        return self.kind.lower()

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def api_version(self) -> str:
        return self.group_version

    @property
    def key(self) -> str:
        return f"{self.group}/{self.kind}"


def _karmada() -> list[Kind]:
    policies = policy_stores()
    policy = "policy.karmada.io"

    def p(kind: str, plural: str, namespaced: bool, short: tuple[str, ...] = ()) -> Kind:
        return Kind(
            policy, "v1alpha1", kind, plural, namespaced, short, KARMADA_CATEGORY, store=policies[kind]
        )

    return [
        Kind(
            "cluster.karmada.io",
            "v1alpha1",
            "Cluster",
            "clusters",
            False,
            verbs=("delete", "get", "list", "patch", "update", "watch"),
            subresources=("status",),
            store=ClusterStore(),
        ),
        p("PropagationPolicy", "propagationpolicies", True, ("pp",)),
        p("ClusterPropagationPolicy", "clusterpropagationpolicies", False, ("cpp",)),
        p("OverridePolicy", "overridepolicies", True, ("op",)),
        p("ClusterOverridePolicy", "clusteroverridepolicies", False, ("cop",)),
        p("ClusterTaintPolicy", "clustertaintpolicies", False),
        p("FederatedResourceQuota", "federatedresourcequotas", True),
        Kind(
            "work.karmada.io",
            "v1alpha2",
            "ResourceBinding",
            "resourcebindings",
            True,
            ("rb",),
            KARMADA_CATEGORY,
            BINDING_VERBS,
            ("status",),
            store=BindingStore("ResourceBinding"),
        ),
        Kind(
            "work.karmada.io",
            "v1alpha2",
            "ClusterResourceBinding",
            "clusterresourcebindings",
            False,
            ("crb",),
            KARMADA_CATEGORY,
            BINDING_VERBS,
            ("status",),
            store=BindingStore("ClusterResourceBinding"),
        ),
        Kind(
            "work.karmada.io",
            "v1alpha1",
            "Work",
            "works",
            True,
            ("wk",),
            KARMADA_CATEGORY,
            READ_VERBS,
            ("status",),
            store=WorkStore(),
        ),
        Kind(
            "apps.karmada.io",
            "v1alpha1",
            "WorkloadRebalancer",
            "workloadrebalancers",
            False,
            (),
            KARMADA_CATEGORY,
            subresources=("status",),
            store=RebalancerStore(),
        ),
    ]


# Built-in kinds kubectl knows (group, version, kind, plural, namespaced, short names).
BUILTIN = (
    ("", "v1", "Namespace", "namespaces", False, ("ns",)),
    ("", "v1", "ConfigMap", "configmaps", True, ("cm",)),
    ("", "v1", "Secret", "secrets", True, ()),
    ("", "v1", "Service", "services", True, ("svc",)),
    ("", "v1", "ServiceAccount", "serviceaccounts", True, ("sa",)),
    ("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", True, ("pvc",)),
    ("apps", "v1", "Deployment", "deployments", True, ("deploy",)),
    ("apps", "v1", "StatefulSet", "statefulsets", True, ("sts",)),
    ("apps", "v1", "DaemonSet", "daemonsets", True, ("ds",)),
    ("apps", "v1", "ReplicaSet", "replicasets", True, ("rs",)),
    ("batch", "v1", "Job", "jobs", True, ()),
    ("batch", "v1", "CronJob", "cronjobs", True, ("cj",)),
    ("networking.k8s.io", "v1", "Ingress", "ingresses", True, ("ing",)),
    ("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", True, ("netpol",)),
    ("networking.k8s.io", "v1", "IngressClass", "ingressclasses", False, ()),
)
WITH_STATUS = frozenset({"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "Service"})


def _builtin() -> list[Kind]:
    return [
        Kind(
            group,
            version,
            kind,
            plural,
            namespaced,
            short,
            ("all",)
            if kind in ("Deployment", "StatefulSet", "DaemonSet", "Service", "Job", "CronJob")
            else (),
            subresources=("status",) if kind in WITH_STATUS else (),
            builtin=True,
            store=TemplateStore(group, kind, namespaced),
        )
        for group, version, kind, plural, namespaced, short in BUILTIN
    ]


@cache
def served() -> tuple[Kind, ...]:
    """Every kind with a fixed definition, Karmada's first."""
    return tuple(_karmada() + _builtin())


def plural_of(kind: str) -> str:
    """The plural Kubernetes derives for a custom kind (as CRDs usually declare it)."""
    lower = kind.lower()
    if lower.endswith(("s", "x", "ch", "sh")):
        return lower + "es"
    if lower.endswith("y") and lower[-2:-1] not in "aeiou":
        return lower[:-1] + "ies"
    return lower + "s"
