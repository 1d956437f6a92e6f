"""to_html() / _repr_html_(): the page the CLI writes with --format html for
the same rows, from the same renderer (rollstat-render); findings in the
keyword arguments' words."""

from __future__ import annotations

import html
import re

import rollstat

DEMO_B = "demo-b.jsonl"


def esc(text: str) -> str:
    """HTML escaping as the page does it (quotes included)."""
    return html.escape(text, quote=True).replace("&#x27;", "&#39;")


def cli_words_to_python(cli_page: str, cli_warnings, py_warnings) -> str:
    """The CLI page with each finding in the package's words: the only text
    on the page that is allowed to differ (both lists from the JSON)."""
    assert len(cli_warnings) == len(py_warnings)
    for cw, pw in zip(cli_warnings, py_warnings):
        cli_page = cli_page.replace(f"<li>{esc(cw)}</li>", f"<li>{esc(pw)}</li>")
    return cli_page


def test_report_page_is_the_cli_page(cli, demo, tmp_path):
    cli_page = cli.run("report", demo, "--format", "html").stdout
    cli_json = cli.json("report", demo)
    r = rollstat.report(str(demo))
    expected = cli_words_to_python(cli_page, cli_json["health"]["warnings"], r.warnings)
    assert r.to_html() == expected
    # The demo has a finding the two front ends word differently.
    assert any("--ci" in w for w in cli_json["health"]["warnings"]) and "--ci" not in r.to_html()
    out = tmp_path / "report.html"
    assert r.to_html(str(out)) == expected and out.read_text(encoding="utf-8") == expected


def test_report_page_all_and_tau(cli, demo):
    r = rollstat.report(str(demo), tau=[0.5])
    cli_page = cli.run("report", demo, "--tau", "0.5", "--all", "--format", "html").stdout
    cli_json = cli.json("report", demo, "--tau", "0.5")
    assert r.to_html(all=True) == cli_words_to_python(cli_page, cli_json["health"]["warnings"], r.warnings)


def test_compare_page_is_the_cli_page(cli, demo):
    b = demo.parent / DEMO_B
    cli_page = cli.run("compare", demo, b, "--format", "html").stdout
    cli_json = cli.json("compare", demo, b)
    c = rollstat.compare(str(demo), str(b))
    assert c.to_html() == cli_words_to_python(cli_page, cli_json["warnings"], c.warnings)


def test_notebook_frame_holds_the_page(demo):
    r = rollstat.report(str(demo))
    frame = r._repr_html_()
    srcdoc = re.search(r'srcdoc="([^"]*)"', frame).group(1)
    # The page, with the frame's own document as the base of its in-page
    # links (issue 30 item 13; test_first_session.py).
    assert html.unescape(srcdoc) == r.to_html().replace("<head>", '<head><base href="about:srcdoc">', 1)
    assert "<script" not in frame


def test_page_from_json_alone(demo):
    r = rollstat.report(str(demo))
    again = rollstat.Report(r.to_json())
    assert again.to_html() == r.to_html()


def test_documents_still_pickle_and_copy(demo):
    import copy
    import pickle

    r = rollstat.report(str(demo))
    again = pickle.loads(pickle.dumps(r))
    assert again == r and again.to_html() == r.to_html()
    assert copy.deepcopy(r).to_html() == r.to_html()
    c = rollstat.compare(str(demo), str(demo.parent / DEMO_B))
    assert pickle.loads(pickle.dumps(c)) == c


def test_comparison_read_back_from_json_says_why_no_scatter(demo):
    c = rollstat.compare(str(demo), str(demo.parent / DEMO_B))
    assert 'data-plot="plot-scatter"' in c.to_html()
    page = rollstat.Comparison(c.to_json()).to_html()
    assert 'data-plot="plot-scatter"' not in page
    assert "read back from compare.json carries no per-problem values" in page
