/* The live worked example of docs/krok-po-kroku.md: the reader edits the embeddings, the page
 * recomputes every number it can and re-checks its claims.
 *
 * Loaded only when the reader presses "Zmień liczby" (or opens a link carrying ?liczby=), by the
 * inline script beside the page's <div id="live-example">. It loads docs/javascripts/explorer.js,
 * whose core does all the work: workedExample (the chain of figures_src/worked_example.py),
 * format and fmtExact (anatomia_engine/numfmt.py), evaluate (the placeholder language), and the
 * page's sidecar (anatomia_engine/live.py, named by the root's data-live-src): for each element
 * of ITEMS, by its position, the text it shows and its compiled expression and format
 * (data-expr, data-fmt), condition (data-claim-expr) or formula template (data-tex), put back
 * on the element here; and the model's inputs. Formulas are typeset again with the build's
 * Temml (javascripts/temml.min.js) and options. Typed text reaches the page only through .value
 * and textContent.
 */
(() => {
  "use strict";

  let core = window.attentionExplorer;
  const FALSE_TEXT = "to zdanie nie jest prawdziwe dla Twoich liczb";
  const UNKNOWN_TEXT = "tego zdania nie da się sprawdzić dla Twoich liczb";
  const STALE_FIGURE = "Rysunek pokazuje liczby strony, nie Twoje.";
  const DRAWN_FIGURE =
    "Rysunek narysowany w przeglądarce dla Twoich liczb (tabela danych pod nim pokazuje liczby strony).";
  const LIMIT = 10;
  const HERE = document.currentScript ? document.currentScript.src : "";
  const PARAM = "liczby";
  // Each theme's colour maps of the built figures, from the page's inputs (set by Live).
  let colourMaps = null;

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function json(root, name) {
    return root.liveInputs[name];
  }

  function fieldText(x) {
    return String(x).replace(".", ",").replace("-", "\u2212");
  }

  function follows(a, b) {
    // b comes after a in the document
    return Boolean(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
  }

  function Live(root) {
    this.root = root;
    const article = root.closest("article") || document.body;
    this.article = article;
    this.table = [].slice.call(article.querySelectorAll("table")).filter((t) => follows(root, t))[0];
    if (!this.table) throw new Error("brak tabeli embeddingów");
    const heads = [].slice.call(this.table.querySelectorAll("thead th")).map((th) => th.textContent.trim());
    this.tokenCol = heads.indexOf("token");
    this.dimCols = heads.map((h, i) => (/^wymiar \d+$/.test(h) ? i : -1)).filter((i) => i >= 0);
    const rows = [].slice.call(this.table.querySelectorAll("tbody tr"));
    const tokenCol = this.tokenCol;
    this.vocab = rows.map((tr) => tr.children[tokenCol].textContent.trim());
    this.page = json(root, "w-vocab");
    colourMaps = json(root, "colour-maps");
    const vocab = this.vocab;
    function ids(sentence) {
      return sentence.split(" ").map((w) => {
        const i = vocab.indexOf(w);
        if (i < 0) throw new Error(`słowo spoza słownika: ${w}`);
        return i;
      });
    }
    this.base = {
      vocab: vocab,
      ids: ids(json(root, "sentence")),
      W_Q: json(root, "w-q"),
      W_K: json(root, "w-k"),
      W_V: json(root, "w-v"),
      W_FFN: json(root, "w-ffn"),
      h2_W_Q: json(root, "h2-w-q"),
      h2_W_K: json(root, "h2-w-k"),
      h2_W_V: json(root, "h2-w-v"),
      sharpen: json(root, "sharpen"),
      reordered_ids: ids(json(root, "reordered")),
      pad_embedding: json(root, "pad-embedding"),
      pad_token: json(root, "pad-token"),
    };
    this.base.batch_ids = [this.base.ids, ids(json(root, "pad-sentence"))];
    this.numbers = [].slice
      .call(article.querySelectorAll(".num[data-expr], .live-word[data-expr]"))
      .map((span) => ({
        span: span,
        expr: JSON.parse(span.getAttribute("data-expr")),
        fmt: core.parseSpec(span.getAttribute("data-fmt")),
        text: span.textContent,
        exact: span.getAttribute("data-exact"),
      }));
    this.claims = [].slice
      .call(article.querySelectorAll("[data-claim-expr]"))
      .map((span) => ({ span: span, expr: JSON.parse(span.getAttribute("data-claim-expr")) }));
    this.formulas = [].slice.call(article.querySelectorAll(".arithmatex[data-tex]")).map((node) => ({
      node: node,
      tex: JSON.parse(node.getAttribute("data-tex")),
      html: node.innerHTML,
      display: node.tagName === "DIV" || node.classList.contains("arithmatex-display"),
    }));
    // a figure that does not depend on the reader's numbers (front matter `live: fixed:`) gets no label
    this.figures = [].slice.call(article.querySelectorAll(".computed-figure:not([data-live='fixed'])"));
    this.build(rows);
  }

  Live.prototype.build = function (rows) {
    this.panel = el("div", "live-example__panel");
    this.status = el("p", "live-example__status");
    this.status.setAttribute("role", "status");
    const reset = el("button", "md-button live-example__reset", "Przywróć");
    reset.type = "button";
    reset.addEventListener("click", () => {
      this.reset();
    });
    this.panel.appendChild(
      el(
        "p",
        "live-example__help",
        "Wpisz własne embeddingi w tabeli poniżej (np. 0,3). Liczby w tekście i w tabelach " +
          "liczą się od nowa, a zdania, które przestają być prawdziwe, zostają oznaczone. Wzory " +
          "liczą się razem z nimi; podpis każdego rysunku mówi, czyje liczby pokazuje.",
      ),
    );
    this.panel.appendChild(reset);
    this.panel.appendChild(this.status);
    this.root.appendChild(this.panel);
    this.inputs = [];
    rows.forEach((tr, tokenId) => {
      this.dimCols.forEach((col, dim) => {
        const cell = tr.children[col];
        const id = `live-e-${tokenId}-${dim}`;
        const input = el("input", "live-example__field");
        input.type = "text";
        input.id = id;
        input.setAttribute("inputmode", "decimal");
        input.setAttribute("autocomplete", "off");
        input.setAttribute("aria-label", `${this.vocab[tokenId]}, wymiar ${dim}`);
        input.value = fieldText(this.page[dim][tokenId]);
        const error = el("span", "live-example__error");
        error.id = `${id}-error`;
        error.setAttribute("aria-live", "polite");
        input.setAttribute("aria-describedby", error.id);
        cell.setAttribute("data-live-original", cell.innerHTML);
        cell.textContent = "";
        cell.appendChild(input);
        cell.appendChild(error);
        input.addEventListener("input", () => {
          this.update();
        });
        this.inputs.push({ input: input, error: error, token: tokenId, dim: dim });
      });
    });
  };

  /** The reader's W_vocab, or null while a field holds no number (its message says why). */
  Live.prototype.read = function () {
    const w = this.page.map((row) => row.slice());
    let ok = true;
    this.inputs.forEach((f) => {
      const x = core.parseNumber(f.input.value);
      const problem = Number.isNaN(x)
        ? "Wpisz liczbę, np. 0,3."
        : Math.abs(x) > LIMIT
          ? `Wpisz liczbę od \u2212${LIMIT} do ${LIMIT}.`
          : "";
      f.error.textContent = problem;
      if (problem) {
        f.input.setAttribute("aria-invalid", "true");
        ok = false;
      } else {
        f.input.removeAttribute("aria-invalid");
        w[f.dim][f.token] = x;
      }
    });
    return ok ? w : null;
  };

  Live.prototype.update = function () {
    const w = this.read();
    if (!w) return;
    const own = w.every((row, i) => row.every((x, j) => x === this.page[i][j]));
    this.show(own ? null : w);
    this.remember(own ? null : w);
  };

  /** Every number and claim for the reader's W_vocab (null: the page's own, as built). */
  Live.prototype.show = function (w) {
    const scope = w ? core.workedExample(Object.assign({ W_vocab: w }, this.base)) : null;
    this.numbers.forEach((n) => {
      if (!scope) {
        n.span.textContent = n.text;
        if (n.exact !== null) n.span.setAttribute("data-exact", n.exact);
        return;
      }
      if (!core.namesOf(n.expr).every((name) => name in scope)) return;
      try {
        const value = core.evaluate(n.expr, scope);
        n.span.textContent = core.format(value, n.fmt[0], n.fmt[1], false);
        if (n.exact !== null) n.span.setAttribute("data-exact", core.fmtExact(value));
      } catch (err) {
        n.span.textContent = "\u2014";
        n.span.setAttribute("data-exact", `nie da się policzyć: ${err.message}`);
      }
    });
    this.formulas.forEach((f) => {
      f.node.removeAttribute("data-live-stale");
      if (!scope) {
        f.node.innerHTML = f.html;
        return;
      }
      try {
        const tex = f.tex
          .map((part) => {
            if (typeof part === "string") return part;
            const spec = core.parseSpec(part.fmt);
            return core.format(core.evaluate(part.expr, scope), spec[0], spec[1], true);
          })
          .join("");
        f.node.innerHTML = window.temml.renderToString(
          tex,
          Object.assign({}, OPTIONS, { displayMode: f.display }),
        );
      } catch (err) {
        // a value this code cannot show: the page's own formula, marked
        f.node.innerHTML = f.html;
        f.node.setAttribute("data-live-stale", err.message);
      }
    });
    let wrong = 0;
    this.claims.forEach((c) => {
      let state = "true";
      if (scope && core.namesOf(c.expr).every((name) => name in scope)) {
        try {
          state = core.evaluate(c.expr, scope) ? "true" : "false";
        } catch (_err) {
          state = "unknown";
        }
      }
      mark(c.span, state);
      if (state !== "true") wrong += 1;
    });
    this.article.classList.toggle("live-example--changed", Boolean(scope));
    this.figures.forEach((fig) => {
      let note = fig.querySelector(".live-example__stale");
      const drawn = fig.querySelector(".live-example__drawing");
      if (drawn) drawn.remove();
      fig.classList.remove("live-example--drawn");
      if (note) note.remove();
      if (!scope) return;
      const drawing = this.draw(fig.id, scope);
      if (drawing) {
        fig.insertBefore(drawing, fig.firstChild);
        fig.classList.add("live-example--drawn");
      }
      note = el("span", "live-example__stale", ` ${drawing ? DRAWN_FIGURE : STALE_FIGURE}`);
      (fig.querySelector("figcaption") || fig).appendChild(note);
    });
    this.status.textContent = !scope
      ? "Strona pokazuje swoje liczby."
      : wrong
        ? `Twoje liczby: ${sentencesNoLongerTrue(wrong)}.`
        : "Twoje liczby: wszystkie zdania strony nadal są prawdziwe.";
  };

  /** "N zdań przestało być prawdziwych" with the Polish agreement of N (1; 2–4 but not 12–14; the rest). */
  function sentencesNoLongerTrue(n) {
    const few = n % 10 >= 2 && n % 10 <= 4 && (n % 100 < 12 || n % 100 > 14);
    if (n === 1) return "1 zdanie przestało być prawdziwe";
    if (few) return `${n} zdania przestały być prawdziwe`;
    return `${n} zdań przestało być prawdziwych`;
  }

  /** The reader's version of a figure, drawn here, or null for a figure this code cannot draw. */
  Live.prototype.draw = function (id, scope) {
    const tokens = scope.sentence.split(" ");
    const box = el("div", "attn-x live-example__drawing");
    if (id === "fig-worked_example-weights_masked_vs_unmasked") {
      [
        ["z maską (dekoder)", scope.weights, true],
        ["bez maski (enkoder)", scope.weights_enc, false],
      ].forEach((part, k) => {
        const svg = core.svg("svg", {
          role: "img",
          class: "attn-x__heat",
          "data-testid": "live-heatmap",
          "aria-label": `Mapa wag uwagi ${part[0]} dla Twoich liczb: ${rowsInWords(tokens, part[1], null)}`,
        });
        const blocked = part[1].map((row, i) => row.map((_, j) => part[2] && j > i));
        core.drawHeatmap(svg, tokens, part[1], blocked, `live-hatch-${k}`, -1, null);
        paint(svg, part[1], blocked, scaleOf("weights", part[1], blocked));
        box.appendChild(el("p", "live-example__title", part[0]));
        box.appendChild(svg);
      });
      return box;
    }
    if (id === "fig-worked_example-scaled_scores") {
      box.appendChild(
        heat(
          tokens,
          scope.scaled,
          "scores",
          null,
          "Przeskalowane oceny QK\u1d40/\u221ad\u2096",
          "live-scaled",
        ),
      );
      return box;
    }
    if (id === "fig-worked_example-head2_weights") {
      box.appendChild(el("p", "live-example__title", "oceny QK\u1d40 (przed skalowaniem i maską)"));
      box.appendChild(
        heat(tokens, scope.h2_scores, "scores", null, "Oceny QK\u1d40 drugiej głowy", "live-h2-scores"),
      );
      box.appendChild(el("p", "live-example__title", "wagi z maską przyczynową"));
      box.appendChild(
        heat(
          tokens,
          scope.h2_weights,
          "weights",
          causal(tokens.length),
          "Wagi drugiej głowy z maską przyczynową",
          "live-h2-weights",
        ),
      );
      return box;
    }
    if (id === "fig-worked_example-qkv_projection") {
      const panels = [
        ["E", "embeddingi", scope.E],
        ["Q = E\u00b7W_Q", "czego token szuka", scope.h2_Q],
        ["K = E\u00b7W_K", "po czym go znaleźć", scope.h2_K],
        ["V = E\u00b7W_V", "co przekazuje", scope.h2_V],
      ];
      // one scale for the four panels, diverging around 0 as in the built figure
      const reach = Math.max(...panels.map((p) => largest(p[2])));
      const grid = el("div", "live-example__grid");
      panels.forEach((p) => {
        const cell = el("div");
        cell.appendChild(el("p", "live-example__title", `${p[0]} (${p[1]})`));
        cell.appendChild(matrix(tokens, p[2], reach, `${p[0]} drugiej głowy (${p[1]})`));
        grid.appendChild(cell);
      });
      box.appendChild(grid);
      return box;
    }
    if (id === "fig-worked_example-embedding_plane") {
      box.appendChild(plane(this.vocab, scope));
      box.appendChild(
        el(
          "p",
          "live-example__title",
          "\u25cb embedding E (przed uwagą), \u25cf wyjście uwagi " +
            "(po uwadze), \u25a0 pozostałe tokeny słownika",
        ),
      );
      return box;
    }
    if (id === "fig-worked_example-next_token_probs") {
      const probs = scope.probs;
      const vocab = this.vocab;
      const top = probs.indexOf(Math.max.apply(null, probs));
      const rowH = 26;
      const left = 92;
      const barMax = 200;
      const shares = vocab.map((t, i) => `${t} ${core.format(probs[i], "pct", [1])}`);
      const svg = core.svg("svg", {
        role: "img",
        class: "attn-x__bars",
        "data-testid": "live-probs",
        viewBox: `0 0 ${left + barMax + 60} ${vocab.length * rowH + 8}`,
        "aria-label": `Prawdopodobieństwo następnego tokenu dla Twoich liczb: ${shares.join(", ")}`,
      });
      vocab.forEach((t, i) => {
        const y = 4 + i * rowH;
        svg.appendChild(
          core.svg("text", {
            x: left - 6,
            y: y + rowH / 2 + 4,
            "text-anchor": "end",
            class: "attn-x__label",
            text: t,
          }),
        );
        svg.appendChild(
          core.svg("rect", {
            x: left,
            y: y + 4,
            width: Math.max(1, barMax * probs[i]),
            height: rowH - 8,
            class: `attn-x__bar${i === top ? "" : " attn-x__self"}`,
          }),
        );
        svg.appendChild(
          core.svg("text", {
            x: left + barMax * probs[i] + 5,
            y: y + rowH / 2 + 4,
            class: "attn-x__label",
            text: core.format(probs[i], "pct", [1]),
          }),
        );
      });
      box.appendChild(svg);
      return box;
    }
    return null;
  };

  /** The largest magnitude among a matrix's finite numbers (0 for none). */
  function largest(m) {
    return m.reduce(
      (a, row) => row.reduce((b, x) => (Number.isFinite(x) ? Math.max(b, Math.abs(x)) : b), a),
      0,
    );
  }

  /* ---------------------------------------------------------------------------------------
   * Colours: the built figures' policy (figures_src/charts.py heatmap), for both themes.
   * ------------------------------------------------------------------------------------- */

  /** The colour scale the built figure gives a matrix: weights on the sequential map from 0 to 1;
   * scores on the diverging map, centred on 0, out to `reach` (by default the largest magnitude
   * shown) — or, when no reach is asked for and no shown score is negative, on the sequential map
   * from 0, whose second colour would otherwise suggest negative values. */
  function scaleOf(quantity, m, blocked, reach) {
    if (quantity === "weights") return { map: "weights", lo: 0, hi: 1 };
    const shown = m.flatMap((row, i) => row.filter((x, j) => Number.isFinite(x) && !blocked?.[i][j]));
    const top = largest([shown]);
    const hi = reach === undefined ? top || 1 : reach;
    if (reach === undefined && shown.every((x) => x >= 0)) return { map: "weights", lo: 0, hi };
    return { map: "scores", lo: -hi, hi };
  }

  /** [r, g, b] (0..1) of a map's colour at t (0..1): linear between its sampled stops. */
  function colourAt(stops, t) {
    const x = Math.min(1, Math.max(0, t)) * (stops.length - 1);
    const k = Math.min(stops.length - 2, Math.floor(x));
    const a = rgb(stops[k]);
    const b = rgb(stops[k + 1]);
    return a.map((v, c) => v + (b[c] - v) * (x - k));
  }

  function rgb(hex) {
    return [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255);
  }

  function cssColour(c) {
    return `rgb(${c.map((v) => Math.round(v * 255)).join(", ")})`;
  }

  /** The number's colour on a cell: charts._text_colour's rule (black on light cells, else white). */
  function ink(c) {
    return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2] > 0.55 ? "#000000" : "#ffffff";
  }

  /** Colour every cell of a drawn grid not blocked by the mask, and the number on it, as the built
   * figure does in each theme; live-example.css shows the colours of the reader's theme, so that
   * switching the theme needs no redrawing. The cells and numbers are in row order. */
  function paint(svg, m, blocked, scale) {
    const cells = svg.querySelectorAll(".attn-x__cell");
    const nums = svg.querySelectorAll(".attn-x__cellnum");
    // matplotlib's Normalize: a scale of zero width puts everything at its first colour
    const width = scale.hi - scale.lo;
    let drawn = 0;
    m.forEach((row, i) => {
      row.forEach((x, j) => {
        if (blocked?.[i][j]) return;
        const t = width > 0 ? (x - scale.lo) / width : 0;
        const cell = cells[drawn];
        const num = nums[i * row.length + j];
        drawn += 1;
        cell.classList.add("live-example__painted");
        cell.setAttribute("data-colour-map", scale.map);
        num.classList.remove("attn-x__ink");
        num.classList.add("live-example__painted-num");
        for (const theme of Object.keys(colourMaps)) {
          const colour = colourAt(colourMaps[theme][scale.map], t);
          cell.style.setProperty(`--live-fill-${theme}`, cssColour(colour));
          num.style.setProperty(`--live-ink-${theme}`, ink(colour));
        }
      });
    });
  }

  function causal(t) {
    const out = [];
    for (let i = 0; i < t; i += 1) {
      out.push([]);
      for (let j = 0; j < t; j += 1) out[i].push(j > i);
    }
    return out;
  }

  /** Every row of a matrix in words, for a figure's aria-label ("cat → 0,12, −0,40; …"). */
  function rowsInWords(rowNames, m, blocked) {
    const cell = (x, i, j) => (blocked?.[i][j] ? "zablokowane" : core.format(x, "dec", [2]));
    return m
      .map((row, i) => `${rowNames[i]} \u2192 ${row.map((x, j) => cell(x, i, j)).join(", ")}`)
      .join("; ");
  }

  let heatCount = 0;

  /** A token-by-token heatmap drawn like the explorer's and coloured like the built figure:
   * `quantity` "scores" (any sign) or "weights" (0 to 1; `blocked` cells hatched). */
  function heat(tokens, m, quantity, blocked, title, testid) {
    heatCount += 1;
    const svg = core.svg("svg", {
      role: "img",
      class: "attn-x__heat",
      "data-testid": testid,
      "aria-label": `${title} dla Twoich liczb (wiersz: zapytanie, kolumna: klucz): ${rowsInWords(tokens, m, blocked)}`,
    });
    core.drawHeatmap(
      svg,
      tokens,
      m,
      blocked || m.map((row) => row.map(() => false)),
      `live-hatch-${testid}-${heatCount}`,
      -1,
      null,
    );
    paint(svg, m, blocked, scaleOf(quantity, m, blocked));
    return svg;
  }

  /** A tokens-by-dimensions matrix as coloured cells with their numbers (the second head's Q, K, V),
   * on the diverging scale from −reach to reach. */
  function matrix(tokens, m, reach, title) {
    const cell = 44;
    const left = 70;
    const top = 34;
    const cols = m[0].length;
    const svg = core.svg("svg", {
      role: "img",
      class: "attn-x__heat",
      "data-testid": "live-matrix",
      viewBox: `0 0 ${left + cols * cell + 4} ${top + m.length * cell + 4}`,
      "aria-label": `${title} dla Twoich liczb (wiersz: token, kolumna: wymiar): ${rowsInWords(tokens, m, null)}`,
    });
    svg.appendChild(
      core.svg("text", {
        x: left + (cols * cell) / 2,
        y: 11,
        "text-anchor": "middle",
        class: "attn-x__axislabel",
        text: "wymiar",
      }),
    );
    for (let j = 0; j < cols; j += 1) {
      svg.appendChild(
        core.svg("text", {
          x: left + j * cell + cell / 2,
          y: top - 6,
          "text-anchor": "middle",
          class: "attn-x__label",
          text: String(j),
        }),
      );
    }
    m.forEach((row, i) => {
      svg.appendChild(
        core.svg("text", {
          x: left - 6,
          y: top + i * cell + cell / 2 + 4,
          "text-anchor": "end",
          class: "attn-x__label",
          text: tokens[i],
        }),
      );
      row.forEach((x, j) => {
        svg.appendChild(
          core.svg("rect", {
            x: left + j * cell + 1,
            y: top + i * cell + 1,
            width: cell - 2,
            height: cell - 2,
            class: "attn-x__cellbg",
          }),
        );
        svg.appendChild(
          core.svg("rect", {
            x: left + j * cell + 1,
            y: top + i * cell + 1,
            width: cell - 2,
            height: cell - 2,
            class: "attn-x__cell",
          }),
        );
        svg.appendChild(
          core.svg("text", {
            x: left + j * cell + cell / 2,
            y: top + i * cell + cell / 2 + 4,
            "text-anchor": "middle",
            class: "attn-x__cellnum",
            text: core.format(x, "dec", [1]),
          }),
        );
      });
    });
    paint(svg, m, null, scaleOf("scores", m, null, reach));
    return svg;
  }

  /** The embedding plane: the other words of the vocabulary (squares), the sentence's embeddings
   * (rings) and the attention's outputs (dots), an arrow from each embedding to its output (none
   * where they coincide, as in the built figure). */
  function plane(vocab, scope) {
    const tokens = scope.sentence.split(" ");
    const w = scope.W_vocab;
    const e = scope.E;
    const out = scope.attn_out;
    const others = vocab.map((t, i) => [t, w[0][i], w[1][i]]).filter((p) => tokens.indexOf(p[0]) < 0);
    const xs = [];
    const ys = [];
    others.forEach((p) => {
      xs.push(p[1]);
      ys.push(p[2]);
    });
    e.concat(out).forEach((p) => {
      xs.push(p[0]);
      ys.push(p[1]);
    });
    const x0 = Math.min.apply(null, xs);
    const x1 = Math.max.apply(null, xs);
    const y0 = Math.min.apply(null, ys);
    const y1 = Math.max.apply(null, ys);
    const span = Math.max(x1 - x0, y1 - y0, 0.5) * 1.3; // equal scales on both axes, a margin around
    const cx = (x0 + x1) / 2;
    const cy = (y0 + y1) / 2;
    const size = 300;
    const pad = 30;
    function px(x) {
      return pad + ((x - cx + span / 2) / span) * size;
    }
    function py(y) {
      return pad + ((cy + span / 2 - y) / span) * size;
    }
    const fmt = (x) => core.format(x, "dec", [2]);
    const moves = tokens.map(
      (t, i) =>
        `${t} z (${fmt(e[i][0])}; ${fmt(e[i][1])}) po uwadze w (${fmt(out[i][0])}; ${fmt(out[i][1])})`,
    );
    const rest = others.length
      ? `; pozostałe tokeny słownika: ${others.map((p) => `${p[0]} (${fmt(p[1])}; ${fmt(p[2])})`).join(", ")}`
      : "";
    const svg = core.svg("svg", {
      role: "img",
      class: "attn-x__plane live-example__plane",
      "data-testid": "live-plane",
      viewBox: `0 0 ${size + 2 * pad} ${size + 2 * pad}`,
      "aria-label": `Płaszczyzna embeddingów dla Twoich liczb (wymiar 0, wymiar 1): ${moves.join(", ")}${rest}`,
    });
    if (cx - span / 2 < 0 && cx + span / 2 > 0) {
      svg.appendChild(
        core.svg("line", { x1: px(0), y1: pad, x2: px(0), y2: pad + size, class: "live-example__axis" }),
      );
    }
    if (cy - span / 2 < 0 && cy + span / 2 > 0) {
      svg.appendChild(
        core.svg("line", { x1: pad, y1: py(0), x2: pad + size, y2: py(0), class: "live-example__axis" }),
      );
    }
    svg.appendChild(
      core.svg("text", {
        x: pad + size / 2,
        y: size + 2 * pad - 6,
        "text-anchor": "middle",
        class: "attn-x__axislabel",
        text: "wymiar 0",
      }),
    );
    svg.appendChild(
      core.svg("text", {
        x: 10,
        y: pad + size / 2,
        "text-anchor": "middle",
        class: "attn-x__axislabel",
        transform: `rotate(-90 10 ${pad + size / 2})`,
        text: "wymiar 1",
      }),
    );
    others.forEach((p) => {
      svg.appendChild(
        core.svg("rect", {
          x: px(p[1]) - 4,
          y: py(p[2]) - 4,
          width: 8,
          height: 8,
          class: "live-example__other",
        }),
      );
      svg.appendChild(
        core.svg("text", { x: px(p[1]) + 7, y: py(p[2]) + 12, class: "attn-x__label", text: p[0] }),
      );
    });
    planeCount += 1;
    const head = `live-arrowhead-${planeCount}`;
    svg.appendChild(
      core.svg(
        "defs",
        null,
        core.svg(
          "marker",
          {
            id: head,
            viewBox: "0 0 10 10",
            refX: 9,
            refY: 5,
            markerWidth: 9,
            markerHeight: 9,
            markerUnits: "userSpaceOnUse",
            orient: "auto",
          },
          core.svg("path", { d: "M 1 1 L 9 5 L 1 9", class: "live-example__arrowhead" }),
        ),
      ),
    );
    tokens.forEach((t, i) => {
      const a = [px(e[i][0]), py(e[i][1])];
      const b = [px(out[i][0]), py(out[i][1])];
      // as in the built figure (np.allclose), a token attention left where it was gets no arrow
      const stayed = e[i].every((x, d) => Math.abs(x - out[i][d]) <= 1e-8 + 1e-5 * Math.abs(out[i][d]));
      const arrow = stayed ? null : move(a, b);
      if (arrow) {
        svg.appendChild(
          core.svg("line", {
            x1: arrow[0][0],
            y1: arrow[0][1],
            x2: arrow[1][0],
            y2: arrow[1][1],
            class: "live-example__move",
            "marker-end": `url(#${head})`,
          }),
        );
      }
      svg.appendChild(core.svg("circle", { cx: a[0], cy: a[1], r: 6, class: "live-example__before" }));
      svg.appendChild(core.svg("circle", { cx: b[0], cy: b[1], r: 3.5, class: "live-example__after" }));
      svg.appendChild(core.svg("text", { x: a[0] + 8, y: a[1] - 8, class: "attn-x__label", text: t }));
    });
    return svg;
  }

  let planeCount = 0;

  /** The arrow from an embedding's ring (radius 6) to its output's dot (radius 3,5), each end held
   * off its marker so that the head stays visible; null when the two points (nearly) coincide. */
  function move(a, b) {
    const dx = b[0] - a[0];
    const dy = b[1] - a[1];
    const length = Math.hypot(dx, dy);
    if (length < 1e-6) return null;
    // the gaps shrink with a short arrow, so that its head never turns round
    const scale = Math.min(1, (0.8 * length) / (7.5 + 5));
    const from = 7.5 * scale;
    const to = 5 * scale;
    return [
      [a[0] + (dx / length) * from, a[1] + (dy / length) * from],
      [b[0] - (dx / length) * to, b[1] - (dy / length) * to],
    ];
  }

  function mark(span, state) {
    span.setAttribute("data-claim", state);
    let note = span.querySelector(":scope > .claim__false");
    if (state === "true") {
      if (note) note.remove();
      return;
    }
    if (!note) {
      note = el("span", "claim__false");
      span.appendChild(note);
    }
    note.textContent = ` (${state === "false" ? FALSE_TEXT : UNKNOWN_TEXT})`;
  }

  Live.prototype.set = function (w) {
    this.inputs.forEach((f) => {
      f.input.value = fieldText(w[f.dim][f.token]);
    });
    this.update();
  };

  Live.prototype.reset = function () {
    this.set(this.page);
  };

  /** The reader's numbers in the address (?liczby=0.3,0.2,…;0,1,…), so that a link shares them. */
  Live.prototype.remember = (w) => {
    const url = new URL(window.location.href);
    if (w) url.searchParams.set(PARAM, w.map((row) => row.join(",")).join(";"));
    else url.searchParams.delete(PARAM);
    window.history.replaceState(window.history.state, "", url.toString());
  };

  Live.prototype.fromAddress = function () {
    const text = new URL(window.location.href).searchParams.get(PARAM);
    if (!text) return false;
    const rows = text.split(";").map((r) => r.split(",").map(Number));
    const page = this.page;
    const fits =
      rows.length === page.length &&
      rows.every(
        (r, i) => r.length === page[i].length && r.every((x) => Number.isFinite(x) && Math.abs(x) <= LIMIT),
      );
    if (!fits) {
      // said apart from the status line, which show() rewrites
      const note = el(
        "p",
        "live-example__refused",
        `Adres strony zawiera liczby, których nie da się odczytać (${text.slice(0, 40)}); pokazuję liczby strony.`,
      );
      note.setAttribute("role", "alert");
      this.panel.appendChild(note);
      return false;
    }
    this.set(rows);
    return true;
  };

  let active = null;
  let OPTIONS = {};
  const BASE = HERE.replace(/javascripts\/live-example\.js.*$/, "");

  function load(tag, attrs) {
    return new Promise((resolve, reject) => {
      const node = document.createElement(tag);
      Object.keys(attrs).forEach((k) => {
        node.setAttribute(k, attrs[k]);
      });
      node.onload = resolve;
      node.onerror = () => {
        reject(new Error(attrs.src || attrs.href));
      };
      document.head.appendChild(node);
    });
  }

  /** The sidecar's data put back on the page's elements; an error if the two do not match. */
  function bind(root, data) {
    const article = root.closest("article") || document.body;
    const found = article.querySelectorAll(data.selector);
    if (found.length !== data.count) {
      throw new Error(`strona ma ${found.length} liczb, zdań i wzorów, a plik danych ${data.count}`);
    }
    data.items.forEach((item) => {
      const node = found[item[0]];
      if (node.textContent !== item[1]) {
        throw new Error(
          `element ${item[0]} pokazuje „${node.textContent.slice(0, 40)}”, a plik danych zna „${item[1].slice(0, 40)}”`,
        );
      }
      Object.keys(item[2]).forEach((k) => {
        const v = item[2][k];
        node.setAttribute(`data-${k}`, typeof v === "string" && k === "fmt" ? v : JSON.stringify(v));
      });
    });
    root.liveInputs = data.inputs;
    OPTIONS = data.temml;
  }

  function start(root, button) {
    if (root.getAttribute("data-live") === "on") return Promise.resolve(active);
    const css = `${BASE}stylesheets/`;
    const needed = [
      load("link", { rel: "stylesheet", href: `${css}live-example.css` }),
      load("link", { rel: "stylesheet", href: `${css}explorer.css` }), // the drawings' colours
      fetch(new URL(root.getAttribute("data-live-src"), window.location.href)).then((r) => {
        if (!r.ok) throw new Error(`${r.url}: ${r.status}`);
        return r.json();
      }),
    ];
    if (!window.attentionExplorer) needed.push(load("script", { src: `${BASE}javascripts/explorer.js` }));
    if (!window.temml) needed.push(load("script", { src: `${BASE}javascripts/temml.min.js` }));
    return Promise.all(needed)
      .then((done) => {
        core = window.attentionExplorer;
        bind(root, done[2]);
        return begin(root, button);
      })
      .catch((err) => {
        button.disabled = true;
        const note = root.querySelector(".live-example__refused") || el("p", "live-example__refused");
        note.setAttribute("role", "alert");
        note.textContent = `Nie da się zmienić liczb tej strony: ${err.message}. Odśwież stronę.`;
        root.appendChild(note);
        throw err;
      });
  }

  function begin(root, button) {
    active = new Live(root);
    root.setAttribute("data-live", "on");
    if (button) button.hidden = true;
    if (!active.fromAddress()) active.show(null);
    active.inputs[0].input.focus();
    return active;
  }

  window.liveExample = { start: start, instance: () => active };
})();
