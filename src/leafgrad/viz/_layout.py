"""leafgrad's own layered layout (no graphviz program): data flows down, leaves on top.

The classic four steps, each without recursion:

1. layers: a node sits one layer above its highest consumer (longest path from the sinks),
   so a leaf sits right above the op that reads it; a sink with producers sits right below
   them (a retained tensor beside its op, not at the bottom);
2. edges longer than one layer get a chain of small virtual nodes;
3. order within layers: first as discovered walking up from the sinks in input order (input 0
   on the left, as ``next_functions`` lists it), then barycenter sweeps, keeping the order with
   the fewest crossings (counted exactly with a Fenwick tree);
4. x positions: each node is pulled to the mean of its neighbours' positions, and the closest
   positions that keep nodes apart are found exactly (isotonic regression by pool-adjacent-
   violators), sweeping down and up a few times.

Open groups (module scopes) stay together: their members are kept contiguous in every layer,
and sibling groups are then moved apart as blocks so the outlines drawn around them do not
overlap.

``page.js`` carries a line-for-line port of this file so that the page can lay out a graph again
when a group is expanded; the browser test checks both give the same coordinates.
"""

from __future__ import annotations

__all__ = ["layout", "node_size", "CHAR_WIDTH", "LINE_HEIGHT"]

CHAR_WIDTH = 7.2  # 12px monospace: 0.6em per character
LINE_HEIGHT = 15.0
PAD_X = 10.0
PAD_Y = 6.0
GAP_X = 18.0  # between neighbours in a layer
CLUSTER_GAP = 30.0  # more between neighbours in different groups (room for their boxes)
BLOCK_GAP = 46.0  # between the outlines of sibling groups side by side
GAP_Y = 44.0  # between layers
DUMMY_WIDTH = 6.0
MAX_LABEL_CHARS = 46
SWEEPS = 6
MARGIN = 16.0


def node_size(lines: list) -> tuple[float, float]:
    """The box a label needs (the same estimate as page.js, so both layouts agree)."""
    longest = 0
    for line in lines:
        longest = max(longest, min(len(line), MAX_LABEL_CHARS))
    width = max(longest * CHAR_WIDTH + 2 * PAD_X, 40.0)
    height = len(lines) * LINE_HEIGHT + 2 * PAD_Y
    return width, height


def layout(nodes: list, edges: list) -> dict:
    """``nodes``: ``[{"id", "w", "h", "cluster"}]``; ``edges``: ``[{"from", "to", "input"}]``
    (data flow). ``cluster`` (optional) lists the open groups around a node, outermost first:
    the members of a group are kept next to each other in every layer.

    Returns ``{"nodes": {id: {"x", "y", "w", "h"}}, "edges": [[[x, y], ...], ...], "width",
    "height"}``; ``x, y`` are box centres, edge routes are listed in the order of ``edges``.
    """
    count = len(nodes)
    ids = [node["id"] for node in nodes]
    position_of = {}
    for i in range(count):
        position_of[ids[i]] = i
    width = [float(node["w"]) for node in nodes]
    cluster = [list(node.get("cluster") or ()) for node in nodes]
    height = [float(node["h"]) for node in nodes]
    succ = [[] for _ in range(count)]
    pred = [[] for _ in range(count)]
    edge_pairs = []
    first_input = {}
    for edge in edges:
        a = position_of.get(edge["from"])
        b = position_of.get(edge["to"])
        if a is None or b is None or a == b:
            edge_pairs.append(None)
            continue
        edge_pairs.append((a, b))
        number = edge.get("input", 0)
        if b not in succ[a]:
            succ[a].append(b)
            pred[b].append(a)
            first_input[(a, b)] = number
        elif number < first_input[(a, b)]:
            first_input[(a, b)] = number

    layer = _layers(count, succ, pred)

    # -- virtual nodes for long edges ------------------------------------------------------
    total = count
    v_layer = list(layer)
    v_width = list(width)
    v_height = list(height)
    v_succ = [list(s) for s in succ]
    v_pred = [list(p) for p in pred]
    chains = {}  # (a, b) -> [a, d1, d2, ..., b]
    for a in range(count):
        for b in succ[a]:
            span = layer[b] - layer[a]
            if span <= 1:
                chains[(a, b)] = [a, b]
                continue
            chain = [a]
            v_succ[a].remove(b)
            v_pred[b].remove(a)
            previous = a
            for step in range(1, span):
                d = total
                total += 1
                v_layer.append(layer[a] + step)
                v_width.append(DUMMY_WIDTH)
                v_height.append(0.0)
                v_succ.append([])
                v_pred.append([previous])
                v_succ[previous].append(d)
                chain.append(d)
                previous = d
            v_succ[previous].append(b)
            v_pred[b].append(previous)
            chain.append(b)
            chains[(a, b)] = chain

    # Where each edge enters its target, as a fraction of the box width from its centre
    # (inputs left to right): ordering by it keeps input 0 on the left and counts the
    # crossings the drawing will show.
    port_of = {}
    for b in range(count):
        producers = sorted(pred[b], key=lambda a: (first_input[(a, b)], a))
        k = len(producers)
        for rank in range(k):
            a = producers[rank]
            chain = chains[(a, b)]
            port_of[(chain[-2], b)] = (rank + 1) / (k + 1) - 0.5
    layer_count = 0
    for i in range(total):
        if v_layer[i] + 1 > layer_count:
            layer_count = v_layer[i] + 1
    rows = _initial_order(total, v_layer, v_succ, v_pred, layer_count)
    v_cluster = cluster + [[] for _ in range(total - count)]
    rows = _reduce_crossings(rows, v_succ, v_pred, port_of, v_cluster)

    x = _place(rows, v_width, v_succ, v_pred, v_cluster)
    _separate_clusters(rows, x, v_width, v_cluster)

    # -- y by layer --------------------------------------------------------------------------
    y = [0.0] * total
    top = MARGIN
    for row in rows:
        tallest = 0.0
        for i in row:
            if v_height[i] > tallest:
                tallest = v_height[i]
        for i in row:
            y[i] = top + tallest / 2.0
        top += tallest + GAP_Y
    graph_height = top - GAP_Y + MARGIN
    left = None
    right = None
    for i in range(total):
        low = x[i] - v_width[i] / 2.0
        high = x[i] + v_width[i] / 2.0
        if left is None or low < left:
            left = low
        if right is None or high > right:
            right = high
    if left is None:
        left = right = 0.0
    shift = MARGIN - left
    for i in range(total):
        x[i] += shift
    graph_width = right - left + 2 * MARGIN

    placed = {}
    for i in range(count):
        placed[ids[i]] = {"x": x[i], "y": y[i], "w": width[i], "h": height[i]}

    # -- edge routes: out of the bottom of the source, into the top of the target at the
    # port of its input position (input 0 leftmost) -------------------------------------------
    incoming = [[] for _ in range(count)]
    for number, pair in enumerate(edge_pairs):
        if pair is not None:
            incoming[pair[1]].append(number)
    port = {}
    for b in range(count):
        order = sorted(incoming[b], key=lambda n: (edges[n].get("input", 0), n))
        k = len(order)
        for rank in range(k):
            port[order[rank]] = x[b] - width[b] / 2.0 + (rank + 1) * width[b] / (k + 1)
    routes = []
    for number, pair in enumerate(edge_pairs):
        if pair is None:
            routes.append([])
            continue
        a, b = pair
        chain = chains.get((a, b))
        points = [[x[a], y[a] + height[a] / 2.0]]
        if chain is not None:
            for d in chain[1:-1]:
                points.append([x[d], y[d]])
        points.append([port[number], y[b] - height[b] / 2.0])
        routes.append(points)
    return {"nodes": placed, "edges": routes, "width": graph_width, "height": graph_height}


def _layers(count: int, succ: list, pred: list) -> list:
    """Layer of each node, 0 at the top: longest path to a sink, counted from the bottom."""
    depth = [0] * count
    remaining = [len(s) for s in succ]
    ready = [i for i in range(count) if remaining[i] == 0]
    done = [False] * count
    head = 0
    while head < len(ready):
        v = ready[head]
        head += 1
        done[v] = True
        for u in pred[v]:
            if depth[v] + 1 > depth[u]:
                depth[u] = depth[v] + 1
            remaining[u] -= 1
            if remaining[u] == 0:
                ready.append(u)
    for i in range(count):  # only on a cycle, which an autograd graph never has
        if not done[i]:
            depth[i] = 0
    deepest = 0
    for i in range(count):
        if depth[i] > deepest:
            deepest = depth[i]
    layer = [deepest - depth[i] for i in range(count)]
    # sinks with producers hang right below their lowest producer
    for v in range(count):
        if not succ[v] and pred[v]:
            lowest = 0
            for u in pred[v]:
                if layer[u] + 1 > lowest:
                    lowest = layer[u] + 1
            layer[v] = lowest
    return layer


def _initial_order(total: int, v_layer: list, v_succ: list, v_pred: list,
                   layer_count: int) -> list:
    """Rows as discovered breadth first from the bottom, producers in input order."""
    rows = [[] for _ in range(layer_count)]
    seen = [False] * total
    starts = []
    for i in range(total):
        if not v_succ[i]:
            starts.append(i)
    starts.sort(key=lambda i: (-v_layer[i], i))
    queue = []
    for i in starts:
        if not seen[i]:
            seen[i] = True
            queue.append(i)
    head = 0
    while head < len(queue) or len(queue) < total:
        if head == len(queue):
            for i in range(total):  # a part not reachable upward from a sink
                if not seen[i]:
                    seen[i] = True
                    queue.append(i)
                    break
        v = queue[head]
        head += 1
        rows[v_layer[v]].append(v)
        for u in v_pred[v]:
            if not seen[u]:
                seen[u] = True
                queue.append(u)
    return rows


def _crossings(upper: list, lower: list, v_succ: list, port_of: dict) -> int:
    """Edge crossings between two adjacent rows (Fenwick tree over the lower ends, each end
    a position refined by its port)."""
    where = {}
    for i in range(len(lower)):
        where[lower[i]] = i
    ends_of = []
    for u in upper:
        for v in v_succ[u]:
            if v in where:
                ends_of.append((where[v], port_of.get((u, v), 0.0)))
    ranked = sorted(set(ends_of))
    ordinal = {}
    for i in range(len(ranked)):
        ordinal[ranked[i]] = i
    targets = []
    cursor = 0
    for u in upper:
        ends = []
        for v in v_succ[u]:
            if v in where:
                ends.append(ordinal[ends_of[cursor]])
                cursor += 1
        ends.sort()
        targets.extend(ends)
    size = len(ranked)
    tree = [0] * (size + 1)
    crossings = 0
    seen = 0
    for t in targets:
        # edges seen so far ending strictly right of t cross this one
        index = t + 1
        not_greater = 0
        while index > 0:
            not_greater += tree[index]
            index -= index & (-index)
        crossings += seen - not_greater
        index = t + 1
        while index <= size:
            tree[index] += 1
            index += index & (-index)
        seen += 1
    return crossings


def _total_crossings(rows: list, v_succ: list, port_of: dict) -> int:
    total = 0
    for r in range(len(rows) - 1):
        total += _crossings(rows[r], rows[r + 1], v_succ, port_of)
    return total


def _by_cluster(row: list, v_cluster: list) -> list:
    """The row with each group's members made contiguous, groups where their first member is."""
    first = {}
    for i in range(len(row)):
        path = v_cluster[row[i]]
        for depth in range(len(path)):
            prefix = "/".join(path[:depth + 1])
            if prefix not in first:
                first[prefix] = i
    keyed = []
    for i in range(len(row)):
        path = v_cluster[row[i]]
        key = []
        for depth in range(len(path)):
            key.append(first["/".join(path[:depth + 1])])
        key.append(i)
        keyed.append((key, row[i]))
    keyed.sort(key=lambda item: item[0])
    return [item[1] for item in keyed]


def _reduce_crossings(rows: list, v_succ: list, v_pred: list, port_of: dict,
                      v_cluster: list) -> list:
    rows = [_by_cluster(row, v_cluster) for row in rows]
    best = [list(row) for row in rows]
    best_count = _total_crossings(best, v_succ, port_of)
    current = [list(row) for row in rows]
    for sweep in range(SWEEPS):
        if best_count == 0:
            break
        if sweep % 2 == 0:
            for r in range(len(current) - 2, -1, -1):  # upward: by consumers below
                current[r] = _by_cluster(
                    _by_barycenter(current[r], current[r + 1], v_succ, port_of, True), v_cluster)
        else:
            for r in range(1, len(current)):  # downward: by producers above
                current[r] = _by_cluster(
                    _by_barycenter(current[r], current[r - 1], v_pred, port_of, False), v_cluster)
        count = _total_crossings(current, v_succ, port_of)
        if count < best_count:
            best_count = count
            best = [list(row) for row in current]
    return best


def _by_barycenter(row: list, reference: list, neighbours: list, port_of: dict,
                   below: bool) -> list:
    where = {}
    for i in range(len(reference)):
        where[reference[i]] = i
    keyed = []
    for i in range(len(row)):
        v = row[i]
        total = 0.0
        found = 0
        for u in neighbours[v]:
            if u in where:
                total += where[u]
                if below:
                    total += port_of.get((v, u), 0.0)
                found += 1
        center = total / found if found else float(i) * len(reference) / max(len(row), 1)
        keyed.append((center, i, v))
    keyed.sort(key=lambda item: (item[0], item[1]))
    return [item[2] for item in keyed]


def _place(rows: list, v_width: list, v_succ: list, v_pred: list, v_cluster: list) -> list:
    total = len(v_width)
    x = [0.0] * total
    for row in rows:
        cursor = 0.0
        for k in range(len(row)):
            i = row[k]
            if k and v_cluster[row[k - 1]] != v_cluster[i]:
                cursor += CLUSTER_GAP
            x[i] = cursor + v_width[i] / 2.0
            cursor += v_width[i] + GAP_X
    for sweep in range(2 * SWEEPS):
        if sweep % 3 == 0:
            order = range(len(rows) - 2, -1, -1)
            both = False
            use = v_succ
        elif sweep % 3 == 1:
            order = range(1, len(rows))
            both = False
            use = v_pred
        else:
            order = range(len(rows))
            both = True
            use = None
        for r in order:
            row = rows[r]
            desired = []
            for i in row:
                total_x = 0.0
                found = 0
                lists = (v_succ[i], v_pred[i]) if both else (use[i],)
                for neighbours in lists:
                    for u in neighbours:
                        total_x += x[u]
                        found += 1
                desired.append(total_x / found if found else x[i])
            gaps = [0.0]
            for k in range(1, len(row)):
                same = v_cluster[row[k - 1]] == v_cluster[row[k]]
                gaps.append(GAP_X if same else GAP_X + CLUSTER_GAP)
            placed = _closest_spaced(desired, [v_width[i] for i in row], gaps)
            for k in range(len(row)):
                x[row[k]] = placed[k]
    return x


def _separate_clusters(rows: list, x: list, v_width: list, v_cluster: list) -> None:
    """Move sibling groups apart as blocks, so that the boxes drawn around them do not overlap
    where their layers overlap; then re-space each row in its order."""
    row_of = {}
    for r in range(len(rows)):
        for i in rows[r]:
            row_of[i] = r
    members = {}
    order = []
    for r in range(len(rows)):
        for i in rows[r]:
            path = v_cluster[i]
            for depth in range(len(path)):
                prefix = "/".join(path[:depth + 1])
                if prefix not in members:
                    members[prefix] = []
                    order.append((depth, prefix, "/".join(path[:depth])))
                members[prefix].append(i)
    deepest = 0
    for depth, _, _ in order:
        if depth + 1 > deepest:
            deepest = depth + 1
    for level in range(deepest):
        parents = []
        siblings = {}
        for depth, prefix, parent in order:
            if depth != level:
                continue
            if parent not in siblings:
                siblings[parent] = []
                parents.append(parent)
            siblings[parent].append(prefix)
        for parent in parents:
            blocks = []
            for number in range(len(siblings[parent])):
                prefix = siblings[parent][number]
                nodes = members[prefix]
                left = right = None
                low = high = None
                total = 0.0
                for i in nodes:
                    a = x[i] - v_width[i] / 2.0
                    b = x[i] + v_width[i] / 2.0
                    left = a if left is None or a < left else left
                    right = b if right is None or b > right else right
                    low = row_of[i] if low is None or row_of[i] < low else low
                    high = row_of[i] if high is None or row_of[i] > high else high
                    total += x[i]
                blocks.append([total / len(nodes), number, left, right, low, high, nodes])
            blocks.sort(key=lambda block: (block[0], block[1]))
            for k in range(1, len(blocks)):
                block = blocks[k]
                need = 0.0
                for j in range(k):
                    other = blocks[j]
                    if other[4] <= block[5] and block[4] <= other[5]:
                        gap = other[3] + BLOCK_GAP - block[2]
                        if gap > need:
                            need = gap
                if need > 0.0:
                    for i in block[6]:
                        x[i] += need
                    block[2] += need
                    block[3] += need
    for row in rows:
        for k in range(1, len(row)):
            a, b = row[k - 1], row[k]
            gap = GAP_X if v_cluster[a] == v_cluster[b] else GAP_X + CLUSTER_GAP
            least = x[a] + (v_width[a] + v_width[b]) / 2.0 + gap
            if x[b] < least:
                x[b] = least


def _closest_spaced(desired: list, widths: list, gaps: list) -> list:
    """Positions nearest (least squares) to ``desired`` that keep boxes ``GAP_X`` apart, in
    order: isotonic regression on the positions minus their cumulative spacing."""
    n = len(desired)
    offsets = [0.0] * n
    for k in range(1, n):
        offsets[k] = offsets[k - 1] + (widths[k - 1] + widths[k]) / 2.0 + gaps[k]
    # pool adjacent violators: blocks of (sum, count), each block's mean is its value
    sums = []
    counts = []
    for k in range(n):
        sums.append(desired[k] - offsets[k])
        counts.append(1)
        while len(sums) > 1 and sums[-2] / counts[-2] > sums[-1] / counts[-1]:
            s = sums.pop()
            c = counts.pop()
            sums[-1] += s
            counts[-1] += c
    result = []
    k = 0
    for b in range(len(sums)):
        mean = sums[b] / counts[b]
        for _ in range(counts[b]):
            result.append(mean + offsets[k])
            k += 1
    return result
