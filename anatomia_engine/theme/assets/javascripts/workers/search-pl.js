/* Polish search worker for Material for MkDocs (its SETUP/READY/QUERY/RESULT protocol), and in node
 * the module the tests and the benchmark run. The normaliser must agree with
 * anatomia_engine/search_pl.py word for word (tests check): tokenise (runs of letters and digits, NFC),
 * fold (lower case, no diacritics, ł -> l, x -> ks), then the build-time form table. The index and the
 * table (search/pl-index.<hash>.json, search/pl-forms.<hash>.json, named in the stub
 * search_index.json) are fetched on the first non-empty query, not on page load. */
(function () {
  "use strict";
  var WORD = /[\p{L}\p{N}]+/gu;
  var MARK = /\p{M}/gu;
  var PREFIX_MARKS = { "~": "nie", "^": "naj" };   /* search_pl.PREFIX_MARKS */
  /* A word in a heading weighs more than BM25 can give its mentions in the text (k1 + 1 = 2.2):
   * a section whose heading holds the word outranks any passing mention of it. */
  var TITLE = 3, K1 = 1.2;
  var STEM = 0.7, PREFIX = 0.5;   /* weights of words found by the stem fallback, by completion */
  var SNIPPET = 220, BEFORE = 60, HIGHLIGHTS = 12;

  function tokenize(text) {
    return text.normalize("NFC").match(WORD) || [];
  }

  function fold(word) {
    return word.toLowerCase().normalize("NFD").replace(MARK, "").replace(/ł/g, "l").replace(/x/g, "ks").normalize("NFC");
  }

  /* search_pl.decode_table: {paradigms: ["a|ach,ami,..."], lexemes: [[stem, paradigm], ...]} */
  function decodeTable(shipped) {
    var table = new Map();
    var paradigms = shipped.paradigms.map(function (p) {
      var bar = p.indexOf("|");
      return { own: p.slice(0, bar), endings: p.slice(bar + 1).split(",") };
    });
    shipped.lexemes.forEach(function (lexeme) {
      var stem = lexeme[0], p = paradigms[lexeme[1]], key = stem + p.own;
      p.endings.forEach(function (ending) {
        var prefix = "";
        while (PREFIX_MARKS[ending.charAt(0)]) {
          prefix += PREFIX_MARKS[ending.charAt(0)];
          ending = ending.slice(1);
        }
        table.set(prefix + stem + ending, key);
      });
    });
    return table;
  }

  function normalise(word, table) {
    var folded = fold(word);
    return table.has(folded) ? table.get(folded) : folded;
  }

  /* Two folded words that differ only in their endings (up to 4 letters each, 4 shared at least):
   * the stem fallback for forms no dictionary knows (`softmaxowi` -> `softmax`). */
  function sameStem(a, b) {
    var n = 0, max = Math.min(a.length, b.length);
    while (n < max && a.charCodeAt(n) === b.charCodeAt(n)) n++;
    return n >= 4 && a.length - n <= 4 && b.length - n <= 4;
  }

  function escapeHTML(s) {
    return s.replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  /* Tokens with their offsets, so that snippets can mark the words as written. */
  function tokens(text, table) {
    var out = [], re = /[\p{L}\p{N}]+/gu, m, nfc = text.normalize("NFC");
    while ((m = re.exec(nfc))) {
      out.push({ key: normalise(m[0], table), start: m.index, end: m.index + m[0].length });
    }
    return { text: nfc, list: out };
  }

  function counts(list) {
    var c = new Map();
    list.forEach(function (t) { c.set(t.key, (c.get(t.key) || 0) + 1); });
    return c;
  }

  /* The search over the index's documents (one per page and per section), with the form table. */
  function Engine(index, table) {
    var self = this, total = 0;
    this.table = table;
    this.df = new Map();
    this.pages = new Map();     /* page location -> its documents, in page order */
    this.vocab = new Map();     /* folded word of the site -> its key */
    this.docs = index.docs.map(function (doc) {
      var title = tokens(doc.title, table), text = tokens(doc.text, table);
      var d = { doc: doc, page: doc.location.split("#")[0], title: title, text: text,
                tc: counts(title.list), xc: counts(text.list), boost: doc.boost === undefined ? 1 : doc.boost };
      new Set(Array.from(d.tc.keys()).concat(Array.from(d.xc.keys()))).forEach(function (k) {
        self.df.set(k, (self.df.get(k) || 0) + 1);
      });
      [title, text].forEach(function (t) {
        t.list.forEach(function (tok) { self.vocab.set(fold(t.text.slice(tok.start, tok.end)), tok.key); });
      });
      if (!self.pages.has(d.page)) self.pages.set(d.page, []);
      self.pages.get(d.page).push(d);
      total += text.list.length;
      return d;
    });
    this.avgLen = total / Math.max(1, this.docs.length);
  }

  /* The query's words, each with the keys it stands for: its own (weight 1); for a form neither
   * the table nor the site knows, the site's words of the same stem; for the word being typed,
   * the site's words it begins. */
  Engine.prototype.parse = function (query) {
    var self = this, words = tokenize(query), typing = !/\s$/.test(query);
    return words.map(function (word, i) {
      var folded = fold(word), key = normalise(word, self.table), keys = new Map([[key, 1]]);
      if (!self.df.has(key) && !self.table.has(folded)) {
        self.vocab.forEach(function (k, surface) {
          if (!keys.has(k) && sameStem(folded, surface)) keys.set(k, STEM);
        });
      }
      if (typing && i === words.length - 1 && folded.length >= 3) {
        self.vocab.forEach(function (k, surface) {
          if (!keys.has(k) && surface.startsWith(folded)) keys.set(k, PREFIX);
        });
      }
      return { word: word, keys: keys };
    });
  };

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
    var first = t.list.find(function (tok) { return keys.has(tok.key); });
    var start = first ? Math.max(0, first.start - BEFORE) : 0;
    if (start > 0) {
      var space = t.text.indexOf(" ", start);
      start = space >= 0 && space < first.start ? space + 1 : start;
    }
    var end = Math.min(t.text.length, start + SNIPPET);
    if (end < t.text.length) {
      var cut = t.text.lastIndexOf(" ", end);
      if (cut > start) end = cut;
    }
    return (start > 0 ? "… " : "") + mark(t, keys, start, end) + (end < t.text.length ? " …" : "");
  }

  /* The text a result shows for `d`: its own, or (a heading followed by nothing but another
   * heading, a page that opens with a heading) the next text of its page. */
  Engine.prototype.textOf = function (d) {
    var docs = this.pages.get(d.page), i = docs.indexOf(d);
    for (var j = i; j < docs.length; j++) if (docs[j].text.list.length) return docs[j].text;
    for (j = i - 1; j >= 0; j--) if (docs[j].text.list.length) return docs[j].text;
    return d.title;
  };

  Engine.prototype.score = function (d, terms) {
    var self = this, n = this.docs.length, len = d.text.list.length, score = 0, matched = [];
    terms.forEach(function (term, t) {
      var best = 0;
      term.keys.forEach(function (weight, key) {
        var x = d.xc.get(key) || 0, ti = d.tc.get(key) || 0;
        if (!x && !ti) return;
        var df = self.df.get(key);
        var idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        var tf = x * (K1 + 1) / (x + K1 * (0.25 + 0.75 * len / self.avgLen));
        best = Math.max(best, weight * idf * (tf + (ti ? TITLE : 0)));
      });
      if (best > 0) matched.push(t);
      score += best;
    });
    return { d: d, score: d.boost * score, matched: matched };
  };

  /* Results grouped by page, as Material renders them: pages holding every query word (in any of
   * their sections) first, then by their best section; in a page, its sections by score. */
  Engine.prototype.search = function (query) {
    var self = this, terms = this.parse(query);
    if (!terms.length) return { items: [] };
    var all = new Map();
    terms.forEach(function (term) { term.keys.forEach(function (w, k) { all.set(k, true); }); });
    var pages = [];
    this.pages.forEach(function (docs, page) {
      var hits = docs.map(function (d) { return self.score(d, terms); })
        .filter(function (s) { return s.matched.length; });
      if (!hits.length) return;
      var held = new Set();
      hits.forEach(function (s) { s.matched.forEach(function (t) { held.add(t); }); });
      hits.sort(function (a, b) { return b.score - a.score || a.d.doc.location.localeCompare(b.d.doc.location); });
      pages.push({ page: page, held: held.size, best: hits[0].score, hits: hits });
    });
    pages.sort(function (a, b) {
      return b.held - a.held || b.best - a.best || a.page.localeCompare(b.page);
    });
    return { items: pages.map(function (p) { return self.group(p, terms, all); }) };
  };

  Engine.prototype.group = function (p, terms, keys) {
    var self = this, docs = this.pages.get(p.page);
    /* what ?h= highlights on the page: its words that matched, as written, longest first */
    var forms = new Map();
    docs.forEach(function (d) {
      [d.title, d.text].forEach(function (t) {
        t.list.forEach(function (tok) {
          if (!keys.has(tok.key)) return;
          var w = t.text.slice(tok.start, tok.end);
          if (!forms.has(w.toLowerCase())) forms.set(w.toLowerCase(), w);
        });
      });
    });
    var state = {};
    Array.from(forms.values()).sort(function (a, b) { return b.length - a.length || a.localeCompare(b); })
      .slice(0, HIGHLIGHTS).forEach(function (w) { state[w] = true; });
    var held = new Set();
    p.hits.forEach(function (s) { s.matched.forEach(function (t) { held.add(t); }); });
    terms.forEach(function (term, t) { if (!held.has(t)) state[term.word] = false; });

    var items = p.hits.map(function (s) {
      return { location: s.d.doc.location, title: mark(s.d.title, keys, 0, s.d.title.text.length),
               text: "<p>" + snippet(self.textOf(s.d), keys) + "</p>", score: s.score, terms: state };
    });
    if (!p.hits.some(function (s) { return s.d === docs[0]; }) && docs[0].doc.location === p.page) {
      items.push({ location: p.page, title: escapeHTML(docs[0].doc.title),
                   text: "<p>" + snippet(self.textOf(docs[0]), keys) + "</p>", score: 0, terms: state });
    }
    return items;
  };

  function fetchJSON(name) {
    var url = new URL("../../../search/" + name, self.location);
    return fetch(url).then(function (res) {
      if (!res.ok) throw new Error(url + ": " + res.status);
      return res.json();
    });
  }

  function worker() {
    var SETUP = 0, READY = 1, QUERY = 2, RESULT = 3, config = null, loading = null, latest = "";
    self.onmessage = function (ev) {
      var query = ev.data.data;
      if (ev.data.type === SETUP) {
        config = query.config;
        self.postMessage({ type: READY });
      } else if (ev.data.type === QUERY && !query.trim()) {
        latest = query;
        self.postMessage({ type: RESULT, data: { items: [] } });
      } else if (ev.data.type === QUERY) {
        latest = query;
        loading = loading || Promise.all([fetchJSON(config.pl_index), fetchJSON(config.pl_forms)])
          .then(function (both) { return new Engine(both[0], decodeTable(both[1])); });
        loading.then(function (engine) {
          if (query === latest) self.postMessage({ type: RESULT, data: engine.search(query) });
        });
      }
    };
  }

  if (typeof module !== "undefined" && module.exports) {
    module.exports = { tokenize: tokenize, fold: fold, decodeTable: decodeTable, normalise: normalise,
                       sameStem: sameStem, Engine: Engine };
  } else {
    worker();
  }
})();
