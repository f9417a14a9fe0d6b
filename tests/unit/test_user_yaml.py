"""User YAML read through libyaml reads as through the pure-Python loader (a tab after a colon aside, which
libyaml reads as kubectl does), and fails the same way."""

from __future__ import annotations

import pytest
import yaml

from core import useryaml
from scheduling.controllers.apply import ApplyError, parse_yaml

pytestmark = pytest.mark.skipif(useryaml.FAST_LOADER is None, reason="PyYAML was built without libyaml")

SAMPLES = [
    "a: 2024-01-01\nb: 1.5\nc: 0o17\nd: 0x1F\ne: yes\nf: ~\ng: 1_000\nh: 1e3\ni: 190:20:30",
    "k: v\n---\nk2: v2\n...\n---\n",
    "a: |\n  x\n  y\nb: >-\n  x\n  y\nc: \"\\x41\\u00e9\"\nd: 'it''s'",
    "base: &b {x: 1}\nm:\n  <<: *b\n  y: 2\nlist: [1, 2, {b: c}]\n? complex\n: v",
    "a: !!str 12\nb: !!int '12'\nc: !!float '1'\nd: !!bool 'true'\ne: ''\nf: \"\"\ng: '#'",
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, labels: {app: web}}\nspec:\n"
    "  replicas: 3\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n"
    "        args: [--port=80, \"--x=y: z\"]\n        env: [{name: A, value: 'on'}]\n",
    "\ufeffa: 1",  # a byte-order mark
    "a: b\r\nc: d\r\n",  # Windows line ends
    "- x\n- - y\n  - z\n-\n  k: v",
]
BROKEN = [
    "a: b: c",  # a mapping value where none may be
    "a: [1, 2",  # an unclosed flow sequence
    "a: 'open",  # an unclosed quote
    "a: \x07",  # a control character
    "a: *nowhere",  # an undefined alias
    "a: .nan",  # no JSON form
    "a: !!binary aGk=",
    "- !!set {a}",
    "a: !!int abc",  # does not fit its tag
    "a: &x [*x]",  # an alias inside its own anchor
    "key:\n\tvalue",  # a tab where indentation is
]


def pure(text: str, aliases: bool = True):
    return useryaml._load_all(useryaml.KubernetesLoader(text), useryaml.MAX_EXPANDED_NODES, aliases)


def fast(text: str, aliases: bool = True):
    return useryaml._load_all(useryaml.FAST_LOADER(text), useryaml.MAX_EXPANDED_NODES, aliases)


@pytest.mark.parametrize("text", SAMPLES)
def test_libyaml_reads_what_the_pure_python_loader_reads(text):
    assert fast(text) == pure(text)
    assert useryaml.load_all(text) == pure(text)


def test_a_tab_after_a_colon_is_read_as_kubectl_reads_it():
    # kubectl's YAML reader (a port of libyaml) takes it; the pure-Python loader alone refused it
    assert useryaml.load_all("a:\tb") == [{"a": "b"}]


def test_aliases_are_refused_at_their_line_either_way():
    text = "a: &x 1\nb: *x\n"
    for loader in (pure, fast):
        with pytest.raises(yaml.MarkedYAMLError) as refused:
            loader(text, aliases=False)
        assert refused.value.problem_mark.line == 1 and "not allowed" in str(refused.value)


@pytest.mark.parametrize("text", BROKEN)
def test_an_error_is_the_pure_python_loaders_whichever_parsed_first(text):
    with pytest.raises(yaml.YAMLError) as expected:
        pure(text)
    with pytest.raises(yaml.YAMLError) as raised:
        useryaml.load_all(text)
    assert type(raised.value) is type(expected.value) and str(raised.value) == str(expected.value)
    with pytest.raises(ApplyError) as applied:  # and the apply says it in one line
        parse_yaml(text)
    assert "\n" not in str(applied.value)


def test_a_billion_laughs_is_refused_by_the_fast_path_too():
    laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(8)
    )
    with pytest.raises(useryaml.YAMLTooComplex):
        useryaml.load_all(laughs)
