"""Brute-force reference for the cost model (docs/energy.md): the actions that
`tenet.model.cost.count_actions` counts with barvinok, counted here by enumerating every
(PE, step, element) triple of every tensor side and every pair of every link.

Written independently of `tenet.model.cost`'s counting; only the physics
(`hop_length`, `price`) and the arch's link order (`links_for`) are shared, so
analyze == simulate checks the counting.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from fractions import Fraction

import numpy as np

from tenet.model.arch import Arch
from tenet.model.cost import (
    AreaCounts,
    TensorActions,
    hop_length,
)
from tenet.model.metrics import Volumes, links_for


def _pitches(squared: np.ndarray) -> Fraction:
    """Σ √squared over an array of squared lengths (each rounded as `hop_length` does)."""
    out = Fraction(0)
    for value, times in Counter(squared.tolist()).items():
        out += times * hop_length(int(value))
    return out


class _Sides:
    """The triples of one tensor side as sorted keys (as `SideUse` orders them), and a
    lookup: does PE p hold the element of each triple at step s?"""

    def __init__(self, use, n_steps: int):
        self.use, self.n_steps = use, n_steps
        self.n_elements = max(len(use.elements), 1)
        self.keys = (use.pe * n_steps + use.step) * self.n_elements + use.element

    def held(self, pe: np.ndarray, step: np.ndarray, valid: np.ndarray) -> np.ndarray:
        candidate = (pe * self.n_steps + step) * self.n_elements + self.use.element
        found = np.zeros(len(self.keys), dtype=bool)
        where = np.nonzero(valid)[0]
        pos = np.searchsorted(self.keys, candidate[where])
        pos[pos == len(self.keys)] = 0
        found[where] = self.keys[pos] == candidate[where]
        return found


def _groups(table: np.ndarray, n_pes: int) -> tuple[np.ndarray, np.ndarray]:
    """Per PE id: the smallest member of its group (-1: none) and the group's size; a PE in
    some pair is a member of its own group whether or not the table lists (p, p)."""
    representative = np.full(n_pes, -1, dtype=np.int64)
    size = np.zeros(n_pes, dtype=np.int64)
    pairs = {tuple(pair) for pair in table.tolist()}
    pairs |= {(receiver, receiver) for receiver, _ in pairs}
    for receiver, sender in sorted(pairs):
        size[receiver] += 1
        if representative[receiver] < 0 or sender < representative[receiver]:
            representative[receiver] = sender
    return representative, size


def _pairs_by(table: np.ndarray, column: int, pe: np.ndarray):
    """For each triple's PE: the rows of `table` whose `column` is that PE, as slots
    (slot k holds each triple's k-th partner, or -1)."""
    order = np.argsort(table[:, column], kind="stable")
    keys, partners = table[order, column], table[order, 1 - column]
    starts = np.searchsorted(keys, pe, side="left")
    ends = np.searchsorted(keys, pe, side="right")
    for slot in range(int((ends - starts).max(initial=0))):
        has = starts + slot < ends
        yield np.where(has, partners[np.minimum(starts + slot, len(partners) - 1)], -1)


def _scan(run, arch: Arch, n: int, side: _Sides, onward: bool):
    """Per triple, over link n: (whether some partner holds the element within the
    link's window, the squared distance to the nearest such partner). The partners are
    the senders of the triple's PE (a receiver looking back: `onward` False) or its
    receivers (a sender looking forward: `onward` True)."""
    use, link = side.use, arch.links[n]
    n_steps = len(run.times)
    big = np.iinfo(np.int64).max
    best = np.full(len(side.keys), big, dtype=np.int64)
    column = 1 if onward else 0
    for partner in _pairs_by(run.links[n], column, use.pe):
        has = partner >= 0
        d2 = ((run.pes[use.pe] - run.pes[np.maximum(partner, 0)]) ** 2).sum(axis=1)
        for w in link.window:
            step = use.step + w if onward else use.step - w
            valid = has & (step >= 0) & (step < n_steps) & ~((partner == use.pe) & (w == 0))
            if link.kind == "multicast" and w == 0:
                # same step: only a smaller member supplies a larger one
                valid &= (use.pe < partner) if onward else (partner < use.pe)
            found = side.held(np.where(valid, partner, 0), step, valid)
            best = np.where(found, np.minimum(best, d2), best)
    return best < big, best


def _link_pass(run, arch: Arch, n: int, side: _Sides):
    """Per triple: whether link n can serve it, and the squared distance to its nearest
    sender that holds it."""
    return _scan(run, arch, n, side, onward=False)


def _onward(run, arch: Arch, n: int, side: _Sides):
    """Per triple: whether a receiver of link n takes it on (holds the element at the
    step the link's window allows after it), and the squared distance to the nearest one."""
    return _scan(run, arch, n, side, onward=True)


def exits_of(run, arch: Arch, tensor: str, use) -> np.ndarray:
    """Write side: the triples nothing takes on (not the PE's next step, no link), and for an
    element with none of those, its last triple."""
    side = _Sides(use, len(run.times))
    onward = side.held(use.pe, use.step + 1, use.step + 1 < len(run.times))
    for n in links_for(arch, tensor, "write"):
        onward |= _onward(run, arch, n, side)[0]
    left = ~onward
    # an element every triple of which is taken on (a same-step cycle) leaves from its
    # triple at the largest (step, PE)
    missing = np.setdiff1d(use.element, use.element[left])
    if len(missing):
        lost = np.flatnonzero(np.isin(use.element, missing))
        order = lost[np.lexsort((use.pe[lost], use.step[lost], use.element[lost]))]
        last = np.ones(len(order), dtype=bool)
        last[:-1] = use.element[order][1:] != use.element[order][:-1]
        left[order[last]] = True
    return left


def read_back_of(run, arch: Arch, tensor: str, use) -> int:
    """Write side: exits − distinct elements written."""
    return int(np.count_nonzero(exits_of(run, arch, tensor, use))) - len(use.elements)


def _is_tree(link, table: np.ndarray, n_pes: int) -> bool:
    """A forwarding link for writes on which some receiver has several senders and every
    sender one receiver."""
    per_receiver = np.bincount(table[:, 0], minlength=n_pes)
    per_sender = np.bincount(table[:, 1], minlength=n_pes)
    return (
        link.kind == "forward"
        and link.access != "read"
        and bool((per_receiver > 1).any())
        and bool((per_sender <= 1).all())
    )


def side_actions(
    run, arch: Arch, tensor: str, side: str, use, read_too: bool = False
) -> TensorActions:
    """The actions of one tensor side, by enumeration (`read_too`: the workload also reads
    the tensor, so its accumulations' reads are its read side's)."""
    sides = _Sides(use, len(run.times))
    # pitches from the edge at p_0 = -1 (none for a PE outside the array)
    first_index = np.where(run.in_array, np.maximum(run.pes[:, 0] + 1, 0), 0)
    remaining = ~use.own & ~use.forced  # a starved same-step group's fetch: no link
    acts = TensorActions()
    for n in links_for(arch, tensor, side):
        link, table = arch.links[n], run.links[n]
        served, squared = _link_pass(run, arch, n, sides)
        delivered = remaining & served
        remaining &= ~served
        carried = int(np.count_nonzero(delivered))
        if side == "write" and _is_tree(link, table, len(run.pes)):
            sent, squared = _onward(run, arch, n, sides)
            acts = acts + TensorActions(
                link_register_writes=int(np.count_nonzero(sent)),
                adds=int(np.count_nonzero(sent)),
                forward_pitches=_pitches(squared[sent]),
                register_read_outs=int(np.count_nonzero(sent)),  # read out of the child
            )
        elif not carried:
            continue
        elif link.kind == "multicast":
            representative, size = _groups(table, len(run.pes))
            reps = representative[use.pe[delivered]]
            events = np.unique(
                np.stack([reps, use.step[delivered], use.element[delivered]], axis=1), axis=0
            )
            acts = acts + TensorActions(
                link_register_writes=carried,
                bus_pitches=Fraction(int(size[events[:, 0]].sum())),
                register_read_outs=carried if side == "write" else 0,
            )
        else:
            acts = acts + TensorActions(
                link_register_writes=carried,
                forward_pitches=_pitches(squared[delivered]),
                register_read_outs=carried if side == "write" else 0,
            )
    if side == "read":
        remaining = remaining | use.forced
        n_unique = int(np.count_nonzero(remaining))
        return acts + TensorActions(
            register_reads=use.total,
            register_writes=n_unique,
            scratchpad_read_words=n_unique,
            distribution_pitches=Fraction(int(first_index[use.pe[remaining]].sum())),
        )
    left = exits_of(run, arch, tensor, use)
    n_exits = int(np.count_nonzero(left))
    back = n_exits - len(use.elements)
    # Each element's last exit: its exit triple at the largest (step, PE).
    order = np.lexsort((use.pe[left], use.step[left], use.element[left]))
    elements = use.element[left][order]
    last = np.ones(len(order), dtype=bool)
    last[:-1] = elements[1:] != elements[:-1]
    pitches = first_index[use.pe[left]]
    distance = 2 * int(pitches.sum()) - int(pitches[order][last].sum())
    return acts + TensorActions(
        register_writes=use.total + back,
        scratchpad_read_words=back,
        scratchpad_write_words=n_exits,
        read_back_words=back,
        distribution_pitches=Fraction(distance),
        # every write but an element's first reads the partial sum it adds to
        accumulator_reads=0 if read_too else use.total - len(use.elements),
        register_read_outs=n_exits,  # each exit leaves a PE register for the scratchpad
    )


def area_counts_by_enumeration(run, arch: Arch) -> AreaCounts:
    pairs = groups = receivers = 0
    for link, table in zip(arch.links, run.links):
        if link.kind == "multicast":
            representative, _ = _groups(table, len(run.pes))
            groups += len(np.unique(representative[representative >= 0]))
        else:
            pairs += len(table)
            if _is_tree(link, table, len(run.pes)):
                receivers += len(np.unique(table[:, 0]))
    pes = int(np.count_nonzero(run.in_array))
    return AreaCounts(pes, pairs, groups, receivers, arch.macs_per_pe)


def simulate_actions(
    run,
    arch: Arch,
    uses: Mapping[tuple[str, str], object],
    volumes: Mapping[str, Mapping[str, Volumes | None]],
) -> dict[str, TensorActions]:
    """The actions of a simulated run per tensor (`uses`: the SideUse of every tensor
    side), which `tenet.model.assemble` prices as the engine's."""
    actions: dict[str, TensorActions] = {}
    for tensor, sides in volumes.items():
        acts = TensorActions()
        for side, v in sides.items():
            if v is not None:
                read_too = sides.get("read") is not None
                acts = acts + side_actions(run, arch, tensor, side, uses[(tensor, side)], read_too)
        actions[tensor] = acts
    return actions
