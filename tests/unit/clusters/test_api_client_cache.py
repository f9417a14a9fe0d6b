"""The per-process client cache holds a whole fleet's clients: every cluster is called with a list
timeout and a watch timeout, and none of them is closed and rebuilt while the fleet is watched."""

from clusters.k8s.client import api_client
from clusters.k8s.connection import ClusterConnection


def test_a_thousand_clusters_keep_both_their_clients_between_calls():
    fleet = [ClusterConnection(name=f"c{i}", server=f"http://127.0.0.1:1/clusters/c{i}") for i in range(1000)]
    first = {(conn.name, timeout): api_client(conn, timeout) for conn in fleet for timeout in (None, 90.0)}
    again = {(conn.name, timeout): api_client(conn, timeout) for conn in fleet for timeout in (None, 90.0)}
    assert all(again[key] is client for key, client in first.items())
