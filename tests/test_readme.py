"""The README and the reference pages under docs/ stay true: the README's two set-up commands come first, every
rule code is in the catalogue (docs/rules.md), every page is linked from the README, and every link between the
pages lands on a file and an anchor that exist."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from aidlc.ci.sarif import anchor
from aidlc.rules import every_rule
from tests.helpers import console_script

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [ROOT / "README.md", *DOCS]
FENCE = re.compile(r"^```.*?^```", flags=re.S | re.M)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def prose(text: str) -> str:
    """The page without its fenced code blocks: headings and links inside them are examples, not the page's."""
    return FENCE.sub("", text)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation but `-` and `_` dropped, spaces made `-`."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = page.read_text(encoding="utf-8")
    found = set(re.findall(r'<a id="([^"]+)"></a>', text))
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#{1,6} (.+)$", prose(text), flags=re.M):
        name = slug(heading)
        found.add(f"{name}-{seen[name]}" if name in seen else name)
        seen[name] = seen.get(name, 0) + 1
    return found


def test_readme_starts_with_the_two_setup_commands() -> None:
    blocks = re.findall(r"```bash\n(.*?)\n```", README, flags=re.S)
    assert "bash examples/demo.sh" in blocks[0]
    assert "pytest -q" in blocks[1]
    assert README.index(blocks[1]) < README.index("---")


def test_the_tours_chain_of_your_own_runs_as_written(tmp_path: Path) -> None:
    """The tour's second step, every line after its `pip install` (this environment has installed aidlc so)."""
    block = re.search(r"```bash\n(pip install -e \..*?)```", README, flags=re.S)
    assert block is not None and README.index("## A five-minute tour") < block.start()
    script = block[1].split("\n", 1)[1]
    env = {**os.environ, "PATH": f"{Path(console_script('aidlc')).parent}{os.pathsep}{os.environ['PATH']}",
           "NO_COLOR": "1"}
    env.pop("CI", None)
    ran = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, env=env, capture_output=True,
                         text=True)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "validation passed: 5 files, 0 errors, 0 warnings, 0 notes" in ran.stdout
    assert "aidlc gate approve 001-checkout --stage requirements" in ran.stdout  # the next safe action: a person's


def test_every_rule_is_in_the_catalogue_table() -> None:
    catalogue = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for code, rule in every_rule().items():
        row = f'| <a id="{anchor(code)}"></a>`{code}` | {rule.severity} |'  # the anchor SARIF's helpUri names
        assert row in catalogue, f"{code} missing from docs/rules.md's rule catalogue"


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {target.partition("#")[0] for target in LINK.findall(prose(README))}
    assert DOCS and {f"docs/{page.name}" for page in DOCS} <= linked


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_link_lands_on_a_file_and_an_anchor_that_exist(page: Path) -> None:
    for target in LINK.findall(prose(page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):
            continue  # a web address: not this repository's to check
        path, _, fragment = target.partition("#")
        landing = (page.parent / path).resolve() if path else page
        assert landing.is_relative_to(ROOT) and landing.exists(), f"{page.name}: {target} leads nowhere"
        if fragment:
            assert fragment in anchors(landing), f"{page.name}: {target} names no anchor of {landing.name}"
