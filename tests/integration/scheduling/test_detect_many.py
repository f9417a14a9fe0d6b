"""Detecting an apply's templates together decides and records exactly what detecting them one by one does,
in a bounded number of statements."""

from __future__ import annotations

import pytest

from scheduling.controllers import detector
from scheduling.controllers.detector_bulk import _bind_fresh, _LacksOverrides, detect_many
from scheduling.models import Event, PlacementKey, ResourceBinding, ResourceTemplate
from scheduling.services import apply_yaml

POLICIES = """apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {{name: dup, namespace: {ns}}}
spec:
  resourceSelectors:
  - {{apiVersion: apps/v1, kind: Deployment, labelSelector: {{matchLabels: {{policy: dup}}}}}}
  placement:
    clusterAffinity: {{labelSelector: {{matchLabels: {{fleet: main}}}}}}
    replicaScheduling: {{replicaSchedulingType: Duplicated}}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {{name: waits, namespace: {ns}}}
spec:
  dependentOverrides: [not-yet]
  resourceSelectors:
  - {{apiVersion: apps/v1, kind: Deployment, labelSelector: {{matchLabels: {{policy: waits}}}}}}
  placement: {{clusterAffinity: {{clusterNames: [member-1]}}}}
"""

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: {ns}, labels: {{app: {name}, policy: {policy}}}}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec: {{containers: [{{name: app, image: "nginx:1.27", resources: {{requests: {{cpu: 100m}}}}}}]}}
"""

CONFIGMAP = """apiVersion: v1
kind: ConfigMap
metadata: {{name: settings, namespace: {ns}}}
data: {{mode: fast}}
"""


def workloads(ns: str, *names: tuple[str, str, int]) -> str:
    return "---\n".join(DEPLOYMENT.format(name=n, ns=ns, policy=p, replicas=r) for n, p, r in names)


def ids(ns: str) -> list[int]:
    return list(ResourceTemplate.objects.filter(namespace=ns).order_by("name").values_list("pk", flat=True))


def scene(ns: str) -> list[int]:
    """Policies, one workload bound before, then an apply: new Deployments, one waiting for an
    OverridePolicy, one no policy selects, a ConfigMap; the bound one changed (its binding updated)."""
    apply_yaml(POLICIES.format(ns=ns))
    apply_yaml(workloads(ns, ("before", "dup", 1), ("settled", "dup", 1)))
    for pk in ids(ns):
        detector.detect_template(pk)
    apply_yaml(
        workloads(
            ns, ("before", "dup", 4), ("a", "dup", 2), ("b", "dup", 3), ("c", "waits", 1), ("d", "none", 1)
        )
        + "---\n"
        + CONFIGMAP.format(ns=ns)
    )
    return ids(ns)


def outcome(ns: str) -> dict[str, object]:
    """What detection left in one namespace, without ids, uids and times."""
    seen: dict[str, object] = {}
    for template in ResourceTemplate.objects.filter(namespace=ns).select_related("policy"):
        binding = ResourceBinding.objects.filter(template=template).select_related("policy").first()
        events = Event.objects.filter(object_uid=str(template.uid)).order_by("pk")
        seen[template.name] = {
            "claimed by": template.policy.name if template.policy else None,
            "events": [(e.type, e.reason, e.message.replace(ns, "NS")) for e in events],
            "binding": None
            if binding is None
            else {
                "name": binding.name,
                "kind": binding.kind,
                "policy": binding.policy.name if binding.policy else None,
                "generation": binding.generation,
                "template_generation": binding.template_generation,
                "replicas": binding.replicas,
                "placement": binding.placement,
                "requirements": {**binding.replica_requirements, "namespace": "NS"},
                "counts": binding.counts,
                "keys": sorted(PlacementKey.objects.filter(binding=binding).values_list("key", flat=True)),
            },
        }
    return seen


@pytest.mark.django_db
def test_detecting_together_decides_and_records_what_one_by_one_does():
    one_by_one = scene("one")
    candidates = detector.load_candidates()
    alone = [detector.detect_template(pk, candidates) for pk in one_by_one]
    together = detect_many(scene("many"), detector.load_candidates())

    assert outcome("many") == outcome("one")
    assert [b is None for b in together] == [b is None for b in alone]
    assert [b.name for b in together if b] == [b.name for b in alone if b]
    assert all(b.pk for b in together if b)
    bound = outcome("many")
    assert bound["a"]["binding"]["replicas"] == 2 and bound["before"]["binding"]["replicas"] == 4
    assert bound["c"]["binding"] is None and bound["d"]["binding"] is None
    assert ("Warning", "DependencyOverridesMissing", "waiting for OverridePolicy not-yet") in bound["c"][
        "events"
    ]


@pytest.mark.django_db
def test_an_apply_of_a_hundred_new_workloads_is_bound_in_a_few_statements(django_assert_max_num_queries):
    apply_yaml(POLICIES.format(ns="big"))
    apply_yaml(workloads("big", *((f"w-{i:03d}", "dup", 1) for i in range(100))))
    candidates = detector.load_candidates()
    with django_assert_max_num_queries(20):  # one at a time: 11 a template; SQLite splits the inserts
        found = detect_many(ids("big"), candidates)
    assert len({b.pk for b in found if b}) == 100
    assert Event.objects.filter(object_namespace="big", reason="ApplyPolicySucceed").count() == 100
    again = detect_many(ids("big"), candidates)  # settled now: read, nothing written
    assert [b.pk for b in again] == [b.pk for b in found]
    assert ResourceBinding.objects.filter(namespace="big").count() == 100


@pytest.mark.django_db
def test_a_template_bound_before_its_lock_is_left_to_the_one_template_path():
    apply_yaml(POLICIES.format(ns="race"))
    apply_yaml(workloads("race", ("x", "dup", 1), ("y", "dup", 1)))
    first, second = ids("race")
    detector.detect_template(first)  # bound by another writer between the read and the lock
    found, rest = _bind_fresh([first, second], detector.load_candidates(), _LacksOverrides())
    assert rest == [first]
    assert set(found) == {second}
    assert ResourceBinding.objects.filter(template_id=first).count() == 1
