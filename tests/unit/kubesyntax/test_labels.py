"""Label keys and values follow Kubernetes' rules, with a reason for each refusal."""

import pytest

from kubesyntax.labels import LabelSyntaxError, check_labels, parse_assignment
from kubesyntax.names import label_key_error, label_value_error


@pytest.mark.parametrize(
    "key",
    ["env", "location/region", "karmada.io/managed", "a", "A_b.c-d", "x" * 63, ("a" * 63 + ".") * 3 + "b/n"],
)
def test_valid_label_keys_pass(key):
    assert label_key_error(key) is None


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        ("", "must not be empty"),
        ("/name", "prefix before '/' must not be empty"),
        ("prefix/", "name after the prefix must not be empty"),
        ("Upper.Case/name", "DNS subdomain"),
        ("a" * 254 + "/n", "at most 253"),
        ("x" * 64, "at most 63"),
        ("-env", "start and end with a letter or digit"),
        ("env var", "letters, digits"),
        ("a/b/c", "DNS subdomain"),
    ],
)
def test_invalid_label_keys_say_why(key, reason):
    assert reason in label_key_error(key)


@pytest.mark.parametrize("value", ["", "prod", "cn-north-1", "v1.2_3", "a" * 63])
def test_valid_label_values_pass(value):
    assert label_value_error(value) is None


@pytest.mark.parametrize(
    ("value", "reason"), [("a" * 64, "at most 63"), ("prod!", "letters"), ("-x", "start")]
)
def test_invalid_label_values_say_why(value, reason):
    assert reason in label_value_error(value)


def test_a_label_map_is_checked_entry_by_entry():
    assert check_labels({"env": "prod"}) == {"env": "prod"}
    with pytest.raises(LabelSyntaxError, match="at most 63"):
        check_labels({"env": "prod", "zone": "z" * 70})
    with pytest.raises(LabelSyntaxError, match="must be strings"):
        check_labels({"replicas": 3})


def test_a_command_line_assignment_is_split_and_checked():
    assert parse_assignment("location/region=cn-north") == ("location/region", "cn-north")
    assert parse_assignment("flag=") == ("flag", "")
    with pytest.raises(LabelSyntaxError, match="expected key=value"):
        parse_assignment("env")
