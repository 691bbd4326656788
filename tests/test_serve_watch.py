"""hooks/serve_watch.py: `mkdocs serve` polls the watched files every 0,1 s (MkDocs: 0,5 s), for
the paths watched before the hook runs (docs/, mkdocs.yml) and after it (mkdocs.yml's `watch`);
and a served page still follows an edit with the hook in place."""

from __future__ import annotations

import os
import signal

from mkdocs.livereload import LiveReloadServer

from hooks import serve_watch
from test_pipeline import _get, _serve, _wait_for


def test_every_watched_path_is_polled_at_the_hooks_interval(tmp_path):
    for name in ("docs", "attn_core"):
        (tmp_path / name).mkdir()
    server = LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root=str(tmp_path))
    try:
        server.watch(str(tmp_path / "docs"))                   # watched by MkDocs before on_serve
        assert {e.timeout for e in server.observer.emitters} == {0.5}
        assert serve_watch.on_serve(server, None, None) is server
        server.watch(str(tmp_path / "attn_core"))              # config.watch: after on_serve
        assert len(server.observer.emitters) == 2
        assert {e.timeout for e in server.observer.emitters} == {serve_watch.POLL_SECONDS} == {0.1}
    finally:
        server.server_close()


def test_a_served_page_follows_an_edit_with_the_hook(tmp_path):
    from test_pipeline import make_project

    project = make_project(tmp_path / "proj")
    config = project / "mkdocs.yml"
    config.write_text(config.read_text().replace("hooks: [hooks/computed.py]",
                                                 "hooks: [hooks/computed.py, hooks/serve_watch.py]"))
    server, url = _serve(project)
    try:
        assert _wait_for(lambda: ">0,65</span>" in _get(url)), "server did not start"
        page = project / "docs" / "index.md"
        page.write_text(page.read_text() + "\nDopisek po zapisie.\n")
        assert _wait_for(lambda: "Dopisek po zapisie." in _get(url)), "the edit was not picked up"
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        output = server.communicate(timeout=20)[0]
    assert "keeps its polling interval elsewhere" not in output, output[-3000:]
