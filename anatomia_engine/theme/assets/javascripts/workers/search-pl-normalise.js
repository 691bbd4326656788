/* Polish search: the normaliser shared by the search worker and the tests.
 * It must agree with anatomia_engine/search_pl.py word for word (tests/test_search.py checks):
 * tokenise (runs of letters and digits, NFC), fold (lower case, no diacritics, ł -> l),
 * then the build-time table folded surface form -> folded lemma; unknown words stay folded. */
(function (root) {
  "use strict";
  var WORD = /[\p{L}\p{N}]+/gu;
  var MARK = /\p{M}/gu;

  function tokenize(text) {
    return text.normalize("NFC").match(WORD) || [];
  }

  function fold(word) {
    return word.toLowerCase().normalize("NFD").replace(MARK, "").replace(/ł/g, "l").normalize("NFC");
  }

  /* The shipped table is grouped by lemma: {"glowa": ["glow", "glowy"]}. */
  function tableFrom(grouped) {
    var table = new Map();
    Object.keys(grouped).forEach(function (lemma) {
      grouped[lemma].forEach(function (surface) { table.set(surface, lemma); });
    });
    return table;
  }

  function normalise(word, table) {
    var folded = fold(word);
    return table.has(folded) ? table.get(folded) : folded;
  }

  var api = { tokenize: tokenize, fold: fold, tableFrom: tableFrom, normalise: normalise };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else root.SearchPL = api;
})(this);
