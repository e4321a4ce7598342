"""aidlc: AI-DLC delivery governance for any Git repo."""

__version__ = "0.1.0"
# Where aidlc is published: SARIF rules link to their row of the README's rule catalogue there (aidlc/ci/sarif.py).
REPOSITORY = "https://github.com/OWNER/aidlc"
