/* Polish search worker for Material for MkDocs (its SETUP/READY/QUERY/RESULT protocol; in node, the
 * tests' module). It normalises as anatomia_engine/search_pl.py does; the index and the form table,
 * named in the stub search_index.json, are fetched on the first query. */
"use strict";
const WORD = /[\p{L}\p{N}]+/gu;
/* A word in a heading outweighs any number of mentions in the text (BM25 gives them < k1 + 1 = 2.2) */
const TITLE = 3;
const K1 = 1.2;
/* The weights of words found by the stem fallback and by completion */
const STEM = 0.7;
const PREFIX = 0.5;
const SNIPPET = 220;
const BEFORE = 60;
const HIGHLIGHTS = 12;

const tokenize = (text) => text.normalize("NFC").match(WORD) || [];
const fold = (word) =>
  word
    .toLowerCase()
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .replace(/ł/g, "l")
    .replace(/x/g, "ks")
    .normalize("NFC");
/* The key of a folded word the table knows: search_pl.normalise */
const known = (folded, table) =>
  table.get(folded) ?? (/^(nie|naj)/.test(folded) ? table.get(folded.slice(3)) : undefined);
const normalise = (word, table) => known(fold(word), table) ?? fold(word);
const escapeHTML = (s) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/* search_pl.encode_table: {paradigms: ["a|a,ach,ami,..."], lexemes: [[stem, paradigm], ...]} */
function decodeTable(shipped) {
  const table = new Map();
  for (const [stem, number] of shipped.lexemes) {
    const [own, endings] = shipped.paradigms[number].split("|");
    for (const ending of endings.split(",")) table.set(stem + ending, stem + own);
  }
  return table;
}

/* Two folded words that differ only in their endings (up to 4 letters each, 4 shared at least):
 * how a word the dictionary does not know finds its declined forms (`softmaksowi`, `softmaks`). */
function sameStem(a, b) {
  let n = 0;
  while (n < Math.min(a.length, b.length) && a[n] === b[n]) n++;
  return n >= 4 && a.length - n <= 4 && b.length - n <= 4;
}

/* A text's words with their keys and offsets, so that snippets can mark the words as written. */
function tokens(text, table) {
  const nfc = text.normalize("NFC");
  const counts = new Map();
  const list = [...nfc.matchAll(WORD)].map((m) => ({
    word: m[0],
    key: normalise(m[0], table),
    start: m.index,
    end: m.index + m[0].length,
  }));
  for (const t of list) counts.set(t.key, (counts.get(t.key) || 0) + 1);
  return { text: nfc, list, counts };
}

function mark(t, keys, from, to) {
  let out = "";
  let pos = from;
  for (const tok of t.list.filter((tok) => tok.start >= from && tok.end <= to && keys.has(tok.key))) {
    out += `${escapeHTML(t.text.slice(pos, tok.start))}<mark>${escapeHTML(tok.word)}</mark>`;
    pos = tok.end;
  }
  return out + escapeHTML(t.text.slice(pos, to));
}

/* About SNIPPET characters of the text from a little before its first matched word, cut at spaces */
function snippet(t, keys) {
  const first = t.list.find((tok) => keys.has(tok.key));
  let start = first ? Math.max(0, first.start - BEFORE) : 0;
  const space = t.text.indexOf(" ", start);
  if (start > 0 && space >= 0 && space < first.start) start = space + 1;
  let end = Math.min(t.text.length, start + SNIPPET);
  if (end < t.text.length && t.text.lastIndexOf(" ", end) > start) end = t.text.lastIndexOf(" ", end);
  return (start > 0 ? "… " : "") + mark(t, keys, start, end) + (end < t.text.length ? " …" : "");
}

/* The search over the index's documents (one per page and per section), with the form table. */
class Engine {
  constructor(index, table) {
    this.table = table;
    this.df = new Map();
    this.pages = new Map(); /* page location -> its documents, in page order */
    this.vocab = new Map(); /* folded word of the site -> its key */
    this.docs = index.docs.map((doc) => {
      const d = {
        doc,
        page: doc.location.split("#")[0],
        title: tokens(doc.title, table),
        text: tokens(doc.text, table),
        boost: doc.boost ?? 1,
      };
      const words = [...d.title.list, ...d.text.list];
      for (const k of new Set(words.map((tok) => tok.key))) this.df.set(k, (this.df.get(k) || 0) + 1);
      for (const tok of words) this.vocab.set(fold(tok.word), tok.key);
      this.pages.set(d.page, [...(this.pages.get(d.page) || []), d]);
      return d;
    });
    this.avgLen = this.docs.reduce((n, d) => n + d.text.list.length, 0) / Math.max(1, this.docs.length);
  }

  /* The query's words, each with the keys it stands for: its own; for a word the table does not
   * know, the site's words of the same stem; for the word being typed, the site's words it begins. */
  parse(query) {
    const words = tokenize(query);
    const typing = !/\s$/.test(query);
    return words.map((word, i) => {
      const folded = fold(word);
      const keys = new Map([[normalise(word, this.table), 1]]);
      const add = (weight, test) => {
        for (const [surface, k] of this.vocab) if (!keys.has(k) && test(surface)) keys.set(k, weight);
      };
      if (known(folded, this.table) === undefined) add(STEM, (surface) => sameStem(folded, surface));
      if (typing && i === words.length - 1 && folded.length >= 3) add(PREFIX, (s) => s.startsWith(folded));
      return { word, keys };
    });
  }

  /* The text a result shows for `d`: its own, else the next text of its page. */
  textOf(d) {
    const docs = this.pages.get(d.page);
    const i = docs.indexOf(d);
    const next = [...docs.slice(i), ...docs.slice(0, i).reverse()].find((x) => x.text.list.length);
    return next ? next.text : d.title;
  }

  /* BM25 of each query word's best key in `d`, a heading's words weighing TITLE more. */
  score(d, terms) {
    const n = this.docs.length;
    const len = d.text.list.length;
    const matched = [];
    let score = 0;
    terms.forEach((term, t) => {
      let best = 0;
      for (const [key, weight] of term.keys) {
        const x = d.text.counts.get(key) || 0;
        const inTitle = d.title.counts.has(key);
        const df = this.df.get(key);
        if (!x && !inTitle) continue;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        const tf = (x * (K1 + 1)) / (x + K1 * (0.25 + (0.75 * len) / this.avgLen));
        best = Math.max(best, weight * idf * (tf + (inTitle ? TITLE : 0)));
      }
      if (best > 0) matched.push(t);
      score += best;
    });
    return { d, score: d.boost * score, matched };
  }

  /* Results grouped by page, as Material renders them: pages holding every query word first, then by
   * their best section; in a page, its sections by score. */
  search(query) {
    const terms = this.parse(query);
    const keys = new Set(terms.flatMap((term) => [...term.keys.keys()]));
    const pages = [];
    for (const [location, docs] of this.pages) {
      const hits = docs.map((d) => this.score(d, terms)).filter((s) => s.matched.length);
      if (!hits.length) continue;
      hits.sort((a, b) => b.score - a.score || a.d.doc.location.localeCompare(b.d.doc.location));
      pages.push({
        page: location,
        held: new Set(hits.flatMap((s) => s.matched)),
        best: hits[0].score,
        hits,
      });
    }
    pages.sort((a, b) => b.held.size - a.held.size || b.best - a.best || a.page.localeCompare(b.page));
    return { items: pages.map((p) => this.group(p, terms, keys)) };
  }

  group(p, terms, keys) {
    /* what ?h= highlights on the page: its words that matched, as first written, longest first */
    const docs = this.pages.get(p.page);
    const found = docs
      .flatMap((d) => [...d.title.list, ...d.text.list])
      .filter((tok) => keys.has(tok.key))
      .reverse()
      .map((tok) => [tok.word.toLowerCase(), tok.word]);
    const forms = [...new Map(found).values()].sort((a, b) => b.length - a.length || a.localeCompare(b));
    const state = Object.fromEntries(forms.slice(0, HIGHLIGHTS).map((w) => [w, true]));
    terms.forEach((term, t) => {
      if (!p.held.has(t)) state[term.word] = false;
    });
    const item = (d, title, score) => ({
      location: d.doc.location,
      title,
      score,
      terms: state,
      text: `<p>${snippet(this.textOf(d), keys)}</p>`,
    });
    const items = p.hits.map((s) => item(s.d, mark(s.d.title, keys, 0, s.d.title.text.length), s.score));
    if (!p.hits.some((s) => s.d === docs[0]) && docs[0].doc.location === p.page) {
      items.push(item(docs[0], escapeHTML(docs[0].doc.title), 0));
    }
    return items;
  }
}

function worker() {
  const SETUP = 0;
  const READY = 1;
  const QUERY = 2;
  const RESULT = 3;
  const get = (name) => fetch(new URL(`../../../search/${name}`, self.location)).then((r) => r.json());
  let config = null;
  let loading = null;
  let latest = "";
  self.onmessage = async ({ data: { type, data } }) => {
    if (type === SETUP) {
      config = data.config;
      self.postMessage({ type: READY });
    } else if (type === QUERY) {
      latest = data;
      if (!data.trim()) return self.postMessage({ type: RESULT, data: { items: [] } });
      loading =
        loading ||
        Promise.all([get(config.pl_index), get(config.pl_forms)]).then(
          ([index, forms]) => new Engine(index, decodeTable(forms)),
        );
      const engine = await loading;
      if (data === latest) self.postMessage({ type: RESULT, data: engine.search(data) });
    }
  };
}

if (typeof module === "undefined") worker();
else module.exports = { tokenize, fold, decodeTable, normalise, sameStem, Engine };
