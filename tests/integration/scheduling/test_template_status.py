"""Status back in the templates: member copies' status summed onto the template and shown by the API."""

from __future__ import annotations

from pathlib import Path

import yaml

from scheduling.controllers.export import template_document
from scheduling.models import ResourceTemplate
from scheduling.services import apply_yaml
from tests.support.members import converge

NGINX = (Path(__file__).parent / "examples" / "nginx-cluster-names.yaml").read_text()


def condition(status, type_):
    return next((c["status"] for c in status.get("conditions", []) if c["type"] == type_), None)


def test_a_deployment_template_reports_its_members_replicas_and_becomes_available(members):
    apply_yaml(NGINX)
    converge()
    template = ResourceTemplate.objects.get(kind="Deployment")
    status = template.status
    assert status["observedGeneration"] == template.generation == 1
    # two clusters, two replicas each (Duplicated)
    assert (status["replicas"], status["readyReplicas"], status["availableReplicas"]) == (4, 4, 4)
    assert status["updatedReplicas"] == 4
    assert condition(status, "Available") == "True"
    assert condition(status, "Progressing") == "True"


def test_a_new_template_generation_is_observed_only_once_every_member_has_rolled_it_out(members):
    apply_yaml(NGINX)
    converge()
    apply_yaml(NGINX.replace("nginx:1.27", "nginx:1.28"))
    template = ResourceTemplate.objects.get(kind="Deployment")
    assert template.generation == 2
    # the new copies were just applied: the members' controllers have not observed them yet
    assert template.status["observedGeneration"] == 1
    converge()
    template.refresh_from_db()
    assert template.status["observedGeneration"] == 2
    assert template.status["updatedReplicas"] == 4


def test_the_workload_api_shows_the_template_status(members, api_as, viewer):
    apply_yaml(NGINX)
    converge()
    template = ResourceTemplate.objects.get(kind="Deployment")
    detail = api_as(viewer).get(f"/api/v1/workloads/{template.pk}/").json()
    assert detail["generation"] == 1
    assert detail["status"]["readyReplicas"] == 4
    listed = api_as(viewer).get("/api/v1/workloads/").json()["results"]
    assert [row["status"]["observedGeneration"] for row in listed if row["id"] == template.pk] == [1]


def test_the_exported_template_carries_its_status_and_applying_it_back_changes_nothing(members):
    apply_yaml(NGINX)
    converge()
    template = ResourceTemplate.objects.get(kind="Deployment")
    document = template_document(template)
    assert document["status"]["readyReplicas"] == 4
    result = apply_yaml(yaml.safe_dump(document))
    assert [a.action for a in result.objects] == ["unchanged"]
    template.refresh_from_db()
    assert template.generation == 1 and template.status["readyReplicas"] == 4
