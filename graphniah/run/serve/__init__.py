"""Local OpenAI-compatible servers for ``graphniah serve`` and the demo: the keyless baselines (``baseline``) and a real small model (``llamacpp``)."""
