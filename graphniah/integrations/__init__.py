"""Bridges to other evaluation harnesses (``inspect``: the inspect_ai task; needs ``pip install graphniah[inspect]``)."""
