"""Emoji written in the pages become icons bundled with the site (inline SVG).

A colour-emoji font is not on every reader's machine (the heading then shows a box), and the
site loads nothing from other hosts, so each emoji the pages use is mapped to a Material Design
icon that pymdownx.emoji inlines (`material.extensions.emoji.to_svg`, SVGs from the theme
package). An emoji missing from ICONS fails the build with the page and line.
"""

from __future__ import annotations

import re
import unicodedata

from anatomia_engine.placeholders import TemplateError

ICONS = {
    "🚀": "rocket-launch", "📋": "clipboard-text-outline", "🌅": "weather-sunset-up", "🎯": "bullseye-arrow",
    "👁": "eye-outline", "🧠": "brain", "⏳": "timer-sand", "⚡": "lightning-bolt", "🔍": "magnify",
    "🌗": "theme-light-dark", "👉": "hand-pointing-right", "📍": "map-marker", "🔢": "numeric",
}
# Pictographs and symbols that fonts draw as emoji; the variation selector U+FE0F goes with them.
EMOJI_RE = re.compile("([\u231a-\u23ff\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff])\ufe0f?")
FENCE_RE = re.compile(r"^(\s*)(```|~~~)")


def replace_emoji(markdown: str, where: str) -> str:
    """`markdown` with each emoji (outside fenced code) as a `:material-…:` shortcode."""
    out, fence = [], None
    for number, line in enumerate(markdown.split("\n"), start=1):
        m = FENCE_RE.match(line)
        if m:
            fence = None if fence == m.group(2) else (fence or m.group(2))
        if fence is None and not m:
            def icon(match, number=number):
                char = match.group(1)
                if unicodedata.category(char) != "So":
                    return match.group(0)
                if char not in ICONS:
                    raise TemplateError(f"{where}:{number}: emoji {char} ({unicodedata.name(char, '?')}) "
                                        "has no icon in anatomia_engine/emoji.py ICONS")
                return f":material-{ICONS[char]}:"
            line = EMOJI_RE.sub(icon, line)
        out.append(line)
    return "\n".join(out)
