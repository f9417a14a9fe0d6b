"""YAML that users send, the one way it is loaded: safely, with nesting and alias expansion bounded
(no billion laughs, no cycles) or aliases refused outright, and errors that keep their line."""

from __future__ import annotations

from typing import Any

import yaml

MAX_EXPANDED_NODES = 200_000


class YAMLTooComplex(yaml.YAMLError):
    """The text parses, but aliases expand too far, refer to themselves, or it nests too deeply."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.problem_mark = None


class _Loader(yaml.SafeLoader):
    """The safe loader, refusing aliases at their mark when the caller has no use for them."""

    allow_aliases = True

    def compose_node(self, parent: Any, index: Any) -> Any:
        if not self.allow_aliases and self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not allowed here", mark)
        return super().compose_node(parent, index)


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
    """Every document of `text` as yaml.safe_load_all gives them; YAMLError (or YAMLTooComplex) if not.
    With `aliases` False, the first alias is a MarkedYAMLError at its line."""
    loader = _Loader(text)
    loader.allow_aliases = aliases
    try:
        documents = []
        while loader.check_node():
            node = loader.get_node()
            check_expansion(node, limit)
            documents.append(loader.construct_document(node))
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
    loader = _Loader(text)
    try:
        return loader.get_single_node()
    except RecursionError:
        raise YAMLTooComplex("the YAML nests too deeply") from None
    finally:
        loader.dispose()
