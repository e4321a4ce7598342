"""aidlc-workflows v2's plan approval fingerprint, recomputed outside the agent's harness.

v2 (core/tools/aidlc-testing-posture.ts, `approvalFingerprint`) records `sha256:v3:<hex>` in a
PLAN_APPROVAL_RECORDED row: the SHA-256 of `JSON.stringify(canonicalize({plan, instructions, testing_contract,
target, intent, run_floor}))`, where
* `plan` is the code-generation plan projected onto what a person approves (`plan_approval_content`: a ticked box is
  a claim about execution, not a change to the plan);
* `instructions` is unit-test-instructions.md with its line endings as LF, nothing else changed;
* `testing_contract` is the `contract_sha256` of the JSON block under the plan's `## Testing Contract` heading, which
  v2 accepts only when it is version 1 and hashes its own body (`read_testing_contract`);
* `target`, `intent` and `run_floor` are the row's Plan Target, Intent and Run floor.
Each step follows v2's code, JavaScript's semantics included (its regular expressions' `.`, `\\d` and `/i`, the key
order and number format of JSON.stringify); tests/test_aidlc_docs_v2.py checks it against fingerprints v2's own code
computed for the same files.

One step is not reproduced: v2 first drops a terminal `## Review` appendix with a locator of its own. A plan with a
Review heading is not recomputed (`has_review`), rather than guessed.
"""

from __future__ import annotations

import hashlib
import json
import math
import re

V3 = "sha256:v3:"
# The formats v2 itself reads as "approve again": `sha256:v2:<hex>` and a bare `sha256:<hex>`.
OLDER = re.compile(r"^sha256:(?:v2:)?[0-9a-f]{64}$")

# JavaScript's `.` matches no line terminator, its `\d` only ASCII digits: spelled out for Python.
_DOT = r"[^\n\r\u2028\u2029]"
_FENCE_OPEN = re.compile(rf" {{0,3}}(`{{3,}}|~{{3,}})({_DOT}*)")
_FENCE_CLOSE = re.compile(r" {0,3}([`~]+)[ \t]*")
_COMMENT_OPEN = re.compile(r" {0,3}<!--")
_TASK = re.compile(r"^([ \t]*(?:[-*+]|[0-9]+[.)])[ \t]+)\[[xX-]\](?=[ \t]|\Z)")
_CONTRACT_JSON = re.compile(r"```[jJ][sS][oO][nN][ \t]*\r?\n([\s\S]*?)\r?\n```")
_CONTRACT_HASH = re.compile(r"sha256:[0-9a-f]{64}")
_REVIEW = re.compile(r"^[ \t]*#{1,6}[ \t]*review\b", re.IGNORECASE | re.MULTILINE)
_REPR = re.compile(r"([0-9]+)(?:\.([0-9]*))?(?:e([+-][0-9]+))?")
CONTRACT_HEADING = "## Testing Contract"
# String.prototype.trimEnd's whitespace (WhiteSpace and LineTerminator), which is not Python's str.rstrip()'s.
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
            "\u2028\u2029\u202f\u205f\u3000\ufeff"


def to_lf(text: str) -> str:
    """CRLF and lone CR to LF: v2's projectInstructionsContent."""
    return re.sub(r"\r\n?", "\n", text)


def has_review(plan: str) -> bool:
    """Whether the plan has a Review heading, whose appendix v2 would drop by a rule not reproduced here."""
    return _REVIEW.search(plan) is not None


def _fence(line: str) -> tuple[str, int] | None:
    """A fence a line opens: (marker, length); a backtick fence whose info string holds a backtick is none."""
    opening = _FENCE_OPEN.fullmatch(line)
    if opening is None or (opening.group(1)[0] == "`" and "`" in opening.group(2)):
        return None
    return opening.group(1)[0], len(opening.group(1))


def _closes(line: str, fence: tuple[str, int]) -> bool:
    closing = _FENCE_CLOSE.fullmatch(line)
    return closing is not None and set(closing.group(1)) == {fence[0]} and len(closing.group(1)) >= fence[1]


def plan_approval_content(text: str) -> str:
    """v2's projectPlanApprovalContent (for a plan without a Review heading, see `has_review`): LF line endings;
    outside fences and HTML comments, trailing spaces and tabs dropped, runs of blank lines as one, task markers
    `[x]`, `[X]`, `[-]` as `[ ]`; fenced lines verbatim; trailing blank lines dropped."""
    projected: list[str] = []
    fence: tuple[str, int] | None = None
    in_comment = previous_blank = False
    for raw in to_lf(text.removeprefix("\ufeff")).split("\n"):
        line = raw.rstrip(" \t")
        if fence is not None:
            projected.append(raw)
            previous_blank = False
            if _closes(line, fence):
                fence = None
            continue
        if in_comment:
            projected.append(line)
            previous_blank = False
            in_comment = "-->" not in line
            continue
        opening = _fence(line)
        if opening is not None:
            fence = opening
            projected.append(line)
            previous_blank = False
            continue
        if _COMMENT_OPEN.match(line) and "-->" not in line:
            in_comment = True
            projected.append(line)
            previous_blank = False
            continue
        blank = not line
        if blank and previous_blank:
            continue
        previous_blank = blank
        projected.append(_TASK.sub(r"\1[ ]", line, count=1))
    while projected and projected[-1] == "":
        projected.pop()
    return "\n".join(projected)


def _contract_section(plan: str) -> str:
    """v2's rawMarkdownSection(plan, "## Testing Contract"): the lines after the heading up to the next `## `
    line, ``` lines toggling a fence in which headings do not count."""
    body: list[str] = []
    found = in_fence = False
    for line in plan.replace("\r\n", "\n").split("\n"):
        if line.startswith("```"):
            if found:
                body.append(line)
            in_fence = not in_fence
            continue
        if not in_fence and line.rstrip(_JS_SPACE) == CONTRACT_HEADING:
            found = True
            continue
        if found and not in_fence and line.startswith("## "):
            break
        if found:
            body.append(line)
    return "\n".join(body) if found else ""


def read_testing_contract(plan: str) -> tuple[str | None, str]:
    """(the contract's `contract_sha256`, "") as v2's readTestingContract accepts it; (None, why) when v2 would not:
    no ```json block under `## Testing Contract`, not JSON, or not version 1 hashing its own body."""
    match = _CONTRACT_JSON.search(_contract_section(plan))
    if match is None:
        return None, f"no ```json block under its `{CONTRACT_HEADING}` heading"
    try:
        parsed = json.loads(match.group(1), parse_int=float, parse_constant=_not_json)
    except ValueError as exc:
        return None, f"its Testing Contract is not JSON ({exc})"
    recorded = parsed.get("contract_sha256") if isinstance(parsed, dict) else None
    version = parsed.get("version") if isinstance(parsed, dict) else None
    if isinstance(version, bool) or version != 1 or not isinstance(recorded, str) \
            or not _CONTRACT_HASH.fullmatch(recorded):
        return None, "its Testing Contract is not version 1 with a contract_sha256"
    body = {key: value for key, value in parsed.items() if key != "contract_sha256"}
    if hash_object(body) != recorded:
        return None, "its Testing Contract's contract_sha256 is not the hash of its body"
    return recorded, ""


def _not_json(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def hash_object(value: object) -> str:
    """v2's hashObject: `sha256:` and the hex SHA-256 of JSON.stringify(canonicalize(value)) in UTF-8."""
    return "sha256:" + hashlib.sha256(js_stringify(value).encode("utf-8")).hexdigest()


def js_stringify(value: object) -> str:
    """JSON.stringify(canonicalize(value)) for values read by JSON.parse (numbers as floats): keys sorted by UTF-16
    code units, except that a JavaScript object lists its array-index keys ("0", "17") first, in numeric order;
    numbers as Number#toString writes them; strings escaped as JSON.stringify escapes them."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _js_number(float(value))
    if isinstance(value, str):
        return _js_string(value)
    if isinstance(value, list):
        return "[" + ",".join(js_stringify(item) for item in value) + "]"
    assert isinstance(value, dict)
    keys = sorted(value, key=lambda key: key.encode("utf-16-be", "surrogatepass"))
    indexes = sorted((key for key in keys if _array_index(key)), key=int)
    ordered = indexes + [key for key in keys if not _array_index(key)]
    return "{" + ",".join(f"{_js_string(key)}:{js_stringify(value[key])}" for key in ordered) + "}"


def _array_index(key: str) -> bool:
    return key.isascii() and key.isdigit() and (key == "0" or not key.startswith("0")) and int(key) < 2**32 - 1


def _js_string(text: str) -> str:
    escaped = json.dumps(text, ensure_ascii=False)
    return re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", escaped)  # a lone surrogate


def _js_number(number: float) -> str:
    """Number.prototype.toString: the shortest digits that read back (repr's), laid out by ECMAScript's rule."""
    if not math.isfinite(number):
        return "null"
    if number == 0:
        return "0"
    whole, fraction, exponent = _REPR.fullmatch(repr(abs(number))).groups()  # type: ignore[union-attr]  # repr of a finite float always matches
    digits, n = whole + (fraction or ""), len(whole) + int(exponent or 0)  # value: 0.<digits> * 10**n
    stripped = digits.lstrip("0")
    n -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    k, sign = len(digits), "-" if number < 0 else ""
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    e = n - 1
    return sign + digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))


def approval_fingerprint(plan: str, instructions: str, contract: str, target: str, intent: str,
                         run_floor: str) -> str:
    """`sha256:v3:<hex>` of a plan (without a Review heading) and its unit test instructions under the Testing
    Contract hash `contract`, approved for `target` (`unit:<u>` or `stage:code-generation`) of intent `intent` at
    `run_floor`, as the PLAN_APPROVAL_RECORDED row names them."""
    content = {"plan": plan_approval_content(plan), "instructions": to_lf(instructions),
               "testing_contract": contract, "target": target, "intent": intent, "run_floor": run_floor}
    return V3 + hash_object(content).removeprefix("sha256:")
