"""Faults (down, slow, errors, load, node readiness), the ctl command, the CLI and clean shutdown."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml

from membersim import ClusterSpec, Simulator

pytestmark = [pytest.mark.contract, pytest.mark.xdist_group("membersim-faults")]
ROOT = Path(__file__).resolve().parents[2]


def get(url: str, token: str | None = None, timeout: float = 5) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def quietly(url: str, timeout: float) -> None:
    """For background requests whose failure (the simulator stopping under them) is the point."""
    try:
        get(url, timeout=timeout)
    except (OSError, urllib.error.URLError):
        pass


@pytest.fixture
def sim():
    with Simulator([ClusterSpec(name="alpha", nodes=2), ClusterSpec(name="beta", nodes=1)]) as simulator:
        yield simulator


def test_down_hangs_requests_until_the_client_gives_up_and_up_heals(sim):
    sim.control("alpha", "down")
    started = time.monotonic()
    with pytest.raises((TimeoutError, urllib.error.URLError)):
        get(sim.endpoint("alpha") + "/readyz", timeout=0.5)
    assert time.monotonic() - started < 3
    assert get(sim.endpoint("beta") + "/readyz")[0] == 200
    sim.control("alpha", "up")
    assert get(sim.endpoint("alpha") + "/readyz") == (200, b"ok")


def test_a_request_hung_by_down_is_answered_once_the_cluster_is_up_again(sim):
    sim.control("alpha", "down")
    answers: list[int] = []
    thread = threading.Thread(
        target=lambda: answers.append(
            get(sim.endpoint("alpha") + "/api/v1/nodes", sim.token("alpha"), timeout=10)[0]
        )
    )
    thread.start()
    time.sleep(0.5)
    assert answers == []
    sim.control("alpha", "up")
    thread.join(5)
    assert answers == [200]


def test_errors_answer_503_everywhere_including_readyz(sim):
    sim.control("alpha", "errors")
    code, body = get(sim.endpoint("alpha") + "/api/v1/nodes", sim.token("alpha"))
    assert code == 503 and json.loads(body)["reason"] == "ServiceUnavailable"
    assert get(sim.endpoint("alpha") + "/readyz")[0] == 503
    sim.control("alpha", "errors", 500)
    assert get(sim.endpoint("alpha") + "/healthz")[0] == 500


def test_slow_delays_every_answer(sim):
    sim.control("alpha", "slow", 0.4)
    started = time.monotonic()
    assert get(sim.endpoint("alpha") + "/readyz")[0] == 200
    assert time.monotonic() - started >= 0.4


def test_load_scales_node_metrics(sim):
    url = sim.endpoint("alpha") + "/apis/metrics.k8s.io/v1beta1/nodes/alpha-node-1"
    body = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "w"}}
    body["spec"] = {
        "replicas": 1,
        "selector": {"matchLabels": {"a": "w"}},
        "template": {
            "metadata": {"labels": {"a": "w"}},
            "spec": {
                "nodeName": "alpha-node-1",
                "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}],
            },
        },
    }
    request = urllib.request.Request(
        sim.endpoint("alpha") + "/apis/apps/v1/namespaces/default/deployments",
        data=json.dumps(body).encode(),
        method="POST",
    )
    assert urllib.request.urlopen(request).status == 201
    before = json.loads(get(url, sim.token("alpha"))[1])["usage"]["cpu"]
    sim.control("alpha", "load", 2)
    after = json.loads(get(url, sim.token("alpha"))[1])["usage"]["cpu"]
    assert int(after.rstrip("n")) - int(before.rstrip("n")) == 1000 * 1_000_000


def test_node_notready_marks_the_node_and_node_ready_restores_it(sim):
    sim.control("alpha", "node-notready", "alpha-node-2")
    node = json.loads(get(sim.endpoint("alpha") + "/api/v1/nodes/alpha-node-2", sim.token("alpha"))[1])
    assert {c["type"]: c["status"] for c in node["status"]["conditions"]}["Ready"] == "Unknown"
    assert {"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule"}.items() <= node["spec"][
        "taints"
    ][0].items()
    sim.control("alpha", "node-ready", "alpha-node-2")
    node = json.loads(get(sim.endpoint("alpha") + "/api/v1/nodes/alpha-node-2", sim.token("alpha"))[1])
    assert {c["type"]: c["status"] for c in node["status"]["conditions"]}["Ready"] == "True"
    with pytest.raises(ValueError, match="no node"):
        sim.control("alpha", "node-ready", "missing")


def test_stop_returns_promptly_even_with_hung_and_watching_requests():
    simulator = Simulator([ClusterSpec(name="gamma", nodes=1)]).start()
    watch_url = simulator.endpoint("gamma") + "/api/v1/pods?watch=true"
    threading.Thread(target=quietly, args=(watch_url, 30), daemon=True).start()
    simulator.control("gamma", "down")
    hung_url = simulator.endpoint("gamma") + "/version"
    threading.Thread(target=quietly, args=(hung_url, 30), daemon=True).start()
    time.sleep(0.5)
    started = time.monotonic()
    simulator.stop()
    assert time.monotonic() - started < 3
    assert not [t for t in threading.enumerate() if t.name.startswith("membersim") and t.is_alive()]


def test_single_port_serves_every_cluster_under_its_prefix_and_the_karmada_proxy_path():
    with Simulator(
        [ClusterSpec(name="one", nodes=1), ClusterSpec(name="two", nodes=2)], single_port=True
    ) as simulator:
        assert simulator.endpoint("two").endswith("/clusters/two")
        nodes = json.loads(get(simulator.endpoint("two") + "/api/v1/nodes")[1])
        assert [n["metadata"]["name"] for n in nodes["items"]] == ["two-node-1", "two-node-2"]
        base = simulator.endpoint("one").split("/clusters/")[0]
        proxied = json.loads(
            get(base + "/apis/cluster.karmada.io/v1alpha1/clusters/one/proxy/api/v1/nodes")[1]
        )
        assert [n["metadata"]["name"] for n in proxied["items"]] == ["one-node-1"]
        assert get(base + "/api/v1/nodes")[0] == 404


def test_plain_http_refuses_requests_without_a_token_when_anonymous_is_off():
    with Simulator([ClusterSpec(name="strict", nodes=1)], anonymous=False) as simulator:
        assert get(simulator.endpoint("strict") + "/api/v1/nodes")[0] == 401
        assert get(simulator.endpoint("strict") + "/api/v1/nodes", simulator.token("strict"))[0] == 200
        assert get(simulator.endpoint("strict") + "/version")[0] == 200


def run_cli(*args: str, timeout: float = 30, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    # From another working directory, the package is found on PYTHONPATH (the checkout's root).
    env = {k: v for k, v in os.environ.items() if k != "MEMBERSIM_KUBECONFIG"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "membersim", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        env=env,
    )


def test_help_documents_every_cluster_option_and_the_ctl_commands():
    help_text = run_cli("--help").stdout
    for key in (
        "nodes=",
        "cpu=",
        "memory=",
        "pods=",
        "region=",
        "zones=",
        "provider=",
        "version=",
        "pod-cidr=",
        "service-cidr=",
        "ssd=",
        "label.KEY=",
        "load=",
    ):
        assert key in help_text
    assert "node-notready NODE" in help_text and "--single-port" in help_text and "--tls" in help_text


@pytest.mark.parametrize(
    ("cluster", "message"),
    [
        ("x:nodes=many", "nodes must be an integer"),
        ("x:colour=blue", "unknown option 'colour'"),
        ("x:cpu=lots", "cpu"),
        ("Bad_Name", "must be a DNS label"),
        ("x:nodes=300,pod-cidr=10.0.0.0/24", "has room for only"),
    ],
)
def test_bad_cluster_options_fail_with_one_clear_line(tmp_path, cluster, message):
    result = run_cli("--cluster", cluster, "--kubeconfig", str(tmp_path / "kc"))
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and message in result.stderr
    assert not (tmp_path / "kc").exists()


def test_the_cli_serves_prints_one_line_per_cluster_obeys_ctl_and_stops_on_sigterm(tmp_path):
    kubeconfig = tmp_path / "members.yaml"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "membersim",
            "--cluster",
            "east:nodes=2,region=r1",
            "--cluster",
            "west",
            "--kubeconfig",
            str(kubeconfig),
            "--tls",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = [process.stdout.readline() for _ in range(3)]
        assert lines[0].startswith("membersim: cluster east at https://127.0.0.1:")
        assert lines[1].startswith("membersim: cluster west at https://127.0.0.1:")
        assert "kubeconfig" in lines[2]
        ctl = run_cli("ctl", "east", "errors", "--kubeconfig", str(kubeconfig))
        assert ctl.returncode == 0 and "mode=errors" in ctl.stdout
        assert "mode=up" in run_cli("ctl", "east", "up", "--kubeconfig", str(kubeconfig)).stdout
        bad = run_cli("ctl", "east", "slow", "--kubeconfig", str(kubeconfig))
        assert bad.returncode == 1 and "needs exactly one argument" in bad.stderr
        missing = run_cli("ctl", "east", "up", "--kubeconfig", str(tmp_path / "other.yaml"))
        assert missing.returncode == 1 and "not found" in missing.stderr
    finally:
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=10)
    assert process.returncode == 0 and "membersim: stopped" in out and err == ""


def test_a_port_in_use_is_a_one_line_error_with_strict_port(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_cli(
            "--cluster", "x", "--kubeconfig", str(tmp_path / "kc"), "--port", str(port), "--strict-port"
        )
    assert (
        result.returncode == 1
        and "cannot listen" in result.stderr
        and len(result.stderr.strip().splitlines()) == 1
    )


def test_refuse_closes_the_clusters_port_and_up_listens_again(sim):
    sim.control("alpha", "refuse")
    with pytest.raises(urllib.error.URLError, match="refused"):
        get(sim.endpoint("alpha") + "/readyz", timeout=2)
    assert get(sim.endpoint("beta") + "/readyz")[0] == 200
    sim.control("alpha", "up")
    assert get(sim.endpoint("alpha") + "/readyz") == (200, b"ok")


def test_refuse_on_a_shared_port_drops_that_clusters_connections_unanswered():
    with Simulator(
        [ClusterSpec(name="one", nodes=1), ClusterSpec(name="two", nodes=1)], single_port=True
    ) as simulator:
        simulator.control("one", "refuse")
        with pytest.raises((urllib.error.URLError, ConnectionError)):
            get(simulator.endpoint("one") + "/readyz", timeout=2)
        assert get(simulator.endpoint("two") + "/readyz")[0] == 200


def test_ctl_reaches_a_refused_cluster_through_another_port(tmp_path):
    with Simulator([ClusterSpec(name="near", nodes=1), ClusterSpec(name="far", nodes=1)]) as simulator:
        kubeconfig = simulator.write_kubeconfig(tmp_path / "kubeconfig")
        assert "mode=refuse" in run_cli("ctl", "near", "refuse", "--kubeconfig", str(kubeconfig)).stdout
        with pytest.raises(urllib.error.URLError):
            get(simulator.endpoint("near") + "/readyz", timeout=2)
        assert "mode=up" in run_cli("ctl", "near", "up", "--kubeconfig", str(kubeconfig)).stdout
        assert get(simulator.endpoint("near") + "/readyz")[0] == 200


def test_listening_on_all_interfaces_advertises_a_reachable_host_and_ipv6_works():
    with Simulator([ClusterSpec(name="wide", nodes=1)], host="0.0.0.0") as simulator:
        assert simulator.endpoint("wide").startswith("http://127.0.0.1:")
        assert get(simulator.endpoint("wide") + "/readyz")[0] == 200
    with Simulator(
        [ClusterSpec(name="named", nodes=1)], host="0.0.0.0", advertise_host="localhost"
    ) as simulator:
        assert simulator.endpoint("named").startswith("http://localhost:")
        assert get(simulator.endpoint("named") + "/readyz")[0] == 200
    with Simulator([ClusterSpec(name="six", nodes=1)], host="::1") as simulator:
        assert simulator.endpoint("six").startswith("http://[::1]:")
        assert get(simulator.endpoint("six") + "/readyz")[0] == 200


def test_the_control_endpoint_needs_the_control_token_and_reports_state(sim):
    url = sim.control_url("alpha")
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {sim.token('alpha')}"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=5)
    assert refused.value.code == 401
    sim.control("alpha", "slow", 0.1)
    sim.control("alpha", "load", 3)
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {sim.control_token}"})
    with urllib.request.urlopen(request, timeout=5) as response:
        state = json.loads(response.read())
    assert state == {
        "cluster": "alpha",
        "endpoint": sim.endpoint("alpha"),
        "mode": "up",
        "delay": 0.1,
        "errorCode": 503,
        "load": 3.0,
    }
    bad = urllib.request.Request(url, data=b'{"action": "explode"}', method="POST", headers=request.headers)
    with pytest.raises(urllib.error.HTTPError) as rejected:
        urllib.request.urlopen(bad, timeout=5)
    assert rejected.value.code == 400 and "unknown action" in json.loads(rejected.value.read())["message"]


def test_the_simulator_times_out_stuck_rollouts_on_its_own(sim):
    body = {
        "metadata": {"name": "stuck"},
        "spec": {
            "replicas": 1,
            "progressDeadlineSeconds": 1,
            "selector": {"matchLabels": {"a": "stuck"}},
            "template": {
                "metadata": {"labels": {"a": "stuck"}},
                "spec": {
                    "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "100"}}}]
                },
            },
        },
    }
    request = urllib.request.Request(
        sim.endpoint("alpha") + "/apis/apps/v1/namespaces/default/deployments",
        data=json.dumps(body).encode(),
        method="POST",
    )
    assert urllib.request.urlopen(request).status == 201
    deadline = time.monotonic() + 10
    reason = ""
    while time.monotonic() < deadline and reason != "ProgressDeadlineExceeded":
        time.sleep(0.5)
        status = json.loads(
            get(sim.endpoint("alpha") + "/apis/apps/v1/namespaces/default/deployments/stuck")[1]
        )["status"]
        reason = {c["type"]: c["reason"] for c in status["conditions"]}["Progressing"]
    assert reason == "ProgressDeadlineExceeded"


def test_a_cluster_whose_port_is_taken_serves_on_a_free_one_and_the_cli_says_which(tmp_path):
    kubeconfig = tmp_path / "kc"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "membersim",
                "--cluster",
                "held",
                "--kubeconfig",
                str(kubeconfig),
                "--port",
                str(port),
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            moved, served = process.stdout.readline(), process.stdout.readline()
            assert moved.startswith(f"membersim: port {port} is in use; cluster held serves on port ")
            chosen = int(moved.split("serves on port ")[1].split()[0])
            assert chosen != port and served.startswith(
                f"membersim: cluster held at http://127.0.0.1:{chosen}"
            )
            server = yaml.safe_load(kubeconfig.read_text())["clusters"][0]["cluster"]["server"]
            assert server == f"http://127.0.0.1:{chosen}"
            assert get(server + "/readyz") == (200, b"ok")
        finally:
            process.send_signal(signal.SIGTERM)
            process.communicate(timeout=10)
    assert process.returncode == 0


def port_after_a_free_one(taken: socket.socket) -> int:
    """Bind `taken` to a port whose predecessor is free (another test's socket may hold any port)."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            free = probe.getsockname()[1]
        try:
            taken.bind(("127.0.0.1", free + 1))
        except OSError:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", free))
            except OSError:
                continue
        return free + 1
    raise AssertionError("no two adjacent free ports on 127.0.0.1")


def test_the_simulator_moves_only_the_clusters_whose_ports_are_taken():
    with socket.socket() as taken:
        port = port_after_a_free_one(taken)
        taken.listen()
        specs = [ClusterSpec(name="first", nodes=1), ClusterSpec(name="second", nodes=1)]
        with Simulator(specs, port=port - 1) as simulator:
            assert list(simulator.moved) == ["second"] and simulator.moved["second"][0] == port
            assert simulator.endpoint("first") == f"http://127.0.0.1:{port - 1}"
            assert get(simulator.endpoint("second") + "/readyz") == (200, b"ok")


def test_ctl_without_kubeconfig_finds_the_demos_where_the_demo_writes_it(tmp_path):
    with Simulator([ClusterSpec(name="beijing", nodes=1)]) as simulator:
        simulator.write_kubeconfig(tmp_path / "var" / "demo" / "kubeconfig")
        result = run_cli("ctl", "beijing", "slow", "0.5", cwd=tmp_path)
        assert result.returncode == 0 and "beijing: mode=up delay=0.5s" in result.stdout
        assert simulator.cluster("beijing").fault.delay == 0.5


def test_ctl_without_kubeconfig_and_no_demo_running_is_one_clear_line(tmp_path):
    result = run_cli("ctl", "beijing", "down", cwd=tmp_path)
    assert result.returncode == 1 and len(result.stderr.strip().splitlines()) == 1
    assert "no --kubeconfig given" in result.stderr and "var/demo/kubeconfig" in result.stderr


def test_one_port_takes_a_burst_of_new_connections_before_it_accepts_them():
    """A fleet on one port gets many connections at once (workers, watcher, health); the kernel must
    queue them while the accept loop is busy, not drop them (each drop is a 1 s SYN retransmit)."""
    from membersim.server import MemberServer

    server = MemberServer(("127.0.0.1", 0), None, None, None)  # listening, never accepting
    opened = []
    try:
        for _ in range(64):
            opened.append(socket.create_connection(server.server_address[:2], timeout=0.3))
    finally:
        for sock in opened:
            sock.close()
        server.server_close()
    assert len(opened) == 64
