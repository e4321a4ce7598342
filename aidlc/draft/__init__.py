"""`aidlc draft`: the model proposes the next level of an intent; a person approves it at the gate."""
