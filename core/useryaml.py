"""User YAML, loaded one way: as Kubernetes reads it (only what JSON can carry), nesting and alias
expansion bounded (no billion laughs, no cycles) or aliases refused, and errors at their line."""

from __future__ import annotations

import math
from typing import Any

import yaml

try:
    from yaml.cyaml import CParser
except ImportError:  # PyYAML built without libyaml: every text is read by the pure-Python loader
    CParser = None  # type: ignore[assignment,misc]

MAX_EXPANDED_NODES = 200_000


class YAMLTooComplex(yaml.YAMLError):
    """The text parses, but aliases expand too far, refer to themselves, or it nests too deeply."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.problem_mark = None


class YAMLNotJSON(yaml.YAMLError):
    """A value no Kubernetes object holds: binary, a set, NaN, infinity, or text that does not fit its tag."""

    def __init__(self, problem: str, mark: Any = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.problem_mark = mark


class KubernetesReading(yaml.composer.Composer, yaml.constructor.SafeConstructor):
    """How Kubernetes reads YAML, for a loader: a timestamp stays the text it was, everything is JSON;
    aliases refused at their mark when the caller has no use for them."""

    allow_aliases = True

    def compose_node(self, parent: Any, index: Any) -> Any:
        if not self.allow_aliases and self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not allowed here", mark)
        return super().compose_node(parent, index)

    def construct_yaml_timestamp(self, node: yaml.Node) -> str:  # type: ignore[override]
        # kubectl turns YAML into JSON, where `date: 2024-01-01` is the string "2024-01-01".
        return str(self.construct_scalar(node))  # type: ignore[arg-type]

    def construct_yaml_float(self, node: yaml.Node) -> float:
        value = super().construct_yaml_float(node)
        if math.isnan(value) or math.isinf(value):
            raise YAMLNotJSON("NaN and infinite numbers have no JSON form", node.start_mark)
        return value

    def construct_yaml_binary(self, node: yaml.Node) -> bytes:
        raise YAMLNotJSON("!!binary values have no JSON form; give base64 text instead", node.start_mark)

    def construct_yaml_set(self, node: yaml.Node) -> Any:
        raise YAMLNotJSON("sets (!!set) have no JSON form; use a list", node.start_mark)


class KubernetesLoader(KubernetesReading, yaml.SafeLoader):  # type: ignore[misc]
    """The pure-Python loader: its errors name the line, column and problem, with a snippet."""


FAST_LOADER: type[KubernetesReading] | None = None
if CParser is not None:

    class FastKubernetesLoader(KubernetesReading, CParser, yaml.resolver.Resolver):
        """libyaml's scanner and parser under the same composer, checks and constructors (an apply's YAML
        parsed five times faster). It reads what KubernetesLoader reads, and a tab after a colon as kubectl
        does; any error is raised by KubernetesLoader instead, so its message is the same either way."""

        def __init__(self, stream: str | bytes) -> None:
            CParser.__init__(self, stream)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)

    FAST_LOADER = FastKubernetesLoader

for _loader in (KubernetesLoader, FAST_LOADER):
    if _loader is not None:
        _loader.add_constructor("tag:yaml.org,2002:timestamp", KubernetesReading.construct_yaml_timestamp)
        _loader.add_constructor("tag:yaml.org,2002:float", KubernetesReading.construct_yaml_float)
        _loader.add_constructor("tag:yaml.org,2002:binary", KubernetesReading.construct_yaml_binary)
        _loader.add_constructor("tag:yaml.org,2002:set", KubernetesReading.construct_yaml_set)

# What the pure-Python reader refuses (libyaml's reader lets a few of these through).
NOT_PRINTABLE = yaml.reader.Reader.NON_PRINTABLE


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def check_expansion(root: yaml.Node, limit: int = MAX_EXPANDED_NODES) -> int:
    """How many nodes the document has once every alias is expanded; YAMLTooComplex past `limit`."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            on_path.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in _children(node))
            if sizes[key] > limit:
                raise YAMLTooComplex(f"aliases expand the document past {limit} nodes")
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise YAMLTooComplex("an alias refers to the node that contains it")
        on_path.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)
    return sizes[id(root)]


def load_all(text: str | bytes, limit: int = MAX_EXPANDED_NODES, aliases: bool = True) -> list[Any]:
    """Every document of `text` as Kubernetes reads them; a YAMLError (YAMLTooComplex, YAMLNotJSON) if not.
    With `aliases` False, the first alias is a MarkedYAMLError at its line."""
    if FAST_LOADER is not None and isinstance(text, str) and not NOT_PRINTABLE.search(text):
        try:
            return _load_all(FAST_LOADER(text), limit, aliases)
        except yaml.YAMLError:
            pass  # the pure-Python loader raises it again, with its own message and marks
    return _load_all(KubernetesLoader(text), limit, aliases)


def _load_all(loader: Any, limit: int, aliases: bool) -> list[Any]:
    loader.allow_aliases = aliases
    try:
        documents = []
        while loader.check_node():
            node = loader.get_node()
            check_expansion(node, limit)
            try:
                documents.append(loader.construct_document(node))
            except (ValueError, TypeError, LookupError, AttributeError, OverflowError) as exc:
                # PyYAML's own constructors fail this way on text that does not fit its tag (!!int abc).
                raise YAMLNotJSON(f"a value does not fit its tag ({exc})", node.start_mark) from None
        return documents
    except RecursionError:
        raise YAMLTooComplex("the YAML nests too deeply") from None
    finally:
        loader.dispose()


def load(text: str | bytes, limit: int = MAX_EXPANDED_NODES) -> Any:
    """The single document of `text` (None when empty), as yaml.safe_load gives it, bounded as load_all."""
    documents = load_all(text, limit)
    if len(documents) > 1:
        raise YAMLTooComplex("expected one YAML document, found several")
    return documents[0] if documents else None


def compose(text: str) -> yaml.Node | None:
    """The node tree of a single document (None when empty), with the marks that give each node's line."""
    loader = KubernetesLoader(text)
    try:
        return loader.get_single_node()
    except RecursionError:
        raise YAMLTooComplex("the YAML nests too deeply") from None
    finally:
        loader.dispose()
