"""Names read from files or a model (ids, titles, verify command names): what they may hold and how they are shown.

* Control characters (C0, DEL, C1: ESC starts a terminal escape sequence), bidirectional controls
  (U+202A-202E, U+2066-2069, U+200E/F, U+061C: a right-to-left override shows `txt.exe` as `exe.txt`)
  and zero-width characters (two names that look the same are different) make a name lie to the person
  who reads it. aidlc refuses them where it writes a name, reports them where it reads one, and shows
  them escaped (`\\u202e`) on a terminal or in a report.
* An id becomes a file or folder name (a run's lock, a review's folder): it must be one plain path
  segment, never `..`, a separator, an absolute path or a NUL.
* A name in a command aidlc prints for a person to paste is one shell argument on one line: quoted when it holds
  anything a shell reads (a bolt folder named `b; curl x | sh` in a pull request must not print a second command),
  its hiding characters escaped.
"""

from __future__ import annotations

import re
import shlex
import unicodedata

from aidlc.errors import UsageError

BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\ufeff")
_HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f" + "".join(sorted(BIDI | ZERO_WIDTH)) + "]")
_HIDDEN_IN_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f" + "".join(sorted(BIDI | ZERO_WIDTH)) + "]")
MAX_MESSAGE = 400  # a message quotes values from the files; a 2 MB value must not become a 2 MB line


# What ASCII text may hold without hiding anything: the printable characters, tab and line ends.
_ASCII_PRINTABLE = bytes(range(0x20, 0x7F))
_ASCII_HIDING = tuple(chr(code) for code in range(0x80) if code not in _ASCII_PRINTABLE + b"\t\n\r")


def hides(text: str) -> bool:
    """True when multi-line `text` holds a hiding character besides tab and line ends (no list made)."""
    if text.isascii():  # nearly always: a memchr per hiding character costs less than one pass deleting the others
        for char in _ASCII_HIDING:  # noqa: SIM110 - a plain loop: any() over a generator costs more here
            if char in text:
                return True
        return False
    return _HIDDEN_IN_TEXT.search(text) is not None


def hidden_character(value: str, allowed: str = "") -> str | None:
    """The first character of `value` that hides or disguises text (besides `allowed`), in words; None if none."""
    # The usual name: no control character, nothing else to find. (Deleting the printable bytes in C is a third
    # of the cost of isprintable(), which matters for the names of a whole bank joined in one text.)
    if value.isascii() and not value.encode("ascii").translate(None, _ASCII_PRINTABLE):
        return None
    for match in _HIDDEN.finditer(value):
        char = match.group()
        if char in allowed:
            continue
        if char in BIDI:
            return f"the bidirectional control U+{ord(char):04X} ({unicodedata.name(char, 'unnamed')})"
        if char in ZERO_WIDTH:
            return f"the zero-width character U+{ord(char):04X} ({unicodedata.name(char, 'unnamed')})"
        return f"the control character U+{ord(char):04X}"
    return None


def shown(value: str, keep: str = "") -> str:
    """`value` safe to print or to write into a report: each hiding character (besides `keep`) as an escape."""
    def escape(match: re.Match[str]) -> str:
        char = match.group()
        if char in keep:
            return char
        return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"
    return _HIDDEN.sub(escape, value)


# aidlc's own colours (aidlc/report/style.py): the only escape sequences printed text may carry.
_OWN_STYLE = re.compile("\x1b\\[(?:0|1|2|31|32|33|34)m")


def shorten(text: str, limit: int = MAX_MESSAGE) -> str:
    """Cut the middle out of a long message, keeping its start (what) and its end (why)."""
    if len(text) <= limit:
        return text
    keep = (limit - 5) // 2
    return f"{text[:keep]} ... {text[-keep:]}"


def terminal_safe(text: str) -> str:
    """`text` for a terminal: aidlc's own colour codes, line breaks and tabs kept, every other hiding character
    (an ESC a file or a model wrote too) escaped: a C0 control as `\\x1b`, the rest as `\\u202e`, which keeps a
    JSON document the same document (JSON's encoder escapes C0 controls itself and leaves the others raw)."""
    def escape(match: re.Match[str]) -> str:
        char = match.group()
        if char in "\n\t":
            return char
        return f"\\x{ord(char):02x}" if ord(char) < 0x20 else f"\\u{ord(char):04x}"

    parts, codes = _OWN_STYLE.split(text), _OWN_STYLE.findall(text)
    return "".join(_HIDDEN.sub(escape, part) + code for part, code in zip(parts, [*codes, ""], strict=True))


def id_number(text: str, digits: int = 9) -> int | None:
    """The number a name or reference is (`003`, `#2`'s `2`): ASCII digits, at most `digits` of them, else None.
    `int()` takes a superscript `²` nowhere and refuses thousands of digits; a hostile file, reference or model
    answer must get "no such number", never a traceback."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= digits else None


def segment_problem(value: str) -> str | None:
    """Why `value` cannot be one plain file or folder name (an id that becomes a path), or None."""
    if not value or value in (".", ".."):
        return "is empty or a relative folder ('.', '..')"
    if "/" in value or "\\" in value:
        return "holds a path separator ('/' or '\\')"
    if value.startswith("."):
        return "starts with '.'"
    if value.startswith("-"):  # in a command naming it (`aidlc bolt resume --approve`), an option, not a name
        return "starts with '-' (a command would read it as an option)"
    if value.isascii() and value.isprintable():  # as most ids are: nothing hidden (hidden_character's own first test)
        return None
    hidden = hidden_character(value)
    return f"holds {hidden}" if hidden else None


def path_segment(value: str, what: str, next_steps: list[str] | None = None) -> str:
    """`value`, or a UsageError: an id from a file or a model is about to become part of a path."""
    problem = segment_problem(value)
    if problem:
        raise UsageError(f"{what} '{shown(value)}' {problem}: it cannot name a file or folder",
                         next_steps or ["aidlc validate    # which file holds it"])
    return value


def arg(name: str) -> str:
    """`name` as one shell argument in a printed command: as it is when plain (`001-login`, `intent:shop`), quoted
    when a shell would read it otherwise. A hiding character is shown escaped first (AIDLC-ID-004 reports it): a
    line break would split the step over two lines, and the second, pasted alone, is a command of the name's."""
    return shlex.quote(shown(name))


def command(words: str, subject: str, options: str = "") -> str:
    """`aidlc WORDS SUBJECT OPTIONS` as one printed command, the subject quoted by `arg`, `options` as given (already
    quoted). A subject starting with '-' (an aidlc-docs unit folder `-x`: nothing in that layout forbids one) would
    be read as an option there; it goes last, after `--`, where a command reads every word as an argument."""
    if subject.startswith("-"):
        return f"aidlc {words} {options + ' ' if options else ''}-- {arg(subject)}"
    return f"aidlc {words} {arg(subject)}{' ' + options if options else ''}"


def gate_command(subject: str, stage: str, verb: str = "approve", options: str = "") -> str:
    """The command that decides `stage` of `subject`: `aidlc gate approve 001-login --stage plan`, `options` after
    the stage (`--reason '...'`)."""
    return command(f"gate {verb}", subject, f"--stage {arg(stage)}{' ' + options if options else ''}")
