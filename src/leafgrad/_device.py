"""``device``: leafgrad runs on the CPU only; the class exists so torch code that names it runs."""

from __future__ import annotations

__all__ = ["device", "CPU"]


class device:
    """``leafgrad.device('cpu')``; any other device type is refused with torch's error shape."""

    __slots__ = ("type", "index")

    def __init__(self, type="cpu", index=None):  # noqa: A002 - torch's parameter name
        if isinstance(type, device):
            type, index = type.type, type.index
        text = str(type)
        if ":" in text:
            text, _, number = text.partition(":")
            index = int(number)
        if text != "cpu":
            raise RuntimeError(
                f"leafgrad runs on the CPU only; device '{type}' is not available"
            )
        self.type = "cpu"
        self.index = index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


CPU = device("cpu")
