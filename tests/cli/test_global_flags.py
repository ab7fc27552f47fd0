"""Common flags work before the command name as well as after it."""

from __future__ import annotations

import json

import pytest

from engine.cli import build_parser, main

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("argv", [
    ["--data-dir", "D", "--json", "--chunk-size", "300", "kb", "list"],
    ["kb", "list", "--data-dir", "D", "--json", "--chunk-size", "300"],
    ["--json", "kb", "list", "--data-dir", "D", "--chunk-size", "300"],
])
def test_common_flags_are_read_in_either_place(argv):
    args = build_parser().parse_args(argv)
    assert (args.data_dir, args.json, args.chunk_size) == ("D", True, 300)


def test_defaults_hold_when_no_flag_is_given():
    args = build_parser().parse_args(["kb", "list"])
    assert (args.data_dir, args.json, args.chunk_size) == (None, False, None)


def test_a_data_dir_before_the_command_is_the_one_used(tmp_path, capsys):
    assert main(["--data-dir", str(tmp_path / "here"), "--json", "kb", "list"]) == 0
    json.loads(capsys.readouterr().out)  # one JSON object, as --json promises
    assert (tmp_path / "here").exists()  # the store was opened where the flag said, not in ./data
