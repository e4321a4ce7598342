"""The stages of AWS aidlc-workflows (`aidlc-rules/aws-aidlc-rules/core-workflow.md`), as one slug each, and the
labels repositories write them under: the rules' headings and their variants, and the same names in Korean,
Chinese, Japanese and Portuguese as agents translate them (`NFR要件`, `NFR설계`: NFR with no space before the
word). A label no table knows is reported, never guessed.

The order is the one the rules document (inception, then per unit the design stages before code generation, then
build and test); the rules also say stages run "in the order that makes sense", so an inversion is a warning.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from aidlc.aidlc_docs.readings import Readings


@dataclass(frozen=True)
class Stage:
    slug: str
    phase: str  # inception | construction | operations
    per_unit: bool
    approval: bool  # the rules make the agent wait for a person's explicit approval after it
    plan: str | None  # the plan file's stage part (`{unit}-<plan>-plan.md`), when it has one
    labels: tuple[str, ...]  # lower case; the English rule heading first

    @property
    def name(self) -> str:
        """The English rule heading: `NFR Requirements`, `Build and Test`."""
        return " ".join(word.upper() if word == "nfr" else word if word == "and" else word.capitalize()
                        for word in self.labels[0].split())


STAGES: tuple[Stage, ...] = (
    Stage("workspace-detection", "inception", False, False, None,
          ("workspace detection", "워크스페이스 탐지", "워크스페이스 감지", "工作区检测", "工作空间检测",
           "ワークスペース検出", "detecção do espaço de trabalho", "detecção de workspace")),
    Stage("reverse-engineering", "inception", False, True, None,
          ("reverse engineering", "리버스 엔지니어링", "역공학", "逆向工程", "リバースエンジニアリング",
           "engenharia reversa")),
    Stage("requirements-analysis", "inception", False, True, None,
          ("requirements analysis", "requirement analysis", "requirements assessment", "요구사항 분석", "需求分析",
           "要件分析", "要件定義", "análise de requisitos",
           # its approval's heading may name it so (`### Requirements Approval: 2026-02-09T13:15:21+09:00`,
           # Supplier-Onboarding's `Requirements Approved and User Stories Planning Started`)
           "requirements approval", "requirements approved", "요구사항 승인")),
    Stage("user-stories", "inception", False, True, "story-generation",
          ("user stories", "user story", "사용자 스토리", "유저 스토리", "用户故事", "ユーザーストーリー",
           "histórias de usuário", "histórias de utilizador")),
    Stage("workflow-planning", "inception", False, True, "execution",
          ("workflow planning", "workflow plan", "execution plan", "워크플로 계획", "워크플로우 계획", "工作流规划",
           "工作流程规划", "ワークフロー計画", "ワークフロープランニング", "planejamento do fluxo de trabalho",
           "planejamento de workflow")),
    Stage("application-design", "inception", False, True, "application-design",
          ("application design", "애플리케이션 설계", "应用设计", "应用程序设计", "アプリケーション設計",
           "design da aplicação", "design de aplicação")),
    Stage("units-generation", "inception", False, True, "unit-of-work",
          ("units generation", "units planning", "unit generation", "유닛 생성", "단위 생성", "单元生成",
           "ユニット生成", "geração de unidades")),
    Stage("functional-design", "construction", True, True, "functional-design",
          ("functional design", "기능 설계", "功能设计", "機能設計", "design funcional", "fd")),
    Stage("nfr-requirements", "construction", True, True, "nfr-requirements",
          ("nfr requirements", "nfr assessment", "nfr req", "nfr 요구사항", "nfr요구사항", "비기능 요구사항",
           "非功能需求", "非功能性需求", "nfr 需求", "nfr需求", "非機能要件", "nfr要件", "requisitos não funcionais",
           "requisitos nfr")),
    Stage("nfr-design", "construction", True, True, "nfr-design",
          ("nfr design", "nfr 설계", "nfr설계", "비기능 설계", "非功能设计", "非功能性设计", "nfr 设计", "nfr设计",
           "非機能設計", "nfr設計", "design de nfr", "design nfr")),
    Stage("infrastructure-design", "construction", True, True, "infrastructure-design",
          ("infrastructure design", "infra design", "인프라 설계", "인프라스트럭처 설계", "基础设施设计",
           "インフラ設計", "インフラストラクチャ設計", "design de infraestrutura")),
    Stage("code-generation", "construction", True, True, "code-generation",
          ("code generation", "code gen", "코드 생성", "代码生成", "コード生成", "geração de código")),
    Stage("build-and-test", "construction", False, True, None,
          ("build and test", "build & test", "build&test", "build-and-test", "빌드 및 테스트", "빌드 & 테스트",
           "빌드와 테스트", "构建和测试", "构建与测试", "ビルドとテスト", "ビルド&テスト", "ビルド＆テスト",
           "build e teste", "construção e teste")),
    Stage("operations", "operations", False, False, None,
          ("operations", "운영", "运维", "運用", "オペレーションズ", "operações")),
)
BY_SLUG = {stage.slug: stage for stage in STAGES}
ORDER = {stage.slug: number for number, stage in enumerate(STAGES)}
# Every label, longest first, so "nfr requirements" wins over a shorter label inside it.
_LABELS = sorted(((label, stage.slug) for stage in STAGES for label in stage.labels), key=lambda p: -len(p[0]))
# A short form is a word of its own: `NFR Req` names NFR Requirements, `no NFR required` does not.
_SHORT_FORMS = frozenset({"nfr req", "code gen"})  # `Code Gen Plan Approved`, not `code generator`
# A character that shows nothing (zero-width, a bidirectional control, a soft hyphen: Unicode's format characters),
# read as NUL, which a label may hold between any two of its letters: `Bu<U+200B>ild and Test` is Build and Test.
_UNSEEN = "\x00"
# An initialism is a word of its own in capitals (SimbaFlow's `Unit 7 FD Approved; NFR Requirements Ready`), never a
# file descriptor's `fd`.
_INITIALISMS = frozenset({"fd"})


def _pattern(label: str) -> str:
    """The pattern a label is found by: its letters with any unseen characters between them."""
    if label in _INITIALISMS:
        return rf"(?<![A-Za-z])(?-i:{label.upper()})(?![A-Za-z])"
    return f"{_UNSEEN}*".join(map(re.escape, label)) + (r"(?![a-z])" if label in _SHORT_FORMS else "")


def _letters(at: int) -> str:
    return re.escape("".join(sorted({label[at] for label, _ in _LABELS})))


# Every label has two letters or more: the lookahead names what any label's first two letters may be, so that the
# search skips most places at once rather than trying each of a hundred labels there (a pasted test run of 30,000
# lines is read four times faster; what matches is the same).
_LABEL = re.compile(f"(?=[{_letters(0)}]{_UNSEEN}*[{_letters(1)}])(?:"
                    + "|".join(_pattern(label) for label, _ in _LABELS) + ")", re.IGNORECASE)
_SLUG_OF = {label: slug for label, slug in _LABELS}
_TABLED = {label: label for label in _SLUG_OF}


def _slug(match: re.Match[str]) -> str:
    return _SLUG_OF[match.group().replace(_UNSEEN, "").lower()]


class _ReadAs(dict[int, int]):
    """Each character read as the letter it looks like, one for one (offsets agree): `_`, the Cyrillic and Greek
    capitals and small letters that look Latin, and any character that Unicode's compatibility form writes as one
    ASCII character (fullwidth `Ｂ`, mathematical `𝐁`, other spaces); a character that shows nothing as _UNSEEN.
    `- [x] Вuild and Test` (a Cyrillic В) is the Build and Test a reader sees, not a line naming no stage, whose tick
    no rule would judge. Filled as characters are met, so `str.translate` stays one pass in C for text already
    seen."""

    def __missing__(self, code: int) -> int:
        if unicodedata.category(chr(code)) == "Cf":
            self[code] = ord(_UNSEEN)
            return self[code]
        folded = unicodedata.normalize("NFKC", chr(code))
        self[code] = ord(folded) if len(folded) == 1 and folded.isascii() else code
        return self[code]


# Turkish's dotless ı and dotted İ too: `re`'s case-blind match reads them as i, and a label found so must be one
# the tables hold (`Buıld and Test` stopped validate with a traceback).
_READ_AS = _ReadAs(str.maketrans("_АВЕКМНОРСТХаеорсухіјѕΑΒΕΖΗΙΚΜΝΟΡΤΥΧοιıİ",
                                 " ABEKMHOPCTXaeopcyxijsABEZHIKMNOPTYXoiiI"))


def _plain(text: str) -> str:
    return text.translate(_READ_AS)


@dataclass(frozen=True)
class _Read:
    labels: tuple[tuple[int, int, str], ...]  # each label named: start, end, label as the tables write it
    named: tuple[str, ...]  # the slugs of stages_named


def _read_afresh(text: str) -> _Read:
    plain = _plain(text)
    # Each label as the tables' own string: a text of a million labels keeps no million copies of their names.
    labels = tuple((match.start(), match.end(), _TABLED[match.group().replace(_UNSEEN, "").lower()])
                   for match in _LABEL.finditer(plain))
    named = []
    for start, end, label in labels:
        named += _sharing(plain[max(0, start - _NEAR):start], label)
        named.append(_SLUG_OF[label])
        named += _shared_after(plain[end:end + _NEAR], label)
    return _Read(labels, tuple(dict.fromkeys(named)))


_read = Readings(_read_afresh, budget=4_000_000)


def stage_of(text: str) -> str | None:
    """The slug of the first stage label `text` names (case ignored), or None: never a guess."""
    labels = _read(text).labels
    return _SLUG_OF[labels[0][2]] if labels else None


def stage_at(text: str) -> str | None:
    """The slug of the stage label `text` starts with (case ignored), or None."""
    match = _LABEL.match(_plain(text))
    return _slug(match) if match else None


def stages_named(text: str) -> list[str]:
    """The slugs of every stage label `text` names, in the order it names them, each once; a label's last word
    shared over a slash counts for each word before it (`NFR/Infrastructure Design`: NFR Design and
    Infrastructure Design)."""
    return list(_read(text).named)


# How far before or after a label the words it shares over slashes are read: a few words (the whole text, copied for
# each of a hostile run of labels, took minutes).
_NEAR = 200


_BEFORE_SLASH = re.compile(r"([^\s/]+)[ \t]*/[ \t]*$")
_AFTER_SLASH = re.compile(r"[ \t]*/[ \t]*([^\W\d]+)(?![^\s/+,;)])")


def _shared_after(after: str, label: str) -> list[str]:
    """The stages single words after a label and a slash name with the label's first word or the last word of the
    stage before them (agnecom's `NFR Req/Design/Infra`: NFR Design, then Infra Design; `NFR Requirements/Design/
    Infrastructure` likewise); none for a label of one word."""
    first, space, noun = label.partition(" ")
    noun = noun.rpartition(" ")[2]
    found: list[str] = []
    while space and (word := _AFTER_SLASH.match(after)) is not None and not _LABEL.match(after, word.start(1)):
        named = word.group(1).lower()
        if f"{first} {named}" in _SLUG_OF:  # `NFR Req/Design`: NFR Design, whose noun the next may share
            found.append(_SLUG_OF[f"{first} {named}"])
            noun = named
        elif f"{named} {noun}" in _SLUG_OF:
            found.append(_SLUG_OF[f"{named} {noun}"])
        else:
            break
        after = after[word.end():]
    return found


def _sharing(before: str, label: str) -> list[str]:
    """The stages the words and slashes just `before` a label name with its last word (`NFR/` before `Infrastructure
    Design`: NFR Design), nearest last; none for a label of one word."""
    _, space, noun = label.rpartition(" ")
    found: list[str] = []
    # A slash at the end first: searching each window for a pattern anchored at its end tries every start in it.
    while space and before.rstrip(" \t").endswith("/") and (word := _BEFORE_SLASH.search(before)) is not None:
        slug = _SLUG_OF.get(f"{word.group(1).lower()} {noun}")
        if slug is None:
            break
        found.insert(0, slug)
        before = before[:word.start()]
    return found


def stages_followed_by(text: str, after: re.Pattern[str]) -> list[str]:
    """The slugs of the stage labels `text` names that `after` matches right after (`User Stories Request`)."""
    return [_SLUG_OF[label] for _, end, label in _read(text).labels if after.match(text, end)]


def without_stage_names(text: str) -> str:
    """`text` with each stage label it names (`Code_Generation` too, as stage_of reads it) blanked out; the rest,
    and every offset, as it was."""
    pieces, at = [], 0
    for start, end, _ in _read(text).labels:  # one character for one: offsets agree
        pieces += [text[at:start], " " * (end - start)]
        at = end
    return "".join(pieces) + text[at:]


def label_starts(text: str) -> dict[int, str]:
    """Where each stage label `text` names starts, and its slug (`stage_at` at every place at once)."""
    return {start: _SLUG_OF[label] for start, _, label in _read(text).labels}


def plan_stage(name: str) -> tuple[str | None, str | None]:
    """(stage slug, unit) a plan file's name says: `unit1-backend-functional-design-plan.md` is the functional
    design of `unit1-backend`, `execution-plan.md` the workflow planning, `unit-1-tdd-code-generation-plan.md` (the
    rules' TDD variant) the code generation of `unit-1`; a stage part before `-plan` only."""
    stem = name.removesuffix(".md")
    for stage in sorted(STAGES, key=lambda s: -len(s.plan or "")):
        if stage.plan is None:
            continue
        at = stem.find(stage.plan)
        if at == -1 or "plan" not in stem[at + len(stage.plan):]:
            continue
        unit = re.sub(r"(?:^|[-_])tdd$", "", stem[:at].rstrip("-_ "), flags=re.IGNORECASE) or None  # the TDD variant
        return stage.slug, unit if stage.per_unit else None
    return None, None


def title(slug: str) -> str:
    """The stage's heading as the rules write it: `nfr-design` -> NFR Design, `build-and-test` -> Build and Test."""
    words = BY_SLUG[slug].labels[0].split()
    return " ".join(word.upper() if word == "nfr" else word if word == "and" else word.capitalize() for word in words)
