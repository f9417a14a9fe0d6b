"""The editor pages and fragments: the form renders, the preview answers, tabs convert, roles are enforced."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from scheduling.editor.document import parse_yaml
from scheduling.editor.formstate import form_from_policy
from tests.unit.editor.seed import POLICY_7_3
from tests.unit.editor.test_form_conversion import SEED_7_3, submitted

pytestmark = pytest.mark.django_db


def field_errors(body: str) -> dict[str, list[str]]:
    """The per-field errors a preview response carries for editor.js to place beside the fields."""
    found = re.search(r'<script id="field-errors" type="application/json">(.*?)</script>', body, re.S)
    assert found, "the preview response carries no field errors"
    return json.loads(found.group(1))


def seed_form(**changes):
    data = submitted(form_from_policy(parse_yaml(SEED_7_3)))
    data["mode"] = "form"
    data["replicas"] = "10"
    for key, value in changes.items():
        if isinstance(value, list):
            data.setlist(key, value)
        else:
            data[key] = value
    return dict(data.lists())


def test_an_operator_opens_a_new_policy_with_the_fleet_in_the_pickers(operator_client, fleet):
    response = operator_client.get(reverse("scheduling:policy_new"))
    assert response.status_code == 200
    body = response.content.decode()
    assert 'id="policy-editor"' in body
    assert '<option value="guangzhou">' in body
    assert "matches 3 of 3 clusters" in body


def test_a_viewer_may_not_open_the_editor(client, viewer, fleet):
    client.force_login(viewer)
    assert client.get(reverse("scheduling:policy_new")).status_code == 403
    assert client.post(reverse("scheduling:policy_preview"), seed_form()).status_code == 403


def test_the_preview_fragment_shows_the_split_and_why_not(operator_client, fleet):
    data = submitted(form_from_policy(POLICY_7_3))
    data["mode"] = "form"
    data["replicas"] = "11"
    response = operator_client.post(reverse("scheduling:policy_preview"), dict(data.lists()))
    body = response.content.decode()
    assert response.status_code == 200
    assert "Proposed split for 11 replicas: beijing 8, shanghai 3." in body
    assert "beijing gets the 11th replica: Webster priority 0.47 vs 0.43 for shanghai." in body
    assert "taint dedicated=gpu:NoSchedule is not tolerated" in body
    assert field_errors(body)["name"] == []
    assert 'id="match-summary"' in body and 'hx-swap-oob="true"' in body


def test_field_errors_come_back_on_their_field(operator_client, fleet):
    response = operator_client.post(
        reverse("scheduling:policy_preview"), seed_form(name="Not_Valid", sc_min=["3"])
    )
    errors = field_errors(response.content.decode())
    assert errors["name"] == ["must be a lowercase DNS name (letters, digits, '-' and '.')"]
    assert errors["spread"] == ["#1 maxGroups: must be >= minGroups"]
    assert errors["weights"] == errors["general"] == []


def test_yaml_errors_come_back_with_their_line(operator_client, fleet):
    text = SEED_7_3.replace("maxGroups: 2", "maxGroups: -1")
    response = operator_client.post(reverse("scheduling:policy_preview"), {"mode": "yaml", "yaml": text})
    body = response.content.decode()
    line = text.splitlines().index("      maxGroups: -1") + 1
    assert f'data-goto-line="{line}"' in body
    assert "spec.placement.spreadConstraints[0].maxGroups" in body


def test_a_yaml_syntax_error_names_its_line(operator_client, fleet):
    response = operator_client.post(
        reverse("scheduling:policy_preview"), {"mode": "yaml", "yaml": "kind: x\nspec:\n  a: 1\n b: 2\n"}
    )
    assert 'data-goto-line="4"' in response.content.decode()


def test_switching_to_yaml_and_back_keeps_every_field(operator_client, fleet):
    to_yaml = operator_client.post(reverse("scheduling:policy_switch"), seed_form(to="yaml"))
    body = to_yaml.content.decode()
    assert (
        'aria-selected="true"' in body[body.index('id="tab-yaml"') - 200 : body.index('id="tab-yaml"') + 400]
    )
    assert "propagateDeps: true" in body
    import html
    import re

    text = html.unescape(re.search(r'<textarea id="policy-yaml"[^>]*>(.*?)</textarea>', body, re.S).group(1))
    assert parse_yaml(text) == parse_yaml(SEED_7_3)
    back = operator_client.post(
        reverse("scheduling:policy_switch"), {"mode": "yaml", "yaml": text, "to": "form"}
    )
    assert 'value="shop-split"' in back.content.decode()


def test_saving_a_draft_stores_it_without_applying(operator_client, fleet):
    from scheduling.editor.models import PolicyDraft
    from scheduling.models import PropagationPolicy

    response = operator_client.post(
        reverse("scheduling:policy_save_draft"), seed_form(), HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    draft = PolicyDraft.objects.get()
    assert draft.document == parse_yaml(SEED_7_3)
    assert not PropagationPolicy.objects.exists()
    page = operator_client.get(reverse("scheduling:policy_edit", args=["default", "shop-split"]))
    assert "not applied yet" in page.content.decode()


def test_a_draft_without_a_name_is_refused_with_a_reason(operator_client, fleet):
    response = operator_client.post(reverse("scheduling:policy_save_draft"), seed_form(name=""))
    assert response.status_code == 400
    assert b"name" in response.content


def test_a_label_selector_with_a_typo_is_linted_inline_with_a_suggestion(operator_client, fleet):
    data = seed_form(ml_key=["enviroment"], ml_value=["prod"], cluster_names=[])
    body = operator_client.post(reverse("scheduling:policy_preview"), data).content.decode()
    summary = body[body.index('id="match-summary"') :]
    assert "matches 0 of 3 clusters" in summary
    assert "no cluster has the label enviroment" in summary
    assert "did you mean env?" in summary
    assert "the selector matches no cluster" in summary


def test_a_label_selector_matching_every_cluster_is_flagged(operator_client, fleet):
    data = seed_form(me_key=["env"], me_operator=["Exists"], me_values=[""], ml_key=[], ml_value=[])
    data.update(cluster_names=[], exclude=[])
    body = operator_client.post(reverse("scheduling:policy_preview"), data).content.decode()
    assert "the selector matches every cluster" in body
