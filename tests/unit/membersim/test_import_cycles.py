"""membersim's modules import each other without cycles, and the contract that says so bites."""

from __future__ import annotations

import pytest

from tests.unit.test_import_contracts import copy_of_the_tree, lint_imports


@pytest.mark.xdist_group("import-contracts")
def test_an_import_cycle_between_membersim_modules_breaks_the_contract(tmp_path):
    tree = copy_of_the_tree(tmp_path)
    # The controllers must not know the cluster that runs them (cluster.py imports the controllers).
    (tree / "membersim" / "controllers" / "crossing.py").write_text(
        '"""A deliberate cycle."""\n\nimport membersim.cluster\n'
    )
    result = lint_imports(tree)
    assert result.returncode != 0
    report = result.stdout.split("Broken contracts", 1)[-1]
    assert "membersim's modules import each other without cycles" in report
    assert ".controllers -> .cluster" in report
