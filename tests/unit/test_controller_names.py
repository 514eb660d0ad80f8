"""kube-controller-manager's --controllers: which controllers a list of entries enables."""

from __future__ import annotations

import pytest

from fakeapi.simulation.controllers.names import UnknownController, enabled, parse


def test_star_enables_those_on_by_default() -> None:
    chosen = enabled(["*"])
    assert {"deployment-controller", "garbage-collector-controller", "job-controller"} <= chosen
    assert "bootstrap-signer-controller" not in chosen and "token-cleaner-controller" not in chosen


def test_a_minus_entry_disables_and_old_names_are_aliases() -> None:
    chosen = enabled(["*", "-deployment", "-garbage-collector-controller"])
    assert "deployment-controller" not in chosen and "garbage-collector-controller" not in chosen
    assert "replicaset-controller" in chosen


def test_the_first_entry_naming_a_controller_decides() -> None:
    assert "job-controller" in enabled(["job", "-job"])
    assert "job-controller" not in enabled(["-job", "job", "*"])


def test_without_a_star_only_the_named_ones_run() -> None:
    assert enabled(["job", "cronjob-controller", "bootstrapsigner"]) == {
        "job-controller", "cronjob-controller", "bootstrap-signer-controller"}
    assert enabled([]) == frozenset()


def test_an_unknown_name_is_refused_with_upstreams_message() -> None:
    with pytest.raises(UnknownController) as raised:
        parse("*,-nope")
    assert str(raised.value) == '"nope" is not in the list of known controllers'
    assert parse(" *, -deployment ,") == ("*", "-deployment")
