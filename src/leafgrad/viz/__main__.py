"""``python -m leafgrad.viz script.py [-o graph.html] [-- args ...]``: run a script, draw its graph.

The page shows the graph of the last backward the script ran, with that backward's replay
(``autograd.trace``) and the nodes grouped by the ``nn.Module`` calls that made them
(``record_scopes``). Tensors are named after the variables of the code that called backward.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import traceback


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m leafgrad.viz",
        description="Run a script and write a page with the graph of the last backward it ran.",
    )
    parser.add_argument("script", help="the Python script to run")
    parser.add_argument("-o", "--output", default="graph.html",
                        help="the page to write (.html; .svg, .dot and .json work too)")
    parser.add_argument("--max-nodes", type=int, default=2000,
                        help="how many nodes to describe at most (default 2000)")
    # the script's own arguments: whatever this parser does not know (or all after "--")
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1:]
    options, unknown = parser.parse_known_args(argv)
    options.args = unknown + extra

    from ..autograd.trace import trace
    from ._scopes import record_scopes

    script = os.path.abspath(options.script)
    if not os.path.isfile(script):
        print(f"python -m leafgrad.viz: no such script: {options.script}", file=sys.stderr)
        return 2
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [script, *options.args]
    sys.path.insert(0, os.path.dirname(script))
    failed = False
    namespace = {}
    with record_scopes(), trace(keep_last=True) as recorded:
        try:
            namespace = runpy.run_path(script, run_name="__main__")
        except SystemExit as stop:
            failed = stop.code not in (None, 0)
        except BaseException:  # the script's own error: report it, still draw what ran
            traceback.print_exc()
            failed = True
        finally:
            sys.argv = saved_argv
            sys.path[:] = saved_path
    if not recorded.runs:
        print(f"python -m leafgrad.viz: {options.script} ran no backward; nothing to draw",
              file=sys.stderr)
        return 1
    from ._names import names_in

    recorded._names = names_in([namespace])
    view = recorded.view(max_nodes=options.max_nodes)
    path = view.save(options.output)
    stats = view.to_dict()["stats"]
    events = len(recorded.events)
    print(f"wrote {path}: the last backward of {options.script} "
          f"({stats['nodes_in_graph']:,} graph nodes, {events:,} backward events)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
