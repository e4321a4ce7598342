"""`aidlc ci`: the checks a pull request cannot merge without, and the outputs CI systems read."""
