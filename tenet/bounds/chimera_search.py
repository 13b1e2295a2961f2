"""Chimera's choice of tiles: the closed form of the paper for a pair of matrix products
(`closed_form_tiles`), and the exhaustive search for the least DV within a capacity over
every order the model accepts and every integer tiling (`search`; docs/chimera.md says why
its reductions lose nothing).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from math import factorial, isqrt, prod
from typing import Any

from tenet.bounds.chimera_model import (
    ChimeraOp,
    ChimeraTensor,
    algorithm1_reloads,
    chain_loops,
    chain_sizes,
    check_model,
    evaluate_order,
    held_tensors,
    illegal_pair,
    least_memory_use,
    op_views,
    reload_loops,
    tensor_size,
    tensor_users,
    trips,
)
from tenet.errors import InputError

# --------------------------------------------------------------------------- closed form


def gemm_pair_roles(ops: Sequence[ChimeraOp]) -> dict[str, Any]:
    """For `X = A*B; E = X*D`: batch loops (in every tensor) and the loops m (A, X, E),
    k (A, B), l (B, X, D), n (D, E); an InputError for any other chain."""
    bad = InputError(
        "the closed form needs a chain of two matrix products X = A*B, E = X*D with one loop "
        "each for m (A, X, E), k (A, B), l (B, X, D) and n (D, E), plus any batch loops",
        ops[0].source if ops else None,
        "einsums",
    )
    if len(ops) != 2 or any(len(op.inputs) != 2 for op in ops):
        raise bad
    first, second = ops
    (a, b), x = first.inputs, first.output
    d = next(t for t in second.inputs if t.name != x.name)
    e = second.output
    tensors = (a, b, x, d, e)
    pattern = {
        "m": {"A", "X", "E"},
        "k": {"A", "B"},
        "l": {"B", "X", "D"},
        "n": {"D", "E"},
        "batch": {"A", "B", "X", "D", "E"},
    }
    found: dict[str, list[str]] = {role: [] for role in pattern}
    for r in chain_loops(ops):
        where = {label for label, t in zip("ABXDE", tensors) if r in t.ranks}
        role = next((role for role, s in pattern.items() if s == where), None)
        if role is None:
            raise bad
        found[role].append(r)
    if any(len(found[role]) != 1 for role in "mkln"):
        raise bad
    return {"batch": found["batch"], **{role: found[role][0] for role in "mkln"}}


def closed_form_tiles(
    ops: Sequence[ChimeraOp], capacity: int, alpha: int = 1, model: str = "paper"
) -> dict[str, Any]:
    """The paper's solution for two matrix products in order (batch) m l k n: T_K = T_N =
    alpha (the smallest tile of the private loops), T_M = T_L = floor(-a + sqrt(a^2 + MC))
    with a = alpha, the largest T with T^2 + 2aT <= MC; a loop shorter than T is taken
    whole and the other grows to fill the capacity. Returns `evaluate_order`'s result
    under `model`."""
    model = check_model(model)
    roles = gemm_pair_roles(ops)
    sizes = chain_sizes(ops)
    _check_capacity(capacity)
    if isinstance(alpha, bool) or not isinstance(alpha, int) or alpha < 1:
        raise InputError(f"alpha must be a positive integer, got {alpha!r}", None, "alpha")
    m, k, l, n = (roles[r] for r in "mkln")
    tk, tn = min(alpha, sizes[k]), min(alpha, sizes[n])
    a = max(tk, tn)
    side = isqrt(a * a + capacity) - a
    if side < 1:
        raise InputError(
            f"capacity {capacity} is below {1 + 2 * a}, the memory use of 1 x 1 tiles of m and l "
            f"with T_K = T_N = {a}",
            option="capacity",
        )
    tm, tl = min(side, sizes[m]), min(side, sizes[l])

    def grow(fixed: int, limit: int) -> int:
        # largest t with fixed*tk + tk*t + fixed*t <= C and fixed*t + t*tn + fixed*tn <= C
        return min(
            limit, (capacity - fixed * tk) // (tk + fixed), (capacity - fixed * tn) // (fixed + tn)
        )

    if tm < side:
        tl = grow(tm, sizes[l])
    elif tl < side:
        tm = grow(tl, sizes[m])
    tiles = {r: 1 for r in roles["batch"]} | {m: tm, l: tl, k: tk, n: tn}
    result = evaluate_order(ops, [*roles["batch"], m, l, k, n], tiles, model)
    result["alpha"] = alpha
    return result


# --------------------------------------------------------------------------- search


def _check_capacity(capacity: object) -> None:
    if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
        raise InputError(
            f"capacity must be a positive number of words, got {capacity!r}", option="capacity"
        )


def tile_candidates(size: int, perfect: bool = False) -> list[int]:
    """The smallest tile of each reachable trip count: {ceil(S/n) : 1 <= n <= S}, ascending.
    Any other tile has the trip count of a smaller candidate, so it is never better. With
    `perfect`, only the divisors of S (Orojenesis's perfect factors)."""
    if perfect:
        small = [d for d in range(1, isqrt(size) + 1) if size % d == 0]
        return sorted(set(small + [size // d for d in small]))
    values, trip = set(), 1
    while trip <= size:
        tile = -(-size // trip)
        values.add(tile)
        # next trip count with a smaller tile: the least n with ceil(S/n) < tile
        trip = -(-size // (tile - 1)) if tile > 1 else size + 1
    return sorted(values)


#: Most (whole loops, order) pairs the exhaustive search looks at (9 loops for the paper's
#: and the producer-rerun model, 7 for the strict one).
MAX_CANDIDATE_ORDERS = 1_000_000


@dataclass(frozen=True)
class OrderClass:
    """A class of (order, tiling) pairs: the loops with one trip (`full`), the reload loops
    of each moved tensor (which fix DV as a function of the tiles) and the tensors held
    across each operator (which, with the tiles, fix MU)."""

    full: frozenset[str]
    reloads: tuple[frozenset[str], ...]
    held: tuple[frozenset[str], ...]
    order: tuple[str, ...]

    def dominates(self, other: OrderClass) -> bool:
        return (
            self.full <= other.full
            and all(a <= b for a, b in zip(self.reloads, other.reloads))
            and all(a <= b for a, b in zip(self.held, other.held))
        )


def _moved(ops: Sequence[ChimeraOp]) -> list[tuple[int, ChimeraTensor]]:
    return [(i, t) for i, op in enumerate(ops) for t in op.tensors if t.moved]


def _candidate_orders(
    loops: list[str], model: str
) -> Iterator[tuple[tuple[str, ...], tuple[str, ...]]]:
    """(loops with one trip, order). For "paper" and "producer-rerun", whole loops outermost
    suffice: DV and MU do not depend on where a one-trip loop sits except through which loop
    is a tensor's innermost indexing loop, and moved out it stops being one, which can only
    cut reloads. Strict: where a whole loop sits also decides what is held, so every order."""
    for count in range(len(loops) + 1):
        for full in itertools.combinations(loops, count):
            if model != "strict":
                rest = [r for r in loops if r not in full]
                for perm in itertools.permutations(rest):
                    yield full, (*full, *perm)
            else:
                for order in itertools.permutations(loops):
                    yield full, order


def order_classes(ops: Sequence[ChimeraOp], model: str = "paper") -> tuple[list[OrderClass], int]:
    """The non-dominated classes of (order, tiling) pairs the model accepts, and how many
    (whole loops, order) pairs it accepts ("paper" accepts them all). The other loops of a
    class may still be whole: that evaluates another pair exactly for DV and conservatively
    for MU (held as if they had trips)."""
    model = check_model(model)
    loops = chain_loops(ops)
    count = len(loops)
    candidates = (
        sum(factorial(count) // factorial(k) for k in range(count + 1))
        if model != "strict"
        else 2**count * factorial(count)
    )
    if candidates > MAX_CANDIDATE_ORDERS:
        raise InputError(
            f"{count} loops give {candidates:,} candidate orders, more than the exhaustive "
            f"search takes ({MAX_CANDIDATE_ORDERS:,}); evaluate chosen orders instead",
            ops[0].source,
            "einsums",
        )
    moved = _moved(ops)
    classes: dict[tuple, OrderClass] = {}
    examined = 0
    for full, order in _candidate_orders(loops, model):
        n = {r: (1 if r in full else 2) for r in loops}
        if model != "paper" and illegal_pair(ops, order, n) is not None:
            continue
        examined += 1
        views = op_views(ops, order)
        if model == "paper":
            reloads = tuple(
                frozenset(algorithm1_reloads(views[i], ops[i], t)) - frozenset(full)
                for i, t in moved
            )
        else:
            reloads = tuple(
                frozenset(reload_loops(views[i], t)) - frozenset(full) for i, t in moved
            )
        if model == "strict":
            held = tuple(frozenset(t.name for t in h) for h in held_tensors(ops, order, n))
        else:
            held = tuple(frozenset() for _ in ops)
        key = (frozenset(full), reloads, held)
        classes.setdefault(key, OrderClass(frozenset(full), reloads, held, order))
    values = list(classes.values())
    kept = [
        s
        for s in values
        if not any(o is not s and o.dominates(s) and not s.dominates(o) for o in values)
    ]
    return kept, examined


class _TileSearch:
    """Least DV within the capacity for one class, over all integer tiles. Each free loop
    (a reload loop of some tensor) takes the smallest tile of each trip count; the last one
    is not enumerated but taken from the largest tile that fits downwards, while a lower
    bound on DV can still match the best. The other loops take tile 1 (or their whole size
    when the class has them whole)."""

    def __init__(
        self,
        ops: Sequence[ChimeraOp],
        cls: OrderClass,
        capacity: int,
        model: str,
        perfect: bool,
        bound: int | None = None,
    ):
        self.capacity, self.perfect, self.bound = capacity, perfect, bound
        self.sizes = chain_sizes(ops)
        users = tensor_users(ops)
        rmw = model == "strict"
        # DV = offset + sum of coefficient * prod(t_r * n_r, r in padded) * prod(n_r, reloads)
        self.terms: list[tuple[int, tuple[str, ...], tuple[str, ...]]] = []
        self.offset = 0
        for (i, t), reload in zip(_moved(ops), cls.reloads):
            reload_key = tuple(sorted(reload))
            if model == "paper":  # the tile as given, times the trips of its own ranks
                self.terms.append((1, t.ranks, reload_key))
                continue
            size = tensor_size(t, self.sizes)
            output = rmw and t is ops[i].output
            self.terms.append((2 * size if output else size, (), reload_key))
            self.offset -= size if output else 0
        # per operator: the rank tuples of the tiles on chip while it runs
        self.tiles_on_chip = [
            [t.ranks for t in op.tensors] + [users[name][0].ranks for name in held]
            for op, held in zip(ops, cls.held)
        ]
        free = sorted({r for *_, rs in self.terms for r in rs}, key=chain_loops(ops).index)
        self.candidates = {r: tile_candidates(self.sizes[r], perfect) for r in free}
        free.sort(key=lambda r: len(self.candidates[r]))
        self.enumerated, self.solved = free[:-1], (free[-1] if free else None)
        self.base = {r: (self.sizes[r] if r in cls.full else 1) for r in self.sizes}
        self.evaluated = 0
        self.best: tuple[int, int, dict[str, int]] | None = None

    def dv(self, tiles: Mapping[str, int], unpadded: str | None = None) -> int:
        """DV at `tiles`; with `unpadded`, that loop's tile times its trips is taken as its
        size (a lower bound, exact when the tile divides the loop)."""
        n = trips(self.sizes, tiles)
        padded = {r: tiles[r] * n[r] for r in self.sizes}
        if unpadded is not None:
            padded[unpadded] = self.sizes[unpadded]
        return self.offset + sum(
            c * prod(padded[r] for r in ranks) * prod(n[r] for r in rs)
            for c, ranks, rs in self.terms
        )

    def least_dv(self, tiles: Mapping[str, int], open_loops: Sequence[str]) -> int:
        """A lower bound on DV: the loops still open taken whole (one trip, no padding)."""
        return self.dv({**tiles, **{r: self.sizes[r] for r in open_loops}})

    def mu(self, tiles: Mapping[str, int]) -> int:
        return max(sum(prod(tiles[r] for r in ranks) for ranks in op) for op in self.tiles_on_chip)

    def largest_tile(self, tiles: dict[str, int], r: str) -> int:
        """Largest t_r <= S_r with MU <= capacity, the other tiles fixed (0 if none fits):
        each operator's MU is linear in t_r."""
        best = self.sizes[r]
        for op in self.tiles_on_chip:
            fixed = slope = 0
            for ranks in op:
                rest = prod(tiles[q] for q in ranks if q != r)
                if r in ranks:
                    slope += rest
                else:
                    fixed += rest
            if slope:
                best = min(best, (self.capacity - fixed) // slope)
            elif fixed > self.capacity:
                return 0
        return max(best, 0)

    def run(self) -> tuple[int, int, dict[str, int]] | None:
        tiles = dict(self.base)
        if self.mu(tiles) <= self.capacity:
            self._enumerate(tiles, 0)
        return self.best

    def _offer(self, tiles: dict[str, int]) -> None:
        self.evaluated += 1
        dv, mu = self.dv(tiles), self.mu(tiles)
        if mu <= self.capacity and (self.best is None or (dv, mu) < self.best[:2]):
            self.best = (dv, mu, dict(tiles))

    def _solve(self, tiles: dict[str, int]) -> None:
        """The last free loop: its candidates that fit, largest first. Its trip count only
        rises on the way down, so once DV with its padding left out exceeds the best, no
        smaller tile can match it. (Without padding, as in producer-rerun and strict or with
        divisor tiles, the first candidate is the only one that can win.)"""
        r = self.solved
        assert r is not None
        largest = self.largest_tile(tiles, r)
        for t in reversed(self.candidates[r]):
            if t > largest:
                continue
            tiles[r] = t
            bound = self.best[0] if self.best is not None else self.bound
            if bound is not None and self.dv(tiles, unpadded=r) > bound:
                break
            self._offer(tiles)
        tiles[r] = self.base[r]

    def _enumerate(self, tiles: dict[str, int], depth: int) -> None:
        if depth == len(self.enumerated):
            if self.solved is None:
                self._offer(tiles)
            else:
                self._solve(tiles)
            return
        r = self.enumerated[depth]
        later = [*self.enumerated[depth + 1 :], *([self.solved] if self.solved else [])]
        for t in self.candidates[r]:
            tiles[r] = t
            if self.mu(tiles) > self.capacity:
                break  # larger tiles only use more memory
            bound = self.best[0] if self.best is not None else self.bound
            if bound is not None and self.least_dv(tiles, later) > bound:
                continue  # even whole tiles for the loops still open do not beat the best
            self._enumerate(tiles, depth + 1)
        tiles[r] = self.base[r]


def search(
    ops: Sequence[ChimeraOp],
    capacity: int,
    progress: Callable[[int, int], None] | None = None,
    model: str = "paper",
    perfect: bool = False,
) -> dict[str, Any]:
    """The least DV, then the least MU, over every block order the model accepts and every
    integer tiling with MU <= capacity. "paper": Algorithm 1's DV and MU over every order;
    "producer-rerun": its DV and MU over the orders that hand over complete tiles; "strict":
    `dv_rmw` within `mu_live` over those orders. `perfect` restricts tiles to divisors of the
    loop sizes. `best` is `evaluate_order`'s result under the model."""
    _check_capacity(capacity)
    model = check_model(model)
    classes, examined = order_classes(ops, model)
    best: tuple[int, int, dict[str, int], tuple[str, ...]] | None = None
    evaluated = 0
    for done, cls in enumerate(classes, 1):
        finder = _TileSearch(ops, cls, capacity, model, perfect, best[0] if best else None)
        found = finder.run()
        evaluated += finder.evaluated
        if found is not None and (best is None or found[:2] < best[:2]):
            best = (*found, cls.order)
        if progress:
            progress(done, len(classes))
    if best is None:
        kind = "order" if model == "paper" else "legal order"
        raise InputError(
            f"no {kind} and tiling fits in {capacity} words (tiles of 1 need at least "
            f"{least_memory_use(ops)})",
            ops[0].source,
            option="capacity",
        )
    out: dict[str, Any] = {
        "capacity": capacity,
        "model": model,
        "perfect": perfect,
        "best": evaluate_order(ops, list(best[3]), best[2], model),
        "evaluated": evaluated,
        "orders": examined,
        "classes": len(classes),
    }
    try:
        out["closed_form"] = closed_form_tiles(ops, capacity, model=model)
    except InputError:
        pass  # not a pair of matrix products, or too small a capacity for the closed form
    return out
