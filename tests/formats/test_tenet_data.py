"""TENET's 27 published experiments (../shared/tenet-data, or $TENET_DATA_DIR): each runs
through the TENET-file reader and gives the same numbers as the YAML presets that translate
it, which are also the presets our own files in examples/tenet were written from.

Only these comparisons need TENET's published files and skip without them; everything that
does not need TENET's published numbers is in tests/formats/test_tenet_examples.py."""

from __future__ import annotations

import pytest

from tenet import analyze, load_experiment

from .test_tenet_examples import EXAMPLES, analyze_presets, assert_same_analysis, generate

# published experiment -> our experiment in examples/tenet naming the same three files
PUBLISHED = {
    **{
        f"reuse_factor_experiment/experiment/experiment_{n}": f"experiment/experiment_{n}"
        for n in range(1, 16)
    },
    **{
        f"runtime/experiment/experiment_{n}": f"runtime/experiment/experiment_{n}"
        for n in range(1, 13)
    },
}


def test_all_27_experiments_listed(tenet_data):
    found = {str(p.relative_to(tenet_data)) for p in tenet_data.glob("*/experiment/experiment_*")}
    assert found == set(PUBLISHED)


@pytest.mark.parametrize("experiment", sorted(PUBLISHED))
def test_yaml_presets_equal_tenet_files(tenet_data, experiment):
    ours = PUBLISHED[experiment]
    # Our experiment names the same mapping, PE array and statement files as TENET's.
    published_parts = (tenet_data / experiment).read_text().split()
    assert published_parts == list(generate.EXPERIMENTS[ours])
    assert (EXAMPLES / ours).read_text().split() == published_parts
    from_tenet = analyze(*load_experiment(tenet_data / experiment, tenet_data)).to_dict()
    assert_same_analysis(from_tenet, analyze_presets(ours))
