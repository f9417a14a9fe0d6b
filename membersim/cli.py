"""Argument parsing for serving clusters and for the ``ctl`` fault commands."""

from __future__ import annotations

import argparse
import json
import os
import signal
import ssl
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, NoReturn

from membersim.heap import HeapKeeper
from membersim.server import CONTROL_PREFIX
from membersim.simulator import ACTIONS, Simulator, control_file_for
from membersim.spec import OPTION_HELP, SpecError, parse_cluster_option

KUBECONFIG_ENV = "MEMBERSIM_KUBECONFIG"
DEMO_KUBECONFIG = "var/demo/kubeconfig"
USAGE_EPILOG = (
    OPTION_HELP
    + """
examples:
  python -m membersim --cluster beijing:nodes=5,region=cn-north,zones=cn-north-a|cn-north-b,ssd=2 \\
      --cluster shanghai:nodes=3,provider=aliyun --kubeconfig var/members.yaml
  kubectl --kubeconfig var/members.yaml --context beijing get nodes

faults (while it runs):
  python -m membersim ctl NAME ACTION [ARG] [--kubeconfig PATH]
  ACTION: down | refuse | up | slow SECONDS | errors [CODE] | load FACTOR
          | node-notready NODE | node-ready NODE
  down hangs every request (the connection stays open, no answer), refuse refuses connections
  (with --single-port: closes them unanswered), up heals down/refuse/slow/errors,
  slow delays every answer, errors answers 503 (or CODE) to everything, load scales metrics usage.
  ctl reads PATH.membersim.json, written next to the kubeconfig with the control token; without
  --kubeconfig it uses $MEMBERSIM_KUBECONFIG, else var/demo/kubeconfig (the running demo's).
"""
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one clear line, no usage dump
        self.exit(2, f"{self.prog}: error: {message}\n")


def _serve_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="membersim",
        description="Serve simulated Kubernetes member clusters.",
        epilog=USAGE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--cluster",
        action="append",
        required=True,
        metavar="NAME[:key=value,...]",
        help="a cluster to serve (repeatable); options below",
    )
    parser.add_argument(
        "--kubeconfig",
        required=True,
        metavar="PATH",
        help="write a kubeconfig with one context per cluster here",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument(
        "--advertise-host",
        metavar="HOST",
        help="host name or address to put in the kubeconfig (default: --host, or 127.0.0.1 for 0.0.0.0)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=0,
        help="first port (one port per cluster, consecutive); a port another program holds is replaced "
        "by a free one, and said so; default: ephemeral",
    )
    parser.add_argument(
        "--strict-port", action="store_true", help="fail instead of choosing another port when one is taken"
    )
    parser.add_argument(
        "--single-port", action="store_true", help="serve every cluster on one port under /clusters/NAME"
    )
    parser.add_argument(
        "--tls",
        action="store_true",
        help="serve HTTPS with a generated CA (certificate-authority-data in the kubeconfig)",
    )
    parser.add_argument(
        "--require-token",
        action="store_true",
        help="answer 401 to requests without a token even over plain HTTP "
        "(kubectl sends tokens only over TLS)",
    )
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
    return parser


def _ctl_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="membersim ctl", description="Change a running simulated cluster's faults.")
    parser.add_argument("name", help="cluster name")
    parser.add_argument("action", choices=ACTIONS)
    parser.add_argument(
        "args",
        nargs="*",
        help="SECONDS for slow, FACTOR for load, NODE for node-notready/node-ready, optional CODE for errors",
    )
    parser.add_argument(
        "--kubeconfig",
        metavar="PATH",
        help=f"the kubeconfig membersim wrote (default: ${KUBECONFIG_ENV}, else {DEMO_KUBECONFIG}, "
        "where the demo writes it)",
    )
    return parser


def serve(argv: list[str]) -> int:
    """Serve until SIGINT or SIGTERM; returns only on a start-up error (a clean stop exits)."""
    options = _serve_parser().parse_args(argv)
    try:
        specs = [parse_cluster_option(text) for text in options.cluster]
        simulator = Simulator(
            specs,
            host=options.host,
            port=options.port,
            single_port=options.single_port,
            tls=options.tls,
            verbose=options.verbose,
            anonymous=False if options.require_token else None,
            advertise_host=options.advertise_host,
            strict_port=options.strict_port,
        )
        simulator.start()
    except (SpecError, OSError) as error:
        print(f"membersim: error: {error}", file=sys.stderr)
        return 2 if isinstance(error, SpecError) else 1
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    try:
        path = simulator.write_kubeconfig(options.kubeconfig)
        for name, (wanted, chosen) in simulator.moved.items():
            print(
                f"membersim: port {wanted} is in use; cluster {name} serves on port {chosen} instead",
                flush=True,
            )
        for spec in specs:
            print(
                f"membersim: cluster {spec.name} at {simulator.endpoint(spec.name)} "
                f"({spec.nodes} nodes, v{spec.version})",
                flush=True,
            )
        print(
            f"membersim: kubeconfig {path} (contexts: {', '.join(simulator.names)}); Ctrl-C to stop",
            flush=True,
        )
        # the fleet's heap out of the collector's full scans (membersim.heap)
        keeper = HeapKeeper(report=lambda line: print(f"membersim: {line}", flush=True))
        while not stop.wait(0.5):
            keeper.tick()
    except OSError as error:
        print(f"membersim: error: {error}", file=sys.stderr)
        return 1
    finally:
        simulator.stop()
    print("membersim: stopped", flush=True)
    # Everything membersim holds is in memory and already served its last answer: exit without
    # freeing a fleet's million objects one by one, which takes a minute at 100 clusters x 1,000.
    sys.stderr.flush()
    os._exit(0)


def default_kubeconfig() -> Path | None:
    """Where a running simulator's kubeconfig is when none is named: $MEMBERSIM_KUBECONFIG, else the
    demo's (relative to the working directory, where ``make demo`` runs)."""
    if os.environ.get(KUBECONFIG_ENV):
        return Path(os.environ[KUBECONFIG_ENV])
    demo = Path(DEMO_KUBECONFIG)
    return demo if demo.exists() else None


def ctl(argv: list[str]) -> int:
    options = _ctl_parser().parse_args(argv)
    if options.kubeconfig is None:
        found = default_kubeconfig()
        if found is None:
            print(
                f"membersim ctl: error: no --kubeconfig given, ${KUBECONFIG_ENV} is not set and "
                f"{DEMO_KUBECONFIG} does not exist (is the demo running from this directory?)",
                file=sys.stderr,
            )
            return 1
        options.kubeconfig = str(found)
    control_path = control_file_for(options.kubeconfig)
    try:
        control = json.loads(control_path.read_text())
        url = control["clusters"][options.name]
    except FileNotFoundError:
        print(
            f"membersim ctl: error: {control_path} not found (is "
            f"membersim running with --kubeconfig {options.kubeconfig}?)",
            file=sys.stderr,
        )
        return 1
    except KeyError:
        print(f"membersim ctl: error: no cluster named {options.name!r} in {control_path}", file=sys.stderr)
        return 1
    except ValueError as error:
        print(f"membersim ctl: error: {control_path} is not valid JSON: {error}", file=sys.stderr)
        return 1
    body = json.dumps({"action": options.action, "args": options.args}).encode()
    # Every port answers the control path for every cluster; a cluster whose own port is closed
    # ("refuse") is reached through another one.
    prefix = f"{CONTROL_PREFIX}{options.name}"
    urls = [url] + [u.split(CONTROL_PREFIX)[0] + prefix for u in control["clusters"].values() if u != url]
    if not all(u.startswith(("http://", "https://")) for u in urls):
        print(f"membersim ctl: error: {control_path} has an invalid control URL", file=sys.stderr)
        return 1
    context = ssl.create_default_context(cadata=control["ca"]) if control.get("ca") else None
    headers = {"Authorization": f"Bearer {control['token']}", "Content-Type": "application/json"}
    state: dict[str, Any] | None = None
    for candidate in dict.fromkeys(urls):
        request = urllib.request.Request(candidate, data=body, method="POST", headers=headers)  # noqa: S310
        try:
            with urllib.request.urlopen(request, timeout=10, context=context) as response:  # noqa: S310
                state = json.loads(response.read())
                break
        except urllib.error.HTTPError as error:
            try:
                message = json.loads(error.read()).get("message", error.reason)
            except ValueError:
                message = error.reason
            print(f"membersim ctl: error: {message}", file=sys.stderr)
            return 1
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
    if state is None:
        print(f"membersim ctl: error: cannot reach {url}: {reason}", file=sys.stderr)
        return 1
    print(
        f"{state['cluster']}: mode={state['mode']} delay={state['delay']}s "
        f"errorCode={state['errorCode']} load={state['load']}"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["ctl"]:
        return ctl(argv[1:])
    return serve(argv)
