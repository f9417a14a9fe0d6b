"""The Simplified Chinese catalogue is complete and its compiled form matches the source."""

import ast
import gettext
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PO = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"
MO = PO.with_suffix(".mo")


def read_po(path: Path) -> list[dict]:
    """Parse msgid/msgstr pairs (with continuation lines and the fuzzy flag) from a .po file."""
    entries, current, field = [], None, None
    for line in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        if line.startswith("#,") and "fuzzy" in line:
            current = {"fuzzy": True}
        elif line.startswith("msgid "):
            current = {**(current or {}), "msgid": ast.literal_eval(line[6:]), "msgstr": ""}
            field = "msgid"
        elif line.startswith("msgid_plural ") and current is not None:
            current["plural"] = ast.literal_eval(line[13:])
            field = "plural"
        elif line.startswith(("msgstr ", "msgstr[0] ")) and current is not None:
            current["msgstr"] = ast.literal_eval(line.split(" ", 1)[1])
            field = "msgstr"
        elif line.startswith('"') and current is not None and field:
            current[field] += ast.literal_eval(line)
        elif not line.strip() and current is not None and "msgid" in current:
            entries.append(current)
            current, field = None, None
    return [e for e in entries if e["msgid"]]


def test_every_message_has_a_chinese_translation_and_none_is_fuzzy():
    entries = read_po(PO)
    assert len(entries) >= 15
    assert [e["msgid"] for e in entries if not e["msgstr"] or e.get("fuzzy")] == []


def test_the_compiled_catalogue_is_up_to_date():
    catalogue = gettext.GNUTranslations(MO.open("rb"))

    def compiled(entry: dict) -> str:
        if "plural" in entry:
            return catalogue.ngettext(entry["msgid"], entry["plural"], 1)
        return catalogue.gettext(entry["msgid"])

    stale = [e["msgid"] for e in read_po(PO) if compiled(e) != e["msgstr"]]
    assert stale == [], "run `python manage.py compilemessages`"


def test_every_planner_reason_code_has_an_editor_sentence_in_chinese():
    from django.utils import translation

    from scheduling.editor.wording import REASONS, reason_text
    from scheduling.planner.messages import REASONS as PLANNER_REASONS

    assert sorted(set(PLANNER_REASONS) - set(REASONS)) == []
    with translation.override("zh-hans"):
        text = reason_text({"code": "region_not_chosen", "params": {"region": "cn-east"}, "message": "x"})
        limit = reason_text({"code": "spread_limit", "params": {"limit": 2}, "message": "x"})
    assert text == "区域分布约束未选中区域 cn-east"
    assert limit == "不在分布约束保留的 2 个集群之中"
