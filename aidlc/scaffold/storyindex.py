"""memory-bank/story-index.md, regenerated from the story files."""

from __future__ import annotations

import os
from pathlib import Path

from aidlc.bank.index import BankIndex
from aidlc.bank.items import MemoryBank
from aidlc.templating import render

STORY_INDEX = "story-index.md"


def render_story_index(bank: MemoryBank) -> str:
    index = BankIndex(bank)
    intents = []
    for intent in bank.intents:
        rows = []
        for unit in intent.units:
            for story in unit.stories:
                meta = story.meta
                rows.append({
                    "unit": unit.id,
                    "story": story.id,
                    "link": os.path.relpath(Path(bank.repo_root) / story.rel, Path(bank.repo_root) / bank.rel_root)
                    .replace(os.sep, "/"),
                    "status": (meta.status if meta and meta.status else "?"),
                    "priority": (meta.priority if meta and meta.priority else "—"),
                    "bolt": next((b.id for b in index.bolts_of(story)), None)
                    or (meta.assigned_bolt if meta and meta.assigned_bolt else "—"),
                })
        intents.append({"id": intent.id, "rows": rows})
    return render("scaffold/memory-bank/story-index.md.j2", intents=intents)
