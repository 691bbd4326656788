"""A table's text cells: module strings shown as written, Markdown the project writes kept."""

from anatomia_engine.kit import MARKDOWN, Table, markdown_text


def test_a_text_cell_shows_a_modules_string_as_written():
    table = Table(["nazwa", "p"], [["<script>alert(3)</script> `x`", 0.5]])
    row = table.to_markdown().splitlines()[2]
    assert markdown_text("<script>alert(3)</script> `x`") in row
    assert "<script>" not in row


def test_a_markdown_column_keeps_its_code_spans_and_the_others_are_escaped():
    table = Table(["co", "uwaga"], [["użyj `{% claim … %}`", "`kod`"]], [MARKDOWN, None])
    row = table.to_markdown().splitlines()[2]
    assert "| użyj `{% claim … %}` |" in row
    assert markdown_text("`kod`") in row
    assert table.column_specs() == [None, None]
