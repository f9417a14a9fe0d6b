"""Benchmark: membersim's CPU for a request that arrives on a parked keep-alive connection.

While a fleet is seeded, each propagate process writes to each member every second or two; with
membersim's PARK_AFTER at 0.5 s the connection its pool keeps to the member was parked between two
writes and its next request handed to a handler thread again (about one such hand-over per Work in
bench_scale's seeding). This measures, in one membersim process (single port, as bench_scale runs it),
the CPU per request of the same small GET sent on connections that are parked between every two
requests, against the same requests sent back to back on connections kept busy, and prints the
ratio. Target: parked / busy <= 8 (a hand-over cost 7-10 busy requests while each started a new
handler thread, 5-6.5 with kept threads: membersim.handler_threads); membersim's own ticks, measured
over a quiet spell first, are taken out.

python bench/bench_membersim_parked.py [--clusters 100] [--connections 1000] [--seconds 15]
"""

from __future__ import annotations

import argparse
import http.client
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import bench_membersim_watched as watched  # noqa: E402

from membersim.server import PARK_AFTER  # noqa: E402

TARGET = 8.0  # parked / busy CPU per request, at most
BUSY_TIMES = 4
# a connection quiet this long between two requests is parked in between (the same gap whatever
# PARK_AFTER is, so that runs of different membersims compare)
GAP = max(3.5, PARK_AFTER + 0.5)
QUIET = 5.0  # seconds of membersim's own ticks measured first, taken out of the parked requests' CPU


class Members(watched.Members):
    """bench_membersim_watched's membersim process, read also for user and system CPU and its threads."""

    def cpu_split(self) -> tuple[float, float]:
        """User and system CPU seconds so far."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        tick = os.sysconf("SC_CLK_TCK")
        return int(fields[11]) / tick, int(fields[12]) / tick

    def threads(self) -> int:
        return len(os.listdir(f"/proc/{self.process.pid}/task"))


class Client:
    """One keep-alive connection to one member, GETting its default namespace."""

    def __init__(self, server: str) -> None:
        url = urlsplit(server)
        self.conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
        self.path = f"{url.path}/api/v1/namespaces/default"

    def get(self) -> None:
        self.conn.request("GET", self.path)
        response = self.conn.getresponse()
        body = response.read()
        if response.status != 200:
            raise RuntimeError(f"GET {self.path}: {response.status} {body[:200]!r}")


def parked(clients: list[Client], seconds: float) -> int:
    """Each client sends a request, waits GAP, sends the next, for ``seconds``: requests sent."""
    sent = [0] * len(clients)
    ends = time.monotonic() + seconds

    def loop(index: int) -> None:
        time.sleep(GAP * index / len(clients))  # spread over the gap
        while time.monotonic() < ends:
            clients[index].get()
            sent[index] += 1
            time.sleep(GAP)

    threads = [threading.Thread(target=loop, args=(index,)) for index in range(len(clients))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(sent)


def busy(clients: list[Client], count: int) -> None:
    """``count`` requests back to back, shared among the clients (each connection always busy)."""
    share = -(-count // len(clients))

    def loop(client: Client) -> None:
        for _ in range(share):
            client.get()

    threads = [threading.Thread(target=loop, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=100)
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=15.0)
    options = parser.parse_args()
    if options.clusters < 1 or options.connections < 4 or options.seconds <= 0:
        print("bench_membersim_parked: --clusters positive, --connections at least 4, --seconds positive")
        return 2
    with tempfile.TemporaryDirectory() as workdir:
        members = Members(options.clusters, Path(workdir))
        try:
            servers = [members.servers[name] for name in members.names]
            clients = [Client(servers[i % len(servers)]) for i in range(options.connections)]
            for client in clients:
                client.get()  # connected, and parked after PARK_AFTER
            time.sleep(PARK_AFTER + 0.5)
            before = members.cpu_seconds()
            time.sleep(QUIET)
            quiet_rate = (members.cpu_seconds() - before) / QUIET
            before = members.cpu_split()
            began = time.monotonic()
            count = parked(clients, options.seconds)
            took = time.monotonic() - began
            after = members.cpu_split()
            parked_user, parked_system = after[0] - before[0], after[1] - before[1]
            parked_cpu = parked_user + parked_system - quiet_rate * took
            threads_parked = members.threads()
            few = clients[:4]
            before = members.cpu_seconds()
            busy(few, BUSY_TIMES * count)  # more of them: the process's CPU counter moves in 10 ms ticks
            busy_cpu = (members.cpu_seconds() - before) / BUSY_TIMES
        finally:
            members.stop()
    per_parked = parked_cpu * 1e3 / count
    per_busy = busy_cpu * 1e3 / count
    ratio = per_parked / per_busy
    within = ratio <= TARGET
    print(
        f"membersim parked: {options.clusters} clusters, {options.connections} connections, {count} requests"
    )
    print(f"  CPU when quiet (its own ticks)       {quiet_rate * 1e3:7.1f} ms/s, taken out below")
    print(
        f"  CPU per request, parked in between   {per_parked:7.3f} ms (system "
        f"{parked_system * 1e3 / count:.3f}; threads at the end: {threads_parked})"
    )
    print(f"  CPU per request, connection busy      {per_busy:7.3f} ms")
    print(
        f"  parked / busy                         {ratio:7.2f} (target <= {TARGET}: "
        f"{'yes' if within else 'NO'})"
    )
    return 0 if within else 1


if __name__ == "__main__":
    raise SystemExit(main())
