"""The render key: a sync whose inputs did not change renders and writes nothing; a change of each input
the member copies are built from renders them again, to what a render without any key computes."""

from __future__ import annotations

import copy
from collections.abc import Callable

import yaml
from django.db import connection
from django.test.utils import CaptureQueriesContext

from clusters.models import Cluster
from scheduling.controllers import propagation
from scheduling.models import OverridePolicy, PropagationPolicy, ResourceBinding, ResourceTemplate, Work
from scheduling.services import apply_yaml

POLICY = {
    "apiVersion": "policy.karmada.io/v1alpha1",
    "kind": "PropagationPolicy",
    "metadata": {"name": "everywhere", "namespace": "default"},
    "spec": {
        "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
        "placement": {
            "clusterAffinity": {"clusterNames": ["cluster-01", "cluster-02", "cluster-03"]},
            "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
        },
    },
}

PROD_LABEL = {
    "overrideRules": [
        {
            "targetCluster": {"labelSelector": {"matchLabels": {"env": "prod"}}},
            "overriders": {"labelsOverrider": [{"operator": "add", "value": {"tier": "prod"}}]},
        }
    ]
}


def deployment(name: str) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": name}},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]},
            },
        },
    }


def seed(*names: str) -> list[int]:
    docs = [POLICY] + [deployment(name) for name in names]
    apply_yaml("".join("---\n" + yaml.safe_dump(doc) for doc in docs))
    return list(ResourceBinding.objects.order_by("pk").values_list("pk", flat=True))


def writes(queries: list[dict]) -> list[str]:
    return [q["sql"] for q in queries if q["sql"].split(" ", 1)[0] in ("INSERT", "UPDATE", "DELETE")]


def keyless_render_is_settled(binding_id: int) -> bool:
    """Whether a render that ignores every key finds the stored Works already right."""
    binding = ResourceBinding.objects.select_related("template__policy", "policy").get(pk=binding_id)
    works = {w.cluster_name: w for w in binding.works.all()}
    plan = propagation.plan_works(binding, works)
    return plan is not None and plan.settled


def test_a_sync_whose_inputs_did_not_change_renders_and_writes_nothing(members):
    ids = seed("app-0", "app-1")
    assert all(ResourceBinding.objects.values_list("rendered_key", flat=True))

    with CaptureQueriesContext(connection) as captured:
        synced = propagation.sync_bindings(ids)

    assert synced.unchanged == set(ids)
    assert synced.pending == {pk: [] for pk in ids}
    assert writes(captured.captured_queries) == []
    # the sync's own reads (reconcile_digests' statements, which digest columns in SQL, aside)
    own = [q["sql"] for q in captured.captured_queries if "md5(" not in q["sql"]]
    work_reads = [sql for sql in own if 'FROM "scheduling_work"' in sql]
    assert len(work_reads) == 1 and '"scheduling_work"."manifest"' not in work_reads[0]


def binding_of(name: str):
    return ResourceBinding.objects.filter(name__startswith=name)


def edit_template(edit: Callable[[dict], None], generation: int = 0) -> Callable[[], None]:
    def change() -> None:
        template = ResourceTemplate.objects.get(name="app-0")
        manifest = copy.deepcopy(template.manifest)
        edit(manifest)
        ResourceTemplate.objects.filter(pk=template.pk).update(
            manifest=manifest, generation=template.generation + generation
        )

    return change


def update_binding(**fields) -> Callable[[], None]:
    return lambda: binding_of("app-0").update(**fields)


def override(spec: dict) -> Callable[[], None]:
    def change() -> None:
        OverridePolicy.objects.update_or_create(
            kind="OverridePolicy", namespace="default", name="prod-label", defaults={"spec": spec}
        )

    return change


def relabel(name: str, labels: dict) -> Callable[[], None]:
    return lambda: Cluster.objects.filter(name=name).update(labels=labels)


def lose_work_state() -> None:
    Work.objects.filter(binding__in=binding_of("app-0"), cluster_name="cluster-02").update(
        manifest={}, desired_hash="stale"
    )


def image(value: str) -> Callable[[dict], None]:
    def edit(manifest: dict) -> None:
        manifest["spec"]["template"]["spec"]["containers"][0]["image"] = value

    return edit


def label(value: str) -> Callable[[dict], None]:
    return lambda manifest: manifest["metadata"]["labels"].update(team=value)


# the one change whose render leaves the Works as they were: the eviction keeps the leaving cluster's copy
KEPT = "a target cluster leaving under a graceful eviction"
ALL = [{"name": "cluster-01"}, {"name": "cluster-02"}, {"name": "cluster-03"}]
DIVIDED = {"replicaScheduling": {"replicaSchedulingType": "Divided"}}
# Each input a member copy is built from, changed alone (in the database, with no task queued).
CHANGES: list[tuple[str, Callable[[], None]]] = [
    ("the template's spec, its generation moving", edit_template(image("nginx:1.28"), generation=1)),
    ("the template's labels, its generation kept", edit_template(label("payments"))),
    ("the template's generation alone", edit_template(lambda manifest: None, generation=1)),
    ("the template's claim", lambda: ResourceTemplate.objects.filter(name="app-0").update(policy=None)),
    ("the binding's conflict resolution", update_binding(conflict_resolution="Overwrite")),
    (
        "the placement, to one whose replicas are divided",
        update_binding(
            placement=DIVIDED,
            clusters=[{"name": "cluster-01", "replicas": 1}, {"name": "cluster-02", "replicas": 2}],
        ),
    ),
    (
        "the target clusters' replicas",
        update_binding(
            clusters=[{"name": "cluster-01", "replicas": 2}, {"name": "cluster-02", "replicas": 1}]
        ),
    ),
    ("the binding's replicas, to none (nothing to divide)", update_binding(replicas=0)),
    ("a target cluster joining", update_binding(clusters=ALL)),
    (
        KEPT,
        update_binding(
            placement={},
            clusters=ALL[:2],
            graceful_eviction_tasks=[{"fromCluster": "cluster-03", "purgeMode": "Graciously"}],
        ),
    ),
    ("the graceful eviction ending", update_binding(graceful_eviction_tasks=[])),
    ("the cluster joining again", update_binding(clusters=ALL)),
    (
        "dispatching suspended on one cluster",
        update_binding(suspension={"dispatchingOnClusters": {"clusterNames": ["cluster-01"]}}),
    ),
    ("an override policy created", override(PROD_LABEL)),
    (
        "the override policy's rules",
        override(
            {
                **PROD_LABEL,
                "overrideRules": [
                    {
                        **PROD_LABEL["overrideRules"][0],
                        "overriders": {"labelsOverrider": [{"operator": "add", "value": {"tier": "gold"}}]},
                    }
                ],
            }
        ),
    ),
    ("a cluster's labels that the override selects by", relabel("cluster-02", {"env": "staging"})),
    ("the override policy deleted", lambda: OverridePolicy.objects.all().delete()),
    ("a Work's stored desired state", lose_work_state),
]


# changes that reach every workload of the namespace, not the first alone
SHARED = {
    "an override policy created",
    "the override policy's rules",
    "a cluster's labels that the override selects by",
    "the override policy deleted",
}


def works_of(binding_id: int) -> set[tuple]:
    rows = Work.objects.filter(binding_id=binding_id)
    return set(rows.values_list("cluster_name", "desired_hash", "deleting", "suspended"))


def test_a_change_of_each_input_renders_the_member_copies_again(members):
    first, other = seed("app-0", "app-1")
    for what, change in CHANGES:
        change()
        before = works_of(first)

        synced = propagation.sync_bindings([first, other])

        assert first not in synced.unchanged, what
        if what not in SHARED:
            assert other in synced.unchanged, what  # the other workload's inputs stayed as they were
        assert keyless_render_is_settled(first), what
        if what == KEPT:
            assert works_of(first) == before and not Work.objects.filter(deleting=True).exists()
        else:
            assert works_of(first) != before, what  # the change reached the Works
        again = propagation.sync_bindings([first])
        assert again.unchanged == {first}, what  # the new key was stored with the new Works


def test_a_binding_whose_policy_stages_rollouts_is_rendered_on_every_sync(members):
    ids = seed("app-0")
    PropagationPolicy.objects.update(annotations={"rollout.karmada-ui.io/waves": "env=staging; *"})

    assert propagation.sync_bindings(ids).unchanged == set()
    assert propagation.sync_bindings(ids).unchanged == set()
