"""Forms of the cluster pages: join, label rows, bulk labels, taints."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from kubesyntax.labels import LabelSyntaxError, parse_assignment
from kubesyntax.names import label_key_error, label_value_error
from kubesyntax.taints import EFFECTS

MAX_KUBECONFIG = 512 * 1024


def parse_label_text(text: str) -> dict[str, str]:
    """`env=prod, location/region=cn-north` (commas or new lines) into a checked map."""
    labels = {}
    for item in text.replace("\n", ",").split(","):
        if item.strip():
            key, value = parse_assignment(item)
            labels[key] = value
    return labels


class JoinForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("Cluster name"), max_length=48)
    kubeconfig = forms.CharField(
        label=gettext_lazy("Kubeconfig"), widget=forms.Textarea(attrs={"rows": 10}), required=False
    )
    kubeconfig_file = forms.FileField(label=gettext_lazy("or upload a kubeconfig file"), required=False)
    context = forms.CharField(label=gettext_lazy("Context"), required=False)
    labels = forms.CharField(
        label=gettext_lazy("Labels"),
        required=False,
        help_text=gettext_lazy("key=value, separated by commas"),
        widget=forms.TextInput(attrs={"placeholder": "env=prod, location/region=cn-north"}),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        upload = data.get("kubeconfig_file")
        if upload:
            if upload.size > MAX_KUBECONFIG:
                self.add_error("kubeconfig_file", _("The file is larger than 512 KiB."))
                return data
            try:
                data["kubeconfig"] = upload.read().decode("utf-8")
            except UnicodeDecodeError:
                self.add_error("kubeconfig_file", _("The file is not UTF-8 text."))
                return data
        if not (data.get("kubeconfig") or "").strip():
            self.add_error("kubeconfig", _("Paste a kubeconfig or upload one."))
        try:
            data["label_map"] = parse_label_text(data.get("labels") or "")
        except LabelSyntaxError as exc:
            self.add_error("labels", str(exc))
        return data


def label_rows(data: Any) -> tuple[dict[str, str], list[dict[str, str]]]:
    """The key/value rows of the label editor: (labels, rows with their own error)."""
    keys, values = data.getlist("key"), data.getlist("value")
    labels: dict[str, str] = {}
    rows = []
    for key, value in zip(keys, values, strict=False):
        key, value = key.strip(), value.strip()
        if not key and not value:
            continue
        error = label_key_error(key) or label_value_error(value) or ""
        if not error and key in labels:
            error = _("%(key)s is given twice") % {"key": key}
        rows.append({"key": key, "value": value, "error": error})
        if not error:
            labels[key] = value
    return labels, rows


class BulkLabelsForm(forms.Form):
    """Labels to set and keys to remove on the clusters ticked in the list (posted as `cluster`)."""

    set_labels = forms.CharField(label=gettext_lazy("Set labels"), required=False)
    remove_keys = forms.CharField(label=gettext_lazy("Remove keys"), required=False)

    def clean_set_labels(self) -> dict[str, str]:
        try:
            return parse_label_text(self.cleaned_data.get("set_labels") or "")
        except LabelSyntaxError as exc:
            raise forms.ValidationError(str(exc)) from exc

    def clean_remove_keys(self) -> list[str]:
        keys = [k.strip() for k in (self.cleaned_data.get("remove_keys") or "").split(",") if k.strip()]
        for key in keys:
            if label_key_error(key):
                raise forms.ValidationError(str(label_key_error(key)))
        return keys


class TaintForm(forms.Form):
    key = forms.CharField(label=gettext_lazy("Key"))
    value = forms.CharField(label=gettext_lazy("Value"), required=False)
    effect = forms.ChoiceField(label=gettext_lazy("Effect"), choices=[(e, e) for e in EFFECTS])

    def clean_key(self) -> str:
        key = self.cleaned_data["key"].strip()
        if label_key_error(key):
            raise forms.ValidationError(str(label_key_error(key)))
        return key

    def clean_value(self) -> str:
        value = (self.cleaned_data.get("value") or "").strip()
        if label_value_error(value):
            raise forms.ValidationError(str(label_value_error(value)))
        return value


def _split(text: str) -> list[str]:
    return [part.strip() for part in (text or "").replace("\n", ",").split(",") if part.strip()]


class ConventionForm(forms.Form):
    """One row of the conventions table; list fields are comma-separated text."""

    key = forms.CharField(label=gettext_lazy("Key"), max_length=317)
    description = forms.CharField(label=gettext_lazy("Meaning"), max_length=300, required=False)
    required = forms.BooleanField(label=gettext_lazy("Required"), required=False)
    allowed_values = forms.CharField(label=gettext_lazy("Allowed values"), required=False)
    pattern = forms.CharField(label=gettext_lazy("Pattern"), max_length=200, required=False)
    example = forms.CharField(label=gettext_lazy("Example"), max_length=63, required=False)
    aliases = forms.CharField(label=gettext_lazy("Aliases"), required=False)

    def clean(self) -> dict[str, Any]:
        from clusters.conventions import convention_errors

        data = super().clean()
        data["allowed_values"] = _split(data.get("allowed_values", ""))
        data["aliases"] = _split(data.get("aliases", ""))
        for name, errors in convention_errors(
            data.get("key", ""),
            data["allowed_values"],
            data.get("pattern", ""),
            data["aliases"],
            data.get("example", ""),
        ).items():
            for error in errors:
                self.add_error(name, error)
        return data
