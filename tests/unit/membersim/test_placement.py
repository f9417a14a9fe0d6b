"""The controller's placement: resources, selectors, affinity, taints and readiness decide the node."""

from __future__ import annotations

from membersim.placement import NodeUse, choose_node, pod_requests
from membersim.quantity import format_memory, parse_quantity, to_bytes, to_millicores


def node(name, cpu="4", memory="8Gi", pods="110", labels=None, taints=None, ready=True, unschedulable=False):
    return {
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
        "spec": {"taints": taints or [], "unschedulable": unschedulable},
        "status": {
            "allocatable": {"cpu": cpu, "memory": memory, "pods": pods},
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
        },
    }


def pod(cpu="1", memory="1Gi", **spec):
    container = {"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu, "memory": memory}}}
    return {"metadata": {"name": "p", "namespace": "default"}, "spec": {"containers": [container], **spec}}


def test_quantities_parse_exactly():
    assert to_millicores("250m") == 250
    assert to_millicores("1.5") == 1500
    assert to_bytes("1Gi") == 2**30
    assert to_bytes("1e3") == 1000
    assert parse_quantity("100M") == 100_000_000
    assert format_memory(32 * 2**30) == "32Gi"


def test_requests_default_to_limits_and_init_containers_count_when_larger():
    spec = {
        "containers": [
            {"name": "a", "resources": {"limits": {"cpu": "500m"}}},
            {"name": "b", "resources": {"requests": {"cpu": "250m"}}},
        ],
        "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}],
    }
    requests = pod_requests({"spec": spec})
    assert (requests.cpu_m, requests.memory) == (2000, 2**30)


def test_the_least_allocated_node_that_fits_wins():
    nodes = [node("a"), node("b")]
    usage = {"a": NodeUse(cpu_m=3000, memory=0, pods=3)}
    assert choose_node(pod(), nodes, usage) == ("b", "")


def test_a_pod_that_fits_nowhere_gets_the_schedulers_reasons():
    nodes = [node("a", cpu="1"), node("b", ready=False), node("c", labels={"disk": "hdd"})]
    chosen, message = choose_node(pod(cpu="2", nodeSelector={"disk": "ssd"}), nodes, {})
    assert chosen is None
    assert message.startswith("0/3 nodes are available:")
    assert "node(s) didn't match Pod's node affinity/selector" in message
    assert "node(s) were not ready" in message


def test_insufficient_memory_and_pod_count_are_reported():
    nodes = [node("a", memory="1Gi"), node("b", pods="1")]
    chosen, message = choose_node(pod(memory="2Gi"), nodes, {"b": NodeUse(pods=1)})
    assert chosen is None
    assert "1 Insufficient memory" in message and "1 Too many pods" in message


def test_node_selector_and_required_affinity_pick_matching_nodes():
    nodes = [node("a", labels={"zone": "z1"}), node("b", labels={"zone": "z2", "disk-type": "ssd"})]
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": "zone", "operator": "NotIn", "values": ["z1"]},
                            {"key": "disk-type", "operator": "Exists"},
                        ]
                    }
                ]
            }
        }
    }
    assert choose_node(pod(affinity=affinity), nodes, {})[0] == "b"
    does_not_exist = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "disk-type", "operator": "DoesNotExist"}]}
                ]
            }
        }
    }
    assert choose_node(pod(affinity=does_not_exist), nodes, {})[0] == "a"
    assert choose_node(pod(nodeSelector={"zone": "z1"}), nodes, {})[0] == "a"


def test_taints_need_matching_tolerations():
    tainted = node("a", taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}])
    soft = node("b", taints=[{"key": "x", "effect": "PreferNoSchedule"}])
    assert choose_node(pod(), [tainted], {})[0] is None
    assert choose_node(pod(), [tainted, soft], {})[0] == "b"
    exact = [{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]
    assert choose_node(pod(tolerations=exact), [tainted], {})[0] == "a"
    wrong_value = [{"key": "dedicated", "operator": "Equal", "value": "cpu"}]
    assert choose_node(pod(tolerations=wrong_value), [tainted], {})[0] is None
    assert choose_node(pod(tolerations=[{"operator": "Exists"}]), [tainted], {})[0] == "a"


def test_unschedulable_nodes_are_skipped():
    chosen, message = choose_node(pod(), [node("a", unschedulable=True)], {})
    assert chosen is None and "unschedulable" in message
