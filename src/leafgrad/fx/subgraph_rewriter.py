"""``torch.fx.subgraph_rewriter``: placeholder until written."""


def replace_pattern(gm, pattern, replacement):
    raise NotImplementedError
