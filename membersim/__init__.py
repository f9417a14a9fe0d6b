"""membersim: simulated Kubernetes member clusters that kubectl and the official client use unchanged.

Each cluster is a real HTTP(S) API server (stdlib ``http.server``) speaking enough of the Kubernetes
API for ``kubectl`` and the ``kubernetes`` Python client: discovery (legacy and aggregated), a
minimal OpenAPI v3 (and v2 in protobuf, for kubectl 1.27), core/v1 namespaces, nodes, pods (with
logs, followed or not, and eviction), services, configmaps, secrets and events, apps/v1 deployments,
replicasets, statefulsets and daemonsets, batch/v1 jobs, networking.k8s.io ServiceCIDRs (1.31+) and
metrics.k8s.io/v1beta1. Verbs: list (selectors, limit/continue), get, watch (bookmarks, 410 when too
old), create, replace, delete (cascading), deletecollection, JSON / merge / strategic-merge / apply
patches, dryRun, strict field validation and Table output; protobuf request bodies for the objects
kubectl 1.32+ builds itself. Controllers split as kube-controller-manager's (``controllers/``) turn
workloads into pods, place them on nodes that fit, run them on simulated kubelets that write
container logs and record events, and keep workload status (including progress deadlines) up to
date.

Stable embedding API (tests and the demo rely on these names)::

    from membersim import Simulator, ClusterSpec

    sim = Simulator(
        [ClusterSpec(name="beijing", region="cn-north", zones=["cn-north-a"], provider="aliyun",
                     nodes=5, ssd_nodes=2, node_cpu="8", node_memory="32Gi", labels={"env": "prod"},
                     pod_cidr="10.1.0.0/16", service_cidr="10.96.0.0/12", version="1.31.4")],
        host="127.0.0.1", port=0, single_port=False, tls=False,
        anonymous=None,  # default: requests without a token are allowed over HTTP, refused (401) over TLS
        advertise_host=None,  # host put in endpoints/kubeconfig; default host (127.0.0.1 for 0.0.0.0)
        strict_port=False,    # a taken port is replaced by a free one (see sim.moved) unless True
    )
    sim.start()                      # or: with Simulator([...]) as sim:
    sim.endpoint("beijing")          # "http://127.0.0.1:PORT" (".../clusters/beijing" with single_port)
    sim.moved                        # {"beijing": (wanted port, port used)} for ports that were taken
    sim.token("beijing")             # bearer token; sim.token("beijing", role="viewer") is read-only
    sim.ca_pem()                     # PEM of the generated CA when tls=True, else None
    sim.write_kubeconfig(path)       # one context per cluster; also writes PATH.membersim.json for `ctl`
    sim.control("beijing", "down")   # hang every request; "up" heals (down, refuse, slow and errors)
    sim.control("beijing", "refuse")          # connections refused (closed unanswered, with single_port)
    sim.control("beijing", "slow", 2.5)
    sim.control("beijing", "errors")          # 503 on everything ("errors", 500 for 500s)
    sim.control("beijing", "load", 2.0)       # metrics usage = requests x 2.0 (+ a small base)
    sim.control("beijing", "node-notready", "beijing-node-1")   # and "node-ready"
    sim.cluster("beijing")           # the in-memory Cluster: .store, .controller, .add_node(), ...
    sim.stop()

ClusterSpec fields: name, nodes, node_cpu, node_memory, node_pods, region, zones, provider, version,
pod_cidr, service_cidr, node_cidr_mask, ssd_nodes, control_plane_nodes, labels, load, token.
Nodes are named NAME-node-1..N, labelled with topology.kubernetes.io/region and /zone (zones
round-robin), disk-type=ssd on the first ``ssd_nodes``, plus ``labels``; spec.providerID is
PROVIDER://REGION/NODE; each node gets a spec.podCIDR slice of ``pod_cidr``.

Authentication: a wrong token is always 401. A missing token is 401 over TLS; over plain HTTP it is
accepted unless ``anonymous=False``, because kubectl never sends kubeconfig credentials over HTTP.

Workloads: pods of a template annotated ``membersim.io/fail: CrashLoopBackOff`` (or ``ImagePullBackOff``,
``ErrImagePull``, ``Error``) report that failure and never become ready; ``Error`` fails pods whose
restartPolicy is Never (so Jobs retry up to backoffLimit) and crash-loops the others. A crash-looping
container fails one to two seconds after each start (its startedAt keeps whole seconds) and restarts
with the kubelet's back-off (10 s doubling to 5 min, or from ``membersim.io/backoff-seconds``), each run
with its own log (``previous`` reads the last).

The command line (``python -m membersim --help``) serves the same and adds ``ctl`` for faults.
The dashboard never imports this package; it talks to the clusters over HTTP like to real ones.
"""

from membersim.simulator import Simulator
from membersim.spec import ClusterSpec, SpecError

__all__ = ["ClusterSpec", "Simulator", "SpecError"]
