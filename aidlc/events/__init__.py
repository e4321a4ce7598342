"""The gate ledger: append-only, hash-chained, branch-safe (DESIGN section 3)."""
