"""Forms of the Alerts page: a silence (matchers, how long, why) and a notification receiver."""

from __future__ import annotations

import math
import re

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.utils.translation import gettext_lazy as _

from kubesyntax.durations import DurationError, parse_duration
from observability.models import Receiver, ReceiverKind

LABEL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
MAX_SILENCE = 30 * 86400


def check_matchers(matchers: object) -> dict[str, str]:
    """A non-empty map of label names to values, or a ValidationError saying what is wrong."""
    if not isinstance(matchers, dict) or not matchers:
        raise ValidationError(_("Give at least one label=value."))
    for key, value in matchers.items():
        if not LABEL_NAME.match(str(key)):
            raise ValidationError(_("“%(key)s” is not a label name."), params={"key": key})
        if not isinstance(value, str) or not value:
            raise ValidationError(_("The label %(key)s needs a value."), params={"key": key})
    return matchers


def parse_matchers(text: str) -> dict[str, str]:
    """`alertname=ClusterUnhealthy, member_cluster=beijing` (commas or new lines) into a dict."""
    matchers: dict[str, str] = {}
    for item in re.split(r"[,\n]", text):
        item = item.strip()
        if not item:
            continue
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip().strip('"')
        if not sep or not value:
            raise ValidationError(_("“%(item)s” is not label=value."), params={"item": item})
        matchers[key] = value
    return check_matchers(matchers)


def silence_seconds(text: str) -> int:
    try:
        seconds = parse_duration(text.strip(), days=True)
    except DurationError as exc:
        raise ValidationError(_("Use a duration such as 30m, 2h or 1d.")) from exc
    if not 0 < seconds <= MAX_SILENCE:
        raise ValidationError(_("A silence lasts more than 0 seconds and at most 30 days."))
    return math.ceil(seconds)


class SilenceForm(forms.Form):
    matchers = forms.CharField(
        label=_("Matchers"),
        help_text=_("label=value pairs, separated by commas; every one must match."),
        widget=forms.TextInput(
            attrs={"placeholder": "alertname=ClusterUnhealthy, member_cluster=beijing", "size": 60}
        ),
    )
    duration = forms.CharField(
        label=_("Duration"), initial="2h", help_text=_("For example 30m, 2h or 1d (at most 30 days).")
    )
    comment = forms.CharField(label=_("Comment"), max_length=500, widget=forms.TextInput(attrs={"size": 60}))

    def clean_matchers(self) -> dict[str, str]:
        return parse_matchers(self.cleaned_data["matchers"])

    def clean_duration(self) -> int:
        return silence_seconds(self.cleaned_data["duration"])


def parse_emails(text: str) -> list[str]:
    addresses = [item.strip() for item in re.split(r"[,\s]+", text) if item.strip()]
    for address in addresses:
        try:
            validate_email(address)
        except ValidationError as exc:
            raise ValidationError(
                _("“%(address)s” is not an e-mail address."), params={"address": address}
            ) from exc
    return addresses


def check_receiver(kind: str, url: str, emails: list[str]) -> dict[str, str]:
    """Field errors of a receiver: a webhook needs an http(s) URL, an e-mail receiver an address."""
    errors = {}
    if kind == ReceiverKind.WEBHOOK and not re.match(r"^https?://", url or ""):
        errors["url"] = str(_("A webhook needs an http:// or https:// URL."))
    if kind == ReceiverKind.EMAIL and not emails:
        errors["emails"] = str(_("Give at least one e-mail address."))
    return errors


class ReceiverForm(forms.ModelForm):
    url = forms.URLField(label=_("Webhook URL"), required=False, max_length=2048, assume_scheme="https")
    emails = forms.CharField(
        label=_("E-mail addresses"),
        required=False,
        help_text=_("Separated by commas or spaces."),
    )

    class Meta:
        model = Receiver
        fields = ["name", "kind", "url", "emails", "send_resolved", "enabled"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk and not self.is_bound:
            self.initial["emails"] = ", ".join(self.instance.emails)

    def clean_emails(self) -> list[str]:
        return parse_emails(self.cleaned_data.get("emails") or "")

    def clean(self):
        data = super().clean()
        for name, message in check_receiver(
            data.get("kind", ""), data.get("url", ""), data.get("emails") or []
        ).items():
            self.add_error(name, message)
        return data
