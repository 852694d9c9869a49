"""A guided tour of every example in the seed autograd tutorials, with explanations.

    python demo/seeds_tour.py [--backend leafgrad|torch] [--section N] [--list]

Each example is run statement by statement in its own namespace, REPL style: the source is
echoed (``>>> y = x * x``), then whatever it prints. Errors an example triggers on purpose are
shown as ``TypeName: first line of the message``; warnings as ``[UserWarning] first sentence``.
The default backend is leafgrad (``import leafgrad as torch``); ``--backend torch`` runs the
very same code with PyTorch, so the two outputs can be compared line by line.

Exit status: 0 when every example behaved as written (each raised exactly the errors it is
meant to), 1 otherwise, 2 when the backend cannot be imported.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
import textwrap
import warnings

from tour_graph import SECTIONS as GRAPH_SECTIONS
from tour_grads import SECTIONS as GRADS_SECTIONS
from tour_practice import SECTIONS as PRACTICE_SECTIONS
from tour_types import Example, Section

SECTIONS: tuple[Section, ...] = GRAPH_SECTIONS + GRADS_SECTIONS + PRACTICE_SECTIONS
WIDTH = 78
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_backend(name: str):
    """Import the module the examples will know as ``torch``."""
    if name == "torch":
        import torch

        return torch
    try:
        import leafgrad
    except ImportError:
        # A fresh clone that was not pip-installed: use the source tree next to this file.
        sys.path.insert(0, os.path.join(REPO, "src"))
        import leafgrad
    return leafgrad


def statements(code: str) -> list[str]:
    """Split ``code`` into top-level statements (with their comments) and standalone comments.

    Each returned chunk is complete source that compiles on its own, so it can be echoed and
    run one at a time the way an interactive session would.
    """
    lines = code.splitlines()
    chunks: list[str] = []
    next_line = 0  # 0-based index of the first line not yet emitted
    for node in ast.parse(code).body:
        start, end = node.lineno - 1, node.end_lineno
        for line in lines[next_line:start]:  # comments and blank lines before the statement
            if line.strip():
                chunks.append(line.strip())
        chunks.append("\n".join(lines[start:end]))
        next_line = end
    for line in lines[next_line:]:
        if line.strip():
            chunks.append(line.strip())
    return chunks


def first_line(message: str) -> str:
    """The first line of an error message, the part the seed cases print."""
    lines = message.strip().splitlines()
    return lines[0] if lines else ""


def first_sentence(message: str) -> str:
    """The first sentence of a warning: enough to say what it is about, stable across versions."""
    text = first_line(message)
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def run_example(example: Example, backend, echo: bool = True) -> int:
    """Run ``example`` statement by statement in a fresh namespace; return the errors raised.

    With ``echo`` off, only what the example itself prints and its error lines are written,
    which is the output of the corresponding standalone seed case.
    """
    namespace = {"__name__": "__tour__", "torch": backend}
    errors = 0
    for chunk in statements(example.code):
        if echo:
            for i, line in enumerate(chunk.splitlines()):
                print((">>> " if i == 0 else "... ") + line)
        if chunk.startswith("#"):
            continue
        code = compile(chunk, "<tour example>", "exec")
        with warnings.catch_warnings(record=True) as caught:
            # "always": a warning raised by the same line of an earlier example is still shown.
            warnings.simplefilter("always")
            try:
                exec(code, namespace)
            except Exception as exc:  # the example meant it, or the run is reported as failed
                errors += 1
                print(f"{type(exc).__name__}: {first_line(str(exc))}")
        sys.stdout.flush()
        if echo:
            shown = []
            for warning in caught:
                text = f"[{warning.category.__name__}] {first_sentence(str(warning.message))}"
                if text not in shown:  # one line per distinct warning and statement
                    shown.append(text)
                    print(text)
    return errors


def case_label(cases: tuple[int, ...]) -> str:
    """The tag after an example's title: which seed cases it reproduces."""
    if not cases:
        return "[extra]"
    word = "case" if len(cases) == 1 else "cases"
    return f"[seed {word} {', '.join(str(c) for c in cases)}]"


def paragraph(text: str, prefix: str = "") -> str:
    """Wrap prose for a terminal, keeping blank-line paragraph breaks."""
    blocks = [" ".join(block.split()) for block in textwrap.dedent(text).strip().split("\n\n")]
    return "\n\n".join(
        textwrap.fill(block, WIDTH, initial_indent=prefix, subsequent_indent=" " * len(prefix))
        for block in blocks
    )


def print_section(number: int, section: Section, backend) -> list[str]:
    """Print one section and run its examples; return a description of each misbehaving one."""
    problems = []
    print("=" * WIDTH)
    print(f" {number}. {section.title}")
    print("=" * WIDTH)
    print(paragraph(section.intro))
    for index, example in enumerate(section.examples, start=1):
        tag = case_label(example.cases)
        heading = f"--- {number}.{index}  {example.title} "
        print()
        print(heading + "-" * max(3, WIDTH - len(heading) - len(tag) - 1) + " " + tag)
        print(paragraph(example.explain))
        print()
        errors = run_example(example, backend)
        if example.note:
            print()
            print(paragraph(example.note, prefix="=> "))
        if errors != example.errors:
            problems.append(
                f"example {number}.{index} {tag}: {errors} error(s) raised, "
                f"{example.errors} expected"
            )
    print()
    return problems


def banner(backend_name: str, backend) -> None:
    """The tour's opening lines; the first names the backend (tests check and then drop it)."""
    if backend_name == "torch":
        print(f"Backend: import torch  ({backend.__name__} {backend.__version__})")
    else:
        print(f"Backend: import leafgrad as torch  ({backend.__name__} {backend.__version__})")
    print()
    print(
        paragraph(
            """
            A tour of PyTorch autograd through the examples of five tutorials on computational
            graphs. Every example runs in a fresh namespace where `torch` is already the chosen
            backend. Source lines are echoed with >>> (and ... for the body of a block),
            followed by what they print. An error that an example provokes on purpose is shown
            as `TypeName: first line of the message`, a warning as `[Category] first
            sentence`. Tags such as [seed case 7] give the number (1 to 52) of the tutorial
            example being reproduced; [extra] examples are additions of this tour.
            """
        )
    )
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--backend",
        choices=["leafgrad", "torch"],
        default="leafgrad",
        help="module the examples get as `torch` (default: leafgrad)",
    )
    parser.add_argument(
        "--section", type=int, metavar="N", help=f"run only section N (1..{len(SECTIONS)})"
    )
    parser.add_argument("--list", action="store_true", help="list the sections and exit")
    args = parser.parse_args(argv)

    if args.list:
        for number, section in enumerate(SECTIONS, start=1):
            print(f"{number:2d}. {section.title}  ({len(section.examples)} examples)")
        return 0
    if args.section is not None and not 1 <= args.section <= len(SECTIONS):
        parser.error(f"--section must be between 1 and {len(SECTIONS)}")
    try:
        backend = load_backend(args.backend)
    except ImportError as exc:
        print(f"cannot import the {args.backend} backend: {exc}", file=sys.stderr)
        return 2

    banner(args.backend, backend)
    problems = []
    chosen = [args.section] if args.section else range(1, len(SECTIONS) + 1)
    for number in chosen:
        problems += print_section(number, SECTIONS[number - 1], backend)

    examples = [ex for n in chosen for ex in SECTIONS[n - 1].examples]
    cases = sorted({case for ex in examples for case in ex.cases})
    print("=" * WIDTH)
    print(f"Ran {len(examples)} examples covering {len(cases)} seed cases.")
    for problem in problems:
        print("PROBLEM: " + problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
