"""The one place YAML is parsed: yaml-rs when installed (about 20x faster), PyYAML otherwise."""

from __future__ import annotations

import re
from typing import Any

try:
    import yaml_rs as _fast
except ImportError:  # no wheel for this platform: PyYAML gives the same results, slower
    _fast = None

if _fast is not None:
    YAMLError: tuple[type[Exception], ...] = (_fast.YAMLDecodeError,)
else:
    import yaml as _yaml

    YAMLError = (_yaml.YAMLError,)

_LINE = re.compile(r"line (\d+)")


def load(text: str) -> Any:
    if _fast is not None:
        return _fast.loads(text)
    loader = getattr(_yaml, "CSafeLoader", _yaml.SafeLoader)
    return _yaml.load(text, Loader=loader)


def error_line(exc: Exception) -> int | None:
    """1-based line of a YAML error, relative to the parsed text."""
    mark = getattr(exc, "problem_mark", None)
    if mark is not None:
        return int(mark.line) + 1
    match = _LINE.search(str(exc))
    return int(match.group(1)) if match else None


def error_summary(exc: Exception) -> str:
    """The parser's own words, on one line (its source excerpt dropped)."""
    problem = getattr(exc, "problem", None)
    if problem:
        return f"invalid YAML: {problem}"
    lines = [ln for ln in str(exc).splitlines() if ln.strip() and not ln.lstrip().startswith(("|", "^"))]
    lines = [ln for ln in lines if not re.match(r"^\s*\d+\s*\|", ln)]
    detail = lines[-1] if lines else str(exc)
    return f"invalid YAML: {detail}"
