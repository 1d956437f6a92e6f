"""The examples in the docstrings run."""

import doctest

import pytest

import rollstat
import rollstat.polars
import rollstat.ray
import rollstat.spark


def test_docstring_examples():
    result = doctest.testmod(rollstat, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 8 and result.failed == 0


@pytest.mark.parametrize("module", [rollstat.spark, rollstat.ray, rollstat.polars])
def test_engine_adapter_examples(module):
    pytest.importorskip("pyarrow")
    pytest.importorskip("polars")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 3 and result.failed == 0
