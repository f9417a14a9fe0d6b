"""A watch opened over TLS before any event exists: nothing past the headers yet is no failure."""

from __future__ import annotations

from clusters.k8s import ClusterConnection
from clusters.k8s.watch import list_each
from clusters.k8s.watch_streams import open_watch
from membersim import ClusterSpec, Simulator


def test_a_quiet_tls_watch_opens_and_its_first_event_is_read_from_the_socket():
    with Simulator([ClusterSpec(name="beijing", nodes=2)], tls=True) as sim:
        conn = ClusterConnection(
            name="beijing",
            server=sim.endpoint("beijing"),
            token=sim.token("beijing"),
            ca_data=sim.ca_pem().encode(),
        )
        nodes: list[dict] = []
        version = list_each(conn, "v1", "Node", nodes.append)
        assert len(nodes) == 2
        for _ in range(3):  # each opening finds nothing past the headers: the stream has no event yet
            opened = open_watch(conn, "v1", "Node", version, timeout_seconds=60)
            try:
                assert opened.read() == ([], False)
            finally:
                opened.close()
