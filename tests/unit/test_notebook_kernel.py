"""The lab's kernel (anatomia_engine/notebooks.py execute): it talks over Unix sockets of the build's own,
so kernels started at once never race for a TCP port ("Address already in use")."""

from __future__ import annotations

import json

import nbformat

from anatomia_engine import notebooks

TRANSPORT = ("import json; from ipykernel.connect import get_connection_info; "
             "print(json.loads(get_connection_info())['transport'])")


def test_the_kernel_is_reached_over_unix_sockets(tmp_path):
    root = tmp_path / "proj"
    (root / "attn_core").mkdir(parents=True)
    (root / "figures_src").mkdir()
    (root / "attn_core" / "__init__.py").write_text("")
    (root / "figures_src" / "__init__.py").write_text("")
    (root / "requirements.lock").write_text("numpy\n")
    source = root / "lab.py"
    source.write_text("# %%\n" + TRANSPORT + "\n")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(TRANSPORT, id="transport")])
    notebooks.execute(nb, source, "lab.py", root)
    printed = "".join(o.get("text", "") for o in nb.cells[0].outputs)
    assert printed.strip() == "ipc", json.dumps(nb.cells[0].outputs)[:500]
