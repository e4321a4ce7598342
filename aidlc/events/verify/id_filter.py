"""Event ids seen before, in fixed memory. "Not seen" is certain; "maybe seen" is a candidate the second pass
confirms by finding the id on an earlier line.

A table of 2**22 marks of 32 bits (16 MiB), open addressing: an id's hash gives its slot (the low 22 bits) and its
mark (31 of the high 32 bits, never 0); the id is looked for from its slot on, through the slots taken, and put
in the first free one. Most ids read one slot (at 1,000,000 ids a quarter of the table is taken), and a wrong
"maybe" needs an id whose run of taken slots holds its own mark by chance (1 in 2**31 a slot): over 1,000,000
ids an id is compared with 0.156 taken slots on average (measured by benchmarks/id_filter.py), so one
verification of 1,000,000 events in about 13,700 meets one. Past three quarters taken (3,145,728 ids) the runs
grow long, so later ids go to a Bloom filter (`_Bloom`, 16 MiB more), where wrong "maybe"s become common beyond
some millions and the second pass runs, still in fixed memory.

An id whose run of taken slots reaches RUN_LIMIT goes to the Bloom filter too (runs only grow, so it is looked for
there again): no id costs more than RUN_LIMIT reads, even where the hash is known (PYTHONHASHSEED set) and a
ledger's author picked ids whose slots crowd together.
"""

from __future__ import annotations

import mmap

SLOT_BITS = 22  # 2**22 slots of 4 bytes
RUN_LIMIT = 64  # slots read for one id before it goes to the Bloom filter


class IdFilter:
    def __init__(self, slot_bits: int = SLOT_BITS) -> None:
        self.mask = (1 << slot_bits) - 1
        # An anonymous map, not a bytearray (which zeroes all 16 MiB first, 0.4 ms): the kernel gives each page zeroed
        # as it is first written, so verifying a small ledger touches a few pages, and the table costs no time.
        self.marks = memoryview(mmap.mmap(-1, 4 << slot_bits)).cast("I")
        self.room = (3 << slot_bits) // 4  # ids the table takes before its runs grow long
        self.slot_bits = slot_bits
        self.overflow: _Bloom | None = None  # the ids that came when the table had no room, or a long run

    def seen_before(self, event_id: bytes) -> bool:
        """Whether `event_id` may have been added before (a candidate); it is added now in any case."""
        marks, mask = self.marks, self.mask
        value = hash(event_id)
        slot, mark = value & mask, value >> 32 & 0xFFFFFFFF | 1
        held, run = marks[slot], 0
        while held:
            if held == mark:
                return True
            run += 1
            if run == RUN_LIMIT:
                break
            slot = slot + 1 & mask
            held = marks[slot]
        if self.room and not held:
            self.room -= 1
            marks[slot] = mark
            return False
        if self.overflow is None:
            self.overflow = _Bloom(self.slot_bits + 2)
        return self.overflow.seen_before(value)


class _Bloom:
    """Eight Bloom filters share one byte array: a hash picks one bit of the byte (which of the eight filters it
    is in) and four bytes (its places in that filter). So each byte probe tests one bit, at the cost of one more
    shift and mask; 16 MiB hold 2**27 bits."""

    def __init__(self, slot_bits: int) -> None:
        self.mask = (1 << slot_bits) - 1
        self.slots = bytearray(1 << slot_bits)

    def seen_before(self, value: int) -> bool:
        slots, mask = self.slots, self.mask
        # windows at 0, 12, 24 and 36 bits; the filter's bit from bits 60 to 62
        one, two, three, four = value & mask, (value >> 12) & mask, (value >> 24) & mask, (value >> 36) & mask
        bit = 1 << ((value >> 60) & 7)
        if slots[one] & slots[two] & slots[three] & slots[four] & bit:
            return True
        slots[one] |= bit
        slots[two] |= bit
        slots[three] |= bit
        slots[four] |= bit
        return False
