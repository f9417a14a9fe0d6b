"""The controller manager: runs the cluster's controllers in order, pass after pass, until none changes
anything; called synchronously after each relevant write and by the ticker when time matters."""

from __future__ import annotations

from membersim.controllers.context import Context
from membersim.controllers.daemonsets import DaemonSetController
from membersim.controllers.deployments import DeploymentController
from membersim.controllers.garbage_collector import PodGarbageCollector
from membersim.controllers.jobs import JobController
from membersim.controllers.kubelet import Kubelet
from membersim.controllers.node_usage import NodeUsage
from membersim.controllers.replicasets import ReplicaSetController
from membersim.controllers.scheduler import Scheduler
from membersim.controllers.statefulsets import StatefulSetController
from membersim.controllers.taint_eviction import TaintEvictionController
from membersim.controllers.workload_status import WorkloadStatusController
from membersim.events import EventRecorder
from membersim.logs import LogStore
from membersim.placement import NodeUse
from membersim.resources import POD
from membersim.store import Store

MAX_PASSES = 50


class ControllerManager:
    """Level-triggered: every pass recomputes from the stored objects and writes only differences."""

    def __init__(self, store: Store, events: EventRecorder, logs: LogStore) -> None:
        self.store = store
        self.context = Context(store, events)
        self.node_usage = NodeUsage(store)
        self.garbage_collector = PodGarbageCollector(self.context)
        self.deployments = DeploymentController(self.context)
        self.replica_sets = ReplicaSetController(self.context)
        self.stateful_sets = StatefulSetController(self.context)
        self.daemon_sets = DaemonSetController(self.context)
        self.jobs = JobController(self.context)
        self.taint_eviction = TaintEvictionController(self.context)
        self.kubelet = Kubelet(self.context, self.node_usage, logs)
        self.scheduler = Scheduler(self.context, self.node_usage, self.kubelet)
        self.workload_status = WorkloadStatusController(self.context)
        # The order of kube-controller-manager's work on one change: owners make pods, pods are
        # evicted, placed and started, and statuses are written from what resulted.
        self.controllers = (
            self.garbage_collector,
            self.deployments,
            self.replica_sets,
            self.stateful_sets,
            self.daemon_sets,
            self.jobs,
            self.taint_eviction,
            self.scheduler,
            self.kubelet,
            self.workload_status,
        )

    def reconcile(self) -> None:
        """Run the controllers until nothing changes. Called with no write since the last run (a
        tick), the first pass recomputes every object: time alone may have changed something."""
        context = self.context
        with self.store.lock:
            if not context.touched:
                context.full = True
            try:
                for _ in range(MAX_PASSES):
                    if context.full:
                        context.full = False
                        context.touched = []
                        context.begin_pass(None)
                    else:
                        scope, context.touched = context.touched, []
                        context.begin_pass(scope)
                    if not self.run_pass():
                        break
            except BaseException:
                context.full = True  # the writes a failed pass was following must not be forgotten
                raise
            finally:
                context.begin_pass(None)

    def tick(self, now: float) -> None:
        """What the ticker runs each second: the objects whose time has come (a restart, a deadline,
        a toleration running out) and the pods still waiting for a node, as a scoped pass."""
        with self.store.lock:
            due = self.context.touch_due(now)
            for namespace, name in list(self.node_usage.unbound):
                pod = self.store.get(POD, namespace, name)
                if pod is not None and not self.context.full:
                    self.context.touched.append((POD, namespace, name, pod, pod))
                due = due or pod is not None
            if due:
                self.reconcile()

    def run_pass(self) -> bool:
        changed = False
        for controller in self.controllers:
            changed |= controller.run()
        return changed

    def usage(self) -> dict[str, NodeUse]:
        """Requests and IPs of the active pods bound to each node (a copy the caller may change)."""
        return self.node_usage.copy()

    def needs_ticks(self) -> bool:
        """Whether time alone can change something: an object asked to be looked at again (a crash-loop
        restart, a progress deadline, a toleration), or pods waiting for a node (capacity freed by a
        delete is retried on the next tick)."""
        with self.store.lock:
            return bool(self.node_usage.unbound) or self.context.next_due() is not None
