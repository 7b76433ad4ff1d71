/* colbench view: the report's behaviour. No library, no network: everything is in this file's page.
 *
 * Views are chosen by the URL fragment: #/index, #/episode/N, #/summary, #/compare/C, #/pair/C/R,
 * #/results. The index is plain HTML: sorted by clicking a column header (again: reverse), filtered
 * by the selects and the search box (task id or any text of the episode, case-insensitive). Episode,
 * task and pair views are built when opened from pre-rendered fragments kept gzip-compressed in the
 * block #colbench-data (decoded once, with the browser's own DecompressionStream, right after the
 * page is interactive); page images are data: URLs in #colbench-images.
 *
 * window.colbench.ready: ms after navigation start when the page became interactive;
 * window.colbench.dataReady: when the episodes' data was decoded; window.colbench.shown: the
 * fragment of the view last drawn (set once an episode or pair view is in place).
 */
(function () {
  "use strict";

  function $(sel, root) { return (root || document).querySelector(sel); }
  function $all(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }

  // ------------------------------------------------------------------------------------- data
  var dataPromise = null;
  function loadData() {
    if (dataPromise === null) {
      var bin = atob($("#colbench-data").textContent.trim());
      var bytes = new Uint8Array(bin.length);
      for (var k = 0; k < bin.length; k++) { bytes[k] = bin.charCodeAt(k); }
      var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      dataPromise = new Response(stream).text().then(function (text) {
        var d = JSON.parse(text);
        window.colbench.dataReady = performance.now();
        return d;
      });
    }
    return dataPromise;
  }

  var imagesCache = null;
  function images() {
    if (imagesCache === null) { imagesCache = JSON.parse($("#colbench-images").textContent); }
    return imagesCache;
  }

  function fillImages(root) {
    $all("img[data-img]", root).forEach(function (img) {
      var src = images()[img.getAttribute("data-img")];
      if (src) { img.src = src; } else { img.classList.add("missing"); }
    });
  }

  function episodeNode(d, i, withTask) {
    var wrap = document.createElement("div");
    wrap.innerHTML = d.episodes[i];
    var slot = $(".task-slot", wrap);
    if (slot && withTask) { slot.innerHTML = d.tasks[d.task_of[i]]; }
    fillImages(wrap);
    return wrap;
  }

  // -------------------------------------------------------------------------------------- index
  var tbody = $("#index tbody");
  var allRows = $all("tr", tbody);
  var searchText = null;  // episode index -> lower-case text, built on the first search

  function plainText(html) {
    return html.replace(/<[^>]*>/g, " ").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
      .replace(/&quot;/g, "\"").replace(/&#39;/g, "'").replace(/&#x27;/g, "'").replace(/&amp;/g, "&")
      .toLowerCase();
  }

  function value(sel) { var el = $(sel); return el ? el.value : ""; }

  function filterRows(q) {
    var run = value("#f-run"), outcome = value("#f-outcome"), reason = value("#f-reason");
    var shown = 0;
    allRows.forEach(function (tr) {
      var i = +tr.getAttribute("data-i");
      var ok = (!run || tr.getAttribute("data-run") === run)
        && (!outcome || tr.getAttribute("data-outcome") === outcome)
        && (!reason || tr.getAttribute("data-reason") === reason)
        && (!q || searchText[i].indexOf(q) >= 0);
      tr.hidden = !ok;
      if (ok) { shown += 1; }
    });
    $("#n-shown").textContent = String(shown);
  }

  /* Apply the selects and the search box; returns a promise (a first search decodes the data). */
  function applyFilters() {
    var q = value("#f-search").trim().toLowerCase();
    if (!q || searchText !== null) { filterRows(q); return Promise.resolve(); }
    return loadData().then(function (d) {
      if (searchText === null) {
        searchText = d.episodes.map(function (html, i) { return plainText(html + " " + d.tasks[d.task_of[i]]); });
      }
      filterRows(value("#f-search").trim().toLowerCase());
    });
  }

  function naturalKey(s) {
    return s.split(/(\d+)/).map(function (p, k) { return k % 2 ? +p : p; });
  }

  function compareKeys(a, b) {
    for (var k = 0; k < Math.min(a.length, b.length); k++) {
      if (a[k] < b[k]) { return -1; }
      if (a[k] > b[k]) { return 1; }
    }
    return a.length - b.length;
  }

  var sortState = {col: null, dir: 1};
  function sortBy(th) {
    var col = th.cellIndex, how = th.getAttribute("data-sort");
    sortState.dir = sortState.col === col ? -sortState.dir : 1;
    sortState.col = col;
    var keyed = allRows.map(function (tr) {
      var td = tr.cells[col];
      var v = td.hasAttribute("data-v") ? td.getAttribute("data-v") : td.textContent.trim();
      var key = how === "num" ? [+v] : how === "nat" ? naturalKey(v) : [v.toLowerCase()];
      return {tr: tr, key: key, i: +tr.getAttribute("data-i")};
    });
    keyed.sort(function (x, y) { return sortState.dir * compareKeys(x.key, y.key) || x.i - y.i; });
    var frag = document.createDocumentFragment();
    keyed.forEach(function (k) { frag.appendChild(k.tr); });
    tbody.appendChild(frag);
    allRows = keyed.map(function (k) { return k.tr; });
    $all("#index th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", sortState.dir > 0 ? "ascending" : "descending");
  }

  $all("#index th[data-sort]").forEach(function (th) {
    th.addEventListener("click", function () { sortBy(th); });
  });
  ["#f-run", "#f-outcome", "#f-reason"].forEach(function (sel) {
    var el = $(sel);
    if (el) { el.addEventListener("change", applyFilters); }
  });
  var searchTimer = null;
  ["input", "search", "change"].forEach(function (ev) {
    $("#f-search").addEventListener(ev, function () {
      clearTimeout(searchTimer);
      searchTimer = setTimeout(applyFilters, 120);
    });
  });

  // ------------------------------------------------------------------------------------ episode
  function rowOrder(rows) {
    return rows.map(function (tr) { return +tr.getAttribute("data-i"); });
  }

  function showEpisode(d, i) {
    var body = $("#episode-body");
    body.innerHTML = "";
    body.appendChild(episodeNode(d, i, true));
    var order = rowOrder(allRows.filter(function (tr) { return !tr.hidden; })), k = order.indexOf(i);
    if (k < 0) { order = rowOrder(allRows); k = order.indexOf(i); }
    var prev = $("#ep-prev"), next = $("#ep-next");
    prev.hidden = k <= 0;
    next.hidden = k < 0 || k >= order.length - 1;
    if (k > 0) { prev.href = "#/episode/" + order[k - 1]; }
    if (k >= 0 && k < order.length - 1) { next.href = "#/episode/" + order[k + 1]; }
    $("#ep-pos").textContent = k >= 0 ? (k + 1) + " of " + order.length : "";
  }

  // ------------------------------------------------------------------------------------ compare
  $all("section.compare").forEach(function (sec) {
    var buttons = $all("button.cat", sec), rows = $all("tbody tr", sec);
    buttons.forEach(function (btn) {
      btn.addEventListener("click", function () {
        var cat = btn.getAttribute("data-cat");
        buttons.forEach(function (b) { b.classList.toggle("active", b === btn); });
        rows.forEach(function (tr) { tr.hidden = !!cat && tr.getAttribute("data-cat") !== cat; });
      });
    });
  });
  $all("select.pick-compare").forEach(function (sel) {
    sel.addEventListener("change", function () { location.hash = "#/compare/" + sel.value; });
  });

  function showPair(d, c, r) {
    var pair = d.pairs[c], row = pair.rows[r];
    var first = row.a.length ? row.a[0] : row.b[0];
    $("#pair-task").innerHTML = d.tasks[d.task_of[first]];
    [["a", "#pair-a", pair.a], ["b", "#pair-b", pair.b]].forEach(function (side) {
      var col = $(side[1]);
      col.innerHTML = "";
      var h = document.createElement("h2");
      h.className = "side-title";
      h.textContent = side[0].toUpperCase() + ": " + side[2];
      col.appendChild(h);
      if (!row[side[0]].length) {
        var p = document.createElement("p");
        p.className = "muted";
        p.textContent = "no episode of this task";
        col.appendChild(p);
      }
      row[side[0]].forEach(function (i) { col.appendChild(episodeNode(d, i, false)); });
    });
    var sec = $("#view-compare-" + c);
    var order = $all("tbody tr", sec).filter(function (tr) { return !tr.hidden; })
      .map(function (tr) { return +tr.getAttribute("data-row"); });
    var k = order.indexOf(r);
    $("#pair-back").href = "#/compare/" + c;
    $("#pair-prev").hidden = k <= 0;
    $("#pair-next").hidden = k < 0 || k >= order.length - 1;
    if (k > 0) { $("#pair-prev").href = "#/pair/" + c + "/" + order[k - 1]; }
    if (k >= 0 && k < order.length - 1) { $("#pair-next").href = "#/pair/" + c + "/" + order[k + 1]; }
    $("#pair-pos").textContent = k >= 0 ? "task " + (k + 1) + " of " + order.length : "";
  }

  // ------------------------------------------------------------------------------------- router
  var defaultView = $("#view-results") ? "#/results" : "#/index";
  var nEpisodes = allRows.length;
  var nPairs = $all("section.compare").map(function (sec) { return $all("tbody tr", sec).length; });

  function select(id, tab, compareIndex) {
    $all("section.view").forEach(function (s) { s.hidden = s.id !== id; });
    $all("nav.tabs a").forEach(function (a) {
      var on = a.getAttribute("data-view") === tab;
      if (on && tab === "compare" && a.hasAttribute("data-c")) { on = a.getAttribute("data-c") === String(compareIndex); }
      a.classList.toggle("active", on);
    });
  }

  function route() {
    var hash = location.hash || defaultView;
    var parts = hash.replace(/^#\/?/, "").split("/");
    var view = parts[0] || "index";
    if (view === "episode") {
      var i = +parts[1];
      if (!(parts[1] && i >= 0 && i < nEpisodes)) { location.hash = "#/index"; return Promise.resolve(); }
      select("view-episode", "index");
      return loadData().then(function (d) { showEpisode(d, i); window.scrollTo(0, 0); window.colbench.shown = hash; });
    }
    if (view === "pair") {
      var c = +parts[1], r = +parts[2];
      if (!(c >= 0 && c < nPairs.length && r >= 0 && r < nPairs[c])) { location.hash = "#/index"; return Promise.resolve(); }
      select("view-pair", "compare", c);
      return loadData().then(function (d) { showPair(d, c, r); window.scrollTo(0, 0); window.colbench.shown = hash; });
    }
    var id = view === "compare" ? "view-compare-" + (+parts[1] || 0) : "view-" + view;
    var tab = view;
    if (!document.getElementById(id)) { id = defaultView === "#/results" ? "view-results" : "view-index"; tab = id.slice(5); }
    select(id, tab, +parts[1] || 0);
    window.colbench.shown = hash;
    return Promise.resolve();
  }

  window.colbench = {ready: null, dataReady: null, shown: null, applyFilters: applyFilters, route: route};
  window.addEventListener("hashchange", route);
  route();
  window.colbench.ready = performance.now();
  setTimeout(loadData, 0);  // decode the episodes now, so that the first one opens at once
})();
