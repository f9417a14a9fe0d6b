"""The demo tells how to put its clusters at fault: membersim ctl, told where the kubeconfig is only
when it is not where ctl looks by itself."""

from __future__ import annotations

from pathlib import Path

from karmada_ui.demo import ctl_hint


def test_the_hint_is_the_bare_command_when_the_kubeconfig_is_where_ctl_looks(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert ctl_hint(Path("var/demo/kubeconfig")) == "python -m membersim ctl"


def test_the_hint_names_the_kubeconfig_when_it_is_elsewhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    elsewhere = tmp_path / "state" / "demo" / "kubeconfig"
    assert ctl_hint(elsewhere) == f"MEMBERSIM_KUBECONFIG={elsewhere} python -m membersim ctl"
