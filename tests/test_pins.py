"""requirements.txt is the one source of truth; environment.yml must repeat it exactly; the
property tests run derandomized unless a developer asks for the randomized profile."""

import os
import re
from pathlib import Path

from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^\s*-?\s*([A-Za-z0-9_.\-\[\]]+)==(\S+)\s*$")


def _pins(text: str) -> dict[str, str]:
    pins = {}
    for line in text.splitlines():
        match = PIN.match(line)
        if match:
            pins[match.group(1).lower().replace("_", "-")] = match.group(2)
    return pins


def test_every_requirement_is_an_exact_pin() -> None:
    lines = [
        line
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert lines, "requirements.txt is empty"
    loose = [line for line in lines if not PIN.match(line)]
    assert not loose, f"not exact pins: {loose}"


def test_environment_yml_repeats_requirements_exactly() -> None:
    requirements = _pins((ROOT / "requirements.txt").read_text())
    environment = _pins((ROOT / "environment.yml").read_text())
    assert environment == requirements, (
        "environment.yml and requirements.txt disagree; run `make pins`. "
        f"Only in requirements: {sorted(set(requirements.items()) - set(environment.items()))}; "
        f"only in environment: {sorted(set(environment.items()) - set(requirements.items()))}"
    )


def test_pin_parser_sees_a_disagreement() -> None:
    assert _pins("- numpy==1.0\n") != _pins("numpy==2.0\n")


def test_hypothesis_runs_derandomized_unless_a_profile_is_chosen() -> None:
    """tests/conftest.py loads the ``ci`` profile unless HYPOTHESIS_PROFILE names another."""
    assert settings.get_profile("ci").derandomize and settings.get_profile("ci").database is None
    assert not settings.get_profile("dev").derandomize
    if "HYPOTHESIS_PROFILE" not in os.environ:
        assert settings.default.derandomize and settings.default.database is None
