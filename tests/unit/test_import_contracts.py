"""The import contracts in pyproject.toml hold for the tree, and each one fails on a deliberate crossing."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (
    "karmada_ui",
    "core",
    "metrics",
    "clusters",
    "scheduling",
    "observability",
    "membersim",
    "kubesyntax",
    "kubeapi",
)
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"

# One import per contract that the architecture forbids: (file to add it to, the import, the contract).
CROSSINGS = (
    ("clusters/crossing.py", "import scheduling.models", "The apps in layers"),
    ("metrics/crossing.py", "import clusters.models", "The apps in layers"),
    ("observability/crossing.py", "import scheduling.services", "The apps in layers"),
    ("scheduling/controllers/crossing.py", "import scheduling.views", "Inside scheduling, in layers"),
    ("clusters/management/crossing.py", "from core import audit", "The doors write through services"),
    ("scheduling/karmada/crossing.py", "import scheduling.models", "Karmada's formats are pure"),
    ("scheduling/planner/crossing.py", "import django.db", "The planner is pure"),
    ("scheduling/crossing.py", "import kubernetes.client", "Only clusters.k8s talks to the Kubernetes API"),
    ("clusters/crossing_sim.py", "import membersim", "The dashboard never imports the cluster simulator"),
    ("kubesyntax/crossing.py", "import yaml", "Kubernetes syntax is pure"),
    ("kubesyntax/crossing_app.py", "import clusters.models", "Kubernetes syntax is pure"),
    ("scheduling/crossing_kubeapi.py", "import kubeapi.views", "The apps in layers"),
    ("kubeapi/crossing.py", "from core import audit", "The doors write through services"),
)


def lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=tree,
        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=180,
    )


def copy_of_the_tree(target: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, target / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", target / "pyproject.toml")
    return target


@pytest.mark.xdist_group("import-contracts")
def test_the_tree_keeps_every_import_contract(tmp_path):
    result = lint_imports(copy_of_the_tree(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.xdist_group("import-contracts")
def test_each_contract_fails_on_a_deliberately_crossed_layer(tmp_path):
    tree = copy_of_the_tree(tmp_path)
    for path, statement, _ in CROSSINGS:
        (tree / path).write_text(f'"""A deliberate crossing."""\n\n{statement}\n')
    result = lint_imports(tree)
    assert result.returncode != 0
    report = result.stdout.split("Broken contracts", 1)[-1]
    for path, statement, contract in CROSSINGS:
        module = path.removesuffix(".py").replace("/", ".")
        assert contract in report, f"{contract!r} did not break on {statement!r} in {module}"
        assert module in report, f"{module} ({statement}) was not reported"
