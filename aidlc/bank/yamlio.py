"""The one place YAML is parsed: yaml-rs when installed (about 20x faster), PyYAML otherwise."""

from __future__ import annotations

import re
import sys
from typing import Any

try:
    import yaml_rs as _fast
except ImportError:  # no wheel for this platform: PyYAML gives the same results, slower
    _fast = None


class LoadError(Exception):
    """Valid syntax the parser still cannot turn into data (a 5,000-digit integer, nesting too deep)."""


if _fast is not None:
    YAMLError: tuple[type[Exception], ...] = (_fast.YAMLDecodeError, LoadError)
else:
    import yaml as _yaml

    YAMLError = (_yaml.YAMLError, LoadError)

_LINE = re.compile(r"line (\d+)")
_DUPLICATE = re.compile(r"duplicate mapping key: '?(.*?)'?$", re.MULTILINE)


def load(text: str) -> Any:
    """Parse YAML; every failure is one of YAMLError, so bad content can never crash a caller."""
    try:
        if _fast is not None:
            data = _fast.loads(text)
        else:
            data = _yaml.load(text, Loader=getattr(_yaml, "CSafeLoader", _yaml.SafeLoader))
    except YAMLError:
        raise
    except (ValueError, RecursionError, OverflowError) as exc:
        # Both parsers let these escape for hostile but well-formed input.
        raise LoadError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None
    if _LONG_NUMBER.search(text) and _has_unprintable_int(data):
        raise LoadError(f"a number has more than {sys.get_int_max_str_digits()} digits; quote it if it is text")
    return data


_LONG_NUMBER = re.compile(r"[0-9a-fA-F_]{1000,}")  # cheap pre-check: only such text can hold a huge int


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
        elif isinstance(item, list):
            stack.extend(item)
    return False


def error_line(exc: Exception, text: str = "") -> int | None:
    """1-based line of a YAML error, relative to the parsed text."""
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


def error_summary(exc: Exception) -> str:
    """The parser's own words, on one line (its source excerpt dropped)."""
    problem = getattr(exc, "problem", None)
    if problem:
        return f"invalid YAML: {problem}"
    lines = [ln for ln in str(exc).splitlines() if ln.strip() and not ln.lstrip().startswith(("|", "^"))]
    lines = [ln for ln in lines if not re.match(r"^\s*\d+\s*\|", ln)]
    detail = lines[-1] if lines else str(exc)
    return f"invalid YAML: {detail}"
