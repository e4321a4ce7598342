"""Renderers: turn domain results into text for people or JSON for machines."""
