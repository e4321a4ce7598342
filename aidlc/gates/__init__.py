"""Human checkpoints: the gate catalogue, who may decide, and what a decision changes."""
