"""The loop templates of a product in a fused segment and the named strategies that pick one
per position (Orojenesis's FFMT, FLAT-like, FlashAttention-like). Light to import."""

from __future__ import annotations

from tenet.errors import InputError

#: Loop templates of one product in a fused segment (outer loops at the backing store).
#:  Full: M1; TiledK: M1 > K1; TiledN: M1 > N1; TiledKN: M1 > N1 > K1; TiledNK: M1 > K1 > N1;
#:  FlashN: N1 > M1 (K untiled); FlashK: K1 > M1 (N untiled).
TEMPLATES = ("Full", "TiledK", "TiledN", "TiledKN", "TiledNK", "FlashN", "FlashK")


#: Named strategies: templates per position of the products of a segment of E products.
STRATEGIES = {
    "ffmt": "E=2: [TiledKN, TiledNK]; E>=3: [TiledKN, TiledK, Full..., TiledN]",
    "flat": "[TiledK, Full..., TiledN] (FLAT-like: whole rows of the intermediate on chip)",
    "flash": "[FlashN, Full..., FlashK] (FlashAttention-like: key/value slabs stay, rows stream)",
    "full": "[Full, ..., Full] (only the rows are tiled)",
}


def strategy_templates(strategy: str, count: int) -> list[str]:
    """Template of each of the `count` products of a fused segment."""
    if count < 2:
        raise ValueError("a fused segment has at least two products")
    if strategy == "ffmt":
        if count == 2:
            return ["TiledKN", "TiledNK"]
        return ["TiledKN", "TiledK"] + ["Full"] * (count - 3) + ["TiledN"]
    if strategy == "flat":
        return ["TiledK"] + ["Full"] * (count - 2) + ["TiledN"]
    if strategy == "flash":
        return ["FlashN"] + ["Full"] * (count - 2) + ["FlashK"]
    if strategy == "full":
        return ["Full"] * count
    raise InputError(
        f"unknown strategy {strategy!r} (choose from {', '.join(STRATEGIES)})",
        option="templates",
    )
