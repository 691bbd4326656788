/* Polish search worker for Material for MkDocs (its SETUP/READY/QUERY/RESULT protocol).
 * The index and the form table (search/pl-index.<hash>.json, search/pl-forms.<hash>.json, named in
 * the stub search_index.json) are fetched together on the first non-empty query, so pages do not
 * download them until the reader searches. Normalising and ranking: search-pl-core.js. */
"use strict";
importScripts("search-pl-core.js");

var SETUP = 0, READY = 1, QUERY = 2, RESULT = 3;
var names = null, loading = null, latest = "";

function fetchJSON(name) {
  var url = new URL("../../../search/" + name, self.location);
  return fetch(url).then(function (res) {
    if (!res.ok) throw new Error(url + ": " + res.status);
    return res.json();
  });
}

function load() {
  if (!loading) {
    loading = Promise.all([fetchJSON(names.index), fetchJSON(names.forms)]).then(function (both) {
      return new SearchPL.Engine(both[0], SearchPL.decodeTable(both[1]));
    });
  }
  return loading;
}

self.onmessage = function (ev) {
  var message = ev.data;
  if (message.type === SETUP) {
    names = { index: message.data.config.pl_index, forms: message.data.config.pl_forms };
    self.postMessage({ type: READY });
  } else if (message.type === QUERY) {
    var query = message.data;
    latest = query;
    if (!query.trim()) {
      self.postMessage({ type: RESULT, data: { items: [] } });
      return;
    }
    load().then(function (engine) {
      if (query === latest) self.postMessage({ type: RESULT, data: engine.search(query) });
    });
  }
};
