"""The gate ledger: append-only, hash-chained, branch-safe (docs/design.md, The ledger)."""
