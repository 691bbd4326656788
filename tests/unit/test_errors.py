"""The engine's one error type: a catalogue id with its fields and place, a MkDocs build error."""

import pytest
from mkdocs.exceptions import BuildError

from anatomia_engine import messages
from anatomia_engine.errors import EngineError


def test_an_error_is_its_catalogue_message_at_its_place():
    error = EngineError("unknown_value", where="docs/a.md:3", name="wieght")
    assert isinstance(error, BuildError)
    assert (error.id, error.where, error.fields) == ("unknown_value", "docs/a.md:3", {"name": "wieght"})
    assert str(error) == "docs/a.md:3: " + messages.text("unknown_value", name="wieght")


def test_an_unknown_id_or_a_missing_field_fails_at_the_raise():
    with pytest.raises(KeyError):
        EngineError("no_such_message")
    with pytest.raises(KeyError):
        EngineError("unknown_value", where="docs/a.md:3")


def test_causes_follow_the_message_and_a_place_can_be_added_later():
    cause = EngineError("unknown_value", name="b")
    error = EngineError("unknown_value", name="a", causes=[cause]).located("figures_src/m.py")
    assert error.where == "figures_src/m.py"
    assert error.causes == (cause,)
    assert str(error).splitlines()[-1] == str(cause)
