"""The per-process client cache holds a whole fleet's clients: every cluster is called with a list
timeout and a watch timeout, and none of them is closed and rebuilt while the fleet is watched."""

from clusters.k8s.client import api_client
from clusters.k8s.connection import ClusterConnection


def test_a_thousand_clusters_keep_both_their_clients_between_calls():
    fleet = [ClusterConnection(name=f"c{i}", server=f"http://127.0.0.1:1/clusters/c{i}") for i in range(1000)]
    first = {(conn.name, timeout): api_client(conn, timeout) for conn in fleet for timeout in (None, 90.0)}
    again = {(conn.name, timeout): api_client(conn, timeout) for conn in fleet for timeout in (None, 90.0)}
    assert all(again[key] is client for key, client in first.items())


def test_the_clients_of_one_cluster_share_its_pool_and_keep_their_own_timeouts():
    conn = ClusterConnection(name="shared", server="http://127.0.0.1:1/clusters/shared")
    other = ClusterConnection(name="other", server="http://127.0.0.1:1/clusters/other")
    probe, listing, watch = api_client(conn, 2.0), api_client(conn), api_client(conn, (5.0, 90.0))
    assert probe.rest_client is listing.rest_client is watch.rest_client
    assert api_client(other).rest_client is not listing.rest_client
    assert (probe.timeout, listing.timeout, watch.timeout) == ((2.0, 2.0), (5.0, 30.0), (5.0, 90.0))


def test_calls_with_different_timeouts_reuse_one_kept_alive_connection():
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from clusters.k8s.rest import get_json

    accepted = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self):
            accepted.append(self.client_address)
            super().setup()

        def do_GET(self):
            body = b'{"major": "1", "minor": "31"}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        conn = ClusterConnection(name="keepalive", server=f"http://127.0.0.1:{server.server_port}")
        for timeout in (2.0, None, (5.0, 90.0), 3.0, None):
            assert get_json(api_client(conn, timeout), "/version")["minor"] == "31"
        assert len(accepted) == 1
    finally:
        server.shutdown()
        server.server_close()
