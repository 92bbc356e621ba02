"""Rendering result tables for people (text, markdown, html) and machines (json, csv):
one module per format, the metadata they share, and `render` choosing among them."""
