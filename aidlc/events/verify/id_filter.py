"""Event ids seen before, in fixed memory: a Bloom filter. "Not seen" is certain; "maybe seen" is a candidate the
second pass confirms by finding the id on an earlier line.

Eight filters share one byte array: an id's hash picks one bit of the byte (which of the eight filters it is in)
and four bytes (its places in that filter). So each byte probe tests one bit, at the cost of one more shift and
mask, and 16 MiB hold 2**27 bits. At 1,000,000 ids a wrong "maybe" is expected about once in seven
verifications (a second pass then confirms nothing); at 100,000 almost never; beyond some millions they become
common and the second pass runs, still in fixed memory.
"""

from __future__ import annotations

SLOT_BITS = 24  # 2**24 bytes (16 MiB); each probe takes a 24-bit window of the id's 64-bit hash


class IdFilter:
    def __init__(self, slot_bits: int = SLOT_BITS) -> None:
        self.mask = (1 << slot_bits) - 1
        self.slots = bytearray(1 << slot_bits)

    def seen_before(self, event_id: bytes) -> bool:
        """Whether `event_id` may have been added before (a candidate); it is added now in any case."""
        slots, mask = self.slots, self.mask
        value = hash(event_id)  # windows at 0, 12, 24 and 36 bits; the filter's bit from bits 60 to 62
        one, two, three, four = value & mask, (value >> 12) & mask, (value >> 24) & mask, (value >> 36) & mask
        bit = 1 << ((value >> 60) & 7)
        if slots[one] & slots[two] & slots[three] & slots[four] & bit:
            return True
        slots[one] |= bit
        slots[two] |= bit
        slots[three] |= bit
        slots[four] |= bit
        return False
