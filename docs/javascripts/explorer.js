/* Interactive attention explorer for docs/llm/anatomia.md (section #uwaga).
 *
 * Plain JavaScript: no libraries, no network. The starting states (presets) come from
 * figures_src/explorer.py at build time, embedded in the page by the engine's json filter as
 *   <script id="explorer-presets">window.attentionExplorerData = {"presets": [...], "limits": {...}};</script>
 * (an executable script, not type="application/json": Material's instant navigation re-creates
 * every inline script of the new page without its type and id, which would run the JSON as code
 * and lose it; an assignment survives that and works the same without instant navigation).
 * The explorer builds its controls and SVG views inside every element with
 * [data-attention-explorer] and recomputes, on each change,
 *   weights = softmax(Q K^T * scale + M),  output = weights V,
 *   Q = X W_Q, K = X W_K, V = X W_V,  scale = (1/sqrt(d_k) or 1) / T,
 * the same formula as attn_core.scaled_dot_product_attention (M = -inf above the diagonal
 * when the causal mask is on).
 * Numbers are shown with the site's policy (anatomia_engine/numfmt.py): decimal comma, half-up
 * rounding from the shortest decimal representation, U+2212 minus, no sign on zero.
 * The same file is the computation core of the live worked example on docs/krok-po-kroku.md
 * (workedExample, format, evaluate; docs/javascripts/live-example.js loads it on demand) and,
 * under Node, a CommonJS module for the tests (tests/unit/live_js.py).
 * Text typed by the reader (token names) only ever reaches the page through textContent,
 * option text and setAttribute, never as HTML.
 */
(() => {
  "use strict";

  const SVG_NS = "http://www.w3.org/2000/svg";
  const MINUS = "\u2212";
  const NARROW_NBSP = "\u202f";
  const SUBSCRIPT = "\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089";
  let instances = [];
  let uid = 0;

  /* ---------------------------------------------------------------------------------------
   * Number format: a mirror of anatomia_engine/numfmt.py.
   * ------------------------------------------------------------------------------------- */

  // Shortest round-trip decimal of |x| (what Python's repr gives): x = 0.DIGITS * 10^point.
  function decimalDigits(x) {
    const m = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/.exec(String(Math.abs(x)));
    if (!m) throw new Error(`cannot read the decimal digits of ${String(x)}`);
    let digits = m[1] + (m[2] || "");
    const point = m[1].length + (m[3] ? parseInt(m[3], 10) : 0);
    const lead = /^0*/.exec(digits)[0].length;
    if (lead === digits.length) return { digits: "", point: 0 };
    digits = digits.slice(lead).replace(/0+$/, "");
    return { digits: digits, point: point - lead };
  }

  // Half-up rounding of x to `decimals` places; returns the sign and the digit strings.
  function roundHalfUp(x, decimals) {
    const d = decimalDigits(x);
    const keep = d.point + decimals; // digits kept: value * 10^decimals as an integer
    if (keep > 28) {
      // numfmt: more digits than Python's decimal context holds
      throw new RangeError(`${String(x)} has more digits than a page can show in full; use sci(n)`);
    }
    const kept = [];
    if (keep >= 0) {
      for (let i = 0; i < keep; i++) kept.push(i < d.digits.length ? +d.digits[i] : 0);
      const next = keep < d.digits.length ? +d.digits[keep] : 0;
      if (next >= 5) {
        let j = kept.length - 1;
        while (j >= 0 && kept[j] === 9) {
          kept[j] = 0;
          j--;
        }
        if (j >= 0) kept[j] += 1;
        else kept.unshift(1);
      }
    }
    let text = kept.join("").replace(/^0+/, "");
    while (text.length < decimals + 1) text = `0${text}`;
    const whole = text.slice(0, text.length - decimals);
    const frac = text.slice(text.length - decimals);
    const zero = !/[1-9]/.test(text);
    return { negative: x < 0 && !zero, whole: whole, frac: frac };
  }

  function group(digits) {
    if (digits.length < 5) return digits;
    const head = digits.length % 3 || 3;
    const parts = [digits.slice(0, head)];
    for (let i = head; i < digits.length; i += 3) parts.push(digits.slice(i, i + 3));
    return parts.join(NARROW_NBSP);
  }

  function checkNumber(x, allowInf) {
    if (typeof x !== "number") throw new TypeError(`expected a number, got ${typeof x}`);
    if (Number.isNaN(x)) throw new RangeError("the value is NaN (not a number); refusing to show it");
    if (!Number.isFinite(x) && !allowInf) {
      throw new RangeError("the value is infinite; only vectors and matrices may show infinity");
    }
  }

  /** fmtDec(0.3543) -> "0,35"; fmtDec(-1.5, 0) -> "−2"; -Infinity -> "−∞" with allowInf. */
  function fmtDec(x, decimals, allowInf) {
    if (decimals === undefined) decimals = 2;
    checkNumber(x, allowInf);
    if (!Number.isFinite(x)) return x < 0 ? `${MINUS}\u221e` : "\u221e";
    const r = roundHalfUp(x, decimals);
    const out = group(r.whole) + (r.frac ? `,${r.frac}` : "");
    return r.negative ? MINUS + out : out;
  }

  /** fmtPct(0.3543) -> "35,4%": x * 100 computed exactly in decimal, then fmtDec. */
  function fmtPct(x, decimals) {
    if (decimals === undefined) decimals = 1;
    checkNumber(x, false);
    const d = decimalDigits(x);
    const hundred = d.digits ? Number(`${x < 0 ? "-" : ""}0.${d.digits}e${d.point + 2}`) : 0;
    return `${fmtDec(hundred, decimals)}%`;
  }

  /** fmtVec([0.35, 0.65]) -> "[0,35; 0,65]". */
  function fmtVec(xs, decimals) {
    return `[${xs.map((x) => fmtDec(x, decimals, true)).join("; ")}]`;
  }

  /* The rest of numfmt.apply: the filters and the math form ({,} and - in LaTeX). */
  const SUPERSCRIPT = {
    "-": "\u207b",
    0: "\u2070",
    1: "\u00b9",
    2: "\u00b2",
    3: "\u00b3",
    4: "\u2074",
    5: "\u2075",
    6: "\u2076",
    7: "\u2077",
    8: "\u2078",
    9: "\u2079",
  };

  function superscript(n) {
    return String(n)
      .split("")
      .map((c) => SUPERSCRIPT[c])
      .join("");
  }

  // numfmt._decimal_text of a rounded number given as sign, whole and fraction digits.
  function decimalText(negative, whole, frac, math) {
    const g = math ? groupWith(whole, "\\,") : group(whole);
    const out = g + (frac ? (math ? "{,}" : ",") + frac : "");
    return negative ? (math ? "-" : MINUS) + out : out;
  }

  function groupWith(digits, sep) {
    return group(digits).split(NARROW_NBSP).join(sep);
  }

  function inf(x, math) {
    if (math) return x < 0 ? "-\\infty" : "\\infty";
    return x < 0 ? `${MINUS}\u221e` : "\u221e";
  }

  function fmtNumber(x, decimals, math, allowInf) {
    if (decimals === undefined) decimals = 2;
    checkNumber(x, allowInf);
    if (!Number.isFinite(x)) return inf(x, math);
    const r = roundHalfUp(x, decimals);
    return decimalText(r.negative, r.whole, r.frac, math);
  }

  /** x * 100 computed exactly in decimal, as a float (numfmt: Decimal(repr(x)) * 100). */
  function times100(x) {
    const d = decimalDigits(x);
    return d.digits ? Number(`${x < 0 ? "-" : ""}0.${d.digits}e${d.point + 2}`) : 0;
  }

  /** x rounded half-up to `decimals` places, as a BigInt count of 10^-decimals. */
  function decimalUnits(x, decimals) {
    const r = roundHalfUp(x, decimals);
    const units = BigInt(r.whole + r.frac);
    return r.negative ? -units : units;
  }

  /** numfmt.fmt_int: every digit. A BigInt is exact; a number beyond 2^53 is not (2^53 + 1 has no
   * double of its own), so it is refused rather than shown with wrong digits. */
  function fmtInt(x, math) {
    if (typeof x === "bigint") return decimalText(x < BigInt(0), String(x < BigInt(0) ? -x : x), "", math);
    checkNumber(x, false);
    if (x !== Math.trunc(x)) throw new RangeError(`not a whole number: ${x}`);
    if (!Number.isSafeInteger(x)) {
      throw new RangeError(
        `${String(x)} is beyond 2^53, where a JavaScript number is not exact; pass a BigInt`,
      );
    }
    return decimalText(x < 0, String(Math.abs(x)), "", math);
  }

  function fmtSci(x, decimals, math) {
    if (decimals === undefined) decimals = 1;
    checkNumber(x, false);
    if (x === 0) return fmtNumber(0, decimals, math);
    const d = decimalDigits(x);
    let exponent = d.point - 1;
    const mantissa = Number(`${(x < 0 ? "-" : "") + d.digits[0]}.${d.digits.slice(1) || "0"}`);
    let r = roundHalfUp(mantissa, decimals);
    if (r.whole.length > 1) {
      // 9.96 rounded up to 10.0
      exponent += 1;
      r = roundHalfUp(Number(`${(r.negative ? "-" : "") + r.whole}.${r.frac}`) / 10, decimals);
    }
    const head = decimalText(r.negative, r.whole, r.frac, math);
    return math ? `${head} \\cdot 10^{${exponent}}` : `${head}\u00b710${superscript(exponent)}`;
  }

  function fmtVecOf(xs, decimals, math) {
    if (decimals === undefined) decimals = 2;
    const items = xs.map((x) => fmtNumber(x, decimals, math, true));
    return math ? `[${items.join(";\\ ")}]` : `[${items.join("; ")}]`;
  }

  function fmtBmatrix(m, decimals) {
    if (decimals === undefined) decimals = 2;
    if (!Array.isArray(m[0])) m = [m];
    const rows = m.map((row) => row.map((x) => fmtNumber(x, decimals, true, true)).join(" & "));
    return `\\begin{bmatrix} ${rows.join(" \\\\ ")} \\end{bmatrix}`;
  }

  /** numfmt.fmt_exact: up to 7 significant digits (Python's format ".7g"), no ",0" on integers. */
  function fmtExact(x) {
    if (Array.isArray(x)) return `[${x.map(fmtExact).join("; ")}]`;
    checkNumber(x, true);
    if (!Number.isFinite(x)) return inf(x, false);
    if (x === Math.trunc(x) && Math.abs(x) < 1e15) return decimalText(x < 0, String(Math.abs(x)), "", false);
    const d = decimalDigits(x);
    let digits;
    let exponent;
    if (d.digits.length <= 7) {
      digits = d.digits;
      exponent = d.point - 1;
    } else {
      // toExponential rounds the exact binary value as Python does, except an exact tie, which
      // it rounds up and Python to even. A tie is a double that is exactly an 8-digit decimal
      // ending in 5, m / 10^j: one that 5^j divides (2^j always divides the binary fraction).
      let e = x.toExponential(6);
      const j = 8 - d.point;
      const tie =
        d.digits.length === 8 &&
        d.digits[7] === "5" &&
        (j <= 0 || BigInt(d.digits) % BigInt(5) ** BigInt(j) === BigInt(0));
      if (tie) {
        const kept = d.digits.slice(0, 7);
        const up = +kept[6] % 2 === 1;
        e = (x < 0 ? "-" : "") + (up ? String(BigInt(kept) + BigInt(1)) : kept);
        const shifted = e.replace("-", "");
        exponent = d.point - 1 + (shifted.length - 7);
        digits = shifted;
      } else {
        const m = /^-?(\d)\.(\d+)e([+-]\d+)$/.exec(e);
        digits = m[1] + m[2];
        exponent = +m[3];
      }
    }
    digits = digits.replace(/0+$/, "") || "0";
    const negative = x < 0;
    if (exponent < -4 || exponent >= 7) {
      return `${decimalText(negative, digits[0], digits.slice(1), false)}\u00b710${superscript(exponent)}`;
    }
    let whole;
    let frac;
    if (exponent >= 0) {
      while (digits.length < exponent + 1) digits += "0";
      whole = digits.slice(0, exponent + 1);
      frac = digits.slice(exponent + 1);
    } else {
      whole = "0";
      frac = new Array(-exponent).join("0") + digits;
    }
    return decimalText(negative, whole, frac, false);
  }

  // numfmt._FORMS: Polish numerals 2..20 in the nominative, genitive, dative and instrumental.
  const FORMS = [
    "dwa dwóch dwóm dwoma",
    "trzy trzech trzem trzema",
    "cztery czterech czterem czterema",
    "pięć pięciu pięciu pięcioma",
    "sześć sześciu sześciu sześcioma",
    "siedem siedmiu siedmiu siedmioma",
    "osiem ośmiu ośmiu ośmioma",
    "dziewięć dziewięciu dziewięciu dziewięcioma",
    "dziesięć dziesięciu dziesięciu dziesięcioma",
    "jedenaście jedenastu jedenastu jedenastoma",
    "dwanaście dwunastu dwunastu dwunastoma",
    "trzynaście trzynastu trzynastu trzynastoma",
    "czternaście czternastu czternastu czternastoma",
    "piętnaście piętnastu piętnastu piętnastoma",
    "szesnaście szesnastu szesnastu szesnastoma",
    "siedemnaście siedemnastu siedemnastu siedemnastoma",
    "osiemnaście osiemnastu osiemnastu osiemnastoma",
    "dziewiętnaście dziewiętnastu dziewiętnastu dziewiętnastoma",
    "dwadzieścia dwudziestu dwudziestu dwudziestoma",
  ];
  const CASES = ["mianownik", "dopełniacz", "celownik", "biernik", "narzędnik", "miejscownik"];
  const CASE_FORM = [0, 1, 2, 0, 3, 1]; // the accusative is written as the nominative, the locative as the genitive

  /** numfmt.fmt_words: a whole number from 2 to 20 in Polish words, in a case. */
  function fmtWords(x, grammaticalCase, math) {
    checkNumber(x, false);
    if (x !== Math.trunc(x) || x < 2 || x > 20)
      throw new RangeError("words writes whole numbers from 2 to 20");
    const c = CASES.indexOf(grammaticalCase === undefined ? "mianownik" : grammaticalCase);
    if (c < 0) throw new RangeError(`unknown case ${grammaticalCase}`);
    const word = FORMS[x - 2].split(" ")[CASE_FORM[c]];
    return math ? `\\text{${word}}` : word;
  }

  /** numfmt.fmt_times: a ratio in words, 4.27 -> "ponad cztery razy". */
  function fmtTimes(x, math) {
    checkNumber(x, false);
    const whole = Math.floor(x);
    if (whole < 2 || whole > 20) throw new RangeError("times shows a ratio from 2 to under 21");
    const words = `${(x === whole ? "" : "ponad ") + fmtWords(whole, "mianownik", false)} razy`;
    return math ? `\\text{${words}}` : words;
  }

  /** numfmt.apply: `value` shown with filter `name` and its args. The build names the filter
   * (a JS number cannot tell Python's 1 from 1.0, whose default formats differ). */
  function format(value, name, args, math) {
    args = args || [];
    switch (name) {
      case "dec":
        return fmtNumber(value, args[0], math);
      case "pct":
        return fmtNumber(times100(checked(value)), args.length ? args[0] : 1, math) + (math ? "\\%" : "%");
      case "sci":
        return fmtSci(value, args[0], math);
      case "int":
        return fmtInt(value, math);
      case "vec":
        return fmtVecOf(value, args[0], math);
      case "bmatrix":
        return fmtBmatrix(value, args[0]);
      case "words":
        return fmtWords(value, args[0], math);
      case "times":
        return fmtTimes(value, math);
      case "text":
        return Array.isArray(value) ? value.join(", ") : String(value); // numfmt.fmt_text
      default:
        throw new Error(`this page's live code has no filter '${name}'`);
    }
  }

  function checked(x) {
    checkNumber(x, false);
    return x;
  }

  /** A table column's format, as numfmt.parse_spec reads it: "dec:2" -> ["dec", [2]]. */
  function parseSpec(spec) {
    const i = spec.indexOf(":");
    if (i < 0) return [spec, []];
    const arg = spec.slice(i + 1);
    return [spec.slice(0, i), [/^-?\d+$/.test(arg) ? parseInt(arg, 10) : arg]];
  }

  /* ---------------------------------------------------------------------------------------
   * The maths: softmax(Q K^T * scale + M) V, as in attn_core.
   * ------------------------------------------------------------------------------------- */

  function matmul(a, b) {
    // (n, m) @ (m, p) -> (n, p)
    return a.map((row) =>
      b[0].map((_, j) => {
        let s = 0;
        for (let c = 0; c < row.length; c++) s += row[c] * b[c][j];
        return s;
      }),
    );
  }

  function dot(a, b) {
    let s = 0;
    for (let c = 0; c < a.length; c++) s += a[c] * b[c];
    return s;
  }

  function softmaxRow(row) {
    // entries equal to -Infinity (blocked) get exactly 0
    let max = -Infinity;
    row.forEach((x) => {
      if (x > max) max = x;
    });
    const e = row.map((x) => Math.exp(x - max));
    const sum = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / sum);
  }

  /** Everything the views show, from the reader's state. */
  function compute(st) {
    const x = st.sentence.map((id) => st.vocab[id].vec.slice()); // (T, d)
    const q = matmul(x, st.wq); // (T, d_k)
    const k = matmul(x, st.wk); // (T, d_k)
    const v = matmul(x, st.wv); // (T, d_v)
    const dK = st.wq[0].length;
    const scale = (st.useScale ? 1 / Math.sqrt(dK) : 1) / st.temperature;
    const scores = q.map((qi) => k.map((kj) => dot(qi, kj)));
    const blocked = scores.map((r, i) => r.map((_, j) => st.causal && j > i));
    const scaled = scores.map((r) => r.map((s) => s * scale));
    const masked = scaled.map((r, i) => r.map((s, j) => (blocked[i][j] ? -Infinity : s)));
    const weights = masked.map(softmaxRow); // (T, T), rows sum to 1
    const output = weights.map((w) =>
      v[0].map((_, c) => {
        let s = 0;
        for (let j = 0; j < w.length; j++) s += w[j] * v[j][c];
        return s;
      }),
    );
    return {
      tokens: st.sentence.map((id) => st.vocab[id].token),
      x: x,
      q: q,
      k: k,
      v: v,
      dK: dK,
      scale: scale,
      scores: scores,
      scaled: scaled,
      masked: masked,
      blocked: blocked,
      weights: weights,
      output: output,
    };
  }

  /* ---------------------------------------------------------------------------------------
   * The worked example of docs/krok-po-kroku.md, the whole chain of
   * figures_src/worked_example.py (attn_core.tiny_decoder): E, Q, K, V, scores, scaling,
   * causal mask, softmax, A V, the residual E + AV, the FFN, logits and probabilities, plus
   * the same layer without a mask, the reordered sentence and the padded batch.
   * inp: {vocab: [tokens], W_vocab (d, V), ids: [T], W_Q, W_K, W_V, W_FFN, sharpen,
   *       reordered_ids: [T], batch_ids: [[...], [...]], pad_embedding: [d], pad_token}.
   * ------------------------------------------------------------------------------------- */

  function transpose(m) {
    return m[0].map((_, j) => m.map((row) => row[j]));
  }

  function mapM(m, f) {
    return m.map((row, i) => row.map((x, j) => f(x, i, j)));
  }

  function causalAdd(m) {
    // m + M: -inf above the diagonal
    return mapM(m, (x, i, j) => (j > i ? -Infinity : x));
  }

  function sumOf(xs) {
    return xs.reduce((a, b) => a + b, 0);
  }

  function attentionLayer(ids, inp, causal) {
    const table = transpose(inp.W_vocab); // (V, d): row i is token i's embedding
    const e = ids.map((id) => table[id].slice());
    const q = matmul(e, inp.W_Q);
    const k = matmul(e, inp.W_K);
    const v = matmul(e, inp.W_V);
    const scale = 1 / Math.sqrt(q[0].length);
    const scores = matmul(q, transpose(k));
    const scaled = mapM(scores, (x) => x * scale);
    const masked = causal ? causalAdd(scaled) : scaled;
    const weights = masked.map(softmaxRow);
    const output = matmul(weights, v);
    const ffn = matmul(output, inp.W_FFN);
    const hLast = ffn[ffn.length - 1];
    const logits = matmul([hLast], inp.W_vocab)[0];
    return {
      e: e,
      q: q,
      k: k,
      v: v,
      scores: scores,
      scaled: scaled,
      masked: masked,
      weights: weights,
      output: output,
      ffn: ffn,
      hLast: hLast,
      logits: logits,
      probs: softmaxRow(logits),
    };
  }

  function argmax(xs) {
    let best = 0;
    xs.forEach((x, i) => {
      if (x > xs[best]) best = i;
    });
    return best;
  }

  function isIdentityOf(m, d) {
    return m.length === d && isIdentity(m);
  }

  // Places of A, V and AV in the worked example's step 6 (worked_example.AV_DECIMALS).
  const AV_DECIMALS = { weights: 2, V: 1, attn_out: 2 };

  /** worked_example._by_hand: A·V from A and V as shown, against the exact A·V as shown, in the
   * cell where they differ most among those whose shown digits differ (else where they differ
   * most; ties to the later cell). */
  function byHand(weights, v, output) {
    let best = null;
    output.forEach((row, i) => {
      row.forEach((exact, j) => {
        // exact: BigInt units of 10^-(places of A + places of V)
        const units = weights[i].reduce(
          (sum, a, k) => sum + decimalUnits(a, AV_DECIMALS.weights) * decimalUnits(v[k][j], AV_DECIMALS.V),
          BigInt(0),
        );
        const value = Number(units) / 10 ** (AV_DECIMALS.weights + AV_DECIMALS.V);
        const differs =
          decimalUnits(value, AV_DECIMALS.attn_out) !== decimalUnits(exact, AV_DECIMALS.attn_out);
        const gap = Math.abs(value - exact);
        const better = !best || differs > best.differs || (differs === best.differs && gap >= best.gap);
        if (better) best = { differs: differs, gap: gap, hand_row: i, hand_dim: j, hand_av: value };
      });
    });
    const places = AV_DECIMALS.attn_out;
    return {
      hand_row: best.hand_row,
      hand_dim: best.hand_dim,
      hand_av: best.hand_av,
      // both rounded as the page shows A·V: the sentence compares these two
      hand_av_rounded: Number(decimalUnits(best.hand_av, places)) / 10 ** places,
      hand_exact_rounded: Number(decimalUnits(output[best.hand_row][best.hand_dim], places)) / 10 ** places,
    };
  }

  /** Every value of figures_src/worked_example.py that depends on the example's inputs. */
  function workedExample(inp) {
    const dec = attentionLayer(inp.ids, inp, true);
    const enc = attentionLayer(inp.ids, inp, false);
    const t = inp.ids.length;
    const d = inp.W_vocab.length;
    const dK = inp.W_Q[0].length;
    const mask = causalAdd(inp.ids.map(() => inp.ids.map(() => 0)));
    const topId = argmax(dec.probs);
    const tokens = inp.ids.map((i) => inp.vocab[i]);
    const last = t - 1;
    const gapShown = (x) => decimalUnits(x, 3);
    const re = attentionLayer(inp.reordered_ids, inp, true);
    const lastRe = re.output[re.output.length - 1];
    const pad = paddedBatch(inp);
    // the second, hand-set head of the page (worked_example._second_head), on the same embeddings
    const h2In = Object.assign({}, inp, { W_Q: inp.h2_W_Q, W_K: inp.h2_W_K, W_V: inp.h2_W_V });
    const h2 = attentionLayer(inp.ids, h2In, true);
    const h2Enc = attentionLayer(inp.ids, h2In, false);
    return Object.assign(
      {
        tokens: tokens,
        h2_W_Q: inp.h2_W_Q,
        h2_W_K: inp.h2_W_K,
        h2_W_V: inp.h2_W_V,
        h2_Q: h2.q,
        h2_K: h2.k,
        h2_V: h2.v,
        h2_K_T: transpose(h2.k),
        h2_scores: h2.scores,
        h2_scaled: h2.scaled,
        h2_weights: h2.weights,
        h2_weights_enc: h2Enc.weights,
        h2_out: h2.output,
        h2_residual: mapM(h2.e, (x, i, j) => x + h2.output[i][j]),
        sentence: tokens.join(" "),
        continued: tokens.concat([inp.vocab[topId]]).join(" "),
        d_model: d,
        d_k: dK,
        vocab_size: inp.vocab.length,
        n_params: [inp.W_vocab, inp.W_Q, inp.W_K, inp.W_V, inp.W_FFN].reduce(
          (n, w) => n + w.length * w[0].length,
          0,
        ),
        qkv_identity: [inp.W_Q, inp.W_K, inp.W_V].every((w) => isIdentityOf(w, d)) ? 1 : 0,
        W_vocab: inp.W_vocab,
        W_Q: inp.W_Q,
        W_K: inp.W_K,
        W_V: inp.W_V,
        W_FFN: inp.W_FFN,
        E: dec.e,
        Q: dec.q,
        K: dec.k,
        V: dec.v,
        K_T: transpose(dec.k),
        scores: dec.scores,
        sqrt_d_k: Math.sqrt(dK),
        scaled: dec.scaled,
        mask: mask,
        masked: dec.masked,
        exp_masked: mapM(dec.masked, Math.exp),
        weights: dec.weights,
        weights_enc: enc.weights,
        weights_unscaled: causalAdd(dec.scores).map(softmaxRow),
        sharpen_factor: inp.sharpen,
        weights_sharp: causalAdd(mapM(dec.scaled, (x) => inp.sharpen * x)).map(softmaxRow),
        mouse_gap: dec.scaled[last][0] - dec.scaled[last][1],
        mouse_gap_shown_agrees:
          gapShown(dec.scaled[last][0]) - gapShown(dec.scaled[last][1]) ===
          gapShown(dec.scaled[last][0] - dec.scaled[last][1])
            ? 1
            : 0,
        last_row_same: dec.weights[last].every((x, j) => x === enc.weights[last][j]) ? 1 : 0,
        attn_out: dec.output,
        change: mapM(dec.output, (x, i, j) => x - dec.e[i][j]),
        ffn_out: dec.ffn,
        h_last: dec.hLast,
        logits: dec.logits,
        exp_logits: dec.logits.map(Math.exp),
        probs: dec.probs,
        top_id: topId,
        top_token: inp.vocab[topId],
        top_prob: dec.probs[topId],
        reordered_sentence: inp.reordered_ids.map((i) => inp.vocab[i]).join(" "),
        last_out_reordered: lastRe,
        order_gap: Math.max.apply(
          null,
          dec.output[last].map((x, j) => Math.abs(x - lastRe[j])),
        ),
        residual: mapM(dec.e, (x, i, j) => x + dec.output[i][j]),
        probs_shown_sum: Number(sumUnits(dec.probs, 2, false)) / 100,
        probs_shown_pct_sum: Number(sumUnits(dec.probs, 1, true)) / 10,
        ...byHand(dec.weights, dec.v, dec.output),
        // the rows of worked_example's tables (the page shows their numeric cells)
        vocab_table: inp.vocab.map((tok, i) => [
          String(i),
          tok,
          inp.W_vocab[0][i],
          inp.W_vocab[1][i],
          inp.ids.indexOf(i) >= 0 ? "tak" : "nie",
        ]),
        prob_table: inp.vocab.map((tok, i) => [tok, dec.logits[i], dec.probs[i]]),
      },
      pad,
    );
  }

  /** Sum of xs as shown with `decimals` places (in percent when `pct`), in 10^-decimals units. */
  function sumUnits(xs, decimals, pct) {
    return xs.reduce((acc, x) => acc + decimalUnits(pct ? times100(x) : x, decimals), BigInt(0));
  }

  /** The padded batch of the padding-mask section (worked_example._padding_results). */
  function paddedBatch(inp) {
    const table = inp.W_vocab.map((row, r) => row.concat([inp.pad_embedding[r]]));
    const padId = inp.vocab.length;
    const lens = inp.batch_ids.map((row) => row.length);
    const t = Math.max.apply(null, lens);
    const ids = inp.batch_ids.map((row) => {
      const out = row.slice();
      while (out.length < t) out.push(padId);
      return out;
    });
    const short = ids[1];
    const n = lens[1];
    const x = short.map((id) => table.map((row) => row[id]));
    const q = matmul(x, inp.W_Q);
    const k = matmul(x, inp.W_K);
    const root = Math.sqrt(q[0].length);
    const scaled = mapM(matmul(q, transpose(k)), (s) => s / root);
    const noMask = scaled.map(softmaxRow);
    const withMask = mapM(scaled, (s, _i, j) => (j >= n ? -Infinity : s)).map(softmaxRow);
    const sub = scaled.slice(0, n).map((row) => row.slice(0, n));
    const alone = sub.map(softmaxRow);
    let gap = 0;
    let zero = true;
    withMask.forEach((row, i) => {
      row.forEach((w, j) => {
        if (i < n && j < n) gap = Math.max(gap, Math.abs(w - alone[i][j]));
        if (j >= n && w !== 0) zero = false;
      });
    });
    return {
      pad_sentence: inp.batch_ids[1].map((i) => inp.vocab[i]).join(" "),
      pad_token: inp.pad_token,
      pad_embedding: inp.pad_embedding.slice(),
      pad_len: n,
      pad_full_len: lens[0],
      pad_weights_nomask: noMask,
      pad_weights: withMask,
      pad_leak: sumOf(noMask[0].slice(n)),
      pad_gap: gap,
      pad_zero: zero ? 1 : 0,
    };
  }

  /* ---------------------------------------------------------------------------------------
   * Claims: the build compiles each claim's condition (the Jinja2 expression tree the build
   * checks, anatomia_engine/placeholders.compile_expression) into a compact JSON form, evaluated
   * here with Python's semantics on the reader's numbers.
   * ------------------------------------------------------------------------------------- */

  function pyIndex(obj, key) {
    if (typeof key !== "number" || !Number.isInteger(key)) throw new Error(`index ${key}`);
    const i = key < 0 ? obj.length + key : key;
    if (i < 0 || i >= obj.length) throw new Error(`index ${key} out of range`);
    return obj[i];
  }

  function flat(x) {
    return Array.isArray(x) ? x.reduce((a, v) => a.concat(flat(v)), []) : [x];
  }

  function pyEqual(a, b) {
    if (Array.isArray(a) || Array.isArray(b)) {
      return (
        Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => pyEqual(x, b[i]))
      );
    }
    return a === b;
  }

  function truthy(x) {
    if (Array.isArray(x)) return x.length > 0;
    return Boolean(x);
  }

  const FUNCS = {
    abs: (x) => (Array.isArray(x) ? x.map(FUNCS.abs) : Math.abs(x)),
    max: (...args) => Math.max(...(args.length === 1 ? flat(args[0]) : args)),
    min: (...args) => Math.min(...(args.length === 1 ? flat(args[0]) : args)),
    len: (x) => x.length,
    sum: (x) => sumOf(flat(x)),
    sqrt: Math.sqrt,
    exp: Math.exp,
    argmax: (x) => argmax(flat(x)),
    argmin: (x) => argmax(flat(x).map((v) => -v)),
    sorted: (x) =>
      flat(x)
        .slice()
        .sort((a, b) => a - b),
    all: (x) => flat(x).every(truthy),
    any: (x) => flat(x).some(truthy),
  };

  const COMPARE = {
    eq: pyEqual,
    ne: (a, b) => !pyEqual(a, b),
    gt: (a, b) => a > b,
    gteq: (a, b) => a >= b,
    lt: (a, b) => a < b,
    lteq: (a, b) => a <= b,
    in: (a, b) => (typeof b === "string" ? b.indexOf(a) >= 0 : b.some((x) => pyEqual(x, a))),
    notin: (a, b) => !COMPARE.in(a, b),
  };

  const ARITH = {
    "+": (a, b) => a + b,
    "-": (a, b) => a - b,
    "*": (a, b) => a * b,
    "/": (a, b) => {
      if (b === 0) throw new RangeError("division by zero");
      return a / b;
    },
    "//": (a, b) => {
      if (b === 0) throw new RangeError("division by zero");
      return Math.floor(a / b);
    },
    "%": (a, b) => {
      if (b === 0) throw new RangeError("division by zero");
      return ((a % b) + b) % b;
    },
    "**": (a, b) => a ** b,
  };

  /** Value of a compiled expression in `scope` (name -> value); throws on anything unknown. */
  function evaluate(node, scope) {
    const ev = (n) => evaluate(n, scope);
    if (typeof node === "string") {
      // "weights 2 1": weights[2][1]
      const path = node.split(" ");
      if (!Object.hasOwn(scope, path[0])) throw new Error(`unknown value ${path[0]}`);
      return path.slice(1).reduce((v, i) => pyIndex(v, +i), scope[path[0]]);
    }
    if (!Array.isArray(node)) return node; // a number, a boolean or null
    switch (node[0]) {
      case "s":
        return node[1];
      case "i":
        return pyIndex(ev(node[1]), ev(node[2]));
      case "list":
        return node[1].map(ev);
      case "neg":
        return -ev(node[1]);
      case "pos":
        return +ev(node[1]);
      case "not":
        return !truthy(ev(node[1]));
      case "and": {
        const a = ev(node[1]);
        return truthy(a) ? ev(node[2]) : a;
      }
      case "or": {
        const o = ev(node[1]);
        return truthy(o) ? o : ev(node[2]);
      }
      case "if":
        return truthy(ev(node[1])) ? ev(node[2]) : ev(node[3]);
      case "cmp": {
        let left = ev(node[1]);
        let result = true;
        for (let k = 0; k < node[2].length; k++) {
          const right = ev(node[2][k][1]);
          result = COMPARE[node[2][k][0]](left, right);
          if (!result) return false;
          left = right;
        }
        return result;
      }
      case "f":
        return FUNCS[node[1]].apply(null, node[2].map(ev));
      default:
        if (ARITH[node[0]]) return ARITH[node[0]](ev(node[1]), ev(node[2]));
        throw new Error(`not part of the placeholder language: ${node[0]}`);
    }
  }

  /** The names a compiled expression reads. */
  function namesOf(node, out) {
    out = out || [];
    if (typeof node === "string") {
      const name = node.split(" ")[0];
      if (out.indexOf(name) < 0) out.push(name);
    } else if (Array.isArray(node) && node[0] !== "s") {
      // an operation's name, a function's name and a comparison's operator are not values
      const children =
        node[0] === "f"
          ? node[2]
          : node[0] === "cmp"
            ? [node[1]].concat(node[2].map((o) => o[1]))
            : node.slice(1);
      children.forEach((child) => {
        namesOf(child, out);
      });
    }
    return out;
  }

  /** The computation and the number policy, for the page's live code and for tests (node). */
  const core = {
    fmtDec: fmtDec,
    fmtPct: fmtPct,
    fmtVec: fmtVec,
    format: format,
    fmtExact: fmtExact,
    parseSpec: parseSpec,
    decimalUnits: decimalUnits,
    compute: compute,
    workedExample: workedExample,
    evaluate: evaluate,
    namesOf: namesOf,
    parseNumber: parseNumber,
  };
  if (typeof window === "undefined") {
    module.exports = core;
    return;
  }
  if (window.attentionExplorer?.loaded) {
    window.attentionExplorer.initAll();
    return;
  }

  /* ---------------------------------------------------------------------------------------
   * DOM helpers: text goes in through textContent only.
   * ------------------------------------------------------------------------------------- */

  function h(tag, attrs, children) {
    const node = document.createElement(tag);
    setAttrs(node, attrs);
    append(node, children);
    return node;
  }

  function s(tag, attrs, children) {
    const node = document.createElementNS(SVG_NS, tag);
    setAttrs(node, attrs);
    append(node, children);
    return node;
  }

  function setAttrs(node, attrs) {
    if (!attrs) return;
    Object.keys(attrs).forEach((key) => {
      const value = attrs[key];
      if (value === null || value === undefined || value === false) return;
      if (key === "text") node.textContent = String(value);
      else node.setAttribute(key, value === true ? "" : String(value));
    });
  }

  function append(node, children) {
    if (children === undefined || children === null) return;
    (Array.isArray(children) ? children : [children]).forEach((c) => {
      if (c === null || c === undefined || c === false) return;
      node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function sub(n) {
    return String(n)
      .split("")
      .map((ch) => SUBSCRIPT[+ch])
      .join("");
  }

  function shorten(text, n) {
    return text.length > n ? `${text.slice(0, n - 1)}\u2026` : text;
  }

  function quoted(token) {
    return `\u201e${token}\u201d`;
  }

  function clone(value) {
    return JSON.parse(JSON.stringify(value));
  }

  function parseNumber(text) {
    // accepts a decimal comma too
    const t = String(text).trim().replace(",", ".").replace(MINUS, "-");
    if (!/^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) return NaN;
    return Number(t);
  }

  /** A number as the site writes it in a field: decimal comma, no exponent (0.5 -> "0,5"). */
  function fieldText(x) {
    return String(x).replace(".", ",");
  }

  function isIdentity(m) {
    return m.every((row, i) => row.length === m.length && row.every((x, j) => x === (i === j ? 1 : 0)));
  }

  /* ---------------------------------------------------------------------------------------
   * One explorer instance.
   * ------------------------------------------------------------------------------------- */

  // The address keeps the reader's state in this query parameter (the first explorer of a page).
  const URL_PARAM = "eksplorator";

  function Explorer(root, config, ownsUrl) {
    this.root = root;
    this.presets = config.presets;
    this.limits = config.limits;
    this.tasks = config.tasks || [];
    this.id = `attn-x-${++uid}`;
    this.dragging = null;
    this.frozenRange = null;
    this.fields = []; // every typed field: see Explorer.prototype.field
    this.taskIndex = null; // the guided task being done, or null
    this.done = {}; // task id -> true once the page has seen it done
    this.ownsUrl = ownsUrl;
    this.urlReady = false; // no address writes until the start state is settled
    this.build();
    if (!(ownsUrl && this.loadFromUrl())) this.loadPreset(0);
    this.urlReady = true;
  }

  /** The state a preset starts from (a fresh copy). */
  function presetState(p) {
    return {
      vocab: p.vocab.map((w) => ({ token: w.token, vec: w.embedding.slice() })),
      sentence: p.sentence.slice(),
      wq: clone(p.w_q),
      wk: clone(p.w_k),
      wv: clone(p.w_v),
      causal: !!p.causal,
      useScale: !!p.scale,
      temperature: p.temperature,
      query: p.query,
    };
  }

  Explorer.prototype.loadPreset = function (index, keepTask) {
    const p = this.presets[index];
    this.presetIndex = index;
    this.st = presetState(p);
    if (!keepTask) this.setTask(null);
    this.ui.preset.value = String(index);
    this.ui.presetInfo.textContent = p.description;
    this.say("");
    this.ui.newWord.removeAttribute("aria-invalid");
    this.ui.newWordError.textContent = "";
    this.update(null, true);
  };

  /** A line in the explorer's status region (announced politely); "" clears it. */
  Explorer.prototype.say = function (text, warning) {
    this.ui.message.textContent = text;
    this.ui.message.classList.toggle("attn-x__warning", !!warning);
  };

  Explorer.prototype.build = function () {
    const L = this.limits;
    const id = this.id;
    const ui = {};
    this.ui = ui;
    clear(this.root);

    // Guided tasks: a short list among the controls; the chosen task's text and hint stand in a
    // card above the picture, so its goal stays in view while the reader works.
    let tasks = null;
    ui.taskCard = h("div", { class: "attn-x__taskcard", hidden: true });
    // Announced when a task starts and when the page sees it done.
    // (for screen readers: the card shows the same to the eye).
    ui.taskStatus = h("p", { class: "attn-x__sr", role: "status", "aria-live": "polite" });
    if (this.tasks.length) {
      ui.taskList = h("ol", { class: "attn-x__tasks" });
      this.tasks.forEach((task, t) => {
        const button = h("button", {
          type: "button",
          class: "attn-x__taskbtn",
          text: task.title,
          "aria-label": `${task.title} \u2014 zacznij zadanie ${t + 1}`,
        });
        button.addEventListener("click", () => {
          this.startTask(t);
        });
        ui.taskList.appendChild(
          h("li", { "data-task": task.id }, [button, h("span", { class: "attn-x__task-done" })]),
        );
      });
      tasks = h("fieldset", { class: "attn-x__group" }, [
        h("legend", { text: "Zadania" }),
        h("p", {
          class: "attn-x__info",
          text:
            "Wybierz zadanie: eksplorator ustawi jego przykład, pokaże cel nad " +
            "rysunkiem i sam zauważy, kiedy zadanie jest wykonane.",
        }),
        ui.taskList,
      ]);
    }

    // Starting point.
    ui.preset = h("select", { id: `${id}-preset` });
    this.presets.forEach((p, i) => {
      ui.preset.appendChild(h("option", { value: i, text: p.name }));
    });
    ui.preset.addEventListener("change", () => {
      this.loadPreset(+ui.preset.value);
    });
    ui.reset = h("button", {
      type: "button",
      class: "md-button attn-x__small",
      text: "Przywróć ustawienia przykładu",
    });
    ui.reset.addEventListener("click", () => {
      this.loadPreset(this.presetIndex, true);
    });
    ui.presetInfo = h("p", { class: "attn-x__info", id: `${id}-preset-info` });
    ui.preset.setAttribute("aria-describedby", `${id}-preset-info`);
    const start = h("fieldset", { class: "attn-x__group" }, [
      h("legend", { text: "Punkt wyjścia" }),
      h("div", { class: "attn-x__row attn-x__preset" }, [
        h("label", { for: `${id}-preset`, text: "Przykład startowy" }),
        ui.preset,
        ui.reset,
      ]),
      ui.presetInfo,
    ]);

    // The computation.
    ui.causal = h("input", { type: "checkbox", id: `${id}-causal` });
    ui.causal.addEventListener("change", () => {
      this.st.causal = ui.causal.checked;
      this.update();
    });
    ui.scale = h("input", { type: "checkbox", id: `${id}-scale` });
    ui.scale.addEventListener("change", () => {
      this.st.useScale = ui.scale.checked;
      this.update();
    });
    ui.scaleLabel = h("label", { for: `${id}-scale` });
    const T = L.temperature;
    ui.tempRange = h("input", {
      type: "range",
      id: `${id}-temp-range`,
      min: T.min,
      max: T.max,
      step: T.step,
      "aria-describedby": `${id}-scale-info`,
    });
    ui.tempRange.addEventListener("input", () => {
      this.st.temperature = Number(ui.tempRange.value);
      this.update(ui.tempRange);
    });
    // Number fields are text fields (inputmode decimal): a number field would not take "0,5".
    ui.tempNumber = h("input", {
      type: "text",
      id: `${id}-temp`,
      inputmode: "decimal",
      autocomplete: "off",
      spellcheck: "false",
      class: "attn-x__num",
    });
    ui.tempError = errorLine(`${id}-temp-error`);
    this.numberField(
      ui.tempNumber,
      ui.tempError,
      T,
      "Temperatura T",
      () => this.st.temperature,
      (v) => {
        this.st.temperature = v;
      },
      `${id}-scale-info`,
    );
    ui.scaleInfo = h("p", { class: "attn-x__info", id: `${id}-scale-info` });
    ui.query = h("select", { id: `${id}-query` });
    ui.query.addEventListener("change", () => {
      this.st.query = +ui.query.value;
      this.update();
    });
    const maths = h("fieldset", { class: "attn-x__group" }, [
      h("legend", { text: "Obliczenie" }),
      h("div", { class: "attn-x__row" }, [
        ui.causal,
        h("label", {
          for: `${id}-causal`,
          text: "Maska przyczynowa: token widzi tylko siebie i wcześniejsze pozycje",
        }),
      ]),
      h("div", { class: "attn-x__row" }, [ui.scale, ui.scaleLabel]),
      h("div", { class: "attn-x__row" }, [
        h("label", { for: `${id}-temp-range`, text: "Temperatura T (suwak)" }),
        ui.tempRange,
        h("label", { for: `${id}-temp`, class: "attn-x__sr", text: "Temperatura T (liczba)" }),
        ui.tempNumber,
      ]),
      ui.tempError,
      ui.scaleInfo,
      h("div", { class: "attn-x__row" }, [
        h("label", { for: `${id}-query`, text: "Zapytanie (token, który patrzy)" }),
        ui.query,
      ]),
    ]);

    // The projection matrices W_Q, W_K, W_V (rebuilt when their shape changes).
    ui.matrices = h("div", { class: "attn-x__matrices" });
    ui.identity = h("button", {
      type: "button",
      class: "md-button attn-x__small",
      text: "Ustaw wszystkie trzy na I",
    });
    ui.identity.addEventListener("click", () => {
      ["wq", "wk", "wv"].forEach((key) => {
        this.st[key] = this.st[key].map((row, i) => row.map((_, j) => (i === j ? 1 : 0)));
      });
      this.update();
    });
    const projections = h("fieldset", { class: "attn-x__group" }, [
      h("legend", { text: "Macierze W_Q, W_K, W_V" }),
      h("p", {
        class: "attn-x__info",
        text:
          "Zapytanie q = x·W_Q, klucz k = x·W_K, wartość v = x·W_V: wiersz x (embedding tokenu) " +
          "razy macierz. Gdy W_Q ≠ W_K, token szuka (q) innych cech, niż sam pokazuje innym (k).",
      }),
      ui.matrices,
      ui.identity,
    ]);

    // The sentence.
    ui.sentenceList = h("ol", { class: "attn-x__sentence", start: 0 });
    ui.addPosition = h("button", { type: "button", class: "md-button attn-x__small", text: "Dodaj pozycję" });
    ui.addPosition.addEventListener("click", () => {
      if (this.st.sentence.length >= L.max_tokens) return;
      this.st.sentence.push(this.st.sentence[this.st.sentence.length - 1]);
      this.update();
      const selects = ui.sentenceList.querySelectorAll("select");
      selects[selects.length - 1].focus();
    });
    const sentence = h("fieldset", { class: "attn-x__group" }, [
      h("legend", { text: "Zdanie (tokeny ze słownika)" }),
      ui.sentenceList,
      ui.addPosition,
    ]);

    // The vocabulary and its embeddings: one <tbody> per word (its fields and their error line).
    ui.vocabTable = h("table", { class: "attn-x__vocab" }, [
      h(
        "thead",
        null,
        h("tr", null, [
          h("th", { scope: "col", text: "token" }),
          h("th", { scope: "col", text: "wymiar 0" }),
          h("th", { scope: "col", text: "wymiar 1" }),
        ]),
      ),
    ]);
    ui.newWord = h("input", {
      type: "text",
      id: `${id}-new-word`,
      maxlength: L.max_token_chars,
      autocomplete: "off",
      spellcheck: "false",
      "aria-describedby": `${id}-new-word-error`,
    });
    ui.newWordError = errorLine(`${id}-new-word-error`);
    ui.addWord = h("button", {
      type: "button",
      class: "md-button attn-x__small",
      text: "Dodaj słowo do słownika i zdania",
    });
    ui.addWord.addEventListener("click", () => {
      this.addWord();
    });
    ui.newWord.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") {
        ev.preventDefault();
        this.addWord();
      }
    });
    ui.newWord.addEventListener("input", () => {
      if (ui.newWord.getAttribute("aria-invalid") === "true") this.addWordProblem(true);
    });
    const vocab = h("fieldset", { class: "attn-x__group" }, [
      h("legend", { text: "Słownik i embeddingi 2-D" }),
      h("p", {
        class: "attn-x__info",
        text:
          `Zmień współrzędne, wpisując liczby od ${fmtDec(L.coord.min, 0)} do ${fmtDec(L.coord.max, 0)} ` +
          "albo przeciągając punkty na płaszczyźnie (zaznaczony punkt przesuwają też strzałki; " +
          "z klawiszem Shift — dalej). Nazwy tokenów muszą być różne.",
      }),
      h("div", { class: "attn-x__scroll" }, ui.vocabTable),
      h("div", { class: "attn-x__row" }, [
        h("label", { for: `${id}-new-word`, text: "Nowe słowo" }),
        ui.newWord,
        ui.addWord,
      ]),
      ui.newWordError,
    ]);

    ui.message = h("p", { class: "attn-x__message", role: "status", "aria-live": "polite" });

    // The views.
    ui.plane = s("svg", { class: "attn-x__plane", role: "group", "aria-labelledby": `${id}-plane-cap` });
    ui.plane.addEventListener("pointermove", (ev) => {
      this.drag(ev);
    });
    ui.plane.addEventListener("pointerup", (ev) => {
      this.endDrag(ev);
    });
    ui.plane.addEventListener("pointercancel", (ev) => {
      this.endDrag(ev);
    });
    if (typeof ResizeObserver !== "undefined") {
      // keep the touch targets large when the plane resizes
      new ResizeObserver((entries) => {
        this.planeWidth = entries[entries.length - 1].contentRect.width;
        const r = this.hitRadius(PLANE_SIZE);
        Array.prototype.forEach.call(ui.plane.querySelectorAll(".attn-x__hit"), (c) => {
          c.setAttribute("r", r);
        });
      }).observe(ui.plane);
    }
    ui.heat = s("svg", { class: "attn-x__heat", role: "img", "data-testid": "heatmap" });
    ui.bars = s("svg", { class: "attn-x__bars", role: "img" });
    // The result in words, announced after each change (the pictures say the same visually).
    ui.summary = h("p", { class: "attn-x__summary", role: "status", "aria-live": "polite" });
    ui.numbers = h("div", { class: "attn-x__numbers" });
    const stage = h("div", { class: "attn-x__stage" }, [
      ui.taskCard,
      ui.taskStatus,
      ui.message,
      ui.summary,
      h("div", { class: "attn-x__views" }, [
        h("figure", { class: "attn-x__figure" }, [
          ui.plane,
          h("figcaption", {
            id: `${id}-plane-cap`,
            text:
              "Płaszczyzna embeddingów: kółka to wejścia (tokeny) z wagą, jaką daje im wybrane " +
              "zapytanie; romby to wyjścia uwagi, każdy połączony przerywaną linią ze swoim wejściem; " +
              "wypełniony i podpisany romb to wyjście wybranego zapytania. Ciągłe linie prowadzą od " +
              "zapytania do kluczy, które widzi: im grubsza, tym większa waga.",
          }),
        ]),
        h("figure", { class: "attn-x__figure" }, [
          ui.heat,
          h("figcaption", {
            text:
              "Wagi uwagi: wiersze to zapytania (kto patrzy), kolumny to klucze (na kogo patrzy); " +
              "pola zakreskowane są zablokowane przez maskę. Kliknięcie wiersza wybiera zapytanie.",
          }),
        ]),
        h("figure", { class: "attn-x__figure attn-x__barfig" }, [
          ui.bars,
          h("figcaption", {
            text: "Wagi wybranego zapytania: jak rozkłada ono uwagę na klucze (suma wynosi 1).",
          }),
        ]),
      ]),
    ]);

    // The numbers close the controls' column: on a wide screen the picture stays in view beside
    // them too, down to the last field of the vocabulary.
    const numbers = h("details", { class: "attn-x__details", open: true }, [
      h("summary", { text: "Liczby: Q, K, V, oceny, wagi i wyjścia" }),
      ui.numbers,
    ]);
    const controls = h("div", { class: "attn-x__controls" }, [
      tasks,
      start,
      maths,
      projections,
      sentence,
      vocab,
      numbers,
    ]);
    // Picture first: beside the controls on a wide screen, above them on a phone (explorer.css).
    this.root.appendChild(h("div", { class: "attn-x__layout" }, [stage, controls]));
  };

  function errorLine(id) {
    return h("p", {
      class: "attn-x__message attn-x__field-error",
      id: id,
      role: "status",
      "aria-live": "polite",
    });
  }

  /* ------------------------------- typed fields ------------------------------- */

  /** Wire `input` as a field of the state: `parse(text)` returns {value} or {error}; `get()` is
   * the state's value, `set(v)` takes a valid one, `show(v)` writes it in the field. A bad entry
   * stays as typed, marked aria-invalid, with its reason in `error` (the line right under the
   * field, named by aria-describedby) until the reader corrects it, the same value is set some
   * other way (a drag, a preset), or a preset is loaded: never silently put back. */
  Explorer.prototype.field = function (input, error, parse, get, set, show, describedBy) {
    const f = { input: input, error: error, get: get, show: show, message: "", shown: null };
    input.setAttribute("aria-describedby", error.id + (describedBy ? ` ${describedBy}` : ""));
    input.addEventListener("input", () => {
      const r = parse(input.value);
      if (r.error) {
        f.message = r.error;
        f.shown = get();
        input.setAttribute("aria-invalid", "true");
        this.showErrors(error);
        return;
      }
      f.message = "";
      input.removeAttribute("aria-invalid");
      this.showErrors(error);
      set(r.value);
      this.update(input);
      f.shown = get();
    });
    this.fields.push(f);
    return f;
  };

  /** The reasons of every bad field that writes into `error`, one per line. */
  Explorer.prototype.showErrors = function (error) {
    const lines = this.fields.filter((f) => f.error === error && f.message).map((f) => f.message);
    error.textContent = lines.join(" ");
  };

  /** A number field between range.min and range.max; `what` names it in the message. */
  Explorer.prototype.numberField = function (input, error, range, what, get, set, describedBy) {
    const lo = fmtDec(range.min, 1).replace(/,0$/, "");
    const hi = fmtDec(range.max, 1).replace(/,0$/, "");
    function parse(text) {
      const v = parseNumber(text);
      if (v >= range.min && v <= range.max) return { value: v };
      const said = String(text).trim() === "" ? "puste pole" : quoted(String(text).trim());
      return {
        error:
          `${what}: ${said} — wpisz liczbę od ${lo} do ${hi} (przecinek albo kropka). ` +
          `Obliczenie używa nadal ${fieldText(get())}.`,
      };
    }
    return this.field(input, error, parse, get, set, fieldText, describedBy);
  };

  /** Put the state into every field, except the one being typed in and a bad entry whose value
   * the state still has (`force`: every field, clearing their messages). */
  Explorer.prototype.syncFields = function (source, force) {
    const touched = [];
    this.fields = this.fields.filter((f) => f.input.isConnected || !this.root.isConnected);
    this.fields.forEach((f) => {
      if (f.input === source) return;
      const v = f.get();
      if (!force && f.message && v === f.shown) return; // the reader's bad entry stays, with its reason
      if (f.message && touched.indexOf(f.error) < 0) touched.push(f.error);
      f.message = "";
      f.input.removeAttribute("aria-invalid");
      f.shown = v;
      if (f.input.value !== f.show(v)) f.input.value = f.show(v);
    });
    touched.forEach((e) => {
      this.showErrors(e);
    });
  };

  /* ------------------------------- words and tasks ------------------------------- */

  /** Why `name` cannot name word `k` (k = -1: a new word), or "" if it can. */
  Explorer.prototype.nameProblem = function (name, k) {
    if (!name.trim()) return "Nazwa tokenu nie może być pusta.";
    let other = -1;
    this.st.vocab.forEach((w, j) => {
      if (j !== k && w.token === name) other = j;
    });
    if (other >= 0) return `${quoted(name)} jest już w słowniku; nazwy tokenów muszą być różne.`;
    return "";
  };

  Explorer.prototype.addWordProblem = function (quiet) {
    const L = this.limits;
    let problem = this.nameProblem(this.ui.newWord.value, -1);
    if (!problem && this.st.vocab.length >= L.max_vocab)
      problem = `Słownik ma już ${L.max_vocab} słów, więcej się nie zmieści.`;
    if (problem && quiet && !this.ui.newWord.value.trim()) problem = "";
    this.ui.newWordError.textContent = problem;
    if (problem) this.ui.newWord.setAttribute("aria-invalid", "true");
    else this.ui.newWord.removeAttribute("aria-invalid");
    return problem;
  };

  Explorer.prototype.addWord = function () {
    const L = this.limits;
    if (this.addWordProblem(false)) return;
    const token = this.ui.newWord.value;
    this.st.vocab.push({ token: token, vec: L.new_word_embedding.slice() });
    let note = `Dodano ${quoted(token)} do słownika`;
    if (this.st.sentence.length < L.max_tokens) {
      this.st.sentence.push(this.st.vocab.length - 1);
      note += " i na koniec zdania";
    }
    this.ui.newWord.value = "";
    this.say(`${note}.`);
    this.update();
  };

  /** Make task `t` (or none, null) the chosen one: its card above the picture, its list item marked. */
  Explorer.prototype.setTask = function (t) {
    const ui = this.ui;
    this.taskIndex = t;
    if (!ui.taskList) return;
    Array.prototype.forEach.call(ui.taskList.children, (li, j) => {
      li.classList.toggle("attn-x__task-active", j === t);
    });
    clear(ui.taskCard);
    ui.taskCard.classList.remove("attn-x__task-solved");
    ui.taskCard.hidden = t === null;
    if (t === null) return;
    const task = this.tasks[t];
    const stop = h("button", {
      type: "button",
      class: "attn-x__remove attn-x__stop",
      text: "\u00d7",
      "aria-label": "Zakończ zadanie",
      title: "Zakończ zadanie",
    });
    stop.addEventListener("click", () => {
      const button = ui.taskList.children[t].querySelector("button");
      this.setTask(null);
      this.writeUrl();
      button.focus();
    });
    ui.taskCard.appendChild(
      h("div", { class: "attn-x__taskhead" }, [
        h("p", { class: "attn-x__task-text" }, [
          h("strong", { text: `Zadanie ${t + 1}: ${task.title}.` }),
          ` ${task.text}`,
        ]),
        stop,
      ]),
    );
    ui.taskCard.appendChild(
      h("details", { class: "attn-x__hint" }, [
        h("summary", { text: "Podpowiedź" }),
        h("p", { text: task.hint }),
      ]),
    );
  };

  Explorer.prototype.startTask = function (t) {
    const task = this.tasks[t];
    const index = this.presets.map((p) => p.id).indexOf(task.preset);
    this.setTask(t);
    this.done[task.id] = false; // done again, said again
    this.ui.taskStatus.textContent = "";
    this.loadPreset(index, true);
    this.st.query = task.check.query; // the row the task is about, in the picture
    this.update();
    this.ui.taskStatus.textContent = `Zadanie ${t + 1}: ${task.title}. ${task.text}`;
  };

  /** Does the state do what task `t` asks (figures_src/explorer.py task_holds, the same checks)? */
  Explorer.prototype.taskHolds = function (t) {
    const task = this.tasks[t];
    const p = this.presets[this.presetIndex];
    if (p.id !== task.preset) return false;
    const st = this.st;
    const r = this.result;
    const x0 = p.sentence.map((i) => p.vocab[i].embedding);
    const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
    const kept = task.fixed.every((part) => {
      if (part === "x") return same(r.x, x0);
      if (part === "causal") return st.causal === !!p.causal;
      return same(st[{ w_q: "wq", w_k: "wk", w_v: "wv" }[part]], p[part]);
    });
    const c = task.check;
    if (!kept || c.query >= r.weights.length) return false;
    const row = r.weights[c.query];
    switch (c.kind) {
      case "weight_at_least":
        return row[c.key] >= c.value;
      case "argmax":
        return row.every((w, j) => j === c.key || row[c.key] > w);
      case "more_than":
        return row[c.key] > row[c.other];
      case "spread_below": {
        const seen = row.filter((_, j) => !r.blocked[c.query][j]);
        return Math.max.apply(null, seen) - Math.min.apply(null, seen) < c.value;
      }
      case "output_below":
        return r.output[c.query][c.dim] < c.value;
      case "output_moved":
        return r.output[c.query].some((y, d) => Math.abs(y - r.x[c.query][d]) > c.value);
      default:
        throw new Error(`nieznany rodzaj zadania: ${c.kind}`);
    }
  };

  Explorer.prototype.checkTask = function () {
    const t = this.taskIndex;
    if (t === null || !this.ui.taskList) return;
    const task = this.tasks[t];
    if (this.done[task.id] || !this.taskHolds(t)) return;
    this.done[task.id] = true;
    const li = this.ui.taskList.children[t];
    li.classList.add("attn-x__task-solved");
    li.setAttribute("data-done", "true");
    li.querySelector(".attn-x__task-done").textContent = "wykonane \u2713";
    this.ui.taskCard.classList.add("attn-x__task-solved");
    this.ui.taskCard.appendChild(
      h("p", {
        class: "attn-x__task-done",
        text: "Wykonane \u2713 Możesz zmieniać dalej albo wybrać następne zadanie.",
      }),
    );
    this.ui.taskStatus.textContent = `Brawo! Zadanie ${t + 1} („${task.title}”) wykonane.`;
  };

  /* ------------------------------- the address ------------------------------- */

  /** The state as the address keeps it (short keys; numbers as JSON numbers); `taskId` or null. */
  function encodeState(presetId, st, taskId) {
    const out = {
      p: presetId,
      v: st.vocab.map((w) => [w.token, w.vec[0], w.vec[1]]),
      s: st.sentence,
      wq: st.wq,
      wk: st.wk,
      wv: st.wv,
      m: st.causal ? 1 : 0,
      sk: st.useScale ? 1 : 0,
      t: st.temperature,
      q: st.query,
    };
    if (taskId !== null) out.z = taskId;
    return out;
  }

  /** The state in a decoded address, checked against the page's limits; throws an Error whose
   * message says, in Polish, what is wrong. */
  Explorer.prototype.decode = function (o) {
    const L = this.limits;
    const tasks = this.tasks;
    function need(ok, what) {
      if (!ok) throw new Error(what);
    }
    function num(x, range, what) {
      need(
        typeof x === "number" && x >= range.min && x <= range.max,
        `${what} musi być liczbą od ${fmtDec(range.min, 1)} do ${fmtDec(range.max, 1)}`,
      );
      return x;
    }
    need(o && typeof o === "object" && !Array.isArray(o), "to nie jest opis stanu");
    const index = this.presets.map((p) => p.id).indexOf(o.p);
    need(index >= 0, "nieznany przykład startowy");
    need(
      Array.isArray(o.v) && o.v.length >= 1 && o.v.length <= L.max_vocab,
      `słownik musi mieć od 1 do ${L.max_vocab} słów`,
    );
    const names = [];
    const vocab = o.v.map((w) => {
      need(Array.isArray(w) && w.length === 3 && typeof w[0] === "string", "słowo słownika ma zły zapis");
      need(w[0].trim() !== "" && w[0].length <= L.max_token_chars, "nazwa tokenu jest pusta albo za długa");
      need(names.indexOf(w[0]) < 0, `nazwa ${quoted(w[0])} występuje dwa razy`);
      names.push(w[0]);
      return { token: w[0], vec: [num(w[1], L.coord, "współrzędna"), num(w[2], L.coord, "współrzędna")] };
    });
    need(
      Array.isArray(o.s) && o.s.length >= 1 && o.s.length <= L.max_tokens,
      `zdanie musi mieć od 1 do ${L.max_tokens} pozycji`,
    );
    o.s.forEach((i) => {
      need(Number.isInteger(i) && i >= 0 && i < vocab.length, "zdanie wskazuje słowo spoza słownika");
    });
    const d = 2;
    const matrix = (m, what) => {
      need(
        Array.isArray(m) && m.length === d && m.every((row) => Array.isArray(row) && row.length === d),
        `${what} musi mieć ${d} wiersze po ${d} liczby`,
      );
      return m.map((row) => row.map((x) => num(x, L.weight, `wyraz ${what}`)));
    };
    const st = {
      vocab: vocab,
      sentence: o.s.slice(),
      wq: matrix(o.wq, "W_Q"),
      wk: matrix(o.wk, "W_K"),
      wv: matrix(o.wv, "W_V"),
      causal: o.m === 1,
      useScale: o.sk === 1,
      temperature: num(o.t, L.temperature, "temperatura"),
      query: o.q,
    };
    need((o.m === 0 || o.m === 1) && (o.sk === 0 || o.sk === 1), "maska i skalowanie to 0 albo 1");
    need(
      Number.isInteger(o.q) && o.q >= 0 && o.q < st.sentence.length,
      "zapytanie wskazuje pozycję spoza zdania",
    );
    let task = null;
    if (o.z !== undefined) {
      task = tasks.map((t) => t.id).indexOf(o.z);
      need(task >= 0 && tasks[task].preset === o.p, "nieznane zadanie");
    }
    return { index: index, st: st, task: task };
  };

  /** Start from the state in the address, if there is one; false when there is none. A state
   * that cannot be read is said so on the page (the example's start is shown instead). */
  Explorer.prototype.loadFromUrl = function () {
    const text = new URLSearchParams(window.location.search).get(URL_PARAM);
    if (text === null) return false;
    let got;
    try {
      got = this.decode(JSON.parse(text));
    } catch (err) {
      this.loadPreset(0);
      const why = err instanceof SyntaxError ? "to nie jest poprawny zapis" : err.message;
      this.say(
        `Adres strony zawiera stan eksploratora, którego nie da się odczytać (${why}). ` +
          "Pokazuję przykład startowy; zmiana dowolnego ustawienia zapisze w adresie nowy stan.",
        true,
      );
      return true;
    }
    this.presetIndex = got.index;
    this.st = got.st;
    this.ui.preset.value = String(got.index);
    this.ui.presetInfo.textContent = this.presets[got.index].description;
    this.setTask(got.task);
    this.say(
      "Stan eksploratora odczytany z adresu strony. „Przywróć ustawienia przykładu” wraca do początku.",
    );
    this.update(null, true);
    return true;
  };

  /** Keep the state in the address (replaceState: no new history entry per change); the
   * parameter goes away while the state is a preset's start with no task chosen. */
  Explorer.prototype.writeUrl = function () {
    if (!this.ownsUrl || !this.urlReady || !window.history?.replaceState) return;
    const p = this.presets[this.presetIndex];
    const task = this.taskIndex === null ? null : this.tasks[this.taskIndex].id;
    const mine = JSON.stringify(encodeState(p.id, this.st, task));
    const url = new URL(window.location.href);
    if (mine === JSON.stringify(encodeState(p.id, presetState(p), null))) url.searchParams.delete(URL_PARAM);
    else url.searchParams.set(URL_PARAM, mine);
    if (url.href !== window.location.href) window.history.replaceState(window.history.state, "", url.href);
  };

  /* ------------------------------- update ------------------------------- */

  /** Re-synchronise controls with the state (keeping the elements, so focus stays) and redraw;
   * `force`: every field shows the state (a preset was loaded). */
  Explorer.prototype.update = function (source, force) {
    const st = this.st;
    st.query = Math.max(0, Math.min(st.query, st.sentence.length - 1));
    this.result = compute(st);
    this.syncControls(source, force);
    this.renderSummary();
    this.renderPlane();
    this.renderHeatmap();
    this.renderBars();
    this.renderNumbers();
    this.checkTask();
    this.writeUrl();
  };

  Explorer.prototype.syncControls = function (source, force) {
    const st = this.st;
    const ui = this.ui;
    const L = this.limits;
    const r = this.result;
    ui.causal.checked = st.causal;
    ui.scale.checked = st.useScale;
    ui.scaleLabel.textContent = `Dziel oceny przez \u221ad\u2096 (d\u2096 = ${r.dK})`;
    if (source !== ui.tempRange) ui.tempRange.value = String(st.temperature);
    const factor = st.useScale ? `1/\u221a${r.dK}` : "1";
    const projections =
      isIdentity(st.wq) && isIdentity(st.wk) && isIdentity(st.wv)
        ? "Macierze W_Q, W_K i W_V są jednostkowe, więc Q = K = V = X."
        : "Q, K i V to X pomnożone przez macierze W_Q, W_K i W_V.";
    ui.scaleInfo.textContent = `Oceny QK\u1d40 mnożymy przez ${factor} \u00b7 1/T = ${fmtDec(r.scale, 3)}. ${projections}`;

    // Query picker: one option per position.
    syncOptions(
      ui.query,
      r.tokens.map((t, i) => `pozycja ${i}: ${t}`),
    );
    ui.query.value = String(st.query);

    // Sentence: one select per position.
    const rows = ui.sentenceList.children;
    while (rows.length > st.sentence.length) ui.sentenceList.removeChild(ui.sentenceList.lastChild);
    while (rows.length < st.sentence.length) ui.sentenceList.appendChild(this.sentenceRow(rows.length));
    const vocabNames = st.vocab.map((w) => w.token);
    Array.prototype.forEach.call(rows, (li, i) => {
      const select = li.querySelector("select");
      syncOptions(select, vocabNames);
      select.value = String(st.sentence[i]);
      li.querySelector("button").disabled = st.sentence.length <= 1;
    });
    ui.addPosition.disabled = st.sentence.length >= L.max_tokens;
    ui.addWord.disabled = st.vocab.length >= L.max_vocab;

    // Vocabulary: one <tbody> per word; the fields themselves are synced below.
    const bodies = ui.vocabTable.tBodies;
    while (bodies.length > st.vocab.length) ui.vocabTable.removeChild(bodies[bodies.length - 1]);
    while (bodies.length < st.vocab.length) ui.vocabTable.appendChild(this.vocabRow(bodies.length));
    Array.prototype.forEach.call(bodies, (body, k) => {
      const inputs = body.querySelectorAll("input");
      for (let c = 0; c < 2; c++)
        inputs[c + 1].setAttribute("aria-label", `Token ${st.vocab[k].token}: wymiar ${c}`);
      body.classList.toggle("attn-x__unused", st.sentence.indexOf(k) < 0);
    });

    // W_Q, W_K, W_V: a grid of fields each, rebuilt when the shape changes.
    const shape = `${st.wq.length}x${st.wq[0].length}`;
    if (ui.matrices.getAttribute("data-shape") !== shape) {
      clear(ui.matrices);
      ui.matrices.setAttribute("data-shape", shape);
      [
        ["wq", "W_Q", "zapytań"],
        ["wk", "W_K", "kluczy"],
        ["wv", "W_V", "wartości"],
      ].forEach((m) => {
        ui.matrices.appendChild(this.matrixGrid(m[0], m[1], m[2]));
      });
    }
    this.syncFields(source, force);
  };

  function syncOptions(select, labels) {
    while (select.options.length > labels.length) select.removeChild(select.lastChild);
    while (select.options.length < labels.length) {
      select.appendChild(h("option", { value: select.options.length }));
    }
    labels.forEach((text, i) => {
      if (select.options[i].textContent !== text) select.options[i].textContent = text;
    });
  }

  /** The fields of matrix st[key] (named `name`, the matrix "of `what`"), with their error line. */
  Explorer.prototype.matrixGrid = function (key, name, what) {
    const m = this.st[key];
    const id = `${this.id}-${key}`;
    const error = errorLine(`${id}-error`);
    const grid = h("div", {
      class: "attn-x__grid-fields",
      role: "group",
      "aria-labelledby": `${id}-name`,
      style: `grid-template-columns: repeat(${m[0].length}, 4.2em)`,
    });
    m.forEach((row, i) => {
      row.forEach((_, j) => {
        const input = h("input", {
          type: "text",
          class: "attn-x__num",
          id: `${id}-${i}-${j}`,
          inputmode: "decimal",
          autocomplete: "off",
          spellcheck: "false",
          "aria-label": `${name}, wiersz ${i}, kolumna ${j}`,
        });
        this.numberField(
          input,
          error,
          this.limits.weight,
          `${name} [${i}, ${j}]`,
          () => this.st[key][i][j],
          (v) => {
            this.st[key][i][j] = v;
          },
        );
        grid.appendChild(input);
      });
    });
    return h("div", { class: "attn-x__matrix-field" }, [
      h("p", { class: "attn-x__matrix-name", id: `${id}-name` }, [
        h("span", { text: name }),
        ` (macierz ${what})`,
      ]),
      grid,
      error,
    ]);
  };

  Explorer.prototype.sentenceRow = function (i) {
    const id = `${this.id}-pos-${i}`;
    const select = h("select", { id: id });
    select.addEventListener("change", () => {
      this.st.sentence[i] = +select.value;
      this.update();
    });
    const remove = h("button", {
      type: "button",
      class: "attn-x__remove",
      text: "\u00d7",
      "aria-label": `Usuń pozycję ${i}`,
      title: `Usuń pozycję ${i}`,
    });
    remove.addEventListener("click", () => {
      if (this.st.sentence.length <= 1) return;
      this.st.sentence.splice(i, 1);
      this.update();
      const selects = this.ui.sentenceList.querySelectorAll("select");
      selects[Math.min(i, selects.length - 1)].focus();
    });
    return h("li", null, [h("label", { for: id, text: `Pozycja ${i}` }), select, remove]);
  };

  /** Word k's <tbody>: its name and coordinates, and one line for their errors. */
  Explorer.prototype.vocabRow = function (k) {
    const L = this.limits;
    const id = `${this.id}-word-${k}`;
    const error = errorLine(`${id}-error`);
    const name = h("input", {
      type: "text",
      id: id,
      maxlength: L.max_token_chars,
      autocomplete: "off",
      spellcheck: "false",
      "aria-label": `Nazwa tokenu ${k} w słowniku`,
    });
    this.field(
      name,
      error,
      (text) => {
        const problem = this.nameProblem(text, k);
        return problem
          ? { error: `${problem} Obliczenie używa nadal ${quoted(this.st.vocab[k].token)}.` }
          : { value: text };
      },
      () => (this.st.vocab[k] ? this.st.vocab[k].token : ""),
      (v) => {
        this.st.vocab[k].token = v;
      },
      String,
    );
    const coords = [0, 1].map((c) => {
      const input = h("input", {
        type: "text",
        class: "attn-x__num",
        id: `${id}-${c}`,
        inputmode: "decimal",
        autocomplete: "off",
        spellcheck: "false",
      });
      this.numberField(
        input,
        error,
        L.coord,
        "Współrzędna",
        () => (this.st.vocab[k] ? this.st.vocab[k].vec[c] : 0),
        (v) => {
          this.st.vocab[k].vec[c] = v;
        },
      );
      return input;
    });
    return h("tbody", null, [
      h("tr", null, [h("td", null, name), h("td", null, coords[0]), h("td", null, coords[1])]),
      h("tr", { class: "attn-x__errrow" }, h("td", { colspan: 3 }, error)),
    ]);
  };

  /* ------------------------------- views ------------------------------- */

  Explorer.prototype.renderSummary = function () {
    const r = this.result;
    const i = this.st.query;
    const w = r.weights[i];
    const top = Math.max.apply(null, w);
    const best = [];
    w.forEach((x, j) => {
      if (top - x <= 1e-12) best.push(j);
    });
    const names = best.map((j) => `${quoted(r.tokens[j])} (pozycja ${j})`);
    const where = best.length === 1 ? `najmocniej na ${names[0]}` : `jednakowo mocno na ${names.join(", ")}`;
    const text =
      `Zapytanie ${quoted(r.tokens[i])} (pozycja ${i}) patrzy ${where}, z wagą ${fmtDec(top)}. ` +
      `Jego wyjście to ${fmtVec(r.output[i])}, a wejście ${fmtVec(r.x[i])}.`;
    if (this.ui.summary.textContent !== text) this.ui.summary.textContent = text;
  };

  // A "nice" grid step (1, 2 or 5 times a power of ten) for a plane `span` units wide.
  function niceStep(span) {
    const raw = span / 6;
    const p = 10 ** Math.floor(Math.log10(raw));
    const m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : 5) * p;
  }

  /** The square of data the plane shows, [x0, y0, side]: every input, every output and the
   * origin, with a margin; kept while a point is dragged, so the plane does not move under it. */
  Explorer.prototype.planeRange = function () {
    if (this.frozenRange) return this.frozenRange;
    const xs = [0];
    const ys = [0];
    this.st.vocab.forEach((w) => {
      xs.push(w.vec[0]);
      ys.push(w.vec[1]);
    });
    this.result.output.forEach((y) => {
      xs.push(y[0]);
      ys.push(y[1]);
    });
    const x0 = Math.min.apply(null, xs);
    const x1 = Math.max.apply(null, xs);
    const y0 = Math.min.apply(null, ys);
    const y1 = Math.max.apply(null, ys);
    let side = Math.max(x1 - x0, y1 - y0, 1);
    const margin = 0.18 * side;
    side += 2 * margin;
    const step = niceStep(side) / 2; // the square's corner sits on half a grid step
    const cx = (x0 + x1) / 2;
    const cy = (y0 + y1) / 2;
    const left = Math.floor((cx - side / 2) / step) * step;
    const bottom = Math.floor((cy - side / 2) / step) * step;
    side = Math.ceil(Math.max(cx + side / 2 - left, cy + side / 2 - bottom) / step) * step;
    return [left, bottom, side];
  };

  // The box [left, top, right, bottom] of a text `width` wide, of font `size`, whose baseline
  // starts at (x, y): glyphs reach 0.95 em above the baseline and 0.27 em below it.
  function textBox(x, y, width, size, anchor) {
    const x0 = anchor === "start" ? x : anchor === "end" ? x - width : x - width / 2;
    return [x0, y - 0.95 * size, x0 + width, y + 0.27 * size];
  }

  // The width of an SVG text element, measured once per text and font size (a guess from the
  // number of characters while the plane is not laid out, e.g. in a closed tab).
  const textWidths = {};
  function textWidth(label, size) {
    const key = `${size}:${label.textContent}`;
    if (!(key in textWidths)) {
      const measured = label.getComputedTextLength ? label.getComputedTextLength() : 0;
      if (!(measured > 0)) return label.textContent.length * size * 0.65;
      textWidths[key] = measured + 1;
    }
    return textWidths[key];
  }

  function overlapArea(a, b) {
    return (
      Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0])) *
      Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]))
    );
  }

  // Distance from the point (x, y) to the box b.
  function boxDistance(b, x, y) {
    const dx = Math.max(b[0] - x, 0, x - b[2]);
    const dy = Math.max(b[1] - y, 0, y - b[3]);
    return Math.sqrt(dx * dx + dy * dy);
  }

  // Baseline offsets from a point, nearest first: beside, above and below, then farther out.
  // Spots from the ninth on get a line to their mark.
  const NEAR_SPOTS = 8;
  const LABEL_SPOTS = [
    [10, 4, "start"],
    [-10, 4, "end"],
    [9, -8, "start"],
    [9, 15, "start"],
    [-9, -8, "end"],
    [-9, 15, "end"],
    [0, -12, "middle"],
    [0, 21, "middle"],
    [9, -20, "start"],
    [9, 27, "start"],
    [-9, -20, "end"],
    [-9, 27, "end"],
    [0, -24, "middle"],
    [0, 33, "middle"],
    [14, -34, "start"],
    [14, 41, "start"],
    [-14, -34, "end"],
    [-14, 41, "end"],
    [0, -38, "middle"],
    [0, 47, "middle"],
    [36, 4, "start"],
    [-36, 4, "end"],
    [30, -22, "start"],
    [30, 29, "start"],
    [-30, -22, "end"],
    [-30, 29, "end"],
  ];

  // Put `label` next to its mark (x, y) at the first spot whose box covers no box in `taken`,
  // stays inside the plane (the box `bounds`) and lies nearer to its own mark than to any other of
  // `marks` (so it cannot be read as another point's label); when no spot does all that, where it
  // breaks them least, with a thin line to its mark; `optional` (a word outside the sentence):
  // then not at all (the point keeps its name for screen readers and in its tooltip).
  function placeLabel(label, x, y, fontSize, taken, bounds, marks, leaderParent, optional) {
    let best = null;
    const width = textWidth(label, fontSize);
    for (let n = 0; n < LABEL_SPOTS.length && !(best && best.cost === 0); n++) {
      const sp = LABEL_SPOTS[n];
      const box = textBox(x + sp[0], y + sp[1], width, fontSize, sp[2]);
      // leaving the plane is worse than anything else: the label would be cut off
      let cost = 50 * ((box[2] - box[0]) * (box[3] - box[1]) - overlapArea(box, bounds));
      taken.forEach((b) => {
        cost += overlapArea(box, b);
      });
      const own = boxDistance(box, x, y);
      marks.forEach((m) => {
        if (Math.abs(m[0] - x) < 0.5 && Math.abs(m[1] - y) < 0.5) return; // its own mark
        const other = boxDistance(box, m[0], m[1]);
        if (other < own + 3) cost += 400 + 40 * (own + 3 - other);
      });
      if (!best || cost < best.cost) best = { spot: sp, box: box, cost: cost, far: n >= NEAR_SPOTS };
    }
    if (best.cost > 0 && optional) {
      label.parentNode.removeChild(label);
      return;
    }
    taken.push(best.box);
    label.setAttribute("x", x + best.spot[0]);
    label.setAttribute("y", y + best.spot[1]);
    label.setAttribute("text-anchor", best.spot[2]);
    if (best.cost > 0 || best.far) {
      // a line from the label's nearest edge to its mark
      const b = best.box;
      const ex = Math.max(b[0], Math.min(x, b[2]));
      const ey = Math.max(b[1], Math.min(y, b[3]));
      leaderParent.appendChild(
        s("line", {
          x1: x,
          y1: y,
          x2: ex,
          y2: ey,
          class: "attn-x__leader",
          "data-for": label.getAttribute("data-for"),
        }),
      );
    }
  }

  Explorer.prototype.renderPlane = function () {
    const svg = this.ui.plane;
    const st = this.st;
    const r = this.result;
    const L = this.limits;
    const range = this.planeRange();
    const x0 = range[0];
    const y0 = range[1];
    const side = range[2];
    // The square of data fills the plane but for a margin that holds the tick numbers, so no
    // tick number can lie under a point.
    const size = PLANE_SIZE;
    const left = 30;
    const right = 8;
    const top = 16;
    const bottom = 26;
    const span = size - left - right;
    const height = top + span + bottom;
    const px = (x) => left + ((x - x0) / side) * span;
    const py = (y) => top + ((y0 + side - y) / side) * span;
    this.toData = (sx, sy) => [x0 + ((sx - left) / span) * side, y0 + side - ((sy - top) / span) * side];
    const active = document.activeElement;
    const focusedWord = active && svg.contains(active) ? active.getAttribute("data-word") : null;
    clear(svg);
    svg.setAttribute("viewBox", `0 0 ${size} ${height}`);

    // Boxes labels must not cover: tick numbers, axis names, input points, output diamonds.
    const taken = [];
    const marks = []; // centres of points and diamonds: a label must lie nearest to its own
    const grid = s("g", { class: "attn-x__grid" });
    const tick = (x, y, anchor, text) => {
      taken.push(textBox(x, y, text.length * TICK_PX * 0.65, TICK_PX, anchor));
      grid.appendChild(s("text", { x: x, y: y, class: "attn-x__tick", "text-anchor": anchor, text: text }));
    };
    const step = niceStep(side);
    const decimals = step >= 1 ? 0 : step >= 0.1 ? 1 : 2;
    grid.appendChild(s("rect", { x: left, y: top, width: span, height: span, class: "attn-x__frame" }));
    for (let t = Math.ceil(x0 / step) * step; t <= x0 + side + 1e-9; t += step) {
      const v = Number(t.toFixed(6));
      grid.appendChild(
        s("line", { x1: px(v), x2: px(v), y1: top, y2: top + span, class: v === 0 ? "attn-x__axis" : "" }),
      );
      tick(px(v), top + span + 12, "middle", fmtDec(v, decimals));
    }
    for (let t = Math.ceil(y0 / step) * step; t <= y0 + side + 1e-9; t += step) {
      const u = Number(t.toFixed(6));
      grid.appendChild(
        s("line", { y1: py(u), y2: py(u), x1: left, x2: left + span, class: u === 0 ? "attn-x__axis" : "" }),
      );
      // (not at the bottom corner, where the first number of wymiar 0 stands)
      if (py(u) < top + span - 8) tick(left - 4, py(u) + 3, "end", fmtDec(u, decimals));
    }
    tick(left + span, top + span + 24, "end", "wymiar 0 \u2192");
    tick(left, 11, "start", "\u2191 wymiar 1");
    svg.appendChild(grid);
    st.vocab.forEach((w) => {
      const cx = px(w.vec[0]);
      const cy = py(w.vec[1]);
      taken.push([cx - 8, cy - 8, cx + 8, cy + 8]);
      marks.push([cx, cy]);
    });
    r.output.forEach((y) => {
      const cx = px(y[0]);
      const cy = py(y[1]);
      taken.push([cx - 7, cy - 7, cx + 7, cy + 7]);
      marks.push([cx, cy]);
    });

    // Lines from the chosen query's input to every key it may see; width follows the weight.
    const qi = st.query;
    const links = s("g", { class: "attn-x__links" });
    r.weights[qi].forEach((w, j) => {
      if (r.blocked[qi][j] || j === qi) return;
      links.appendChild(
        s("line", {
          x1: px(r.x[qi][0]),
          y1: py(r.x[qi][1]),
          x2: px(r.x[j][0]),
          y2: py(r.x[j][1]),
          "stroke-width": 0.5 + 7 * w,
        }),
      );
    });
    svg.appendChild(links);
    const leaders = s("g", { class: "attn-x__leaders" });
    svg.appendChild(leaders);

    // Input points: one per vocabulary word (words not in the sentence are faded).
    const points = s("g", { class: "attn-x__points" });
    const hitRadius = this.hitRadius(size);
    const pointLabels = [];
    const fadedLabels = [];
    // The weight the chosen query gives each word (summed over the word's visible positions) is
    // written by its name: a line to a key that lies close to the query is too short to read.
    const seen = {};
    r.weights[qi].forEach((w, j) => {
      if (!r.blocked[qi][j]) seen[st.sentence[j]] = (seen[st.sentence[j]] || 0) + w;
    });
    st.vocab.forEach((word, k) => {
      const used = st.sentence.indexOf(k) >= 0;
      const isQuery = st.sentence[qi] === k;
      const text = shorten(word.token, 14) + (k in seen ? ` ${fmtDec(seen[k], 2)}` : "");
      const cx = px(word.vec[0]);
      const cy = py(word.vec[1]);
      const label = s("text", { text: text, "data-for": k });
      const g = s(
        "g",
        {
          class: `attn-x__point${used ? "" : " attn-x__unused"}${isQuery ? " attn-x__chosen" : ""}`,
          tabindex: 0,
          "data-word": k,
          role: "button",
          "aria-roledescription": "punkt do przesuwania",
          // the visible label (name and weight) starts the accessible name, as WCAG 2.5.3 asks
          "aria-label":
            `Punkt tokenu ${text}${k in seen ? " (waga, którą daje mu zapytanie)" : ""}: ${fmtVec(word.vec)}. ` +
            `Strzałki przesuwają go o ${fmtDec(L.coord.step, 1)}, z klawiszem Shift o ${fmtDec(L.coord.big_step, 1)}.`,
        },
        [
          s("circle", { class: "attn-x__hit", cx: cx, cy: cy, r: hitRadius }),
          s("circle", { class: "attn-x__dot", cx: cx, cy: cy, r: 6.5 }),
          label,
        ],
      );
      (used ? pointLabels : fadedLabels).push([label, cx, cy, text.length, 11]);
      g.addEventListener("pointerdown", (ev) => {
        this.startDrag(ev, k);
      });
      // A touch on a point drags it instead of scrolling the page (CSS touch-action on SVG shapes is
      // not honoured by every browser); elsewhere on the plane a swipe scrolls as usual.
      g.addEventListener(
        "touchstart",
        (ev) => {
          ev.preventDefault();
        },
        { passive: false },
      );
      g.addEventListener("keydown", (ev) => {
        this.keyMove(ev, k);
      });
      points.appendChild(g);
    });

    // Outputs y_i, with a dashed line from each input to its output. A diamond is an outline
    // (the chosen one filled, unless a point lies under it), so it never hides an input point.
    const outs = s("g", { class: "attn-x__outputs" });
    const outLabels = [];
    r.output.forEach((y, i) => {
      const chosen = i === qi;
      const cx = px(y[0]);
      const cy = py(y[1]);
      const onPoint = st.vocab.some(
        (w) => Math.abs(px(w.vec[0]) - cx) < 9 && Math.abs(py(w.vec[1]) - cy) < 9,
      );
      outs.appendChild(
        s("line", {
          x1: px(r.x[i][0]),
          y1: py(r.x[i][1]),
          x2: cx,
          y2: cy,
          class: `attn-x__move${chosen ? " attn-x__chosen" : ""}`,
        }),
      );
      const d = onPoint ? 10 : 6.5;
      outs.appendChild(
        s(
          "path",
          {
            d: `M${cx} ${cy - d}L${cx + d} ${cy}L${cx} ${cy + d}L${cx - d} ${cy}Z`,
            class: `attn-x__out${chosen ? " attn-x__chosen" : ""}${onPoint ? " attn-x__around" : ""}`,
          },
          s("title", { text: `y${sub(i)} (wyjście dla ${r.tokens[i]}): ${fmtVec(y)}` }),
        ),
      );
      if (chosen) {
        // only the chosen query's output is named: close outputs stay readable
        const label = s("text", { class: "attn-x__outlabel", text: `y${sub(i)}`, "data-for": `y${i}` });
        outs.appendChild(label);
        outLabels.push([label, cx, cy, 2, 11]);
      }
    });
    svg.appendChild(outs);
    svg.appendChild(points); // on top: a point is never under a diamond or a label of an output
    const bounds = [0, 0, size, height];
    outLabels.concat(pointLabels).forEach((item) => {
      placeLabel(item[0], item[1], item[2], item[4], taken, bounds, marks, leaders, false);
    });
    fadedLabels.forEach((item) => {
      placeLabel(item[0], item[1], item[2], item[4], taken, bounds, marks, leaders, true);
    });
    if (focusedWord !== null) {
      const again = svg.querySelector(`[data-word="${focusedWord}"]`);
      if (again) again.focus({ preventScroll: true });
    }
  };

  /* Radius (in viewBox units) of the invisible circle that takes a point's touches: at least
     HIT_PX CSS pixels across, however much the plane is scaled down. The plane's width comes from
     the ResizeObserver (set after each layout, and it resets the radii then): asking the element
     here would force a layout of the whole page on every redraw. */
  const PLANE_SIZE = 320;
  const HIT_PX = 28;
  const TICK_PX = 9; // TICK_PX: .attn-x__tick's font-size
  Explorer.prototype.hitRadius = function (size) {
    const width = this.planeWidth || size;
    return (HIT_PX / 2) * Math.max(1, size / width);
  };

  Explorer.prototype.moveWord = function (k, x, y) {
    const L = this.limits.coord;
    const snap = (v) => {
      v = Math.round(v / L.step) * L.step;
      v = Math.min(L.max, Math.max(L.min, v));
      return Number(v.toFixed(6)); // 0.30000000000000004 -> 0.3
    };
    this.st.vocab[k].vec = [snap(x), snap(y)];
    this.update();
  };

  Explorer.prototype.keyMove = function (ev, k) {
    const step = ev.shiftKey ? this.limits.coord.big_step : this.limits.coord.step;
    const d = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] }[
      ev.key
    ];
    if (!d) return;
    ev.preventDefault();
    const v = this.st.vocab[k].vec;
    this.moveWord(k, v[0] + d[0], v[1] + d[1]);
  };

  Explorer.prototype.startDrag = function (ev, k) {
    if (ev.button !== 0) return;
    ev.preventDefault();
    this.dragging = { word: k, pointer: ev.pointerId };
    this.frozenRange = this.planeRange();
    this.ui.plane.setPointerCapture(ev.pointerId);
    this.drag(ev);
  };

  Explorer.prototype.drag = function (ev) {
    if (!this.dragging || ev.pointerId !== this.dragging.pointer) return;
    const svg = this.ui.plane;
    const pt = svg.createSVGPoint();
    pt.x = ev.clientX;
    pt.y = ev.clientY;
    const p = pt.matrixTransform(svg.getScreenCTM().inverse());
    const xy = this.toData(p.x, p.y);
    this.moveWord(this.dragging.word, xy[0], xy[1]);
  };

  Explorer.prototype.endDrag = function (ev) {
    if (!this.dragging || ev.pointerId !== this.dragging.pointer) return;
    this.dragging = null;
    this.frozenRange = null;
    this.update();
  };

  Explorer.prototype.renderHeatmap = function () {
    const r = this.result;
    drawHeatmap(this.ui.heat, r.tokens, r.weights, r.blocked, `${this.id}-hatch`, this.st.query, (i) => {
      this.st.query = i;
      this.update();
    });
    this.ui.heat.setAttribute(
      "aria-label",
      `Mapa wag uwagi ${r.tokens.length} na ${r.tokens.length}; wybrane zapytanie: ${r.tokens[this.st.query]}. ` +
        "Te same liczby są w tabeli „Wagi” poniżej.",
    );
  };

  /** A heatmap of attention weights in `svg` (rows: queries; `blocked` cells hatched); `query`'s
   * row framed and `onPick(i)` called on a click of row i, when given. Also the live example's. */
  function drawHeatmap(svg, tokens, weights, blocked, hatchId, query, onPick) {
    const n = tokens.length;
    const cell = 52;
    const left = 92;
    const top = 40;
    const width = left + n * cell + 4;
    const height = top + n * cell + 4;
    clear(svg);
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("data-weights", JSON.stringify(weights));
    svg.setAttribute("data-blocked", JSON.stringify(blocked));
    svg.appendChild(
      s(
        "defs",
        null,
        s(
          "pattern",
          {
            id: hatchId,
            width: 6,
            height: 6,
            patternUnits: "userSpaceOnUse",
            patternTransform: "rotate(45)",
          },
          s("line", { x1: 0, y1: 0, x2: 0, y2: 6, class: "attn-x__hatchline" }),
        ),
      ),
    );
    svg.appendChild(
      s("text", {
        x: left + (n * cell) / 2,
        y: 11,
        "text-anchor": "middle",
        class: "attn-x__axislabel",
        text: "klucz (na kogo patrzy)",
      }),
    );
    tokens.forEach((t, j) => {
      svg.appendChild(
        s(
          "text",
          { x: left + j * cell + cell / 2, y: top - 6, "text-anchor": "middle", class: "attn-x__label" },
          [s("title", { text: t }), document.createTextNode(shorten(t, 7))],
        ),
      );
    });
    weights.forEach((row, i) => {
      const chosen = i === query;
      const g = s("g", { class: `attn-x__heatrow${chosen ? " attn-x__chosen" : ""}` });
      g.appendChild(
        s(
          "text",
          { x: left - 6, y: top + i * cell + cell / 2 + 4, "text-anchor": "end", class: "attn-x__label" },
          [s("title", { text: tokens[i] }), document.createTextNode(shorten(tokens[i], 11))],
        ),
      );
      row.forEach((w, j) => {
        const off = blocked[i][j];
        const x = left + j * cell;
        const y = top + i * cell;
        const tip = `zapytanie ${tokens[i]} \u2192 klucz ${tokens[j]}: ${off ? "zablokowane przez maskę (waga 0)" : fmtDec(w, 4)}`;
        g.appendChild(
          s("rect", { x: x + 1, y: y + 1, width: cell - 2, height: cell - 2, class: "attn-x__cellbg" }),
        );
        if (off) {
          g.appendChild(
            s(
              "rect",
              {
                x: x + 1,
                y: y + 1,
                width: cell - 2,
                height: cell - 2,
                fill: `url(#${hatchId})`,
                class: "attn-x__blocked",
                "data-blocked": "true",
              },
              s("title", { text: tip }),
            ),
          );
        } else {
          g.appendChild(
            s(
              "rect",
              {
                x: x + 1,
                y: y + 1,
                width: cell - 2,
                height: cell - 2,
                class: "attn-x__cell",
                "fill-opacity": Math.max(0.02, w),
              },
              s("title", { text: tip }),
            ),
          );
        }
        g.appendChild(
          s("text", {
            x: x + cell / 2,
            y: y + cell / 2 + 4,
            "text-anchor": "middle",
            class: `attn-x__cellnum${!off && w > 0.55 ? " attn-x__ink" : ""}`,
            text: off ? "\u00d7" : fmtDec(w),
          }),
        );
      });
      g.appendChild(
        s("rect", {
          x: left + 1,
          y: top + i * cell + 1,
          width: n * cell - 2,
          height: cell - 2,
          class: "attn-x__rowframe",
        }),
      );
      if (onPick)
        g.addEventListener("click", () => {
          onPick(i);
        });
      svg.appendChild(g);
    });
  }

  Explorer.prototype.renderBars = function () {
    const svg = this.ui.bars;
    const r = this.result;
    const i = this.st.query;
    const n = r.tokens.length;
    const rowH = 26;
    const left = 92;
    const barMax = 170;
    const width = left + barMax + 58;
    const top = 22;
    const height = top + n * rowH + 6;
    clear(svg);
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    const each = r.weights[i].map((w, j) => `${r.tokens[j]} ${r.blocked[i][j] ? "zablokowane" : fmtDec(w)}`);
    svg.setAttribute("aria-label", `Wagi zapytania ${r.tokens[i]}: ${each.join(", ")}`);
    svg.appendChild(
      s("text", {
        x: 0,
        y: 13,
        class: "attn-x__axislabel",
        text: `Zapytanie ${quoted(shorten(r.tokens[i], 16))} (pozycja ${i})`,
      }),
    );
    r.weights[i].forEach((w, j) => {
      const y = top + j * rowH;
      svg.appendChild(
        s("text", { x: left - 6, y: y + rowH / 2 + 4, "text-anchor": "end", class: "attn-x__label" }, [
          s("title", { text: r.tokens[j] }),
          document.createTextNode(shorten(r.tokens[j], 11)),
        ]),
      );
      if (r.blocked[i][j]) {
        svg.appendChild(
          s("rect", { x: left, y: y + 4, width: barMax, height: rowH - 8, class: "attn-x__blockedbar" }),
        );
        svg.appendChild(
          s("text", {
            x: left + 6,
            y: y + rowH / 2 + 4,
            class: "attn-x__tick",
            text: "zablokowane przez maskę",
          }),
        );
      } else {
        svg.appendChild(
          s("rect", {
            x: left,
            y: y + 4,
            width: Math.max(1, barMax * w),
            height: rowH - 8,
            class: `attn-x__bar${j === i ? " attn-x__self" : ""}`,
          }),
        );
        svg.appendChild(
          s("text", {
            x: left + barMax * w + 5,
            y: y + rowH / 2 + 4,
            class: "attn-x__label",
            text: fmtDec(w),
          }),
        );
      }
    });
  };

  Explorer.prototype.renderNumbers = function () {
    const r = this.result;
    const box = this.ui.numbers;
    clear(box);
    const tokens = r.tokens;
    const query = this.st.query;
    function matrix(caption, m, decimals, extra, shadeMasked) {
      const head = [h("th", { scope: "col", text: "zapytanie \\ klucz" })].concat(
        tokens.map((t) => h("th", { scope: "col", text: t })),
      );
      if (extra) head.push(h("th", { scope: "col", text: extra.title }));
      return h("table", { class: "attn-x__matrix" }, [
        h("caption", { text: caption }),
        h("thead", null, h("tr", null, head)),
        h(
          "tbody",
          null,
          m.map((row, i) => {
            const cells = [h("th", { scope: "row", text: tokens[i] })].concat(
              row.map((x, j) =>
                h("td", {
                  class: shadeMasked && r.blocked[i][j] ? "attn-x__masked" : null,
                  text: fmtDec(x, decimals, true),
                }),
              ),
            );
            if (extra) cells.push(h("td", { text: extra.cell(i) }));
            return h("tr", { class: i === query ? "attn-x__chosen" : null }, cells);
          }),
        ),
      ]);
    }
    box.appendChild(
      h("table", { class: "attn-x__matrix" }, [
        h("caption", { text: "Rzuty: q = x\u00b7W_Q, k = x\u00b7W_K, v = x\u00b7W_V" }),
        // (x itself is in the last table: four columns fit a phone)
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            ["token", "q", "k", "v"].map((t) => h("th", { scope: "col", text: t })),
          ),
        ),
        h(
          "tbody",
          null,
          tokens.map((t, i) =>
            h("tr", { class: i === query ? "attn-x__chosen" : null }, [
              h("th", { scope: "row", text: t }),
              h("td", { text: fmtVec(r.q[i]) }),
              h("td", { text: fmtVec(r.k[i]) }),
              h("td", { text: fmtVec(r.v[i]) }),
            ]),
          ),
        ),
      ]),
    );
    box.appendChild(matrix("Oceny QK\u1d40", r.scores, 2));
    box.appendChild(
      matrix(
        `Oceny po skalowaniu (\u00d7 ${fmtDec(r.scale, 3)})${this.st.causal ? " i masce" : ""}`,
        r.masked,
        2,
        null,
        true,
      ),
    );
    box.appendChild(
      matrix(
        "Wagi (softmax każdego wiersza)",
        r.weights,
        2,
        {
          title: "suma wiersza",
          cell: (i) =>
            fmtDec(
              r.weights[i].reduce((a, b) => a + b, 0),
              2,
            ),
        },
        true,
      ),
    );
    box.appendChild(
      h("table", { class: "attn-x__matrix" }, [
        h("caption", { text: "Wejście x i wyjście y = \u03a3 waga \u00b7 v dla każdej pozycji" }),
        h(
          "thead",
          null,
          h("tr", null, [
            h("th", { scope: "col", text: "pozycja" }),
            h("th", { scope: "col", text: "token" }),
            h("th", { scope: "col", text: "wejście x" }),
            h("th", { scope: "col", text: "wyjście y" }),
          ]),
        ),
        h(
          "tbody",
          null,
          tokens.map((t, i) =>
            h("tr", null, [
              h("th", { scope: "row", text: `y${sub(i)}` }),
              h("td", { text: t }),
              h("td", { text: fmtVec(r.x[i]) }),
              h("td", { text: fmtVec(r.output[i]) }),
            ]),
          ),
        ),
      ]),
    );
  };

  /** A JSON-safe snapshot of one explorer (tests read it; -Infinity becomes null). */
  Explorer.prototype.snapshot = function () {
    const st = this.st;
    const r = this.result;
    return clone({
      preset: this.presets[this.presetIndex].id,
      tokens: r.tokens,
      vocab: st.vocab,
      sentence: st.sentence,
      embeddings: r.x,
      w_q: st.wq,
      w_k: st.wk,
      w_v: st.wv,
      causal: st.causal,
      use_scale: st.useScale,
      temperature: st.temperature,
      d_k: r.dK,
      scale: r.scale,
      query: st.query,
      scores: r.scores,
      masked: r.masked.map((row) => row.map((x) => (Number.isFinite(x) ? x : null))),
      blocked: r.blocked,
      weights: r.weights,
      output: r.output,
      task: this.taskIndex === null ? null : this.tasks[this.taskIndex].id,
      tasks_done: Object.keys(this.done).filter((k) => this.done[k]),
    });
  };

  /* ---------------------------------------------------------------------------------------
   * Start-up: works with Material's instant navigation (document$) and without it.
   * ------------------------------------------------------------------------------------- */

  function readConfig() {
    const config = window.attentionExplorerData;
    if (!config?.presets?.length) {
      throw new Error("brak danych przykładów (window.attentionExplorerData)");
    }
    return config;
  }

  function initAll() {
    instances = instances.filter((ex) => document.body.contains(ex.root));
    document.querySelectorAll("[data-attention-explorer]").forEach((root) => {
      if (root.getAttribute("data-ready") === "true") return;
      root.setAttribute("data-ready", "true");
      try {
        // the first explorer of a page keeps its state in the address
        instances.push(new Explorer(root, readConfig(), instances.length === 0));
      } catch (err) {
        clear(root);
        root.appendChild(
          h("p", { class: "attn-x__message", text: `Nie udało się uruchomić eksploratora: ${err.message}` }),
        );
        root.setAttribute("data-error", err.message);
        throw err;
      }
    });
  }

  function instance(i) {
    const ex = instances[i || 0];
    if (!ex) throw new Error("no attention explorer on this page");
    return ex;
  }

  window.attentionExplorer = Object.assign({}, core, {
    loaded: true,
    initAll: initAll,
    drawHeatmap: drawHeatmap,
    svg: s,
    /** Full-precision state and results of explorer `i` (default 0). */
    state: (i) => instance(i).snapshot(),
    presets: (i) => clone(instance(i).presets),
    loadPreset: (index, i) => {
      instance(i).loadPreset(index);
    },
    startTask: (t, i) => {
      instance(i).startTask(t);
    },
  });

  function start() {
    initAll(); // idempotent: an explorer already built is marked data-ready
    if (window.document$ && typeof window.document$.subscribe === "function") {
      window.document$.subscribe(() => {
        initAll();
      }); // each instant-navigation page
    }
  }

  // Loaded from the page body, this runs before Material's bundle defines document$:
  // wait for DOMContentLoaded, by which time it exists (or instant navigation is off).
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
