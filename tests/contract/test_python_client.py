"""The official kubernetes Python client (typed, watch, dynamic) works against membersim over TLS."""

from __future__ import annotations

import json
import time

import pytest
from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException
from kubernetes.dynamic import DynamicClient

pytestmark = [pytest.mark.contract, pytest.mark.xdist_group("membersim-python-client")]


def web(name: str, replicas: int = 2, cpu: str = "500m") -> dict:
    container = {
        "name": "web",
        "image": "nginx:1.27",
        "ports": [{"containerPort": 80}],
        "resources": {"requests": {"cpu": cpu, "memory": "128Mi"}},
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


@pytest.fixture(scope="module")
def api_client(tls_members):
    """An ApiClient built from the written kubeconfig's beijing context: TLS with the CA data and a token."""
    return config.new_client_from_config(str(tls_members.kubeconfig_path), context="beijing")


def test_a_kubeconfig_context_gives_tls_and_token_access_to_that_cluster(tls_members, api_client):
    nodes = client.CoreV1Api(api_client).list_node().items
    assert [n.metadata.name for n in nodes] == ["beijing-node-1", "beijing-node-2", "beijing-node-3"]
    assert nodes[0].metadata.labels["topology.kubernetes.io/region"] == "cn-north"
    assert nodes[0].metadata.labels["disk-type"] == "ssd" and "disk-type" not in nodes[1].metadata.labels
    assert nodes[0].spec.provider_id == "aliyun://cn-north/beijing-node-1"
    assert nodes[0].status.allocatable["cpu"] == "4"
    other = config.new_client_from_config(str(tls_members.kubeconfig_path), context="shanghai")
    assert client.VersionApi(other).get_code().git_version == "v1.30.2"
    assert len(client.CoreV1Api(other).list_node().items) == 2


def test_typed_apps_api_creates_reads_status_and_scales(api_client):
    apps = client.AppsV1Api(api_client)
    apps.create_namespaced_deployment("default", web("typed"))
    status = apps.read_namespaced_deployment_status("typed", "default").status
    assert (status.ready_replicas, status.available_replicas) == (2, 2)
    apps.patch_namespaced_deployment_scale("typed", "default", {"spec": {"replicas": 3}})
    scale = apps.read_namespaced_deployment_scale("typed", "default")
    assert (scale.spec.replicas, scale.status.replicas, scale.status.selector) == (3, 3, "app=typed")
    pods = client.CoreV1Api(api_client).list_namespaced_pod("default", label_selector="app=typed").items
    assert len(pods) == 3 and all(p.status.pod_ip for p in pods)


def test_replace_with_a_stale_resource_version_is_a_409_conflict(api_client):
    apps = client.AppsV1Api(api_client)
    stale = apps.create_namespaced_deployment("default", web("stale"))
    apps.patch_namespaced_deployment("stale", "default", {"metadata": {"labels": {"touched": "yes"}}})
    stale.spec.replicas = 5
    with pytest.raises(ApiException) as raised:
        apps.replace_namespaced_deployment("stale", "default", stale)
    assert raised.value.status == 409
    assert json.loads(raised.value.body)["reason"] == "Conflict"


def test_json_patch_and_strategic_merge_patch_through_the_typed_client(api_client):
    apps = client.AppsV1Api(api_client)
    apps.create_namespaced_deployment("default", web("patched"))
    apps.patch_namespaced_deployment(
        "patched", "default", [{"op": "replace", "path": "/spec/replicas", "value": 1}]
    )
    apps.patch_namespaced_deployment(
        "patched",
        "default",
        {"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.28"}]}}}},
    )
    container = apps.read_namespaced_deployment("patched", "default").spec.template.spec.containers[0]
    assert (container.image, container.ports[0].container_port) == ("nginx:1.28", 80)
    assert apps.read_namespaced_deployment("patched", "default").status.replicas == 1


def test_errors_are_kubernetes_status_objects(tls_members, api_client):
    core = client.CoreV1Api(api_client)
    with pytest.raises(ApiException) as missing_namespace:
        core.create_namespaced_config_map("nowhere", {"metadata": {"name": "x"}})
    assert missing_namespace.value.status == 404
    core.create_namespaced_config_map("default", {"metadata": {"name": "twice"}})
    with pytest.raises(ApiException) as duplicate:
        core.create_namespaced_config_map("default", {"metadata": {"name": "twice"}})
    assert json.loads(duplicate.value.body)["reason"] == "AlreadyExists"
    with pytest.raises(ApiException) as invalid:
        core.create_namespaced_config_map("default", {"metadata": {"name": "Bad_Name"}})
    body = json.loads(invalid.value.body)
    assert invalid.value.status == 422 and body["details"]["causes"][0]["field"] == "metadata.name"
    with pytest.raises(ApiException) as protected:
        core.delete_namespace("kube-system")
    assert protected.value.status == 403


def test_a_wrong_token_is_401_and_the_viewer_token_cannot_write(tls_members):
    def typed(token: str) -> client.CoreV1Api:
        configuration = client.Configuration()
        configuration.host = tls_members.endpoint("beijing")
        configuration.ssl_ca_cert = tls_members.kubeconfig_path.with_name("ca.pem")
        configuration.ssl_ca_cert.write_text(tls_members.ca_pem())
        configuration.ssl_ca_cert = str(configuration.ssl_ca_cert)
        configuration.api_key = {"BearerToken": token}
        configuration.api_key_prefix = {"BearerToken": "Bearer"}
        return client.CoreV1Api(client.ApiClient(configuration))

    with pytest.raises(ApiException) as unauthorized:
        typed("wrong").list_node()
    assert unauthorized.value.status == 401
    viewer = typed(tls_members.token("beijing", role="viewer"))
    assert len(viewer.list_node().items) == 3
    with pytest.raises(ApiException) as forbidden:
        viewer.create_namespaced_config_map("default", {"metadata": {"name": "nope"}})
    assert forbidden.value.status == 403


def test_watch_streams_added_and_modified_pods(api_client):
    core = client.CoreV1Api(api_client)
    listed = core.list_namespaced_pod("default", label_selector="app=watched")
    client.AppsV1Api(api_client).create_namespaced_deployment("default", web("watched", replicas=2))
    events = [
        (event["type"], event["object"].metadata.name)
        for event in watch.Watch().stream(
            core.list_namespaced_pod,
            "default",
            label_selector="app=watched",
            resource_version=listed.metadata.resource_version,
            timeout_seconds=1,
        )
    ]
    assert [kind for kind, _ in events].count("ADDED") == 2
    assert ("MODIFIED", events[0][1]) in events


def test_dynamic_client_lists_creates_server_side_applies_and_deletes(api_client):
    dynamic = DynamicClient(api_client)
    config_maps = dynamic.resources.get(api_version="v1", kind="ConfigMap")
    config_maps.create(
        body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"a": "1"}},
        namespace="default",
    )
    applied = config_maps.server_side_apply(
        body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"b": "2"}},
        namespace="default",
        field_manager="dashboard",
    )
    assert dict(applied.data) == {"a": "1", "b": "2"}
    created = config_maps.server_side_apply(
        body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fresh"}, "data": {"c": "3"}},
        namespace="default",
        field_manager="dashboard",
    )
    assert created.metadata.name == "fresh"
    deployments = dynamic.resources.get(api_version="apps/v1", kind="Deployment")
    deployments.server_side_apply(body=web("dyn", replicas=1), namespace="default", field_manager="dashboard")
    assert deployments.get(name="dyn", namespace="default").status.readyReplicas == 1
    deployments.delete(name="dyn", namespace="default")
    assert (
        dynamic.resources.get(api_version="v1", kind="Pod")
        .get(namespace="default", label_selector="app=dyn")
        .items
        == []
    )
    node_metrics = dynamic.resources.get(api_version="metrics.k8s.io/v1beta1", kind="NodeMetrics").get()
    assert {item.metadata.name for item in node_metrics.items} == {
        "beijing-node-1",
        "beijing-node-2",
        "beijing-node-3",
    }


def test_pod_logs_read_with_tail_previous_and_follow(api_client):
    core = client.CoreV1Api(api_client)
    annotations = {"membersim.io/fail": "CrashLoopBackOff", "membersim.io/backoff-seconds": "1"}
    healthy = {
        "metadata": {"name": "logged"},
        "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]},
    }
    crashing = {"metadata": {"name": "crashing", "annotations": annotations}, "spec": healthy["spec"]}
    core.create_namespaced_pod("default", healthy)
    core.create_namespaced_pod("default", crashing)
    assert core.read_namespaced_pod_log("logged", "default", tail_lines=1) == "ready to serve\n"
    with pytest.raises(ApiException) as caught:
        core.read_namespaced_pod_log("logged", "default", previous=True)
    assert (
        caught.value.status == 400
        and "previous terminated container" in json.loads(caught.value.body)["message"]
    )
    deadline = time.monotonic() + 20
    while core.read_namespaced_pod("crashing", "default").status.container_statuses[0].restart_count < 1:
        assert time.monotonic() < deadline, "the crash-looping pod never restarted"
        time.sleep(0.3)
    assert core.read_namespaced_pod_log("crashing", "default", previous=True).endswith(
        "exiting with code 1\n"
    )
    stream = core.read_namespaced_pod_log("logged", "default", follow=True, _preload_content=False)
    chunks = stream.stream(1024)
    first = next(chunks)
    core.delete_namespaced_pod("logged", "default")
    rest = b"".join(chunks)
    assert (first + rest).decode().endswith("ready to serve\nreceived SIGTERM, shutting down\n")


def test_events_are_listed_by_field_selector(api_client):
    core = client.CoreV1Api(api_client)
    core.create_namespaced_pod(
        "default",
        {"metadata": {"name": "eventful"}, "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}},
    )
    events = core.list_namespaced_event("default", field_selector="involvedObject.name=eventful").items
    assert [e.reason for e in events] == ["Scheduled", "Pulling", "Pulled", "Created", "Started"]
    assert {e.involved_object.kind for e in events} == {"Pod"} and events[
        0
    ].source.component == "default-scheduler"
    started = core.list_namespaced_event(
        "default", field_selector="involvedObject.name=eventful,reason=Started"
    )
    assert [(e.count, e.type, e.message) for e in started.items] == [(1, "Normal", "Started container app")]
