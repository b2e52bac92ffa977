"""The project's error type: every failure a user can cause says what is wrong and where."""


class GraphNIAHError(Exception):
    """A problem with the user's input or environment, reported without a traceback by the CLI."""
