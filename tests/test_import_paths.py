"""The old import paths of split or renamed modules keep giving the same objects
(docs/architecture.md, "Names")."""

from __future__ import annotations

import importlib

import pytest

# old module -> {name: the module that defines it now}
MOVED = {
    "tenet.model.metrics": {
        **dict.fromkeys(
            [
                "compute_delay",
                "transfer_delay",
                "latency",
                "schedule_delay",
                "overlapped_delay",
                "utilization",
                "avg_active_pes",
                "reuse_factor",
                "per_cycle",
                "energy",
                "ratio",
                "fold",
            ],
            "tenet.model.formulas",
        ),
        **dict.fromkeys(
            [
                "TENSOR_FIELDS",
                "SCHEDULE_TIME_KEYS",
                "Accesses",
                "Volumes",
                "Analysis",
                "SideVolumes",
                "CostTotals",
                "LevelTotal",
                "Totals",
                "ScheduleTotals",
                "arch_constants",
            ],
            "tenet.model.results",
        ),
        **dict.fromkeys(
            [
                "links_for",
                "count_volumes",
                "tensor_volumes",
                "crowded_stamps",
                "analyze_bound",
                "analyze",
            ],
            "tenet.model.counting",
        ),
    },
    "tenet.report.tables": {
        **dict.fromkeys(
            ["FULL_WIDTH", "fit_width", "repeat_columns", "render_tables", "fit_table"],
            "tenet.report.layout",
        ),
        **dict.fromkeys(
            ["SPACE_NAMES", "bounds_tables", "spaces_tables", "bound_table"],
            "tenet.report.bounds_tables",
        ),
    },
    "tenet.explore.layers": dict.fromkeys(("Layer", "Network"), "tenet.explore.network_spec"),
    "tenet.explore.evaluate": {
        "LoopRenaming": "tenet.explore.renaming",
        "shared_work": "tenet.explore.candidate_counts",
        "SharedWork": "tenet.explore.candidate_counts",
        "Beaten": "tenet.explore.prune",
        "dominated": "tenet.explore.prune",
    },
    "tenet.bounds.fusion_uneven": {
        **dict.fromkeys(
            [
                "FIRST",
                "LAST",
                "MIDDLE",
                "STREAM",
                "TOP",
                "Loop",
                "Mapping",
                "SegmentSpec",
                "Step",
                "Tile",
                "build_nest",
                "describe",
                "extent",
                "indexes",
                "keep",
                "live",
                "mapping_cost",
                "mapping_tiles",
                "peak",
                "place",
                "probes",
                "row_levels",
                "row_loops",
                "segment_spec",
                "steps_of",
                "tensor_dims",
                "total_traffic",
            ],
            "tenet.bounds.fusion_uneven.nest",
        ),
        "pair_front": "tenet.bounds.fusion_uneven.pair",
        "long_front": "tenet.bounds.fusion_uneven.long",
        **dict.fromkeys(
            ["segment_front", "lone_front", "uneven_front"], "tenet.bounds.fusion_uneven.fronts"
        ),
        **dict.fromkeys(
            ["chain_tensors", "product_floor", "chain_lower_bound", "monotone_floors"],
            "tenet.bounds.fusion_uneven.floor",
        ),
    },
    "tenet.bounds.snowcat": {
        **dict.fromkeys(
            [
                "BoundTensor",
                "Problem",
                "divisors",
                "pareto_front",
                "problem_from_einsum",
                "problem_from_workload",
            ],
            "tenet.bounds.problem",
        ),
        **dict.fromkeys(
            [
                "count_dtype",
                "least_order_accesses",
                "best_order",
                "mapspace_size",
                "snowcat_front",
                "snowcat_at",
            ],
            "tenet.bounds.snowcat_fast",
        ),
        **dict.fromkeys(
            [
                "word_count",
                "area_split",
                "area_constants",
                "fused_area_split",
                "bound_at_capacity",
                "hierarchy_report",
            ],
            "tenet.bounds.capacity",
        ),
    },
    "tenet.bounds.uneven": {
        **dict.fromkeys(
            [
                "Progress",
                "Chunks",
                "IMPERFECT_CHAIN_LIMIT",
                "SEARCH_ROW_LIMIT",
                "UnevenMapping",
                "split_chunks",
                "tensor_fetch",
                "mapping_cost",
                "uneven_text",
                "parse_mapping",
            ],
            "tenet.bounds.uneven_mapping",
        ),
        **dict.fromkeys(["chain_counts", "rank_chains"], "tenet.bounds.uneven_chains"),
        **dict.fromkeys(
            ["imperfect_tiles", "IMPERFECT_BLOCK_ROWS"], "tenet.bounds.uneven_imperfect"
        ),
    },
    "tenet.bounds.chimera": {
        **dict.fromkeys(
            [
                "ChimeraTensor",
                "ChimeraOp",
                "chimera_ops",
                "chain_loops",
                "chain_sizes",
                "format_order",
                "parse_order",
                "trips",
                "op_views",
                "enclosing_loops",
                "reload_loops",
                "tensor_users",
                "held_tensors",
                "tensor_size",
                "tile_words",
                "memory_use",
                "MODELS",
                "check_model",
                "illegal_pairs",
                "illegal_pair",
                "algorithm1_loops",
                "algorithm1_reloads",
                "evaluate_order",
                "algorithmic_minimum",
                "least_memory_use",
            ],
            "tenet.bounds.chimera_model",
        ),
        **dict.fromkeys(
            [
                "gemm_pair_roles",
                "closed_form_tiles",
                "tile_candidates",
                "MAX_CANDIDATE_ORDERS",
                "OrderClass",
                "order_classes",
                "search",
            ],
            "tenet.bounds.chimera_search",
        ),
    },
}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_old_module_gives_the_moved_objects(old):
    module = importlib.import_module(old)
    for name, new in MOVED[old].items():
        assert getattr(module, name) is getattr(importlib.import_module(new), name), name


def test_renamed_functions_keep_their_old_names():
    from tenet.explore import dse, evaluate, prune

    assert dse.emit is dse.write_dataflows
    assert dse.emit_network is dse.write_network_dataflows
    assert evaluate.BoundBasis is prune.FloorBasis
    assert evaluate.bound_values is prune.lower_bounds
    assert evaluate.signed_bounds is prune.signed_floors


def test_renamed_bounds_functions_keep_their_old_names():
    from tenet.bounds import fusion_uneven, snowcat
    from tenet.bounds.fusion_uneven import nest

    assert fusion_uneven.evaluate is nest.mapping_cost
    assert snowcat.evaluate is snowcat.mapping_front


def test_package_exports_analysis_and_analyze():
    import tenet
    from tenet.model import counting, results

    assert tenet.Analysis is results.Analysis
    assert tenet.analyze is counting.analyze
