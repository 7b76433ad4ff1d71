/* colbench view: the report's behaviour. No library, no network: everything is in this file's page.
 *
 * Views are chosen by the URL fragment: #/index, #/episode/N, #/summary, #/compare/C, #/pair/C/R,
 * #/results. Episode, task and pair views are built from the pre-rendered fragments of the JSON block
 * #colbench-data when opened. The index is sorted by clicking a column header (again: reverse),
 * filtered by the selects and the search box (task id or any text of the episode, case-insensitive).
 * window.colbench.ready is the time (ms since navigation start) at which the page became interactive.
 */
(function () {
  "use strict";

  var dataCache = null;
  function data() {
    if (dataCache === null) {
      dataCache = JSON.parse(document.getElementById("colbench-data").textContent);
    }
    return dataCache;
  }

  function $(sel, root) { return (root || document).querySelector(sel); }
  function $all(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }

  // ---------------------------------------------------------------------------------- fragments
  function fillImages(root) {
    var images = data().images;
    $all("img[data-img]", root).forEach(function (img) {
      var src = images[img.getAttribute("data-img")];
      if (src) { img.src = src; } else { img.classList.add("missing"); }
    });
  }

  function episodeNode(i, withTask) {
    var d = data();
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
  var searchText = null;  // episode index -> lower-case text, built on first search

  function plainText(html) {
    return html.replace(/<[^>]*>/g, " ").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
      .replace(/&quot;/g, "\"").replace(/&#39;/g, "'").replace(/&#x27;/g, "'").replace(/&amp;/g, "&")
      .toLowerCase();
  }

  function ensureSearchText() {
    if (searchText !== null) { return; }
    var d = data();
    searchText = d.episodes.map(function (html, i) { return plainText(html + " " + d.tasks[d.task_of[i]]); });
  }

  function value(sel) { var el = $(sel); return el ? el.value : ""; }

  function applyFilters() {
    var run = value("#f-run"), outcome = value("#f-outcome"), reason = value("#f-reason");
    var q = value("#f-search").trim().toLowerCase();
    if (q) { ensureSearchText(); }
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
  function visibleOrder() {
    return allRows.filter(function (tr) { return !tr.hidden; }).map(function (tr) { return +tr.getAttribute("data-i"); });
  }

  function showEpisode(i) {
    var body = $("#episode-body");
    body.innerHTML = "";
    body.appendChild(episodeNode(i, true));
    var order = visibleOrder(), k = order.indexOf(i);
    if (k < 0) { order = allRows.map(function (tr) { return +tr.getAttribute("data-i"); }); k = order.indexOf(i); }
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

  function showPair(c, r) {
    var pair = data().pairs[c], row = pair.rows[r];
    var task = $("#pair-task");
    task.innerHTML = "";
    var first = row.a.length ? row.a[0] : row.b[0];
    task.innerHTML = data().tasks[data().task_of[first]];
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
      row[side[0]].forEach(function (i) { col.appendChild(episodeNode(i, false)); });
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

  function route() {
    var parts = (location.hash || defaultView).replace(/^#\/?/, "").split("/");
    var view = parts[0] || "index", id = "view-" + view, tab = view;
    if (view === "episode") {
      var i = +parts[1];
      if (!(i >= 0 && i < data().episodes.length)) { location.hash = "#/index"; return; }
      showEpisode(i);
      tab = "index";
    } else if (view === "compare") {
      id = "view-compare-" + (+parts[1] || 0);
    } else if (view === "pair") {
      var c = +parts[1], r = +parts[2];
      var pairs = data().pairs;
      if (!(c >= 0 && c < pairs.length && r >= 0 && r < pairs[c].rows.length)) { location.hash = "#/index"; return; }
      showPair(c, r);
      tab = "compare";
    }
    if (!document.getElementById(id)) { id = defaultView === "#/results" ? "view-results" : "view-index"; tab = id.slice(5); }
    $all("section.view").forEach(function (s) { s.hidden = s.id !== id; });
    $all("nav.tabs a").forEach(function (a) {
      var on = a.getAttribute("data-view") === tab;
      if (on && tab === "compare" && a.hasAttribute("data-c")) {
        var want = view === "pair" ? parts[1] : (parts[1] || "0");
        on = a.getAttribute("data-c") === String(+want || 0);
      }
      a.classList.toggle("active", on);
    });
    if (view === "episode" || view === "pair") { window.scrollTo(0, 0); }
  }

  window.addEventListener("hashchange", route);
  route();
  window.colbench = {ready: performance.now(), applyFilters: applyFilters};
})();
