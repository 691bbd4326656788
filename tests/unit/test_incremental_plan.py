"""Which pages a `--dirty` build renders again (anatomia_engine/incremental.py), on pages made up here."""

from types import SimpleNamespace

from anatomia_engine.incremental import Differential


def _pages(tmp_path, names):
    pages = []
    for name in names:
        out = tmp_path / "site" / name.replace(".md", ".html")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("old", encoding="utf-8")
        pages.append(SimpleNamespace(src_uri=name, abs_dest_path=str(out)))
    return pages


def _plan(differential, pages, texts):
    return differential.plan(pages, sorted(texts), None, texts, {}, [])


def test_a_page_showing_reading_times_is_rendered_again_with_a_page_it_names(tmp_path):
    texts = {
        "index.md": '# Start\n<span data-readtime="a.md"></span>\n',
        "a.md": "# A\nonce\n",
        "b.md": "# B\nonce\n",
    }
    pages = _pages(tmp_path, texts)
    differential = Differential()
    assert _plan(differential, pages, texts) == set(texts)   # the first build renders every page
    differential.done(tmp_path / "site", set())
    for uri in texts:   # what a good build keeps of each page
        differential.kept[uri] = SimpleNamespace()

    texts["a.md"] = "# A\ntwice\n"
    assert _plan(differential, pages, texts) == {"a.md", "index.md"}
    differential.done(tmp_path / "site", set())

    texts["b.md"] = "# B\ntwice\n"
    assert _plan(differential, pages, texts) == {"b.md"}   # index.md names no reading time of b.md
