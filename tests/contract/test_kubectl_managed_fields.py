"""membersim keeps metadata.managedFields as an API server does: kubectl's writes are recorded under the
manager kubectl names (kubectl-client-side-apply, kubectl-patch, kubectl-set), each owning the fields it
changed, and the fields a later writer takes are no longer the earlier one's."""

from __future__ import annotations

import json

import pytest

pytestmark = [pytest.mark.contract, pytest.mark.xdist_group("membersim-kubectl-managed")]

WEB = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: "nginx:1.27"}
"""
IMAGE = ("f:spec", "f:template", "f:spec", "f:containers", 'k:{"name":"web"}', "f:image")


def owners(deployment: dict, path: tuple[str, ...]) -> list[str]:
    found = []
    for entry in deployment["metadata"]["managedFields"]:
        node = entry["fieldsV1"]
        if all((node := node.get(part)) is not None for part in path):
            found.append(entry["manager"])
    return found


def test_each_kubectl_write_is_recorded_under_its_manager_with_the_fields_it_changed(kubectl):
    kubectl.run("apply", "-f", "-", input=WEB)
    applied = kubectl.json("get", "deployment", "web", "--show-managed-fields")
    assert owners(applied, IMAGE) == ["kubectl-client-side-apply"]
    assert owners(applied, ("f:spec", "f:replicas")) == ["kubectl-client-side-apply"]
    entry = applied["metadata"]["managedFields"][0]
    assert (entry["operation"], entry["apiVersion"], entry["fieldsType"]) == ("Update", "apps/v1", "FieldsV1")
    assert entry["time"].endswith("Z")

    kubectl.run("patch", "deployment", "web", "-p", json.dumps({"spec": {"replicas": 5}}))
    patched = kubectl.json("get", "deployment", "web", "--show-managed-fields")
    assert owners(patched, ("f:spec", "f:replicas")) == ["kubectl-patch"]
    assert owners(patched, IMAGE) == ["kubectl-client-side-apply"]

    kubectl.run("set", "image", "deployment/web", "web=nginx:hacked")
    changed = kubectl.json("get", "deployment", "web", "--show-managed-fields")
    assert owners(changed, IMAGE) == ["kubectl-set"]
    assert "status" not in json.dumps([e["fieldsV1"] for e in changed["metadata"]["managedFields"]])
    kubectl.run("delete", "deployment", "web")
