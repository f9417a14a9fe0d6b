"""The API details clients rely on, over raw HTTP: discovery, lists, watches, verbs, errors and Tables."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from membersim import ClusterSpec, Simulator
from membersim.resources import find
from membersim.store import LOG_SIZE

pytestmark = [pytest.mark.contract, pytest.mark.xdist_group("membersim-api-surface")]
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"


@pytest.fixture(scope="module")
def cluster():
    with Simulator([ClusterSpec(name="api", nodes=3, version="1.31.4")]) as simulator:
        yield Client(simulator.endpoint("api"), simulator)


class Client:
    def __init__(self, base: str, simulator: Simulator):
        self.base, self.simulator = base, simulator

    def call(
        self,
        method: str,
        path: str,
        body=None,
        content_type: str | None = "application/json",
        accept: str = "application/json",
    ):
        data = body if isinstance(body, bytes) else (json.dumps(body).encode() if body is not None else None)
        headers = {"Accept": accept}
        if content_type and data is not None:
            headers["Content-Type"] = content_type
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read()

    def json(self, method: str, path: str, body=None, **kwargs):
        code, _, raw = self.call(method, path, body, **kwargs)
        return code, json.loads(raw) if raw else None


def config_map(name: str, labels: dict | None = None) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "labels": labels or {}},
        "data": {"k": "v"},
    }


def test_aggregated_discovery_is_served_with_its_content_type_and_legacy_otherwise(cluster):
    code, headers, raw = cluster.call(
        "GET",
        "/apis",
        accept="application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json",
    )
    assert code == 200 and "as=APIGroupDiscoveryList" in headers["Content-Type"]
    groups = {item["metadata"]["name"]: item for item in json.loads(raw)["items"]}
    assert {"apps", "batch", "metrics.k8s.io", "networking.k8s.io"} <= set(groups)
    deployments = next(
        r for r in groups["apps"]["versions"][0]["resources"] if r["resource"] == "deployments"
    )
    assert {s["subresource"] for s in deployments["subresources"]} == {"status", "scale"}
    code, legacy = cluster.json("GET", "/apis")
    assert legacy["kind"] == "APIGroupList"
    code, core = cluster.json("GET", "/api/v1")
    eviction = next(r for r in core["resources"] if r["name"] == "pods/eviction")
    assert (eviction["group"], eviction["version"], eviction["kind"]) == ("policy", "v1", "Eviction")


def test_openapi_v3_lists_a_patch_operation_with_field_validation_per_kind(cluster):
    code, index = cluster.json("GET", "/openapi/v3")
    document_url = index["paths"]["apis/apps/v1"]["serverRelativeURL"]
    code, document = cluster.json("GET", document_url)
    operation = document["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"]
    assert operation["x-kubernetes-group-version-kind"] == {
        "group": "apps",
        "version": "v1",
        "kind": "Deployment",
    }
    assert "fieldValidation" in {p["name"] for p in operation["parameters"]}
    code, headers, raw = cluster.call("GET", "/openapi/v2")
    assert code == 200 and headers["Content-Type"].endswith("protobuf") and b"fieldValidation" in raw


def test_the_service_cidr_is_readable_as_a_servicecidr_object_from_1_31(cluster):
    code, listing = cluster.json("GET", "/apis/networking.k8s.io/v1beta1/servicecidrs")
    assert code == 200 and listing["items"][0]["spec"]["cidrs"] == ["10.96.0.0/12"]
    assert cluster.call("GET", "/apis/networking.k8s.io/v1/servicecidrs")[0] == 404


def test_list_pages_with_limit_and_continue(cluster):
    for index in range(5):
        assert (
            cluster.json(
                "POST", "/api/v1/namespaces/default/configmaps", config_map(f"page-{index}", {"paged": "yes"})
            )[0]
            == 201
        )
    names, token = [], ""
    while True:
        _code, page = cluster.json(
            "GET", f"/api/v1/namespaces/default/configmaps?labelSelector=paged%3Dyes&limit=2&continue={token}"
        )
        names += [item["metadata"]["name"] for item in page["items"]]
        token = page["metadata"].get("continue", "")
        if not token:
            break
        assert page["metadata"]["remainingItemCount"] > 0
    assert names == [f"page-{index}" for index in range(5)]
    assert cluster.call("GET", "/api/v1/namespaces/default/configmaps?continue=garbage")[0] == 400


def test_pages_across_namespaces_where_one_name_prefixes_another_miss_nothing(cluster):
    # "bench-one/..." sorts before "bench/..." as keys ('-' < '/'): a list in namespace-then-name order
    # with a key-compared continue token skipped every namespace after "bench" on a later page.
    for namespace in ("bench", "bench-one", "bench-two"):
        cluster.json("POST", "/api/v1/namespaces", {"metadata": {"name": namespace}})
        for index in range(3):
            created = cluster.json(
                "POST",
                f"/api/v1/namespaces/{namespace}/configmaps",
                config_map(f"p-{index}", {"spread": "yes"}),
            )
            assert created[0] == 201
    seen, token = [], ""
    while True:
        _code, page = cluster.json(
            "GET", f"/api/v1/configmaps?labelSelector=spread%3Dyes&limit=2&continue={token}"
        )
        seen += [(item["metadata"]["namespace"], item["metadata"]["name"]) for item in page["items"]]
        token = page["metadata"].get("continue", "")
        if not token:
            break
    _code, whole = cluster.json("GET", "/api/v1/configmaps?labelSelector=spread%3Dyes")
    listed = [(item["metadata"]["namespace"], item["metadata"]["name"]) for item in whole["items"]]
    assert len(seen) == 9 and seen == listed
    assert seen == sorted(seen, key=lambda key: f"{key[0]}/{key[1]}")


def test_a_watch_replays_from_a_resource_version_and_filters_by_label(cluster):
    _, listed = cluster.json("GET", "/api/v1/namespaces/default/configmaps")
    cluster.json("POST", "/api/v1/namespaces/default/configmaps", config_map("seen", {"watch": "me"}))
    cluster.json("POST", "/api/v1/namespaces/default/configmaps", config_map("unseen"))
    cluster.json(
        "PATCH",
        "/api/v1/namespaces/default/configmaps/seen",
        {"data": {"k": "2"}},
        content_type="application/merge-patch+json",
    )
    cluster.json(
        "PATCH",
        "/api/v1/namespaces/default/configmaps/seen",
        {"metadata": {"labels": {"watch": None}}},
        content_type="application/merge-patch+json",
    )
    rv = listed["metadata"]["resourceVersion"]
    _code, _, raw = cluster.call(
        "GET",
        f"/api/v1/namespaces/default/configmaps?watch=true&resourceVersion={rv}&labelSelector=watch%3Dme&timeoutSeconds=1",
    )
    events = [json.loads(line) for line in raw.splitlines()]
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
        ("ADDED", "seen"),
        ("MODIFIED", "seen"),
        ("DELETED", "seen"),
    ]


def test_a_watch_from_a_compacted_resource_version_gets_410_expired(cluster):
    cluster.call("POST", "/api/v1/namespaces/default/configmaps", config_map("churn"))
    store = cluster.simulator.cluster("api").store
    resource = find("", "v1", "configmaps")
    for index in range(LOG_SIZE + 1):  # more writes than the change log keeps
        current = store.get(resource, "default", "churn")
        store.put(resource, {**current, "data": {"n": str(index)}})
    _code, _, raw = cluster.call(
        "GET", "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=2&timeoutSeconds=1"
    )
    event = json.loads(raw.splitlines()[0])
    assert (
        event["type"] == "ERROR" and event["object"]["code"] == 410 and event["object"]["reason"] == "Expired"
    )


def test_send_initial_events_ends_the_initial_state_with_a_bookmark(cluster):
    query = "watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
    _code, _, raw = cluster.call("GET", f"/api/v1/nodes?{query}&timeoutSeconds=1")
    events = [json.loads(line) for line in raw.splitlines()]
    assert [e["type"] for e in events] == ["ADDED", "ADDED", "ADDED", "BOOKMARK"]
    assert events[-1]["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}


def _quiet_watch(cluster, seconds: int) -> list[dict]:
    _, nodes = cluster.json("GET", "/api/v1/nodes")
    rv = nodes["metadata"]["resourceVersion"]
    query = f"watch=true&allowWatchBookmarks=true&resourceVersion={rv}&timeoutSeconds={seconds}"
    _code, _, raw = cluster.call("GET", f"/api/v1/nodes?{query}")
    return [json.loads(line) for line in raw.splitlines()]


def test_a_quiet_watch_gets_bookmarks_at_the_current_resource_version(cluster, monkeypatch):
    from membersim import server

    monkeypatch.setattr(server, "BOOKMARK_EVERY", 0.3)
    events = _quiet_watch(cluster, 1)
    assert len(events) >= 2 and {e["type"] for e in events} == {"BOOKMARK"}
    assert all(int(e["object"]["metadata"]["resourceVersion"]) > 0 for e in events)


def test_a_quiet_watch_is_not_bookmarked_every_few_seconds(cluster):
    # The API server's watch cache bookmarks a watcher about once a minute; a fleet's hundreds of idle
    # watches each woken every few seconds cost the clusters and their watcher alike.
    assert _quiet_watch(cluster, 6) == []


def test_tables_carry_kubectl_columns_for_lists_gets_and_watches(cluster):
    _, table = cluster.json("GET", "/api/v1/nodes", accept=TABLE)
    assert table["kind"] == "Table"
    assert [c["name"] for c in table["columnDefinitions"]][:5] == [
        "Name",
        "Status",
        "Roles",
        "Age",
        "Version",
    ]
    assert table["rows"][0]["cells"][:3] == ["api-node-1", "Ready", "<none>"]
    assert table["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
    _code, _, raw = cluster.call("GET", "/api/v1/nodes?watch=true&timeoutSeconds=1", accept=TABLE)
    events = [json.loads(line) for line in raw.splitlines()]
    assert all(e["object"]["kind"] == "Table" for e in events)
    assert "columnDefinitions" in events[0]["object"] and "columnDefinitions" not in events[1]["object"]


def test_create_honours_generate_name_dry_run_and_a_missing_content_type(cluster):
    code, made = cluster.json(
        "POST",
        "/api/v1/namespaces/default/configmaps",
        {"metadata": {"generateName": "gen-"}, "data": {}},
        content_type=None,
    )
    assert code == 201 and made["metadata"]["name"].startswith("gen-") and len(made["metadata"]["name"]) == 9
    code, dry = cluster.json("POST", "/api/v1/namespaces/default/configmaps?dryRun=All", config_map("dry"))
    assert code == 201 and dry["metadata"]["name"] == "dry"
    assert cluster.call("GET", "/api/v1/namespaces/default/configmaps/dry")[0] == 404
    assert (
        cluster.call("POST", "/api/v1/namespaces/default/configmaps?dryRun=Some", config_map("x"))[0] == 400
    )


def test_deletecollection_removes_only_what_the_selector_matches(cluster):
    for name, team in (("a1", "a"), ("a2", "a"), ("b1", "b")):
        cluster.json("POST", "/api/v1/namespaces/default/configmaps", config_map(name, {"team": team}))
    code, _ = cluster.json("DELETE", "/api/v1/namespaces/default/configmaps?labelSelector=team%3Da")
    assert code == 200
    code, left = cluster.json("GET", "/api/v1/namespaces/default/configmaps?labelSelector=team")
    assert [item["metadata"]["name"] for item in left["items"]] == ["b1"]


def test_deleting_a_namespace_deletes_its_contents(cluster):
    cluster.json("POST", "/api/v1/namespaces", {"metadata": {"name": "scratch"}})
    cluster.json("POST", "/api/v1/namespaces/scratch/configmaps", config_map("inside"))
    code, gone = cluster.json("DELETE", "/api/v1/namespaces/scratch")
    assert code == 200 and gone["status"]["phase"] == "Terminating"
    assert cluster.call("GET", "/api/v1/namespaces/scratch/configmaps/inside")[0] == 404
    assert cluster.call("GET", "/api/v1/namespaces/scratch")[0] == 404


def test_status_is_written_only_through_the_status_subresource(cluster):
    _, created = cluster.json(
        "POST",
        "/api/v1/namespaces/default/services",
        {"metadata": {"name": "svc"}, "spec": {"ports": [{"port": 80}]}},
    )
    assert created["spec"]["clusterIP"].startswith("10.9")
    lb = {"status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}}
    _, ignored = cluster.json(
        "PATCH", "/api/v1/namespaces/default/services/svc", lb, content_type="application/merge-patch+json"
    )
    assert ignored["status"] == {"loadBalancer": {}}
    _code, written = cluster.json(
        "PATCH",
        "/api/v1/namespaces/default/services/svc/status",
        lb,
        content_type="application/merge-patch+json",
    )
    assert written["status"]["loadBalancer"]["ingress"] == [{"ip": "1.2.3.4"}]


@pytest.mark.parametrize(
    ("method", "path", "body", "content_type", "code", "reason"),
    [
        ("POST", "/api/v1/namespaces/default/configmaps/x", {}, "application/json", 405, "MethodNotAllowed"),
        (
            "PATCH",
            "/api/v1/namespaces/default/configmaps/target",
            {},
            "text/plain",
            415,
            "UnsupportedMediaType",
        ),
        ("GET", "/api/v1/namespaces/default/configmaps?labelSelector=a%20b", None, None, 400, "BadRequest"),
        (
            "POST",
            "/api/v1/namespaces/default/configmaps",
            b"{not json",
            "application/json",
            400,
            "BadRequest",
        ),
        (
            "POST",
            "/api/v1/namespaces/default/configmaps",
            {"kind": "Secret", "metadata": {"name": "s"}},
            "application/json",
            400,
            "BadRequest",
        ),
        ("GET", "/api/v1/namespaces/default/widgets", None, None, 404, "NotFound"),
        (
            "PUT",
            "/api/v1/namespaces/default/configmaps/missing",
            {"metadata": {"name": "missing"}},
            "application/json",
            404,
            "NotFound",
        ),
        (
            "PATCH",
            "/api/v1/namespaces/default/configmaps/target",
            [{"op": "test", "path": "/data/k", "value": "no"}],
            "application/json-patch+json",
            422,
            "Invalid",
        ),
        (
            "PATCH",
            "/apis/metrics.k8s.io/v1beta1/nodes/api-node-1",
            {},
            "application/merge-patch+json",
            405,
            "MethodNotAllowed",
        ),
    ],
)
def test_bad_requests_get_kubernetes_status_errors(cluster, method, path, body, content_type, code, reason):
    cluster.call("POST", "/api/v1/namespaces/default/configmaps", config_map("target"))
    status, payload = cluster.json(method, path, body, content_type=content_type)
    assert (
        status == code and payload["kind"] == "Status" and payload["reason"] == reason and payload["message"]
    )


def test_a_put_with_a_stale_resource_version_conflicts_and_a_current_one_succeeds(cluster):
    code, created = cluster.json("POST", "/api/v1/namespaces/default/configmaps", config_map("versioned"))
    cluster.json(
        "PATCH",
        "/api/v1/namespaces/default/configmaps/versioned",
        {"data": {"k": "new"}},
        content_type="application/merge-patch+json",
    )
    code, body = cluster.json("PUT", "/api/v1/namespaces/default/configmaps/versioned", created)
    assert code == 409 and body["reason"] == "Conflict"
    code, current = cluster.json("GET", "/api/v1/namespaces/default/configmaps/versioned")
    current["data"] = {"k": "replaced"}
    assert cluster.json("PUT", "/api/v1/namespaces/default/configmaps/versioned", current)[1]["data"] == {
        "k": "replaced"
    }


def test_concurrent_writers_and_a_watcher_agree_on_the_final_state(cluster):
    from concurrent.futures import ThreadPoolExecutor

    _, listed = cluster.json("GET", "/api/v1/namespaces/default/configmaps?labelSelector=race")
    start = listed["metadata"]["resourceVersion"]

    def churn(worker: int) -> list[int]:
        codes = []
        for step in range(10):
            name = f"race-{worker}-{step}"
            codes.append(
                cluster.call(
                    "POST", "/api/v1/namespaces/default/configmaps", config_map(name, {"race": "yes"})
                )[0]
            )
            patch = {"data": {"step": str(step)}}
            codes.append(
                cluster.call(
                    "PATCH",
                    f"/api/v1/namespaces/default/configmaps/{name}",
                    patch,
                    content_type="application/merge-patch+json",
                )[0]
            )
            if step % 2:
                codes.append(cluster.call("DELETE", f"/api/v1/namespaces/default/configmaps/{name}")[0])
        return codes

    with ThreadPoolExecutor(8) as pool:
        codes = [code for result in pool.map(churn, range(8)) for code in result]
    assert set(codes) == {200, 201}
    _, _, raw = cluster.call(
        "GET",
        f"/api/v1/namespaces/default/configmaps?watch=true&labelSelector=race&resourceVersion={start}&timeoutSeconds=1",
    )
    alive: set[str] = set()
    for line in raw.splitlines():
        event = json.loads(line)
        (alive.discard if event["type"] == "DELETED" else alive.add)(event["object"]["metadata"]["name"])
    _, final = cluster.json("GET", "/api/v1/namespaces/default/configmaps?labelSelector=race")
    assert alive == {item["metadata"]["name"] for item in final["items"]} and len(alive) == 40
