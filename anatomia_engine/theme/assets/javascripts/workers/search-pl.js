/* Polish search worker for Material for MkDocs (its SETUP/READY/QUERY/RESULT protocol).
 * The index (search/pl-index.<hash>.json, named in the stub search_index.json) is fetched on the
 * first non-empty query, so pages do not download it until the reader searches. Words of the
 * documents and of the query go through the same normaliser (search-pl-normalise.js), so any
 * inflected form, with or without diacritics, finds the pages that use the word in any form. */
"use strict";
importScripts("search-pl-normalise.js");

var SETUP = 0, READY = 1, QUERY = 2, RESULT = 3;
var indexName = null, loading = null, latest = "";
var table, docs, vocab, df, avgLen;

function load() {
  if (!loading) {
    var url = new URL("../../../search/" + indexName, self.location);
    loading = fetch(url).then(function (res) {
      if (!res.ok) throw new Error(url + ": " + res.status);
      return res.json();
    }).then(build);
  }
  return loading;
}

/* Tokens with their offsets, so that snippets can mark the words as written. */
function tokens(text) {
  var out = [], re = /[\p{L}\p{N}]+/gu, m, nfc = text.normalize("NFC");
  while ((m = re.exec(nfc))) {
    out.push({ key: SearchPL.normalise(m[0], table), start: m.index, end: m.index + m[0].length });
  }
  return { text: nfc, list: out };
}

function counts(list) {
  var c = new Map();
  list.forEach(function (t) { c.set(t.key, (c.get(t.key) || 0) + 1); });
  return c;
}

function build(index) {
  table = SearchPL.tableFrom(index.lemmas);
  df = new Map();
  var total = 0;
  docs = index.docs.map(function (doc) {
    var title = tokens(doc.title), text = tokens(doc.text);
    var d = { doc: doc, title: title, text: text, tc: counts(title.list), xc: counts(text.list),
              boost: doc.boost === undefined ? 1 : doc.boost };
    new Set(Array.from(d.tc.keys()).concat(Array.from(d.xc.keys()))).forEach(function (k) {
      df.set(k, (df.get(k) || 0) + 1);
    });
    total += text.list.length;
    return d;
  });
  /* every folded word of the site, for completing the word being typed */
  vocab = new Map();
  docs.forEach(function (d) {
    [d.title, d.text].forEach(function (t) {
      t.list.forEach(function (tok) { vocab.set(SearchPL.fold(t.text.slice(tok.start, tok.end)), tok.key); });
    });
  });
  avgLen = total / Math.max(1, docs.length);
}

function escapeHTML(s) {
  return s.replace(/[&<>"']/g, function (c) {
    return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
  });
}

/* The query's words, each with the keys it stands for (weight 1, or 0.5 for completions). */
function parse(query) {
  var words = SearchPL.tokenize(query), typing = !/\s$/.test(query);
  return words.map(function (word, i) {
    var keys = new Map([[SearchPL.normalise(word, table), 1]]);
    var folded = SearchPL.fold(word);
    if (typing && i === words.length - 1 && folded.length >= 3) {
      vocab.forEach(function (key, surface) {
        if (surface.startsWith(folded) && !keys.has(key)) keys.set(key, 0.5);
      });
    }
    return { word: word, keys: keys };
  });
}

function mark(t, keys, from, to) {
  var out = "", pos = from;
  t.list.forEach(function (tok) {
    if (tok.start < from || tok.end > to || !keys.has(tok.key)) return;
    out += escapeHTML(t.text.slice(pos, tok.start)) + "<mark>" + escapeHTML(t.text.slice(tok.start, tok.end)) + "</mark>";
    pos = tok.end;
  });
  return out + escapeHTML(t.text.slice(pos, to));
}

function snippet(t, keys) {
  var WIDTH = 220, first = t.list.find(function (tok) { return keys.has(tok.key); });
  var start = first ? Math.max(0, first.start - 60) : 0;
  if (start > 0) {
    var space = t.text.indexOf(" ", start);
    start = space >= 0 && space < (first ? first.start : start + 20) ? space + 1 : start;
  }
  var end = Math.min(t.text.length, start + WIDTH);
  if (end < t.text.length) {
    var cut = t.text.lastIndexOf(" ", end);
    if (cut > start) end = cut;
  }
  return (start > 0 ? "… " : "") + mark(t, keys, start, end) + (end < t.text.length ? " …" : "");
}

function search(query) {
  var terms = parse(query);
  if (!terms.length) return { items: [] };
  var n = docs.length, scored = [];
  docs.forEach(function (d) {
    var score = 0, matched = 0, all = new Set();
    var len = d.text.list.length;
    terms.forEach(function (term) {
      var best = 0;
      term.keys.forEach(function (weight, key) {
        var x = d.xc.get(key) || 0, ti = d.tc.get(key) || 0;
        if (!x && !ti) return;
        all.add(key);
        var idf = Math.log(1 + (n - df.get(key) + 0.5) / (df.get(key) + 0.5));
        var tf = x * 2.2 / (x + 1.2 * (0.25 + 0.75 * len / avgLen));
        best = Math.max(best, weight * idf * (tf + (ti ? 3 : 0)));
      });
      if (best > 0) matched += 1;
      score += best;
    });
    if (matched) scored.push({ d: d, score: score * d.boost, matched: matched, keys: all });
  });
  var complete = scored.filter(function (s) { return s.matched === terms.length; });
  if (complete.length) scored = complete;

  var groups = new Map();
  scored.sort(function (a, b) { return b.score - a.score; }).forEach(function (s) {
    var page = s.d.doc.location.split("#")[0];
    var termState = {};
    terms.forEach(function (term) {
      termState[term.word] = Array.from(term.keys.keys()).some(function (k) { return s.keys.has(k); });
    });
    var item = { location: s.d.doc.location, title: mark(s.d.title, s.keys, 0, s.d.title.text.length),
                 text: "<p>" + snippet(s.d.text, s.keys) + "</p>", score: s.score, terms: termState };
    if (!groups.has(page)) groups.set(page, []);
    groups.get(page).push(item);
  });
  groups.forEach(function (items, page) {
    if (!items.some(function (i) { return i.location === page; })) {
      var parent = docs.find(function (d) { return d.doc.location === page; });
      if (parent) items.push({ location: page, title: escapeHTML(parent.doc.title), text: "", score: 0, terms: {} });
    }
  });
  return { items: Array.from(groups.values()) };
}

self.onmessage = function (ev) {
  var message = ev.data;
  if (message.type === SETUP) {
    indexName = message.data.config.pl_index;
    self.postMessage({ type: READY });
  } else if (message.type === QUERY) {
    var query = message.data;
    latest = query;
    if (!query.trim()) {
      self.postMessage({ type: RESULT, data: { items: [] } });
      return;
    }
    load().then(function () {
      if (query === latest) self.postMessage({ type: RESULT, data: search(query) });
    });
  }
};
