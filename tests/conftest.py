"""Shared fixtures: paths to the repo's presets and to TENET's published inputs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARCHS = ROOT / "archs"
WORKLOADS = ROOT / "workloads"
# TENET's published inputs; TENET_DATA_DIR points elsewhere (a missing folder simulates a
# plain clone). Only the comparisons with the published numbers need them: everything else
# runs on our own TENET-format files in examples/tenet.
TENET_DATA = Path(os.environ.get("TENET_DATA_DIR") or ROOT.parent / "shared" / "tenet-data")


#: The comparison with TENET's published numbers is an optional extra: without the data it is
#: not collected at all (no skips), and the report header says so.
collect_ignore = [] if TENET_DATA.is_dir() else ["formats/test_tenet_data.py"]


# --- the default run's budget (issue 21; docs/contributing.md) ------------------------------
#
# Large parametrized sweeps keep every THIN-th case in the default run; the other cases carry
# the `slow` mark and run with `-m slow` (after the default set in .ci/run). Single heavy tests
# in SLOW_TESTS move to the slow set the same way. Marks only: nothing is skipped.
THIN = 4
THINNED = {
    "tests/analysis/test_engine_vs_simulator.py::test_preset_dataflows",
    "tests/analysis/test_engine_vs_simulator.py::test_generated_dataflows",
    "tests/analysis/test_engine_vs_simulator.py::test_link_options",
    "tests/analysis/test_time_vs_simulator.py::test_random_skewed_and_quasi_affine",
    "tests/analysis/test_time_vs_simulator.py::test_preset_dataflows_narrow_port",
    "tests/formats/test_loopnest_kernels.py::test_random_kernels_equal_brute_force",
    "tests/formats/test_loopnest_kernels.py::test_counts_equal_brute_force",
    "tests/formats/test_loopnest_kernels.py::test_domains_relations_and_order_equal_brute_force",
    "tests/formats/test_loopnest_import.py::test_yaml_round_trip",
    "tests/formats/test_tenet_examples.py::test_experiment_equals_yaml_presets",
    "tests/model/test_topologies.py::test_topology_matches_brute_force",
    "tests/model/test_topologies.py::test_topology_window_override",
    "tests/bounds/test_fusion_trace.py::test_every_plan_buffer_is_the_peak",
}
# docs examples beyond tests/cli/test_docs_examples.py's SLOW table: every third one (they are
# sorted by page and line, so every page with three or more keeps at least one)
THIN_DOCS = 3
DOCS_EXAMPLES = {
    "tests/cli/test_docs_examples.py::test_shell_example",
    "tests/cli/test_docs_examples.py::test_python_example",
}
THINNED |= DOCS_EXAMPLES
SLOW_TESTS = {
    "tests/explore/test_network.py::test_cli_preset_by_name",
    "tests/explore/test_network.py::test_local_processes_give_the_same_result",
    "tests/explore/test_network.py::test_onnx_network_analyzes_end_to_end",
    "tests/explore/test_network_symbolic.py::test_cli",
    "tests/explore/test_dse.py::test_two_point_front_by_hand",
    "tests/explore/test_dse.py::test_front_is_at_least_as_fast_as_skewed_output_stationary",
    "tests/explore/test_dse.py::test_cli_limit_seed_repeatable",
    "tests/explore/test_execution.py::test_dask_run_resumes_from_the_journal",
    "tests/model/test_typed_results.py::test_dse_json_objectives_are_the_getters",
    "tests/model/test_typed_results.py::test_explore_keeps_the_front_typed",
    "tests/bounds/test_uneven.py::test_brute_force_imperfect_3x4x5",
    "tests/bounds/test_uneven.py::test_imperfect_never_above_perfect",
    "tests/bounds/test_fusion_uneven.py::test_cli_json_has_uneven_and_the_floor",
    "tests/explore/test_network.py::test_cli_json_table_and_csv",
    "tests/explore/test_execution.py::test_dask_cluster_gives_the_same_results_as_inline_and_pool",
    "tests/explore/test_execution.py::test_an_unreachable_scheduler_is_bad_input",
    "tests/formats/test_errors.py::test_deeply_nested_yaml",
    "tests/bounds/test_uneven.py::test_every_point_at_or_above_the_lower_bound",
    # over 2 s each on a shared 2-core machine: the default set stays within 150 s
    "tests/explore/test_dse_hierarchy.py::test_edp_uses_the_hierarchy_delay",
    "tests/cli/test_user_rough_edges.py::test_fuse_writes_areas_in_square_micrometres_as_the_tables_do",
    "tests/cli/test_user_rough_edges.py::test_dse_energy_objective_equals_analyze_with_the_same_cost_flag[cost1]",
    "tests/analysis/test_compare_best_over_capacity.py::test_best_block_has_over_capacity",
    "tests/explore/test_dse_stop.py::test_compare_best_time_limit",
    "tests/analysis/test_compare_best_flags.py::test_compare_best_is_the_dse_best_with_the_same_flags[latency-flags2]",
    "tests/analysis/test_compare_best_flags.py::test_compare_best_is_the_dse_best_with_the_same_flags[energy-flags1]",
    "tests/explore/test_dse_vs_bound.py::test_table_shows_the_ratio",
    "tests/bounds/test_snowcat_fast.py::test_lookup_at_one_capacity_is_the_fronts[1]",
    "tests/bounds/test_snowcat_fast.py::test_searched_fronts_are_the_unpruned_searches[1]",
    "tests/bounds/test_fusion_uneven.py::test_cli_at_takes_comma_separated_sizes",
    "tests/model/test_silencing.py::test_dse_silences",
}


def _nodeid_key(item) -> str:
    return item.nodeid.split("[")[0]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items) -> None:
    """Mark the thinned sweep cases and SLOW_TESTS `slow` before `-m` selects."""
    seen: dict[str, int] = {}
    for item in items:
        if item.nodeid in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
            continue
        key = _nodeid_key(item)
        if key not in THINNED or item.get_closest_marker("slow"):
            continue
        n = seen.get(key, 0)
        seen[key] = n + 1
        if n % (THIN_DOCS if key in DOCS_EXAMPLES else THIN):
            item.add_marker(pytest.mark.slow)


def pytest_report_header(config) -> str:
    if TENET_DATA.is_dir():
        return f"TENET's published inputs: {TENET_DATA}"
    return "TENET's published inputs absent: formats/test_tenet_data.py (an optional extra) not run"


@pytest.fixture
def tenet_data() -> Path:
    """TENET's published inputs; skips when they are absent (e.g. on a plain clone)."""
    if not TENET_DATA.is_dir():
        pytest.skip(f"TENET's published inputs are absent ({TENET_DATA})")
    return TENET_DATA


@pytest.fixture(scope="session")
def dask_scheduler_address():
    """`tcp://127.0.0.1:PORT` of a real Dask scheduler with 2 one-thread workers (separate
    processes, shared by the session); skips when Dask is not installed."""
    pytest.importorskip("distributed")
    from .dask_cluster import local_dask_cluster

    with local_dask_cluster(workers=2) as address:
        yield address
