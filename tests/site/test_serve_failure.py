"""`make serve` when a save breaks the build: the terminal says the error, the open page shows it with
file:line above its last good content, and the next good save shows the fixed page without it. A
server ended by `kill` (SIGTERM) leaves no temporary folder and no kernel behind."""

from __future__ import annotations

from helpers import fixture_project, http_get, kernels_in, mkdocs_serve, wait_for

BANNER = "anatomia-build-error"


def test_a_broken_save_is_shown_on_the_open_page_and_the_next_good_save_recovers(tmp_path):
    # with the lab: serve keeps a spare kernel for it, which must end with the server
    project = fixture_project(tmp_path / "proj", lab=True)
    # the server's temporary folders (MkDocs' site, the made files, ...): all in one place to check
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    with mkdocs_serve(project, as_make_serve=True, env={"TMPDIR": str(temporary)}) as served:
        _, base, output = served
        page = project / "docs" / "inne.md"
        assert wait_for(lambda: "Zwykły tekst bez obliczeń" in http_get(base + "inne/"), 300), "".join(output)
        page.write_text("# Inna strona\n\nZwykły tekst, a tu {{ nie_ma_takiej_wartosci }}.\n")
        assert wait_for(lambda: BANNER in http_get(base + "inne/"), 120), "".join(output)
        shown = http_get(base + "inne/")
        assert "docs/inne.md:3" in shown and "nie_ma_takiej_wartosci" in shown
        assert "Zwykły tekst bez obliczeń" in shown                 # the last good page, under the error
        assert BANNER in http_get(base)                              # every page of the site shows it
        # the terminal says it too (read by another thread: its last lines may still be on the way)
        def said() -> bool:
            terminal = "".join(output)
            return "docs/inne.md:3" in terminal and "the open page shows the error" in terminal
        assert wait_for(said, 60), "".join(output)
        page.write_text("# Inna strona\n\nPoprawiony tekst.\n")
        assert wait_for(lambda: "Poprawiony tekst." in http_get(base + "inne/"), 120), "".join(output)
        assert BANNER not in http_get(base + "inne/") and BANNER not in http_get(base)
        assert any(temporary.iterdir())                              # the served site, at least
        assert wait_for(lambda: kernels_in(temporary), 120), "".join(output)   # the spare kernel
    # ended as by Ctrl-C: every temporary folder removed (MkDocs' on_shutdown ran), the kernel ended
    assert not list(temporary.iterdir()), "".join(output)
    assert wait_for(lambda: not kernels_in(temporary), 30), kernels_in(temporary)
