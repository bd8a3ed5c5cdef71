"""docs/validate.md's command-line examples print what the page says they print."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from service.cli import main

DOC = (Path(__file__).resolve().parent.parent / "docs" / "validate.md").read_text()
# A ```sh block holding one carrossel command, then the ```text block of its output.
EXAMPLE = re.compile(r"```sh\n\.venv/bin/carrossel (.+?)\n```\n\n```text\n(.*?)```", re.S)
EXAMPLES = EXAMPLE.findall(DOC)


def test_the_page_has_its_examples() -> None:
    assert len(EXAMPLES) == 2


@pytest.mark.parametrize(("command", "output"), EXAMPLES)
def test_example_output(command: str, output: str, capsys: pytest.CaptureFixture[str]) -> None:
    main(shlex.split(command.replace("\\\n", " ")))
    assert capsys.readouterr().out == output
