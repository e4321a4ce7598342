"""Pydantic models: the single definition of every file format aidlc reads or writes."""
