"""Fault: the same apply_works message delivered twice ends with each member copy applied once, current,
and no Work left out of sync."""

from __future__ import annotations

import time

from clusters.k8s import objects
from scheduling.controllers import propagation
from scheduling.models import ResourceBinding, ResourceTemplate, Work
from scheduling.services import apply_yaml
from scheduling.tasks import apply_works

WORKLOADS = 20
TARGETS = ("beijing", "shanghai")


def world(image: str) -> str:
    documents = [
        """apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement: {clusterAffinity: {clusterNames: [beijing, shanghai]}}"""
    ]
    for i in range(WORKLOADS):
        documents.append(
            f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: web-{i}, namespace: default}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: web-{i}}}}}
  template:
    metadata: {{labels: {{app: web-{i}}}}}
    spec: {{containers: [{{name: web, image: "{image}"}}]}}"""
        )
    return "\n---\n".join(documents)


def test_an_apply_delivered_twice_applies_each_member_copy_once(members):
    started = time.monotonic()
    apply_yaml(world("nginx:1.26"))
    assert Work.objects.filter(applied=True).count() == WORKLOADS * len(TARGETS)

    # The templates move on, and the controller writes the new Works without delivering their applies
    # yet: the applies are then delivered twice, as a broker does after a lost acknowledgement.
    for template in ResourceTemplate.objects.filter(kind="Deployment"):
        manifest = template.manifest
        manifest["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.27"
        ResourceTemplate.objects.filter(pk=template.pk).update(manifest=manifest)
    pending = sorted(
        work_id
        for binding in ResourceBinding.objects.all()
        for work_id in propagation.sync_binding(binding.pk)
    )
    assert len(pending) == WORKLOADS * len(TARGETS)
    generations = {}
    for delivery in range(2):
        apply_works(pending)
        for name in TARGETS:
            connection = members[name].connection()
            listed = objects.list_objects(connection, "apps/v1", "Deployment", "default")
            mine = [o for o in listed if o["metadata"]["name"].startswith("web-")]
            assert sorted(o["metadata"]["name"] for o in mine) == sorted(f"web-{i}" for i in range(WORKLOADS))
            for copy in mine:
                assert copy["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27"
                key = (name, copy["metadata"]["name"])
                if delivery == 0:
                    generations[key] = copy["metadata"]["generation"]
                else:  # the second delivery found nothing to do: the copy was not written again
                    assert copy["metadata"].get("generation") == generations[key], key
    works = Work.objects.filter(binding__template__kind="Deployment")
    assert works.count() == WORKLOADS * len(TARGETS)
    assert all(work.in_sync for work in works), [str(w) for w in works if not w.in_sync]
    assert time.monotonic() - started < 60
