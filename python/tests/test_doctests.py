"""The examples in the docstrings run."""

import doctest

import rollstat


def test_docstring_examples():
    result = doctest.testmod(rollstat, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 8 and result.failed == 0
