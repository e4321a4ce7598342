"""The README stays true: its two set-up commands come first and every rule code is documented."""

from __future__ import annotations

import re
from pathlib import Path

from aidlc.ci.sarif import anchor
from aidlc.rules import CATALOGUE

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def test_readme_starts_with_the_two_setup_commands() -> None:
    blocks = re.findall(r"```bash\n(.*?)\n```", README, flags=re.S)
    assert "bash examples/demo.sh" in blocks[0]
    assert "pytest -q" in blocks[1]
    assert README.index(blocks[1]) < README.index("---")


def test_every_rule_is_in_the_catalogue_table() -> None:
    for code, rule in CATALOGUE.items():
        row = f'| <a id="{anchor(code)}"></a>`{code}` | {rule.severity} |'  # the anchor SARIF's helpUri names
        assert row in README, f"{code} missing from README's rule catalogue"
