"""The one error type of the engine: a message of the catalogue
(messages.yaml), its fields, and where.

Every failure the engine reports to a contributor is an `EngineError`.
It carries

- `id`: the catalogue's message id (the contributor page lists each
  one with its cause and fix);
- `fields`: the values filled into the message's text (tests assert
  these, never the English);
- `where`: the place the contributor has to look, `docs/page.md:12`
  or `figures_src/mod.py`, or None when the message names no place.

    raise EngineError("unknown_value", where="docs/page.md:12", name="wieght")

The text is `where: message`, unless the catalogue's text places
`{where}` itself ("{where} reads the clock"): then `where` fills that
field and nothing is put before it.

It is a MkDocs `BuildError`: MkDocs prints its text as the build's
error and exits 1, without a traceback. An error may carry others
(`causes`), when one step found several problems at once (every
failing module, every broken link), and a `detail` that is no message
(a traceback, what a module printed): its text is its own message,
then theirs, then the detail.

An error pickles as what made it, so a module's run hands it to the
build across processes.
"""

from __future__ import annotations

from mkdocs.exceptions import BuildError

from anatomia_engine import messages


class EngineError(BuildError):
    """A failure a contributor can act on: the catalogue message `id` with `fields`, at `where`."""

    def __init__(
        self,
        id: str,
        *,
        where: str | None = None,
        causes: tuple = (),
        detail: str = "",
        **fields,
    ) -> None:
        self.id = id
        self.where = where
        self.fields = fields
        self.causes = tuple(causes)
        self.detail = detail
        # BuildError's one argument is the text MkDocs prints
        super().__init__(self._text())

    def _message(self) -> str:
        # The message's text with its fields filled; an unknown id or a missing field is a
        # KeyError here, at the raise, so a typo in an id never reaches a contributor as text.
        # the message says where itself, in its own words
        if "where" in messages.fields(self.id):
            return messages.text(self.id, where=self.where, **self.fields)
        if self.where:
            return f"{self.where}: " + messages.text(self.id, **self.fields)
        return messages.text(self.id, **self.fields)

    def _text(self) -> str:
        text = self._message()
        # a cause may be a plain string (a line another step wrote) or an error
        for cause in self.causes:
            text += "\n" + str(cause)
        return text + self.detail

    def _keywords(self) -> dict:
        """What this error was made with, but its id (a subclass adds its own)."""
        return {"where": self.where, "causes": self.causes, "detail": self.detail, **self.fields}

    def __reduce__(self):
        # BaseException pickles its args (the text): rebuild from what made it instead
        return _restore, (type(self), self.id, self._keywords())

    def located(self, where: str) -> EngineError:
        """The same error placed at `where` (a caller that knows the file adds it; the raiser may not)."""
        keywords = self._keywords()
        keywords["where"] = where
        return type(self)(self.id, **keywords)

    def followed_by(self, detail: str) -> EngineError:
        """The same error with `detail` after its text (what the module printed, say)."""
        # a new error: the text is made once, when an error is made
        keywords = self._keywords()
        keywords["detail"] += detail
        return type(self)(self.id, **keywords)


def _restore(cls: type, id: str, keywords: dict) -> EngineError:
    """An error unpickled: made again from its id and keywords."""
    return cls(id, **keywords)
