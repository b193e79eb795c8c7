/* CPSDBench leaderboard page: table sorting and the sample browser. Plain JavaScript, no library;
   model outputs are inserted with textContent only (never as HTML). */
(function () {
  "use strict";
  var root = document.documentElement;
  var META = JSON.parse(document.getElementById("cpsd-meta").textContent);
  try {  // time to first contentful paint, for measuring large pages (html data-fcp, ms)
    new PerformanceObserver(function (list) {
      list.getEntries().forEach(function (e) { if (e.name === "first-contentful-paint") root.dataset.fcp = Math.round(e.startTime); });
    }).observe({type: "paint", buffered: true});
  } catch (e) { /* old browser: no paint timing */ }

  /* ---- sortable tables: click a header; numbers by data-v, text otherwise; blanks last ---- */
  function cellKey(row, i) {
    var c = row.children[i];
    var v = c ? (c.hasAttribute("data-v") ? c.getAttribute("data-v") : c.textContent.trim()) : "";
    return v;
  }
  function sortBy(table, th) {
    var i = Array.prototype.indexOf.call(th.parentNode.children, th);
    var dir = th.getAttribute("aria-sort") === "descending" ? "ascending" : "descending";
    table.querySelectorAll("thead th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir);
    var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
    var sign = dir === "ascending" ? 1 : -1;
    rows.sort(function (a, b) {
      var x = cellKey(a, i), y = cellKey(b, i);
      if (x === "" || y === "") return (x === "") - (y === "");
      var nx = Number(x), ny = Number(y);
      if (!isNaN(nx) && !isNaN(ny)) return sign * (nx - ny);
      return sign * x.localeCompare(y, "zh-Hans-CN");
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  document.querySelectorAll("table.sortable thead th").forEach(function (th) {
    var button = th.querySelector("button");
    if (button) button.addEventListener("click", function () { sortBy(th.closest("table"), th); });
  });

  /* ---- sample browser ---- */
  var D = null, matches = [], page = 0, hay = null;
  var el = function (id) { return document.getElementById(id); };
  var fModel = el("f-model"), fTask = el("f-task"), fClass = el("f-class"), fTrunc = el("f-trunc"), fQ = el("f-q");
  var status = el("browse-status"), tbody = el("sample-rows");

  function option(select, value, text) {
    var o = document.createElement("option"); o.value = value; o.textContent = text; select.appendChild(o);
  }
  function unpack(text) {
    var bin = atob(text.trim()), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }
  function state() {
    return {model: fModel.value, task: fTask.value, cls: fClass.value, trunc: fTrunc.checked, q: fQ.value.trim().toLowerCase()};
  }
  function setSelect(select, value) {
    if (value === "" || Array.prototype.some.call(select.options, function (o) { return o.value === value; })) { select.value = value; return true; }
    return false;
  }
  function haystack(k) {
    var s = D.samples[k], d = D.docs[s[1]];
    return (d[1] + "\n" + d[3] + "\n" + d[4] + "\n" + s[5] + "\n" + (s[6] || "") + "\n" + (s[8] || "")).toLowerCase();
  }
  function filter() {
    var st = state(), mi = st.model === "" ? -1 : D.models.indexOf(st.model), ti = st.task === "" ? -1 : D.tasks.indexOf(st.task);
    var ci = st.cls === "" ? -1 : D.classes.indexOf(st.cls);
    if (st.q && !hay) { hay = new Array(D.samples.length); }
    matches = [];
    for (var k = 0; k < D.samples.length; k++) {
      var s = D.samples[k];
      if (mi >= 0 && s[0] !== mi) continue;
      if (ti >= 0 && D.docs[s[1]][0] !== ti) continue;
      if (ci >= 0 && s[2] !== ci) continue;
      if (st.trunc && !s[3]) continue;
      if (st.q) { if (hay[k] === undefined) hay[k] = haystack(k); if (hay[k].indexOf(st.q) < 0) continue; }
      matches.push(k);
    }
    page = 0;
  }
  function textCell(tr, text, cls) {
    var td = document.createElement("td"), div = document.createElement("div");
    div.className = "txt" + (cls ? " " + cls : "");
    if (text === null || text === undefined) { div.className += " none"; div.textContent = "nothing read"; }
    else div.textContent = text;
    div.lang = "zh-Hans";
    td.appendChild(div); tr.appendChild(td); return td;
  }
  function render() {
    tbody.textContent = "";
    var size = META.pageSize, pages = Math.max(1, Math.ceil(matches.length / size));
    if (page >= pages) page = pages - 1;
    var start = page * size, end = Math.min(matches.length, start + size);
    for (var n = start; n < end; n++) {
      var s = D.samples[matches[n]], d = D.docs[s[1]], task = D.tasks[d[0]], cls = D.classes[s[2]];
      var tr = document.createElement("tr");
      tr.dataset.model = D.models[s[0]]; tr.dataset.task = task; tr.dataset.cls = cls; tr.dataset.id = d[1];
      var td = document.createElement("td"); td.textContent = String(n + 1); tr.appendChild(td);
      td = document.createElement("td");
      var b = document.createElement("b"); b.textContent = D.models[s[0]]; td.appendChild(b);
      td.appendChild(document.createElement("br"));
      td.appendChild(document.createTextNode("cpsd_" + task + (d[2] ? " · " + d[2] : "")));
      td.appendChild(document.createElement("br"));
      var code = document.createElement("code"); code.textContent = d[1]; td.appendChild(code); tr.appendChild(td);
      td = document.createElement("td");
      var badge = document.createElement("span"); badge.className = "cls cls-" + cls; badge.textContent = cls; td.appendChild(badge);
      if (s[3]) { var t = document.createElement("span"); t.className = "trunc"; t.textContent = "truncated"; td.appendChild(document.createElement("br")); td.appendChild(t); }
      tr.appendChild(td);
      td = document.createElement("td"); td.className = "num"; td.textContent = s[4] === null ? "" : s[4].toFixed(4);
      var m = document.createElement("span"); m.className = "facts"; m.textContent = D.metrics[task] || ""; td.appendChild(m);
      tr.appendChild(td);
      textCell(tr, d[3]);
      textCell(tr, s[5]);
      var readTd = textCell(tr, s[6]);
      if (s[7]) { var f = document.createElement("span"); f.className = "facts"; f.textContent = s[7]; readTd.appendChild(f); }
      if (s[8]) { var jd = document.createElement("span"); jd.className = "facts judge"; jd.textContent = s[8]; readTd.appendChild(jd); }
      textCell(tr, d[4]);
      tbody.appendChild(tr);
    }
    status.textContent = matches.length === 0 ? "No sample matches (of " + D.samples.length + ")." :
      matches.length + " of " + D.samples.length + " samples match · showing " + (start + 1) + "–" + end + " (page " + (page + 1) + " of " + pages + ")";
    el("p-prev").disabled = page === 0; el("p-next").disabled = page >= pages - 1;
    root.dataset.browseMatches = String(matches.length);
  }
  function writeHash() {
    var st = state(), p = new URLSearchParams();
    if (st.model) p.set("model", st.model);
    if (st.task) p.set("task", st.task);
    if (st.cls) p.set("class", st.cls);
    if (st.trunc) p.set("truncated", "1");
    if (fQ.value.trim()) p.set("q", fQ.value.trim());
    var h = "#browse" + (p.toString() ? "?" + p.toString().replace(/\+/g, "%20") : "");
    try { history.replaceState(null, "", h); } catch (e) { /* some file:// viewers refuse: the filter still works */ }
  }
  function update() { filter(); render(); writeHash(); }
  function applyHash() {
    var h = location.hash;
    if (h.indexOf("#browse") !== 0) return false;
    var q = h.indexOf("?"), p = new URLSearchParams(q >= 0 ? h.slice(q + 1) : "");
    var ok = setSelect(fModel, p.get("model") || "") & setSelect(fTask, p.get("task") || "") & setSelect(fClass, p.get("class") || "");
    fTrunc.checked = p.get("truncated") === "1";
    fQ.value = p.get("q") || "";
    filter(); render();
    if (!ok) status.textContent = "The link names a model, task or class this page does not have. " + status.textContent;
    el("browse").scrollIntoView();
    return true;
  }
  function start(data) {
    D = data;
    D.models.forEach(function (m) { option(fModel, m, m); });
    D.tasks.forEach(function (t) { option(fTask, t, (META.taskTitles[t] || t) + " (cpsd_" + t + ")"); });
    D.classes.forEach(function (c) { option(fClass, c, c); });
    [fModel, fTask, fClass, fTrunc].forEach(function (x) { x.addEventListener("change", update); });
    var timer = null;
    fQ.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(update, 200); });
    el("p-prev").addEventListener("click", function () { page--; render(); });
    el("p-next").addEventListener("click", function () { page++; render(); });
    window.addEventListener("hashchange", applyHash);
    if (!applyHash()) { filter(); render(); }
    root.dataset.samplesLoaded = String(D.samples.length);
    root.dataset.ready = String(Math.round(performance.now()));
  }
  if (typeof DecompressionStream === "undefined") {
    status.textContent = "This browser cannot unpack the samples (it lacks DecompressionStream: use Chrome/Edge 80+, Firefox 113+ or Safari 16.4+). The tables and figures above are complete.";
    return;
  }
  status.textContent = "Unpacking the samples…";
  unpack(document.getElementById("cpsd-samples").textContent).then(start, function (err) {
    status.textContent = "The samples could not be unpacked: " + err;
  });
})();
