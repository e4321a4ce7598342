"""The one place YAML is parsed, with one meaning whichever parser reads it.

aidlc reads YAML with the core schema of YAML 1.2 (docs/configuration.md, "What YAML means in aidlc's files"):
`true`/`false` are the only booleans (`yes`, `no`, `on`, `off` are text), `null`/`~`/nothing is
null, `010` is the decimal 10 and `0o10` the octal 8, numbers may hold `_` separators and `0b`
binary; timestamps stay text (the models read ISO 8601 text: quoted or not, `2026-11-30` means
the same); a tag (`!!binary`, `!!python/object`, `!foo`, even `!!str`) is refused as bad YAML;
a key given twice is refused. Complex keys become tuples (sequences) and frozensets (mappings).

yaml-rs reads it when installed (about 20x faster); PyYAML otherwise, or with the documented
setting `AIDLC_YAML=pyyaml`. PyYAML's loader here is built to give yaml-rs's results (a parity
table in the tests holds them to it), and it alone knows where tags are: a text with a `!` in it
is always read by it.
"""

from __future__ import annotations

import os
import re
import sys
from functools import cache
from typing import Any

PARSERS = ("yaml-rs", "pyyaml")
SETTING = "AIDLC_YAML"  # pyyaml: use the fallback even where yaml-rs is installed


class LoadError(Exception):
    """Text the parser reads but aidlc refuses (aliases expanding without end, a line separator)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def use(name: str) -> str:
    """Read YAML with `name` (one of PARSERS) from now on; yaml-rs falls back to pyyaml where it is not
    installed. Returns the parser now in use."""
    global _fast
    _fast = None
    if name == "yaml-rs":
        try:
            import yaml_rs
        except ImportError:  # no wheel for this platform: the PyYAML loader below gives the same results
            return parser()
        _fast = yaml_rs
    return parser()


def parser() -> str:
    """The parser reading YAML in this process: yaml-rs or pyyaml."""
    return "yaml-rs" if _fast is not None else "pyyaml"


_fast: Any = None
use("pyyaml" if os.environ.get(SETTING, "").strip().lower() == "pyyaml" else "yaml-rs")


class YAMLError(Exception):
    """Text that is not YAML aidlc accepts; `line` is 1-based in the parsed text, when known."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line


def load(text: str) -> Any:
    """Parse YAML; every failure is a YAMLError, so bad content can never crash a caller."""
    text = text.removeprefix("\ufeff")
    try:
        if _fast is not None and _plain_text(text):
            data = _fast.loads(text, parse_datetime=False)
        else:
            data = _load_pyyaml(text)
    except LoadError as exc:
        raise YAMLError(f"invalid YAML: {exc}", exc.line) from None
    except (ValueError, RecursionError, OverflowError, TypeError) as exc:
        # Parse errors (yaml-rs's are ValueErrors), and what both parsers let escape for hostile but
        # well-formed input: nesting too deep, an unhashable key.
        raise YAMLError(_summary(exc), _line(exc, text)) from None
    # The length first: the search tries every hex digit of a front matter (a run of them is counted from each).
    if len(text) >= _LONG_RUN and _LONG_NUMBER.search(text) and _has_unprintable_int(data):
        raise YAMLError(f"invalid YAML: a number has more than {sys.get_int_max_str_digits()} digits; "
                        "quote it if it is text", None)
    return data


# yaml-rs reads a text alone only when it holds no '!' (a tag, perhaps: only PyYAML knows) and
# no character YAML forbids (yaml-rs takes control characters, and cuts a value at a NUL).
_ASCII_PLAIN = bytes(range(0x20, 0x7F)).replace(b"!", b"") + b"\t\n\r"
_SPECIAL = "[!\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]"


def _plain_text(text: str) -> bool:
    if text.isascii():  # nearly always: one pass in C, about 1 us for a story's front matter
        return not text.encode("ascii").translate(None, _ASCII_PLAIN)
    return _pattern(_SPECIAL).search(text) is None


@cache
def _pattern(expression: str) -> re.Pattern[str]:
    """A regex compiled when first needed: these serve rare texts, and start-up time matters."""
    return re.compile(expression)


_SEPARATORS = "[\x85\u2028\u2029]"  # line breaks to YAML 1.1 (PyYAML), text to YAML 1.2


def error_line(exc: YAMLError, text: str = "") -> int | None:
    """1-based line of a YAML error, relative to the parsed text."""
    return exc.line


def error_summary(exc: YAMLError) -> str:
    """The parser's own words, on one line."""
    return str(exc)


_LONG_RUN = 1000
_LONG_NUMBER = re.compile(f"[0-9a-fA-F_]{{{_LONG_RUN},}}")  # cheap pre-check: only such text can hold a huge int


def _has_unprintable_int(data: Any) -> bool:
    # Python refuses to turn an int of more than 4,300 digits into text (CVE-2020-10735), so any
    # message quoting it would fail later, deep inside pydantic; refuse it here, as bad YAML.
    limit = sys.get_int_max_str_digits()
    stack = [data]
    while stack and limit:
        item = stack.pop()
        if isinstance(item, int) and not isinstance(item, bool) and item.bit_length() * 0.30103 > limit - 1:
            return True
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple | frozenset):
            stack.extend(item)
    return False


_LINE = re.compile(r"line (\d+)")
_DUPLICATE = re.compile(r"duplicate mapping key: '?(.*?)'?$", re.MULTILINE)


def _line(exc: Exception, text: str) -> int | None:
    position = getattr(exc, "position", None)
    if isinstance(position, int):  # PyYAML's reader: the offset of the character it refused
        return text.count("\n", 0, position) + 1
    mark = getattr(exc, "problem_mark", None)
    if mark is not None:
        return int(mark.line) + 1
    match = _LINE.search(str(exc))
    if match:
        return int(match.group(1))
    duplicate = _DUPLICATE.search(str(exc))
    return _second_key_line(text, duplicate.group(1)) if duplicate else None


def _second_key_line(text: str, key: str) -> int | None:
    # yaml-rs names a duplicate key but not its line; the second `key:` is the one to remove.
    pattern = re.compile(rf"^\s*(?:-\s+)?['\"]?{re.escape(key)}['\"]?\s*:")
    hits = [number for number, line in enumerate(text.splitlines(), start=1) if pattern.match(line)]
    return hits[1] if len(hits) > 1 else None


def _summary(exc: Exception) -> str:
    character = getattr(exc, "character", None)
    if character is not None:  # PyYAML's reader: a character YAML does not allow
        code = character if isinstance(character, int) else ord(character)
        return f"invalid YAML: the character U+{code:04X} is not allowed (a control character?)"
    problem = getattr(exc, "problem", None)
    if problem:
        return f"invalid YAML: {problem}"
    text = str(exc) or type(exc).__name__
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith(("|", "^"))]
    lines = [ln for ln in lines if not re.match(r"^\s*\d+\s*\|", ln)]
    return f"invalid YAML: {lines[-1] if lines else text}"


# --- the PyYAML loader, with yaml-rs's meaning ------------------------------------------------------

MAX_EXPANDED = 1_000_000  # values aliases may expand to: yaml-rs's own limit (a billion laughs stops here)


def _load_pyyaml(text: str) -> Any:
    import yaml

    separator = _pattern(_SEPARATORS).search(text)
    if separator:  # the two YAML versions disagree on what they are: neither meaning is safe to pick
        raise LoadError(f"the character U+{ord(separator.group()):04X} (a line separator) is not allowed; "
                        "use a plain line break", text.count("\n", 0, separator.start()) + 1)

    documents = []
    try:
        loader = _loader_class("!" in text)(text)  # its reader refuses characters YAML does not allow, here
        try:
            while loader.check_data():
                documents.append(loader.get_data())
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        raise YAMLError(_summary(exc), _line(exc, text)) from None
    data = documents[0] if len(documents) == 1 else documents or None  # as yaml-rs: several are a list
    if "*" in text and _expanded_size(data) > MAX_EXPANDED:
        raise LoadError(f"aliases expand to more than {MAX_EXPANDED:,} values")
    return data


def _expanded_size(data: Any) -> int:
    """How many values `data` holds once every alias is copied out (shared objects counted each time)."""
    sizes: dict[int, int] = {}

    def size(value: Any) -> int:
        if not isinstance(value, dict | list):
            return 1
        if id(value) not in sizes:
            sizes[id(value)] = 0  # a recursive alias counts as 1 below itself
            items = (*value.keys(), *value.values()) if isinstance(value, dict) else value
            sizes[id(value)] = 2 + sum(map(size, items))
        return sizes[id(value)] or 1

    return size(data)


_NULL, _BOOL, _INT, _FLOAT, _STR, _SEQ, _MAP = (f"tag:aidlc,{name}" for name in
                                                ("null", "bool", "int", "float", "str", "seq", "map"))
_NULLS = frozenset({"", "null", "Null", "NULL", "~"})
_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}


def plain_tag(value: str) -> str:
    """What a plain (unquoted) scalar is, by yaml-rs's rules (its `resolve_plain`)."""
    if value in _NULLS:
        return _NULL
    if value in _BOOLS:
        return _BOOL
    if (_inf_nan(value) is not None or "." in value or "e" in value or "E" in value) and _is_float(value):
        return _FLOAT
    if _is_int(value):
        return _INT
    return _STR


def _inf_nan(value: str) -> float | None:
    if not 4 <= len(value) <= 5:
        return None
    sign = value[0] in "+-"
    body = value[1:] if sign else value
    if len(body) != 4 or body[0] != ".":
        return None
    word = body[1:].lower()
    if word == "inf":
        return float("-inf") if value[0] == "-" else float("inf")
    return float("nan") if word == "nan" and not sign else None


def _is_float(value: str) -> bool:
    if _inf_nan(value) is not None:
        return True
    i, n = (1 if value[:1] in ("+", "-") else 0), len(value)
    if i >= n:
        return False
    has_digit = has_dot = False
    while i < n:
        char = value[i]
        if char.isascii() and char.isdigit():
            has_digit = True
        elif char == "_":
            pass
        elif char == ".":
            has_dot = True
            i += 1
            while i < n and (value[i] == "_" or (value[i].isascii() and value[i].isdigit())):
                has_digit = has_digit or value[i] != "_"
                i += 1
            if has_digit and i < n and value[i] in "eE":
                return _exponent(value, i + 1)
            return i >= n and has_digit
        elif char in "eE" and has_digit:
            return _exponent(value, i + 1)
        else:
            return False
        i += 1
    return has_digit and has_dot


def _exponent(value: str, i: int) -> bool:
    if i < len(value) and value[i] in "+-":
        i += 1
    digits = value[i:]
    return any(c.isdigit() for c in digits) and all(c == "_" or (c.isascii() and c.isdigit()) for c in digits)


_RADIX = {"x": 16, "o": 8, "b": 2}
_DIGITS = {16: "0123456789abcdefABCDEF", 8: "01234567", 2: "01", 10: "0123456789"}


def _int_parts(value: str) -> tuple[int, str, int] | None:
    """(sign, digits without '_', radix) of an integer by yaml-rs's rules (`is_int`), else None."""
    sign = -1 if value[:1] == "-" else 1
    body = value[1:] if value[:1] in ("+", "-") else value
    radix = 10
    if len(body) > 1 and body[0] == "0" and body[1].lower() in _RADIX:
        radix, body = _RADIX[body[1].lower()], body[2:]
    digits = body.replace("_", "")
    if not digits or any(c not in _DIGITS[radix] for c in digits):
        return None
    return sign, digits, radix


def _is_int(value: str) -> bool:
    return _int_parts(value) is not None


def _parse_int(value: str) -> int:
    parts = _int_parts(value)
    assert parts is not None  # resolved as an int: the parts are there
    sign, digits, radix = parts
    return sign * int(digits, radix)


def _parse_float(value: str) -> float:
    special = _inf_nan(value)
    return special if special is not None else float(value.replace("_", ""))


def _hashable(key: Any) -> Any:
    """A sequence key as a tuple and a mapping key as a frozenset of its items, as yaml-rs makes them."""
    if isinstance(key, list):
        return tuple(_hashable(item) for item in key)
    if isinstance(key, dict):
        return frozenset((k, v) for k, v in key.items())
    return key


@cache
def _loader_class(tagged: bool) -> type:
    """PyYAML with yaml-rs's meaning: its own resolver, and constructors for its own tags only.

    `tagged`: the text holds a '!', so it may hold a tag; then the pure-Python loader reads it, whose
    composer sees each node's tag as written (libyaml's resolves the non-specific tag '!' silently)."""
    import yaml  # only here: yaml-rs reads almost every text
    from yaml.nodes import ScalarNode, SequenceNode

    base = yaml.SafeLoader if tagged or not hasattr(yaml, "CSafeLoader") else yaml.CSafeLoader

    class Loader(base):  # type: ignore[misc, valid-type]  # the base class is chosen at run time
        yaml_constructors: dict[Any, Any] = {}  # noqa: RUF012 - PyYAML's registry, per class

        def resolve(self, kind: type, value: Any, implicit: Any) -> str:
            if kind is ScalarNode:
                return plain_tag(value) if implicit[0] else _STR
            return _SEQ if kind is SequenceNode else _MAP

        def compose_node(self, parent: Any, index: Any) -> Any:
            event = self.peek_event()
            tag = getattr(event, "tag", None)
            if tag is not None:
                shown = tag.replace("tag:yaml.org,2002:", "!!")
                raise yaml.composer.ComposerError(
                    None, None, f"tags are not allowed (found {shown}); write the value without it",
                    event.start_mark)
            return super().compose_node(parent, index)

        def construct_undefined(self, node: Any) -> Any:  # a tag the composer let through: cannot happen
            raise yaml.constructor.ConstructorError(None, None, f"tags are not allowed ({node.tag})", node.start_mark)

        def construct_aidlc_map(self, node: Any) -> Any:
            data: dict[Any, Any] = {}
            yield data
            for key_node, value_node in node.value:
                key = _hashable(self.construct_object(key_node, deep=True))
                if key in data:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark,
                        f"duplicate mapping key: {key!r}", key_node.start_mark)
                data[key] = self.construct_object(value_node, deep=True)

        def construct_aidlc_seq(self, node: Any) -> Any:
            data: list[Any] = []
            yield data
            data.extend(self.construct_sequence(node, deep=True))

    scalars = {
        _NULL: lambda _loader, _node: None,
        _BOOL: lambda loader, node: _BOOLS[loader.construct_scalar(node)],
        _INT: lambda loader, node: _parse_int(loader.construct_scalar(node)),
        _FLOAT: lambda loader, node: _parse_float(loader.construct_scalar(node)),
        _STR: lambda loader, node: loader.construct_scalar(node),
    }
    for tag, construct in scalars.items():
        Loader.add_constructor(tag, construct)
    Loader.add_constructor(_SEQ, Loader.construct_aidlc_seq)
    Loader.add_constructor(_MAP, Loader.construct_aidlc_map)
    Loader.add_constructor(None, Loader.construct_undefined)
    return Loader
