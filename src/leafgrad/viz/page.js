// leafgrad graph page: pan, zoom, details, search, groups, backward replay. No network.
// The layout below is a line-for-line port of _layout.py and _visible.py (the browser test
// checks that both give the same coordinates), so the page can lay the graph out again when a
// group is expanded or collapsed.
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("lg-data").textContent);
  const MODEL = DATA.model;
  const TRACE = DATA.trace || null;

  // ---------------------------------------------------------------- layout (_layout.py)
  const CHAR_WIDTH = 7.2, LINE_HEIGHT = 15.0, PAD_X = 10.0, PAD_Y = 6.0, GAP_X = 18.0, CLUSTER_GAP = 30.0, BLOCK_GAP = 46.0;
  const GAP_Y = 44.0, DUMMY_WIDTH = 6.0, MAX_LABEL_CHARS = 46, SWEEPS = 6, MARGIN = 16.0;

  function nodeSize(lines) {
    let longest = 0;
    for (const line of lines) longest = Math.max(longest, Math.min(line.length, MAX_LABEL_CHARS));
    return [Math.max(longest * CHAR_WIDTH + 2 * PAD_X, 40.0), lines.length * LINE_HEIGHT + 2 * PAD_Y];
  }

  function layout(nodes, edges) {
    const count = nodes.length;
    const ids = nodes.map((n) => n.id);
    const positionOf = new Map();
    for (let i = 0; i < count; i++) positionOf.set(ids[i], i);
    const width = nodes.map((n) => n.w), height = nodes.map((n) => n.h);
    const cluster = nodes.map((n) => (n.cluster || []).slice());
    const succ = [], pred = [];
    for (let i = 0; i < count; i++) { succ.push([]); pred.push([]); }
    const edgePairs = [];
    const firstInput = new Map();
    const key = (a, b) => a + "," + b;
    for (const edge of edges) {
      const a = positionOf.get(edge.from), b = positionOf.get(edge.to);
      if (a === undefined || b === undefined || a === b) { edgePairs.push(null); continue; }
      edgePairs.push([a, b]);
      const number = edge.input || 0;
      if (!succ[a].includes(b)) {
        succ[a].push(b); pred[b].push(a); firstInput.set(key(a, b), number);
      } else if (number < firstInput.get(key(a, b))) {
        firstInput.set(key(a, b), number);
      }
    }
    const layer = layers(count, succ, pred);

    let total = count;
    const vLayer = layer.slice(), vWidth = width.slice(), vHeight = height.slice();
    const vSucc = succ.map((s) => s.slice()), vPred = pred.map((p) => p.slice());
    const chains = new Map();
    for (let a = 0; a < count; a++) {
      for (const b of succ[a]) {
        const span = layer[b] - layer[a];
        if (span <= 1) { chains.set(key(a, b), [a, b]); continue; }
        const chain = [a];
        vSucc[a].splice(vSucc[a].indexOf(b), 1);
        vPred[b].splice(vPred[b].indexOf(a), 1);
        let previous = a;
        for (let step = 1; step < span; step++) {
          const d = total; total += 1;
          vLayer.push(layer[a] + step); vWidth.push(DUMMY_WIDTH); vHeight.push(0.0);
          vSucc.push([]); vPred.push([previous]); vSucc[previous].push(d);
          chain.push(d); previous = d;
        }
        vSucc[previous].push(b); vPred[b].push(previous); chain.push(b);
        chains.set(key(a, b), chain);
      }
    }
    const portOf = new Map();
    for (let b = 0; b < count; b++) {
      const producers = pred[b].slice().sort((p, q) =>
        (firstInput.get(key(p, b)) - firstInput.get(key(q, b))) || (p - q));
      const k = producers.length;
      for (let rank = 0; rank < k; rank++) {
        const chain = chains.get(key(producers[rank], b));
        portOf.set(key(chain[chain.length - 2], b), (rank + 1) / (k + 1) - 0.5);
      }
    }
    let layerCount = 0;
    for (let i = 0; i < total; i++) if (vLayer[i] + 1 > layerCount) layerCount = vLayer[i] + 1;
    let rows = initialOrder(total, vLayer, vSucc, vPred, layerCount);
    const vCluster = cluster.slice();
    for (let i = count; i < total; i++) vCluster.push([]);
    rows = reduceCrossings(rows, vSucc, vPred, portOf, vCluster);
    const x = place(rows, vWidth, vSucc, vPred, vCluster);
    separateClusters(rows, x, vWidth, vCluster);

    const y = new Array(total).fill(0.0);
    let top = MARGIN;
    for (const row of rows) {
      let tallest = 0.0;
      for (const i of row) if (vHeight[i] > tallest) tallest = vHeight[i];
      for (const i of row) y[i] = top + tallest / 2.0;
      top += tallest + GAP_Y;
    }
    const graphHeight = top - GAP_Y + MARGIN;
    let left = null, right = null;
    for (let i = 0; i < total; i++) {
      const low = x[i] - vWidth[i] / 2.0, high = x[i] + vWidth[i] / 2.0;
      if (left === null || low < left) left = low;
      if (right === null || high > right) right = high;
    }
    if (left === null) { left = 0.0; right = 0.0; }
    const shift = MARGIN - left;
    for (let i = 0; i < total; i++) x[i] += shift;
    const graphWidth = right - left + 2 * MARGIN;
    const placed = {};
    for (let i = 0; i < count; i++) placed[ids[i]] = { x: x[i], y: y[i], w: width[i], h: height[i] };

    const incoming = [];
    for (let i = 0; i < count; i++) incoming.push([]);
    edgePairs.forEach((pair, number) => { if (pair !== null) incoming[pair[1]].push(number); });
    const port = new Map();
    for (let b = 0; b < count; b++) {
      const order = incoming[b].slice().sort((p, q) =>
        ((edges[p].input || 0) - (edges[q].input || 0)) || (p - q));
      const k = order.length;
      for (let rank = 0; rank < k; rank++) {
        port.set(order[rank], x[b] - width[b] / 2.0 + (rank + 1) * width[b] / (k + 1));
      }
    }
    const routes = edgePairs.map((pair, number) => {
      if (pair === null) return [];
      const [a, b] = pair;
      const chain = chains.get(key(a, b));
      const points = [[x[a], y[a] + height[a] / 2.0]];
      for (const d of chain.slice(1, -1)) points.push([x[d], y[d]]);
      points.push([port.get(number), y[b] - height[b] / 2.0]);
      return points;
    });
    return { nodes: placed, edges: routes, width: graphWidth, height: graphHeight };
  }

  function layers(count, succ, pred) {
    const depth = new Array(count).fill(0);
    const remaining = succ.map((s) => s.length);
    const ready = [];
    for (let i = 0; i < count; i++) if (remaining[i] === 0) ready.push(i);
    const done = new Array(count).fill(false);
    let head = 0;
    while (head < ready.length) {
      const v = ready[head]; head += 1; done[v] = true;
      for (const u of pred[v]) {
        if (depth[v] + 1 > depth[u]) depth[u] = depth[v] + 1;
        remaining[u] -= 1;
        if (remaining[u] === 0) ready.push(u);
      }
    }
    for (let i = 0; i < count; i++) if (!done[i]) depth[i] = 0;
    let deepest = 0;
    for (let i = 0; i < count; i++) if (depth[i] > deepest) deepest = depth[i];
    const layer = depth.map((d) => deepest - d);
    for (let v = 0; v < count; v++) {
      if (succ[v].length === 0 && pred[v].length > 0) {
        let lowest = 0;
        for (const u of pred[v]) if (layer[u] + 1 > lowest) lowest = layer[u] + 1;
        layer[v] = lowest;
      }
    }
    return layer;
  }

  function initialOrder(total, vLayer, vSucc, vPred, layerCount) {
    const rows = [];
    for (let r = 0; r < layerCount; r++) rows.push([]);
    const seen = new Array(total).fill(false);
    const starts = [];
    for (let i = 0; i < total; i++) if (vSucc[i].length === 0) starts.push(i);
    starts.sort((p, q) => (vLayer[q] - vLayer[p]) || (p - q));
    const queue = [];
    for (const i of starts) if (!seen[i]) { seen[i] = true; queue.push(i); }
    let head = 0;
    while (head < queue.length || queue.length < total) {
      if (head === queue.length) {
        for (let i = 0; i < total; i++) if (!seen[i]) { seen[i] = true; queue.push(i); break; }
      }
      const v = queue[head]; head += 1;
      rows[vLayer[v]].push(v);
      for (const u of vPred[v]) if (!seen[u]) { seen[u] = true; queue.push(u); }
    }
    return rows;
  }

  function crossings(upper, lower, vSucc, portOf) {
    const where = new Map();
    lower.forEach((v, i) => where.set(v, i));
    const endsOf = [];
    for (const u of upper) for (const v of vSucc[u]) {
      if (where.has(v)) endsOf.push([where.get(v), portOf.get(u + "," + v) || 0.0]);
    }
    const unique = new Map();
    for (const end of endsOf) unique.set(end[0] + "|" + end[1], end);
    const ranked = Array.from(unique.values()).sort((p, q) => (p[0] - q[0]) || (p[1] - q[1]));
    const ordinal = new Map();
    ranked.forEach((end, i) => ordinal.set(end[0] + "|" + end[1], i));
    const targets = [];
    let cursor = 0;
    for (const u of upper) {
      const ends = [];
      for (const v of vSucc[u]) {
        if (where.has(v)) {
          const end = endsOf[cursor]; cursor += 1;
          ends.push(ordinal.get(end[0] + "|" + end[1]));
        }
      }
      ends.sort((p, q) => p - q);
      for (const t of ends) targets.push(t);
    }
    const size = ranked.length;
    const tree = new Array(size + 1).fill(0);
    let count = 0, seen = 0;
    for (const t of targets) {
      let index = t + 1, notGreater = 0;
      while (index > 0) { notGreater += tree[index]; index -= index & (-index); }
      count += seen - notGreater;
      index = t + 1;
      while (index <= size) { tree[index] += 1; index += index & (-index); }
      seen += 1;
    }
    return count;
  }

  function totalCrossings(rows, vSucc, portOf) {
    let total = 0;
    for (let r = 0; r < rows.length - 1; r++) total += crossings(rows[r], rows[r + 1], vSucc, portOf);
    return total;
  }

  function byCluster(row, vCluster) {
    const first = new Map();
    for (let i = 0; i < row.length; i++) {
      const path = vCluster[row[i]];
      for (let depth = 0; depth < path.length; depth++) {
        const prefix = path.slice(0, depth + 1).join("/");
        if (!first.has(prefix)) first.set(prefix, i);
      }
    }
    const keyed = [];
    for (let i = 0; i < row.length; i++) {
      const path = vCluster[row[i]];
      const k = [];
      for (let depth = 0; depth < path.length; depth++) k.push(first.get(path.slice(0, depth + 1).join("/")));
      k.push(i);
      keyed.push([k, row[i]]);
    }
    keyed.sort((p, q) => {
      const a = p[0], b = q[0];
      for (let j = 0; j < Math.min(a.length, b.length); j++) if (a[j] !== b[j]) return a[j] - b[j];
      return a.length - b.length;
    });
    return keyed.map((item) => item[1]);
  }

  function reduceCrossings(rows, vSucc, vPred, portOf, vCluster) {
    rows = rows.map((row) => byCluster(row, vCluster));
    let best = rows.map((r) => r.slice());
    let bestCount = totalCrossings(best, vSucc, portOf);
    const current = rows.map((r) => r.slice());
    for (let sweep = 0; sweep < SWEEPS; sweep++) {
      if (bestCount === 0) break;
      if (sweep % 2 === 0) {
        for (let r = current.length - 2; r >= 0; r--) {
          current[r] = byCluster(byBarycenter(current[r], current[r + 1], vSucc, portOf, true), vCluster);
        }
      } else {
        for (let r = 1; r < current.length; r++) {
          current[r] = byCluster(byBarycenter(current[r], current[r - 1], vPred, portOf, false), vCluster);
        }
      }
      const count = totalCrossings(current, vSucc, portOf);
      if (count < bestCount) { bestCount = count; best = current.map((r) => r.slice()); }
    }
    return best;
  }

  function byBarycenter(row, reference, neighbours, portOf, below) {
    const where = new Map();
    reference.forEach((v, i) => where.set(v, i));
    const keyed = [];
    for (let i = 0; i < row.length; i++) {
      const v = row[i];
      let total = 0.0, found = 0;
      for (const u of neighbours[v]) {
        if (where.has(u)) {
          total += where.get(u);
          if (below) total += portOf.get(v + "," + u) || 0.0;
          found += 1;
        }
      }
      const center = found ? total / found : i * reference.length / Math.max(row.length, 1);
      keyed.push([center, i, v]);
    }
    keyed.sort((p, q) => (p[0] - q[0]) || (p[1] - q[1]));
    return keyed.map((item) => item[2]);
  }

  function place(rows, vWidth, vSucc, vPred, vCluster) {
    const total = vWidth.length;
    const x = new Array(total).fill(0.0);
    const same = (a, b) => vCluster[a].join("/") === vCluster[b].join("/");
    for (const row of rows) {
      let cursor = 0.0;
      for (let k = 0; k < row.length; k++) {
        const i = row[k];
        if (k && !same(row[k - 1], i)) cursor += CLUSTER_GAP;
        x[i] = cursor + vWidth[i] / 2.0; cursor += vWidth[i] + GAP_X;
      }
    }
    for (let sweep = 0; sweep < 2 * SWEEPS; sweep++) {
      let order = [], both = false, use = null;
      if (sweep % 3 === 0) { for (let r = rows.length - 2; r >= 0; r--) order.push(r); use = vSucc; }
      else if (sweep % 3 === 1) { for (let r = 1; r < rows.length; r++) order.push(r); use = vPred; }
      else { for (let r = 0; r < rows.length; r++) order.push(r); both = true; }
      for (const r of order) {
        const row = rows[r];
        const desired = [];
        for (const i of row) {
          let totalX = 0.0, found = 0;
          const lists = both ? [vSucc[i], vPred[i]] : [use[i]];
          for (const neighbours of lists) for (const u of neighbours) { totalX += x[u]; found += 1; }
          desired.push(found ? totalX / found : x[i]);
        }
        const gaps = [0.0];
        for (let k = 1; k < row.length; k++) gaps.push(same(row[k - 1], row[k]) ? GAP_X : GAP_X + CLUSTER_GAP);
        const placed = closestSpaced(desired, row.map((i) => vWidth[i]), gaps);
        for (let k = 0; k < row.length; k++) x[row[k]] = placed[k];
      }
    }
    return x;
  }

  function separateClusters(rows, x, vWidth, vCluster) {
    const rowOf = new Map();
    rows.forEach((row, r) => { for (const i of row) rowOf.set(i, r); });
    const members = new Map();
    const order = [];
    for (const row of rows) for (const i of row) {
      const path = vCluster[i];
      for (let depth = 0; depth < path.length; depth++) {
        const prefix = path.slice(0, depth + 1).join("/");
        if (!members.has(prefix)) { members.set(prefix, []); order.push([depth, prefix, path.slice(0, depth).join("/")]); }
        members.get(prefix).push(i);
      }
    }
    let deepest = 0;
    for (const [depth] of order) if (depth + 1 > deepest) deepest = depth + 1;
    for (let level = 0; level < deepest; level++) {
      const parents = [], siblings = new Map();
      for (const [depth, prefix, parent] of order) {
        if (depth !== level) continue;
        if (!siblings.has(parent)) { siblings.set(parent, []); parents.push(parent); }
        siblings.get(parent).push(prefix);
      }
      for (const parent of parents) {
        const blocks = [];
        siblings.get(parent).forEach((prefix, number) => {
          const nodes = members.get(prefix);
          let left = null, right = null, low = null, high = null, total = 0.0;
          for (const i of nodes) {
            const a = x[i] - vWidth[i] / 2.0, b = x[i] + vWidth[i] / 2.0, r = rowOf.get(i);
            if (left === null || a < left) left = a;
            if (right === null || b > right) right = b;
            if (low === null || r < low) low = r;
            if (high === null || r > high) high = r;
            total += x[i];
          }
          blocks.push([total / nodes.length, number, left, right, low, high, nodes]);
        });
        blocks.sort((p, q) => (p[0] - q[0]) || (p[1] - q[1]));
        for (let k = 1; k < blocks.length; k++) {
          const block = blocks[k];
          let need = 0.0;
          for (let j = 0; j < k; j++) {
            const other = blocks[j];
            if (other[4] <= block[5] && block[4] <= other[5]) {
              const gap = other[3] + BLOCK_GAP - block[2];
              if (gap > need) need = gap;
            }
          }
          if (need > 0.0) {
            for (const i of block[6]) x[i] += need;
            block[2] += need; block[3] += need;
          }
        }
      }
    }
    for (const row of rows) {
      for (let k = 1; k < row.length; k++) {
        const a = row[k - 1], b = row[k];
        const gap = vCluster[a].join("/") === vCluster[b].join("/") ? GAP_X : GAP_X + CLUSTER_GAP;
        const least = x[a] + (vWidth[a] + vWidth[b]) / 2.0 + gap;
        if (x[b] < least) x[b] = least;
      }
    }
  }

  function closestSpaced(desired, widths, gaps) {
    const n = desired.length;
    const offsets = new Array(n).fill(0.0);
    for (let k = 1; k < n; k++) offsets[k] = offsets[k - 1] + (widths[k - 1] + widths[k]) / 2.0 + gaps[k];
    const sums = [], counts = [];
    for (let k = 0; k < n; k++) {
      sums.push(desired[k] - offsets[k]); counts.push(1);
      while (sums.length > 1 && sums[sums.length - 2] / counts[counts.length - 2] >
             sums[sums.length - 1] / counts[counts.length - 1]) {
        const s = sums.pop(), c = counts.pop();
        sums[sums.length - 1] += s; counts[counts.length - 1] += c;
      }
    }
    const result = [];
    let k = 0;
    for (let b = 0; b < sums.length; b++) {
      const mean = sums[b] / counts[b];
      for (let j = 0; j < counts[b]; j++) { result.push(mean + offsets[k]); k += 1; }
    }
    return result;
  }

  // ---------------------------------------------------------------- visible (_visible.py)
  const GROUPS = new Map(MODEL.groups.map((g) => [g.id, g]));
  const NODES = new Map(MODEL.nodes.map((n) => [n.id, n]));

  function groupLabel(group) {
    const count = group.count || 0;
    if (group.kind === "repeat") {
      const lines = ["\u00d7" + group.repeats.toLocaleString("en-US") + " repeated (" +
                     count.toLocaleString("en-US") + " nodes)"];
      let line = "";
      for (const name of group.pattern) {
        const piece = line ? " \u2192 " + name : name;
        if (line && line.length + piece.length > MAX_LABEL_CHARS) { lines.push(line + " \u2192"); line = name; }
        else line += piece;
      }
      lines.push(line);
      return lines;
    }
    return [group.label, count.toLocaleString("en-US") + " nodes"];
  }

  function visible(expanded) {
    function representative(groupId) {
      let chosen = null;
      while (groupId !== null && groupId !== undefined) {
        if (!expanded.has(groupId)) chosen = groupId;
        groupId = GROUPS.get(groupId).parent;
      }
      return chosen;
    }
    const unitOf = new Map();
    const units = [];
    const seenUnits = new Set();
    for (const node of MODEL.nodes) {
      const group = representative(node.group === undefined ? null : node.group);
      const unit = group !== null ? group : node.id;
      unitOf.set(node.id, unit);
      if (seenUnits.has(unit)) continue;
      seenUnits.add(unit);
      if (group !== null) {
        units.push({ id: group, kind: "group", group_kind: GROUPS.get(group).kind, label: groupLabel(GROUPS.get(group)) });
      } else {
        units.push({ id: node.id, kind: node.kind, label: node.label, role: node.role, node: node });
      }
    }
    for (const unit of units) {
      [unit.w, unit.h] = nodeSize(unit.label);
      let start = unit.kind === "group" ? GROUPS.get(unit.id).parent : unit.node.group;
      const chain = [];
      while (start !== null && start !== undefined) { chain.push(start); start = GROUPS.get(start).parent; }
      unit.cluster = chain.reverse();
    }
    const edges = [];
    const seenEdges = new Set();
    for (const edge of MODEL.edges) {
      const a = unitOf.get(edge.from), b = unitOf.get(edge.to);
      if (a === undefined || b === undefined || a === b) continue;
      const k = a + "\u0000" + b;
      if (edge.kind !== "next" || !seenEdges.has(k)) {
        seenEdges.add(k);
        edges.push({ from: a, to: b, input: edge.input || 0, kind: edge.kind, model_from: edge.from, model_to: edge.to });
      }
    }
    const placed = layout(units, edges);
    const members = new Map();
    for (const node of MODEL.nodes) {
      const unit = unitOf.get(node.id);
      let groupId = node.group === undefined ? null : node.group;
      while (groupId !== null && groupId !== undefined) {
        if (expanded.has(groupId) && representative(groupId) === null) {
          if (!members.has(groupId)) members.set(groupId, new Set());
          members.get(groupId).add(unit);
        }
        groupId = GROUPS.get(groupId).parent;
      }
    }
    const boxes = [];
    for (const [groupId, unitIds] of members) {
      let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
      for (const unit of unitIds) {
        const box = placed.nodes[unit];
        left = Math.min(left, box.x - box.w / 2); right = Math.max(right, box.x + box.w / 2);
        top = Math.min(top, box.y - box.h / 2); bottom = Math.max(bottom, box.y + box.h / 2);
      }
      let depth = 0, parent = GROUPS.get(groupId).parent;
      while (parent !== null && parent !== undefined) { depth += 1; parent = GROUPS.get(parent).parent; }
      const pad = 8 + 4 * Math.max(0, 3 - depth);
      const group = GROUPS.get(groupId);
      boxes.push({ id: groupId, kind: group.kind, label: group.label, depth: depth,
                   x: left - pad, y: top - pad - 14, w: right - left + 2 * pad, h: bottom - top + 2 * pad + 14 });
    }
    boxes.sort((p, q) => p.depth - q.depth);
    return { units, edges, layout: placed, boxes, unitOf };
  }

  // ---------------------------------------------------------------- drawing
  const SVGNS = "http://www.w3.org/2000/svg";
  const FILL = DATA.fill;
  const svg = document.getElementById("lg-svg");
  const viewport = document.getElementById("lg-viewport");
  const panel = document.getElementById("lg-details");
  let expanded = new Set(MODEL.groups.filter((g) => !g.collapsed).map((g) => g.id));
  let shown = null;
  let selected = null;
  let view = { k: 1, tx: 0, ty: 0 };
  const unitElements = new Map();
  const edgeElements = [];

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVGNS, name);
    for (const k in attrs) node.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(node);
    return node;
  }

  function pathData(points) {
    if (!points.length) return "";
    const parts = ["M" + points[0][0].toFixed(1) + "," + points[0][1].toFixed(1)];
    for (let i = 0; i + 1 < points.length; i++) {
      const [x0, y0] = points[i], [x1, y1] = points[i + 1];
      const m = ((y0 + y1) / 2).toFixed(1);
      parts.push("C" + x0.toFixed(1) + "," + m + " " + x1.toFixed(1) + "," + m + " " + x1.toFixed(1) + "," + y1.toFixed(1));
    }
    return parts.join(" ");
  }

  function unitFill(unit) {
    if (unit.kind === "group") return FILL[unit.group_kind];
    if (unit.kind === "tensor") return FILL[unit.role] || FILL.leaf;
    if (unit.kind === "more") return FILL.more;
    return FILL["function"];
  }

  function clip(line) {
    return line.length <= MAX_LABEL_CHARS ? line : line.slice(0, MAX_LABEL_CHARS - 1) + "\u2026";
  }

  function render() {
    shown = visible(expanded);
    while (viewport.firstChild) viewport.removeChild(viewport.firstChild);
    unitElements.clear();
    edgeElements.length = 0;
    const placed = shown.layout;
    const boxLayer = el("g", { class: "lg-boxes" }, viewport);
    for (const box of shown.boxes) {
      const g = el("g", { class: "lg-box-group", "data-group": box.id }, boxLayer);
      el("rect", { class: "lg-box " + box.kind, x: box.x, y: box.y, width: box.w, height: box.h, rx: 8 }, g);
      const label = el("text", { class: "lg-box-label", x: box.x + 8, y: box.y + 13 }, g);
      label.textContent = "\u25be " + box.label;
      label.addEventListener("click", (event) => { event.stopPropagation(); toggleGroup(box.id); });
    }
    const edgeLayer = el("g", { class: "lg-edges" }, viewport);
    shown.edges.forEach((edge, number) => {
      const route = placed.edges[number];
      if (!route.length) return;
      const path = el("path", { class: "lg-edge " + edge.kind, d: pathData(route), "marker-end": "url(#lg-arrow)" }, edgeLayer);
      // the gradient an edge carried is written near its consumer, which sent it (edges into
      // one consumer enter at separate ports, so their labels do not collide)
      const [x0, y0] = route[route.length - 2], [x1, y1] = route[route.length - 1];
      const t = 0.72, u = 1 - t, m = (y0 + y1) / 2;
      const lx = u * u * u * x0 + 3 * u * u * t * x0 + 3 * u * t * t * x1 + t * t * t * x1;
      const ly = u * u * u * y0 + 3 * u * u * t * m + 3 * u * t * t * m + t * t * t * y1;
      const text = el("text", { class: "lg-edge-label", x: (lx + 4).toFixed(1), y: (ly + 4).toFixed(1) }, edgeLayer);
      edgeElements.push({ edge, path, text });
    });
    const nodeLayer = el("g", { class: "lg-nodes" }, viewport);
    for (const unit of shown.units) {
      const box = placed.nodes[unit.id];
      let classes = "lg-node " + unit.kind + (unit.role ? " " + unit.role : "");
      const g = el("g", { class: classes, "data-id": unit.id }, nodeLayer);
      if (unit.node && unit.node.name) g.setAttribute("data-name", unit.node.name);
      const left = box.x - box.w / 2, top = box.y - box.h / 2;
      el("rect", { x: left, y: top, width: box.w, height: box.h, rx: unit.kind === "tensor" ? 10 : 3, fill: unitFill(unit) }, g);
      const texts = [];
      unit.label.forEach((line, number) => {
        const t = el("text", { x: (left + PAD_X).toFixed(1), y: (top + PAD_Y + (number + 1) * LINE_HEIGHT - 4).toFixed(1) }, g);
        if (number === 0) t.setAttribute("class", "title");
        t.textContent = clip(line);
        texts.push(t);
      });
      g.addEventListener("click", (event) => { event.stopPropagation(); select(unit.id); });
      if (unit.kind === "group") g.addEventListener("dblclick", (event) => { event.stopPropagation(); toggleGroup(unit.id); });
      unitElements.set(unit.id, { g, texts, unit });
    }
    document.getElementById("lg-status").textContent =
      shown.units.length + " boxes shown \u00b7 " + MODEL.stats.nodes_in_graph.toLocaleString("en-US") +
      " nodes in the graph" + (MODEL.groups.length ? " \u00b7 " + MODEL.groups.length + " groups" : "");
    applyReplay();
    applySearchMarks();
    if (selected && !unitElements.has(selected)) selected = shown.unitOf.get(selected) || null;
    if (selected) markSelected();
  }

  function toggleGroup(id) {
    if (expanded.has(id)) {
      expanded.delete(id);
      for (const g of MODEL.groups) if (isInside(g.id, id)) expanded.delete(g.id);
    } else expanded.add(id);
    const keep = selected;
    render();
    fit();
    if (keep) select(unitElements.has(keep) ? keep : (shown.unitOf.get(keep) || null));
  }

  function isInside(groupId, ancestor) {
    let g = GROUPS.get(groupId).parent;
    while (g !== null && g !== undefined) { if (g === ancestor) return true; g = GROUPS.get(g).parent; }
    return false;
  }

  // ---------------------------------------------------------------- pan and zoom
  function applyView() {
    viewport.setAttribute("transform", "translate(" + view.tx + "," + view.ty + ") scale(" + view.k + ")");
  }

  function fit() {
    const rect = svg.getBoundingClientRect();
    let left = 0, top = 0, right = shown.layout.width, bottom = shown.layout.height;
    for (const box of shown.boxes) {
      left = Math.min(left, box.x - 4); top = Math.min(top, box.y - 4);
      right = Math.max(right, box.x + box.w + 4); bottom = Math.max(bottom, box.y + box.h + 4);
    }
    const w = right - left, h = bottom - top;
    const k = Math.min(rect.width / w, rect.height / h, 1.5);
    view = { k, tx: (rect.width - w * k) / 2 - left * k, ty: Math.max(0, (rect.height - h * k) / 2) - top * k };
    applyView();
  }

  function zoomAt(factor, cx, cy) {
    const k = Math.min(Math.max(view.k * factor, 0.02), 8);
    view.tx = cx - (cx - view.tx) * (k / view.k);
    view.ty = cy - (cy - view.ty) * (k / view.k);
    view.k = k;
    applyView();
  }

  function centerOn(id) {
    const box = shown.layout.nodes[id];
    if (!box) return;
    const rect = svg.getBoundingClientRect();
    if (view.k < 0.6) view.k = 1;
    view.tx = rect.width / 2 - box.x * view.k;
    view.ty = rect.height / 2 - box.y * view.k;
    applyView();
  }

  let drag = null;
  svg.addEventListener("mousedown", (event) => { drag = { x: event.clientX, y: event.clientY, tx: view.tx, ty: view.ty, moved: false }; });
  window.addEventListener("mousemove", (event) => {
    if (!drag) return;
    const dx = event.clientX - drag.x, dy = event.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    view.tx = drag.tx + dx; view.ty = drag.ty + dy; applyView();
  });
  window.addEventListener("mouseup", () => { drag = null; });
  svg.addEventListener("wheel", (event) => {
    event.preventDefault();
    const rect = svg.getBoundingClientRect();
    zoomAt(Math.exp(-event.deltaY * 0.0015), event.clientX - rect.left, event.clientY - rect.top);
  }, { passive: false });
  svg.addEventListener("click", () => { if (!drag || !drag.moved) { selected = null; markSelected(); showDetails(null); } });

  // ---------------------------------------------------------------- details
  function esc(text) {
    return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
  }

  function bytes(n) {
    if (n < 1024) return n + " B";
    if (n < 1048576) return (n / 1024).toFixed(1) + " KiB";
    return (n / 1048576).toFixed(1) + " MiB";
  }

  function num(v) {
    if (v === undefined || v === null) return "-";
    if (Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-3 && v !== 0)) return v.toExponential(3);
    return String(Math.round(v * 1e4) / 1e4);
  }

  function statsLine(s) {
    if (!s || s.min === undefined) return "";
    return "min " + num(s.min) + " \u00b7 max " + num(s.max) + " \u00b7 mean " + num(s.mean) +
      " \u00b7 std " + num(s.std) + (s.nan ? " \u00b7 " + s.nan + " nan" : "") + (s.inf ? " \u00b7 " + s.inf + " inf" : "");
  }

  function tensorBlock(label, s) {
    if (!s) return '<div class="lg-row"><b>' + esc(label) + ":</b> None</div>";
    return '<div class="lg-row"><b>' + esc(label) + ':</b> <code class="lg-repr">' + esc(s.repr || "") + "</code>" +
      '<div class="lg-sub">' + esc("(" + s.shape.join(", ") + ") " + s.dtype + " \u00b7 " + bytes(s.bytes)) +
      (statsLine(s) ? " \u00b7 " + esc(statsLine(s)) : "") + "</div></div>";
  }

  function showDetails(id) {
    if (id === null || id === undefined) {
      panel.innerHTML = '<p class="lg-hint">Click a node for its details. Drag to pan, wheel to zoom, ' +
        "double-click a group to open it." + (TRACE ? " Use the replay bar to watch backward run." : "") + "</p>";
      return;
    }
    const group = GROUPS.get(id);
    if (group) { panel.innerHTML = groupDetails(group); wireDetails(); return; }
    const node = NODES.get(id);
    if (!node) return;
    panel.innerHTML = node.kind === "tensor" ? tensorDetails(node) : node.kind === "more" ? moreDetails(node) : functionDetails(node);
    wireDetails();
  }

  function wireDetails() {
    panel.querySelectorAll("[data-goto]").forEach((a) => a.addEventListener("click", (event) => {
      event.preventDefault(); reveal(a.getAttribute("data-goto"));
    }));
    panel.querySelectorAll("[data-toggle]").forEach((a) => a.addEventListener("click", (event) => {
      event.preventDefault(); toggleGroup(a.getAttribute("data-toggle"));
    }));
  }

  function groupDetails(group) {
    const open = expanded.has(group.id);
    let html = "<h2>" + esc(group.kind === "repeat" ? "Repeated run" : "Module scope") + "</h2>";
    html += '<div class="lg-row">' + esc(group.label) + "</div>";
    html += '<div class="lg-row">' + group.count.toLocaleString("en-US") + " nodes" +
      (group.kind === "repeat" ? " \u00b7 pattern of " + group.period + " repeated " + group.repeats.toLocaleString("en-US") + " times" : "") + "</div>";
    const members = MODEL.nodes.filter((n) => n.group === group.id).length;
    if (group.kind === "repeat" && members < group.count) {
      html += '<div class="lg-sub">The first and last repetitions are drawn; the ' +
        "middle of the run is one placeholder (max_nodes=" + MODEL.stats.max_nodes + ").</div>";
    }
    html += '<p><a href="#" class="lg-button" data-toggle="' + esc(group.id) + '">' + (open ? "Collapse" : "Expand") + "</a></p>";
    return html;
  }

  function moreDetails(node) {
    return "<h2>" + esc(node.label[0]) + "</h2><p>" + esc(node.hidden.toLocaleString("en-US")) +
      " nodes of the graph are not drawn here (max_nodes=" + MODEL.stats.max_nodes + "). " +
      "Draw with a larger max_nodes, or draw a tensor further down the graph.</p>";
  }

  function link(id, text) {
    return '<a href="#" data-goto="' + esc(id) + '">' + esc(text) + "</a>";
  }

  function tensorDetails(node) {
    const state = replayState();
    let grad = node.grad;
    if (state && state.grads.has(node.id)) grad = state.grads.get(node.id);
    let html = "<h2>" + esc(node.name || "(unnamed tensor)") + ' <span class="lg-kind">' + esc(node.role) + " tensor</span></h2>";
    html += '<div class="lg-row">' + esc("shape (" + node.shape.join(", ") + ") \u00b7 " + node.dtype) + "</div>";
    html += '<div class="lg-flags">is_leaf=' + node.is_leaf + " \u00b7 requires_grad=" + node.requires_grad +
      " \u00b7 retains_grad=" + node.retains_grad + " \u00b7 _version=" + node.version +
      (node.grad_fn ? " \u00b7 grad_fn=" + esc(node.grad_fn) : "") + "</div>";
    html += tensorBlock("value", node.value);
    html += '<div class="lg-row lg-grad" id="lg-grad-line">grad: ' + (grad ? '<code class="lg-repr">' + esc(grad.repr || "") + "</code>" : "None") + "</div>";
    if (grad) html += '<div class="lg-sub">' + esc(statsLine(grad)) + "</div>";
    if (state && state.grads.has(node.id)) html += '<div class="lg-sub">as of replay step ' + state.step + " of " + TRACE.events.length + "</div>";
    if (node.hooks && node.hooks.length) html += hooksBlock(node.hooks);
    const into = MODEL.edges.filter((e) => e.from === node.id).map((e) => link(e.to, NODES.get(e.to) ? NODES.get(e.to).label[0] : e.to));
    const from = MODEL.edges.filter((e) => e.to === node.id).map((e) => link(e.from, NODES.get(e.from) ? NODES.get(e.from).label[0] : e.from));
    if (from.length) html += '<div class="lg-row">made by: ' + from.join(", ") + "</div>";
    if (into.length) html += '<div class="lg-row">read by: ' + into.join(", ") + "</div>";
    return html;
  }

  function hooksBlock(hooks) {
    return '<div class="lg-row"><b>hooks:</b><ul>' + hooks.map((h) => "<li>" + esc(h.kind + ": " + h.fn) +
      (h.where ? ' <span class="lg-sub">' + esc(h.where) + "</span>" : "") + "</li>").join("") + "</ul></div>";
  }

  function functionDetails(node) {
    let html = "<h2>" + esc(node.type) + ' <span class="lg-kind">' + (node.accumulate ? "leaf accumulator" : "grad_fn") + "</span></h2>";
    if (node.name !== node.type) html += '<div class="lg-sub">name(): ' + esc(node.name) + "</div>";
    if (node.scope) html += '<div class="lg-row">module: ' + esc(node.scope) + "</div>";
    if (node.formula) {
      html += '<div class="lg-row"><b>backward:</b><pre class="lg-formula">' + esc(node.formula.join("\n")) + "</pre></div>";
    }
    if (node.source) html += '<div class="lg-sub">code: ' + esc(node.source) + "</div>";
    if (node.inputs && node.inputs.length) {
      html += '<div class="lg-row"><b>next_functions</b> (inputs, in order):<ol start="0">';
      for (const input of node.inputs) {
        const target = input.from ? NODES.get(input.from) : null;
        html += "<li>" + (input.name ? esc(input.name) + ": " : "") +
          (target ? link(input.from, target.label[0]) : "None (does not require grad)") +
          (input.shape ? ' <span class="lg-sub">' + esc("(" + input.shape.join(", ") + ") " + input.dtype) + "</span>" : "") + "</li>";
      }
      html += "</ol></div>";
    }
    for (const output of node.outputs || []) {
      html += tensorBlock((output.name ? output.name : "output") + (output.from_saved ? " (saved result)" : ""), output.value);
    }
    const state = replayState();
    const freedAt = state ? state.freed.get(node.id) : undefined;
    if (node.saved && node.saved.length) {
      html += '<div class="lg-row"><b>saved tensors:</b><ul>';
      for (const s of node.saved) {
        let text = s.name + ": ";
        if (s.state === "freed" && state && freedAt === undefined) {
          const info = state.freeInfo.get(node.id + "/" + s.name);
          text += info ? "(" + info.shape.join(", ") + ") \u00b7 " + bytes(info.bytes) + " \u00b7 kept (not yet freed at this step)" : "kept";
        } else if (s.state === "freed") text += "freed (backward ran without retain_graph=True)";
        else if (s.state === "packed") text += "kept by a saved_tensors_hooks pack hook";
        else text += "(" + s.shape.join(", ") + ") " + s.dtype + " \u00b7 " + bytes(s.bytes) + " \u00b7 saved at version " +
          s.version_saved + (s.state === "modified" ? " \u00b7 MODIFIED since (now " + s.version_now + "): backward will fail" : " \u00b7 kept");
        html += "<li>" + esc(text) + "</li>";
      }
      html += "</ul></div>";
    }
    const attrs = Object.keys(node.attrs || {});
    if (attrs.length) html += '<div class="lg-row"><b>attributes:</b> ' + attrs.map((k) => esc(k + "=" + node.attrs[k])).join(", ") + "</div>";
    if (node.hooks && node.hooks.length) html += hooksBlock(node.hooks);
    if (state) {
      const events = TRACE.events.filter((e) => e.id === node.id && e.step < state.step);
      if (events.length) {
        html += '<div class="lg-row"><b>in this backward (up to step ' + state.step + "):</b><ul>";
        for (const e of events) html += "<li>" + esc(describeEvent(e)) + "</li>";
        html += "</ul></div>";
      }
    }
    return html;
  }

  function select(id) {
    selected = id;
    markSelected();
    showDetails(id);
  }

  function markSelected() {
    for (const [id, item] of unitElements) item.g.classList.toggle("selected", id === selected);
  }

  function reveal(id) {
    // open the groups around a node, then select and centre it
    const node = NODES.get(id);
    let changed = false;
    if (node) {
      let g = node.group;
      while (g !== null && g !== undefined) { if (!expanded.has(g)) { expanded.add(g); changed = true; } g = GROUPS.get(g).parent; }
    }
    if (changed) render();
    const unit = unitElements.has(id) ? id : shown.unitOf.get(id);
    select(unit);
    centerOn(unit);
  }

  // ---------------------------------------------------------------- search
  const search = document.getElementById("lg-search");
  let matches = [], matchIndex = -1;

  function searchText(node) {
    const parts = [node.name || "", node.type || "", (node.label || []).join(" "), (node.formula || []).join(" "), node.scope || ""];
    return parts.join(" ").toLowerCase();
  }

  function runSearch() {
    const query = search.value.trim().toLowerCase();
    matches = query ? MODEL.nodes.filter((n) => searchText(n).includes(query)).map((n) => n.id) : [];
    for (const g of MODEL.groups) if (query && g.label.toLowerCase().includes(query)) matches.push(g.id);
    matchIndex = -1;
    document.getElementById("lg-count").textContent = query ? matches.length + " found" : "";
    applySearchMarks();
  }

  function applySearchMarks() {
    const hits = new Set(matches.map((m) => (unitElements.has(m) ? m : shown.unitOf.get(m))));
    for (const [id, item] of unitElements) item.g.classList.toggle("match", hits.has(id));
  }

  search.addEventListener("input", runSearch);
  search.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || !matches.length) return;
    matchIndex = (matchIndex + (event.shiftKey ? matches.length - 1 : 1)) % matches.length;
    const id = matches[matchIndex];
    if (GROUPS.has(id)) { select(id); centerOn(unitElements.has(id) ? id : shown.unitOf.get(id)); }
    else reveal(id);
    applySearchMarks();
    document.getElementById("lg-count").textContent = (matchIndex + 1) + " of " + matches.length;
  });

  // ---------------------------------------------------------------- backward replay
  let step = TRACE ? TRACE.events.length : 0;
  const leafOfAcc = new Map();
  const tensorOfOutput = new Map();
  for (const e of MODEL.edges) {
    if (e.kind === "variable") leafOfAcc.set(e.to, e.from);
    if (e.kind === "output") tensorOfOutput.set(e.from + "/" + e.output, e.to);
  }

  function replayState() {
    if (!TRACE) return null;
    const grads = new Map(), ran = new Set(), freed = new Map(), carried = new Map(), freeInfo = new Map();
    for (const e of TRACE.events) {
      if (e.kind === "free") for (const s of e.saved) freeInfo.set(e.id + "/" + s.name, s);
      if (e.kind === "accumulate") {
        const tensor = e.retained ? tensorOfOutput.get(e.id + "/" + (e.output_nr || 0)) : leafOfAcc.get(e.id);
        if (tensor && !grads.has(tensor)) grads.set(tensor, e.before);
      }
    }
    let current = null;
    for (const e of TRACE.events) {
      if (e.step >= step) break;
      current = e;
      if (e.kind === "node" || e.kind === "accumulate") ran.add(e.id);
      if (e.kind === "free") freed.set(e.id, e.step);
      if (e.kind === "accumulate") {
        const tensor = e.retained ? tensorOfOutput.get(e.id + "/" + (e.output_nr || 0)) : leafOfAcc.get(e.id);
        if (tensor) grads.set(tensor, e.after);
      }
      if (e.kind === "node") {
        e.edges.forEach((target, position) => {
          if (target && e.grad_inputs[position]) carried.set(target + ">" + e.id, { grad: e.grad_inputs[position], step: e.step });
        });
      }
    }
    return { step, grads, ran, freed, carried, current, freeInfo };
  }

  function shortValue(s) {
    if (!s) return "None";
    if (s.values !== undefined && s.numel <= 6) {
      const flat = [].concat(...[s.values].flat(Infinity).map((v) => [v]));
      const text = flat.map(shortNumber).join(", ");
      return s.shape.length ? "[" + text + "]" : text;
    }
    if (s.min !== undefined) return "[" + shortNumber(s.min) + " \u2026 " + shortNumber(s.max) + "]";
    return "[]";
  }

  function shortNumber(v) {
    if (typeof v === "string") return v;
    if (v !== v) return "nan";
    if (!isFinite(v)) return v > 0 ? "inf" : "-inf";
    if (v === Math.trunc(v) && Math.abs(v) < 1e6) return v + ".";
    return Number(v.toPrecision(4)).toString();
  }

  function describeEvent(e) {
    if (e.kind === "node") {
      return "step " + e.step + ": " + e.node + " ran: got " + e.grad_outputs.map(shortValue).join(", ") +
        ", sent " + e.grad_inputs.map(shortValue).join(", ");
    }
    if (e.kind === "accumulate") {
      const tensor = e.retained ? tensorOfOutput.get(e.id + "/" + (e.output_nr || 0)) : leafOfAcc.get(e.id);
      const name = tensor && NODES.get(tensor) ? (NODES.get(tensor).name || "tensor") : "tensor";
      return "step " + e.step + ": " + name + ".grad " + (e.retained ? "(retained) " : "") + shortValue(e.before) + " \u2192 " + shortValue(e.after);
    }
    if (e.kind === "hook") {
      return "step " + e.step + ": " + e.hook.kind + " " + e.hook.fn + " on " + e.node +
        (e.replaced ? " replaced the grad with " + (e.returned || []).map(shortValue).join(", ") : " returned None");
    }
    if (e.kind === "free") return "step " + e.step + ": " + e.node + " freed " + e.saved.map((s) => s.name).join(", ") + " (" + bytes(e.bytes) + ")";
    return "step " + e.step + ": " + e.kind;
  }

  function applyReplay() {
    if (!TRACE) return;
    const state = replayState();
    const atEnd = step >= TRACE.events.length;
    for (const [id, item] of unitElements) {
      const unit = item.unit;
      let ran = false;
      if (unit.kind === "group") {
        for (const n of MODEL.nodes) if (shown.unitOf.get(n.id) === id && state.ran.has(n.id)) { ran = true; break; }
      } else ran = state.ran.has(id) || (unit.kind === "tensor");
      item.g.classList.toggle("pending", !atEnd && !ran);
      item.g.classList.toggle("current", !!state.current && (state.current.id === id || shown.unitOf.get(state.current.id) === id) && !atEnd);
      if (unit.kind === "tensor" && unit.node) {
        const grad = state.grads.has(id) ? state.grads.get(id) : unit.node.grad;
        unit.label.forEach((line, number) => {
          if (line.startsWith("grad ")) {
            item.texts[number].textContent = clip("grad " + shortValue(grad));
          }
        });
      }
    }
    for (const { edge, path, text } of edgeElements) {
      const carried = state.carried.get(edge.model_from + ">" + edge.model_to);
      const isCurrent = carried && state.current && carried.step === state.current.step;
      path.classList.toggle("carried", !!carried);
      path.classList.toggle("fresh", !!isCurrent);
      text.textContent = carried && carried.grad.numel <= 6 ? shortValue(carried.grad) : "";
      text.classList.toggle("fresh", !!isCurrent);
    }
    document.getElementById("lg-step").textContent = "step " + step + " / " + TRACE.events.length;
    document.getElementById("lg-event").textContent = state.current ? describeEvent(state.current) : "before backward: press \u25b6 to run it step by step";
    document.getElementById("lg-slider").value = step;
    const list = document.getElementById("lg-events");
    list.querySelectorAll("li").forEach((li) => li.classList.toggle("done", Number(li.getAttribute("data-step")) < step));
    const active = list.querySelector('li[data-step="' + (step - 1) + '"]');
    list.querySelectorAll("li.active").forEach((li) => li.classList.remove("active"));
    if (active) { active.classList.add("active"); active.scrollIntoView({ block: "nearest" }); }
    if (selected) showDetails(selected);
  }

  function setStep(value) {
    step = Math.max(0, Math.min(TRACE.events.length, value));
    applyReplay();
  }

  let timer = null;
  function play() {
    const button = document.getElementById("lg-play");
    if (timer) { clearInterval(timer); timer = null; button.textContent = "\u25b6 play"; return; }
    if (step >= TRACE.events.length) setStep(0);
    button.textContent = "\u23f8 pause";
    timer = setInterval(() => {
      if (step >= TRACE.events.length) { play(); return; }
      setStep(step + 1);
    }, 900);
  }

  function setupReplay() {
    const bar = document.getElementById("lg-replay");
    if (!TRACE) { bar.style.display = "none"; return; }
    document.getElementById("lg-first").addEventListener("click", () => setStep(0));
    document.getElementById("lg-prev").addEventListener("click", () => setStep(step - 1));
    document.getElementById("lg-next").addEventListener("click", () => setStep(step + 1));
    document.getElementById("lg-last").addEventListener("click", () => setStep(TRACE.events.length));
    document.getElementById("lg-play").addEventListener("click", play);
    const slider = document.getElementById("lg-slider");
    slider.max = TRACE.events.length;
    slider.addEventListener("input", () => setStep(Number(slider.value)));
    const list = document.getElementById("lg-events");
    for (const e of TRACE.events) {
      const li = document.createElement("li");
      li.setAttribute("data-step", e.step);
      li.className = "lg-ev " + e.kind;
      li.textContent = describeEvent(e);
      li.addEventListener("click", () => { setStep(e.step + 1); if (e.id) reveal(e.id); });
      list.appendChild(li);
    }
    window.addEventListener("keydown", (event) => {
      if (event.target === search) return;
      if (event.key === "ArrowRight") setStep(step + 1);
      if (event.key === "ArrowLeft") setStep(step - 1);
    });
  }

  // ---------------------------------------------------------------- toolbar
  document.getElementById("lg-fit").addEventListener("click", fit);
  document.getElementById("lg-zoom-in").addEventListener("click", () => { const r = svg.getBoundingClientRect(); zoomAt(1.25, r.width / 2, r.height / 2); });
  document.getElementById("lg-zoom-out").addEventListener("click", () => { const r = svg.getBoundingClientRect(); zoomAt(0.8, r.width / 2, r.height / 2); });
  document.getElementById("lg-expand").addEventListener("click", () => { expanded = new Set(MODEL.groups.map((g) => g.id)); render(); fit(); });
  document.getElementById("lg-collapse").addEventListener("click", () => { expanded = new Set(); render(); fit(); });

  // what the browser test and curious users can call
  window.leafgrad = {
    layout, nodeSize, visible, select, reveal, setStep, toggleGroup,
    visibleLayout: () => { const v = visible(expanded); return { nodes: v.layout.nodes, edges: v.layout.edges }; },
    expandedGroups: () => Array.from(expanded),
    steps: () => (TRACE ? TRACE.events.length : 0),
  };

  setupReplay();
  render();
  fit();
  showDetails(null);
  document.body.setAttribute("data-ready", "1");
})();
