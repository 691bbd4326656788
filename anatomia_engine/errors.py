"""The one error type of the engine: a message of the catalogue (messages.yaml), its fields, and where.

Every failure the engine reports to a contributor is an `EngineError`. It carries

- `id`: the catalogue's message id (the contributor page lists each one with its cause and fix);
- `fields`: the values filled into the message's text (tests assert these, never the English);
- `where`: the place the contributor has to look, `docs/page.md:12` or `figures_src/mod.py`,
  or None when the message names its place itself.

    raise EngineError("unknown_value", where="docs/page.md:12", name="wieght")

The text is `where: message`, unless the catalogue's text places `{where}` itself ("{where} reads the
clock"): then `where` fills that field and nothing is put before it.

It is a MkDocs `BuildError`: MkDocs prints its text as the build's error and exits 1, without a
traceback. An error may carry others (`causes`), when one step found several problems at once
(every failing module, every broken link): its text is its own message followed by theirs.
"""

from __future__ import annotations

from mkdocs.exceptions import BuildError

from anatomia_engine import messages


class EngineError(BuildError):
    """A failure a contributor can act on: the catalogue message `id` with `fields`, at `where`."""

    def __init__(self, id: str, *, where: str | None = None, causes: tuple = (), **fields) -> None:
        self.id = id
        self.where = where
        self.fields = fields
        self.causes = tuple(causes)
        super().__init__(self._text())

    def _text(self) -> str:
        # The message's text with its fields filled; an unknown id or a missing field is a
        # KeyError here, at the raise, so a typo in an id never reaches a contributor as text.
        if "where" in messages.fields(self.id):
            text = messages.text(self.id, where=self.where, **self.fields)
        elif self.where:
            text = f"{self.where}: " + messages.text(self.id, **self.fields)
        else:
            text = messages.text(self.id, **self.fields)
        for cause in self.causes:
            text += "\n" + str(cause)
        return text

    def located(self, where: str) -> EngineError:
        """The same error placed at `where` (a caller that knows the file adds it; the raiser may not)."""
        return EngineError(self.id, where=where, causes=self.causes, **self.fields)
