"""The text form of a label selector (`env=prod,tier in (a,b),!old`), parsed with Kubernetes' grammar."""

from __future__ import annotations

import re
from collections.abc import Callable

from kubesyntax.names import label_key_error, label_value_error
from kubesyntax.selectors import (
    DOES_NOT_EXIST,
    DOUBLE_EQUALS,
    EQUALS,
    EXISTS,
    GT,
    IN,
    INT64_MAX,
    LT,
    NOT_EQUALS,
    NOT_IN,
    Requirement,
    Selector,
    SelectorError,
    sorted_by_key,
)

# As Kubernetes' lexer: only space, tab, CR and LF separate; the longest operator wins ("!=" over "!");
# anything else up to a separator or an operator character is one word (a key, a value, `in`, `notin`).
WHITESPACE = " \t\r\n"
TOKEN = re.compile(r"[ \t\r\n]*(?:(?P<op>==|!=|=|!|\(|\)|,|<|>)|(?P<word>[^ \t\r\n!=(),<>]+))")
BOUND = re.compile(r"[0-9]+")
EXACT = {"=": EQUALS, "==": DOUBLE_EQUALS, "!=": NOT_EQUALS}

Token = tuple[str, str, int]  # (kind "op" or "word", text, position)


def _tokens(text: str) -> list[Token]:
    tokens, position = [], 0
    while text[position:].strip(WHITESPACE):
        match = TOKEN.match(text, position)
        if not match:  # pragma: no cover - the word class takes every other character
            raise SelectorError(f"unexpected character {text[position]!r}", position)
        kind = "op" if match.group("op") else "word"
        tokens.append((kind, match.group(kind), match.start(kind)))
        position = match.end()
    return tokens


def _key(word: str, position: int) -> str:
    reason = label_key_error(word)
    if reason:
        raise SelectorError(f"invalid label key: {reason}", position)
    return word


def _value(word: str, position: int) -> str:
    reason = label_value_error(word)
    if reason:
        raise SelectorError(f"invalid label value: {reason}", position)
    return word


def _value_set(take: Callable[[], Token]) -> tuple[str, ...]:
    """The values of `in (...)` after its '(': as Kubernetes, a missing value between commas or
    parentheses is the empty value, so `()`, `(,prod)` and `(a,,b)` all hold ""; sorted, no repeats."""
    values: set[str] = set()
    expecting = True
    while True:
        kind, word, position = take()
        if kind == "word":
            if not expecting:
                raise SelectorError(f"expected ',' or ')', found {word!r}", position)
            values.add(_value(word, position))
            expecting = False
        elif word in (",", ")"):
            if expecting:
                values.add("")
            if word == ")":
                return tuple(sorted(values))
            expecting = True
        else:
            raise SelectorError(f"expected a value, ',' or ')', found {word!r}", position)


class _Parser:
    """One pass over the tokens; every error carries the position of the token at fault."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.index = 0

    def peek(self) -> Token | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def take(self) -> Token:
        token = self.peek()
        if token is None:
            raise SelectorError("the selector ends too early", len(self.text))
        self.index += 1
        return token

    def requirement(self) -> Requirement:
        kind, word, position = self.take()
        if (kind, word) == ("op", "!"):
            kind, word, position = self.take()
            if kind != "word":
                raise SelectorError(f"expected a label key after '!', found {word!r}", position)
            return Requirement(_key(word, position), DOES_NOT_EXIST)
        if kind != "word":
            raise SelectorError(f"expected a label key, found {word!r}", position)
        key = _key(word, position)
        following = self.peek()
        if following is None or following[:2] == ("op", ","):
            return Requirement(key, EXISTS)
        if following[0] == "op" and following[1] in EXACT:
            return Requirement(key, EXACT[self.take()[1]], (self.exact_value(following[1]),))
        if following[0] == "op" and following[1] in ("<", ">"):
            return Requirement(key, GT if self.take()[1] == ">" else LT, (self.bound(following[1]),))
        if following[0] == "word" and following[1] in (IN, NOT_IN):
            self.take()
            opening = self.take()
            if opening[:2] != ("op", "("):
                raise SelectorError(f"expected '(' after {following[1]!r}", opening[2])
            return Requirement(key, following[1], _value_set(self.take))
        raise SelectorError(
            f"expected '=', '!=', 'in', 'notin' or ',' after {key!r}, found {following[1]!r}", following[2]
        )

    def exact_value(self, operator: str) -> str:
        token = self.peek()
        if token is None or token[:2] == ("op", ","):
            return ""
        if token[0] != "word":
            raise SelectorError(f"expected a value after {operator!r}", token[2])
        self.take()
        return _value(token[1], token[2])

    def bound(self, operator: str) -> str:
        token = self.peek()
        if token is None or token[0] != "word":
            where = len(self.text) if token is None else token[2]
            raise SelectorError(f"{operator!r} needs a whole number", where)
        self.take()
        _value(token[1], token[2])
        if not BOUND.fullmatch(token[1]) or int(token[1]) > INT64_MAX:
            raise SelectorError(f"{operator!r} needs a whole number", token[2])
        return token[1]

    def selector(self) -> Selector:
        requirements = []
        while self.peek() is not None:
            requirements.append(self.requirement())
            following = self.peek()
            if following is None:
                break
            if following[:2] != ("op", ","):
                found = following[1]
                raise SelectorError(f"expected ',' between requirements, found {found!r}", following[2])
            self.take()
            if self.peek() is None:
                raise SelectorError("the selector ends with ','", following[2])
        return sorted_by_key(requirements)


def parse_selector(text: str) -> Selector:
    """Parse the text form as `kubectl get -l` does (requirements sorted by key); "" selects everything."""
    return _Parser(text or "").selector()
