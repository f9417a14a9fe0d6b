"""A staged rollout of a new image over the seed fleet: three waves, a halt when the second wave's pods
fail (membersim's ``membersim.io/fail``), and the rest of the rollout after the fix and a resume."""

from __future__ import annotations

import time

from core.models import AuditEntry
from observability import engine
from observability.models import Alert, AlertState
from scheduling.models import Event, ResourceBinding, Rollout
from scheduling.services import apply_yaml, step_rollout
from tests.e2e.test_seed_stories import deployment as member_deployment
from tests.support.members import converge

POLICY = """
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: web
  namespace: shop
  annotations:
    rollout.karmada-ui.io/waves: "env=staging; location/region=cn-north; *"
    rollout.karmada-ui.io/soak: 1s
    rollout.karmada-ui.io/progress-deadline: 4s
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  placement:
    replicaScheduling: {replicaSchedulingType: Duplicated}
"""

# The new image cannot start in beijing (say, a registry it cannot reach): an override that selects
# the 2.0 release's copy there makes membersim's kubelet crash-loop its pods.
BROKEN_IN_BEIJING = """
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: web-2-broken-in-beijing, namespace: shop}
spec:
  resourceSelectors:
    - {apiVersion: apps/v1, kind: Deployment, name: web, labelSelector: {matchLabels: {release: "2.0"}}}
  overrideRules:
    - targetCluster: {clusterNames: [beijing]}
      overriders:
        plaintext:
          - operator: add
            path: /spec/template/metadata/annotations
            value: {membersim.io/fail: CrashLoopBackOff}
"""


def web(version):
    return f"""
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web, namespace: shop, labels: {{release: "{version}"}}}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers: [{{name: web, image: "shop/web:{version}"}}]
"""


def images(fleet):
    """The image each cluster's copy runs, by cluster."""
    found = {}
    for cluster in ("beijing", "shanghai", "guangzhou"):
        live = member_deployment(fleet, cluster, "web", "shop")
        if live is not None:
            found[cluster] = live["spec"]["template"]["spec"]["containers"][0]["image"]
    return found


def rollout():
    return Rollout.objects.filter(binding__name="web-deployment").order_by("-pk").first()


def wait_for(condition, what, timeout=60.0):
    """Run the reconcile (status back, rollouts moved on) until `condition()` holds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        converge(1)
        if condition():
            return
        time.sleep(0.3)
    last = rollout()
    raise AssertionError(f"timed out waiting for {what}: {last and last.phase}: {last and last.message}")


def test_a_three_wave_rollout_halts_on_the_second_waves_failing_pods_and_resumes_after_the_fix(
    fleet, operator
):
    apply_yaml(POLICY + "---" + web("1.0") + "---" + BROKEN_IN_BEIJING)
    wait_for(
        lambda: images(fleet) == dict.fromkeys(("beijing", "shanghai", "guangzhou"), "shop/web:1.0"), "1.0"
    )
    assert rollout() is None  # a first propagation is not staged

    apply_yaml(web("2.0"))
    started = rollout()
    assert started is not None and started.to_revision.generation == 2
    # wave 1 (env=staging) alone at first
    assert images(fleet) == {
        "guangzhou": "shop/web:2.0",
        "beijing": "shop/web:1.0",
        "shanghai": "shop/web:1.0",
    }

    wait_for(lambda: images(fleet)["beijing"] == "shop/web:2.0", "wave 2")
    assert images(fleet)["shanghai"] == "shop/web:1.0"

    wait_for(lambda: rollout().phase == "Halted", "the halt")
    halted = rollout()
    assert halted.failed[0]["cluster"] == "beijing"
    assert halted.failed[0]["code"] == "ProgressDeadlineExceeded"
    assert "halted in wave 2: beijing" in halted.message
    converge(2)
    assert images(fleet)["shanghai"] == "shop/web:1.0"  # the third wave never started
    binding = ResourceBinding.objects.get(name="web-deployment")
    reasons = list(Event.objects.filter(object_name=binding.name).values_list("reason", flat=True))
    assert {"RolloutStarted", "RolloutWaveStarted", "RolloutHalted"} <= set(reasons)
    engine.evaluate()
    alert = Alert.objects.get(rule="RolloutHalted", state=AlertState.FIRING)
    assert (alert.labels["namespace"], alert.labels["name"]) == ("shop", "web-deployment")

    # the fix: beijing can run 2.0 after all; the operator resumes
    apply_yaml(BROKEN_IN_BEIJING.replace("CrashLoopBackOff", "none"))
    step_rollout(halted, "resume", operator)
    wait_for(lambda: rollout().phase == "Complete", "the rest of the rollout")
    assert images(fleet) == dict.fromkeys(("beijing", "shanghai", "guangzhou"), "shop/web:2.0")
    actions = set(AuditEntry.objects.filter(object_name="web").values_list("action", flat=True))
    assert {"rollout.start", "rollout.wave", "rollout.halt", "rollout.resume", "rollout.complete"} <= actions


def test_pause_holds_the_next_wave_and_abort_puts_the_updated_waves_back_on_the_previous_revision(
    fleet, operator
):
    apply_yaml(POLICY.replace("soak: 1s", "soak: 2s") + "---" + web("1.0"))
    wait_for(lambda: len(images(fleet)) == 3, "1.0 everywhere")
    apply_yaml(web("2.0"))
    step_rollout(rollout(), "pause", operator)
    converge(2)
    time.sleep(2.5)  # wave 1 has soaked; a paused rollout still holds wave 2
    converge(2)
    assert images(fleet) == {
        "guangzhou": "shop/web:2.0",
        "beijing": "shop/web:1.0",
        "shanghai": "shop/web:1.0",
    }
    assert rollout().message == "paused by otto-operator"

    step_rollout(rollout(), "abort", operator)
    wait_for(lambda: images(fleet)["guangzhou"] == "shop/web:1.0", "guangzhou back on 1.0")
    assert set(images(fleet).values()) == {"shop/web:1.0"}
    assert rollout().phase == "Aborted"
    actions = list(
        AuditEntry.objects.filter(action__startswith="rollout.").values_list("action", "user__username")
    )
    assert ("rollout.abort", "otto-operator") in actions and ("rollout.pause", "otto-operator") in actions

    # the next revision starts a new rollout from the one every cluster runs
    apply_yaml(web("3.0"))
    assert rollout().from_revision.generation == 1 and rollout().to_revision.generation == 3
    assert images(fleet)["guangzhou"] == "shop/web:3.0"
