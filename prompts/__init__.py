"""Prompt templates, shipped as package data (see graphniah.resources)."""
