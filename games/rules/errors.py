"""The engine's one error type. Codes are stable identifiers; people read
them translated, at the edge (``games/present/messages.py``)."""


class GameError(Exception):
    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code
