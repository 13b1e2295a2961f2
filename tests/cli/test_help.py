"""`--help`: each command's help ends with an example, `presets` has a description, and
`tenet` alone prints the usage and exits 2."""

from __future__ import annotations

import pytest

from tenet.cli import COMMANDS, command_module, main


@pytest.mark.parametrize("command", list(COMMANDS))
def test_help_ends_with_an_example(command, capsys):
    with pytest.raises(SystemExit) as info:
        main([command, "--help"])
    assert info.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    example = command_module(command).EXAMPLE
    assert example.startswith(f"example: tenet {command}")
    assert out.endswith(" ".join(example.split()))


def test_presets_help_has_a_description(capsys):
    with pytest.raises(SystemExit):
        main(["presets", "--help"])
    out = capsys.readouterr().out
    assert "List the preset archs, workloads" in out


def test_tenet_alone_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("usage: tenet") and "COMMAND" in err
