"""Keeping a big graph readable: long chains folded, and a bound on what is drawn.

A chain is a run of backward functions each feeding exactly one other, which has no other parent
(`x = torch.sin(x)` fifty times). Its first and last functions are drawn; the ones between become one
dashed box listing their types, and what they sent gradients to besides the chain (a weight used at
every step, inputs without gradient) hangs from that box with a count. A function the caller named,
or one whose saved tensors are unusable, always stays drawn.
"""
from __future__ import annotations

from collections import Counter

from .walk import Edge, Graph, Node


def _plain(node: Node) -> bool:
    return node.kind == "function" and not node.named and node.problem is None


def fold_chains(graph: Graph, longest: int) -> Graph:
    """Fold every chain of more than `longest` functions (0: fold nothing)."""
    if longest <= 0:
        return graph
    children, parents = graph.children(), graph.parents()

    def link(node: Node) -> Node | None:
        """The next function of a chain through `node`, if there is one."""
        if node.kind != "function":
            return None
        onward = [e for e in children[node.index] if e.child.kind == "function"]
        if len(onward) != 1 or onward[0].count != 1:
            return None
        nxt = onward[0].child
        into = parents[nxt.index]
        return nxt if len(into) == 1 and into[0].count == 1 else None

    has_link_in = {nxt.index for node in graph.nodes if (nxt := link(node)) is not None}
    dropped: set[int] = set()
    new_nodes: list[Node] = []
    new_edges: list[Edge] = []
    next_index = max(n.index for n in graph.nodes) + 1
    for start in graph.nodes:
        if start.index in has_link_in or link(start) is None:
            continue
        chain = [start]
        while (nxt := link(chain[-1])) is not None:
            chain.append(nxt)
        # The inner stretch: plain functions strictly between the drawn first and last.
        inner = chain[1:-1]
        runs: list[list[Node]] = [[]]
        for node in inner:
            if _plain(node):
                runs[-1].append(node)
            elif runs[-1]:
                runs.append([])
        for run in runs:
            if len(run) + 2 <= longest or len(run) < 2:
                continue
            fold = Node(next_index, "fold", folded=[n.type_name for n in run])
            next_index += 1
            new_nodes.append(fold)
            members = {n.index for n in run}
            dropped |= members
            before = parents[run[0].index][0].parent
            after = link(run[-1])
            assert after is not None
            new_edges += [Edge(before, fold), Edge(fold, after)]
            side: dict[int, Edge] = {}
            nothing = 0
            for node in run:
                for edge in children[node.index]:
                    if edge.child is after or edge.child.index in members:
                        continue
                    if edge.child.kind == "none":
                        dropped.add(edge.child.index)
                        nothing += edge.count
                    elif edge.child.index in side:
                        side[edge.child.index].count += edge.count
                    else:
                        side[edge.child.index] = Edge(fold, edge.child, edge.count)
            new_edges += list(side.values())
            if nothing:
                stop = Node(next_index, "none")
                next_index += 1
                new_nodes.append(stop)
                new_edges.append(Edge(fold, stop, nothing))
    if not dropped:
        return graph
    nodes = [n for n in graph.nodes if n.index not in dropped] + new_nodes
    edges = [e for e in graph.edges if e.parent.index not in dropped and e.child.index not in dropped]
    return Graph(graph.roots, sorted(nodes, key=_drawing_order(nodes, edges, graph.roots)), edges + new_edges)


def _drawing_order(nodes: list[Node], edges: list[Edge], roots: list[Node]):
    """Breadth first from the roots again, so a fold sits where its chain was."""
    children: dict[int, list[Node]] = {}
    for edge in edges:
        children.setdefault(edge.parent.index, []).append(edge.child)
    order: dict[int, int] = {}
    queue = list(roots)
    for node in queue:
        if node.index in order:
            continue
        order[node.index] = len(order)
        queue += children.get(node.index, [])
    return lambda node: order.get(node.index, len(order) + node.index)


def cut(graph: Graph, most: int) -> Graph:
    """Draw at most `most` nodes, the first ones backward meets; what lies beyond is counted in one
    box that every cut arrow points to."""
    if most <= 0 or len(graph.nodes) <= most:
        return graph
    kept = graph.nodes[:most]
    keep = {n.index for n in kept}
    beyond = [n for n in graph.nodes if n.index not in keep]
    functions = sum(len(n.folded) if n.kind == "fold" else 1 for n in beyond if n.kind in ("function", "fold"))
    leaves = sum(1 for n in beyond if n.kind == "leaf")
    box = Node(max(n.index for n in graph.nodes) + 1, "cut", cut=(functions, leaves))
    edges, reaching = [], Counter()
    for edge in graph.edges:
        if edge.parent.index in keep and edge.child.index in keep:
            edges.append(edge)
        elif edge.parent.index in keep:
            reaching[edge.parent.index] += 1
    by_index = {n.index: n for n in kept}
    edges += [Edge(by_index[i], box) for i in reaching]
    return Graph(graph.roots, kept + [box], edges)
