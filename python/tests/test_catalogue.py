"""The metric catalogue as Python sees it: the engine's table, and every key
of a report placed in it."""

import os

import pytest

import rollstat

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
DEMO = os.path.join(ROOT, "examples", "demo.jsonl")


def test_the_catalogue_lists_each_family_once_with_a_known_unit():
    families = rollstat.metric_catalogue()
    names = [f["family"] for f in families]
    assert len(names) == len(set(names))
    assert {"pass@{k}", "pass^{k}", "maj@{k}", "self_consistency", "pass@{K}_fit"} <= set(names)
    for f in families:
        assert f["unit"] in {"fraction", "count", "budget", "budget_per_solved"}
        assert f["headline"] in {"always", "when_tau_asked", "never"}
        assert (f["compared"] == "none") == (f["not_compared_because"] is not None)
        assert f["description"]
    # compare's default family: pass@1, pass^n, maj@n.
    primary = {f["family"]: f["primary"] for f in families if f["primary"] != "none"}
    assert primary == {"pass@{k}": "smallest_k", "pass^{k}": "largest_k", "maj@{k}": "largest_k"}


def test_every_report_key_has_its_family_and_unit():
    r = rollstat.report(DEMO, ci=None, tau=[0.5])
    units = {f["family"]: f["unit"] for f in rollstat.metric_catalogue()}
    rows = r.metrics.rows()
    assert rows
    for row in rows:
        assert units[row["family"]] == row["unit"], row["metric"]
    # Hand-picked: the family of a few keys, by the README's grammar.
    assert rollstat.metric_family("pass@4") == "pass@{k}"
    assert rollstat.metric_family("g-pass@4_0.5") == "g-pass@{k}_{tau}"
    assert rollstat.metric_family("pass@4-maj@4") == "pass@{k}-{selector}"


@pytest.mark.parametrize("bad", ["pass@0", "pass@04", "maj@n", "avg@8", ""])
def test_a_text_that_is_no_key_is_a_value_error(bad):
    with pytest.raises(ValueError):
        rollstat.metric_family(bad)
