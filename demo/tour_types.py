"""The two record types the seeds tour is written in: a Section holds Examples.

Content lives in tour_graph.py, tour_grads.py and tour_practice.py; seeds_tour.py runs it.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Example:
    """One runnable example of the tour.

    ``cases`` lists the seed conformance cases (1..52) whose program this example is; an empty
    tuple marks an extra example that no seed tutorial contains. ``code`` never imports torch:
    the runner puts the chosen backend into the namespace under the name ``torch``.
    ``errors`` is how many statements of ``code`` are meant to raise; the runner checks it.
    """

    cases: tuple[int, ...]
    title: str
    explain: str
    code: str
    note: str = ""
    errors: int = 0

    def __post_init__(self) -> None:
        # Content is written as indented triple-quoted strings; store it flush left.
        object.__setattr__(self, "code", textwrap.dedent(self.code).strip("\n") + "\n")


@dataclass(frozen=True)
class Section:
    """A topic of the tour: a title, a short introduction and its examples in teaching order."""

    title: str
    intro: str
    examples: tuple[Example, ...] = field(default_factory=tuple)
