"""Small, measured speed-ups shared by the bulk readers."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while a bank is loaded or checked.

    Loading 10,000 stories creates about a million long-lived objects; the collector would
    walk them again and again as they accumulate (about 12% of `aidlc validate` on the
    10,000-story benchmark) while finding nothing to free.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            # Enabling alone would make the next allocation walk every object made meanwhile.
            # freeze() + unfreeze() hands them to the oldest generation, as if they had survived
            # collections, and resets the young count; cyclic garbage among them is still freed by
            # the next full collection. (Not where the host program froze objects of its own.)
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()
