"""aidlc: AI-DLC delivery governance for any Git repo."""

__version__ = "0.1.0"
