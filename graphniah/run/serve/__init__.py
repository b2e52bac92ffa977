"""Local OpenAI-compatible servers for ``graphniah serve`` and the demo: the keyless policies oracle, random and always-NO (``policies``) and a real small model (``llamacpp``)."""
