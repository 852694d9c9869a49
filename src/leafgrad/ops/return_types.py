"""``leafgrad.return_types``: the (values, indices) results of max(dim), sort, topk, ...

torch returns these as structseqs: tuples with named fields that unpack, index, compare and
concatenate like tuples, and print as ``torch.return_types.max(\\nvalues=...,\\nindices=...)``.
leafgrad's print ``leafgrad.return_types.max(...)``, as its dtypes print ``leafgrad.float32``.

>>> import leafgrad as torch
>>> values, indices = torch.tensor([[1., 5.], [7., 2.]]).max(1)
>>> indices
tensor([1, 0])
"""

from __future__ import annotations

__all__ = ["max", "min", "sort", "topk", "kthvalue", "median", "nanmedian", "mode", "cummax",
           "cummin", "aminmax", "histogram", "histogramdd"]

_MODULE = "leafgrad.return_types"


class _ValuesIndices(tuple):
    """A ``(values, indices)`` pair with torch's structseq behaviour."""

    __slots__ = ()
    n_fields = 2
    n_sequence_fields = 2
    n_unnamed_fields = 0

    def __new__(cls, sequence):
        items = tuple(sequence)
        if len(items) != 2:
            raise TypeError(f"{_MODULE}.{cls.__name__} takes a 2-sequence ({len(items)}-sequence "
                            "given)")
        return super().__new__(cls, items)

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self) -> str:
        return f"{_MODULE}.{type(self).__name__}(\nvalues={self[0]!r},\nindices={self[1]!r})"

    def __reduce__(self):
        return (type(self), (tuple(self),))


def _make(name: str) -> type:
    cls = type(name, (_ValuesIndices,), {"__slots__": (), "__module__": _MODULE})
    cls.__qualname__ = name
    return cls


max = _make("max")  # noqa: A001 - torch's names
min = _make("min")  # noqa: A001
sort = _make("sort")
topk = _make("topk")
kthvalue = _make("kthvalue")
median = _make("median")
nanmedian = _make("nanmedian")
mode = _make("mode")
# what the out= forms return (torch.return_types.max_out, ...): the out tensors themselves
max_out = _make("max_out")
min_out = _make("min_out")
sort_out = _make("sort_out")
topk_out = _make("topk_out")
kthvalue_out = _make("kthvalue_out")
median_out = _make("median_out")
nanmedian_out = _make("nanmedian_out")
mode_out = _make("mode_out")
cummax = _make("cummax")
cummin = _make("cummin")
cummax_out = _make("cummax_out")
cummin_out = _make("cummin_out")


class _Pair(_ValuesIndices):
    """A structseq of two tensors whose fields are not (values, indices): aminmax's (min, max),
    histogram's (hist, bin_edges)."""

    __slots__ = ()
    fields = ("values", "indices")

    def __repr__(self) -> str:
        first, second = type(self).fields
        return f"{_MODULE}.{type(self).__name__}(\n{first}={self[0]!r},\n{second}={self[1]!r})"


def _no_such_field(name: str):
    def missing(self):
        raise AttributeError(f"'{_MODULE}.{type(self).__name__}' object has no attribute "
                             f"'{name}'")

    return property(missing)


def _make_pair(name: str, fields: tuple) -> type:
    namespace = {"__slots__": (), "__module__": _MODULE, "fields": fields,
                 "values": _no_such_field("values"), "indices": _no_such_field("indices")}
    namespace[fields[0]] = property(lambda self: self[0])
    namespace[fields[1]] = property(lambda self: self[1])
    cls = type(name, (_Pair,), namespace)
    cls.__qualname__ = name
    return cls


aminmax = _make_pair("aminmax", ("min", "max"))
aminmax_out = _make_pair("aminmax_out", ("min", "max"))
histogram = _make_pair("histogram", ("hist", "bin_edges"))
histogram_out = _make_pair("histogram_out", ("hist", "bin_edges"))
histogramdd = _make_pair("histogramdd", ("hist", "bin_edges"))
