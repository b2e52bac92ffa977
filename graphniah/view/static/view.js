/* GraphNIAH example viewer: the index (filter, sort, accuracy with Wilson intervals) and the example page
   (answers, forest, needle map, windowed prompt). Plain ES2017, no dependencies, runs from file://.
   Data arrive as scripts that call GraphNIAHView.index(...) / GraphNIAHView.example(...), because
   browsers block fetch() of local files. */
(function () {
  'use strict';

  // The exact 97.5% normal quantile: graphniah.stats.wilson_interval's default for 95% intervals.
  var Z95 = 1.959963984540054;

  /* Wilson score interval for k successes in n trials, the formula of graphniah.stats.wilson_interval:
     centre = (k + z²/2) / (n + z²), half = z / (n + z²) · sqrt(k (n − k) / n + z²/4),
     with the ends set exactly at k = 0 (low 0) and k = n (high 1). */
  function wilson(k, n, z) {
    if (z === undefined) { z = Z95; }
    if (!(n > 0) || k < 0 || k > n) { return null; }
    var z2 = z * z;
    var centre = (k + z2 / 2) / (n + z2);
    var half = z / (n + z2) * Math.sqrt(k * (n - k) / n + z2 / 4);
    var low = k === 0 ? 0 : Math.max(0, centre - half);
    var high = k === n ? 1 : Math.min(1, centre + half);
    return [low, high];
  }

  var V = window.GraphNIAHView = { wilson: wilson, Z95: Z95 };

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) { Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); }); }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function $(id) { return document.getElementById(id); }
  function pct(x) { return (100 * x).toFixed(1); }
  function fmtInt(x) { return x === null || x === undefined ? '—' : Number(x).toLocaleString('en-US'); }
  function fmtLen(x) { return x === null || x === undefined ? 'none' : (x % 1000 === 0 ? (x / 1000) + 'k' : fmtInt(x)); }

  // ---------------------------------------------------------------------------------------- hash state
  function parseHash() {
    var out = {};
    var h = window.location.hash.replace(/^#/, '');
    if (!h) { return out; }
    h.split('&').forEach(function (part) {
      if (!part) { return; }
      var i = part.indexOf('=');
      var k = decodeURIComponent(i < 0 ? part : part.slice(0, i));
      var v = i < 0 ? '' : decodeURIComponent(part.slice(i + 1).replace(/\+/g, ' '));
      out[k] = v;
    });
    return out;
  }
  function buildHash(obj) {
    return Object.keys(obj).filter(function (k) { return obj[k] !== '' && obj[k] !== undefined && obj[k] !== null; })
      .map(function (k) { return encodeURIComponent(k) + '=' + encodeURIComponent(obj[k]); }).join('&');
  }

  // ---------------------------------------------------------------------------------------- index page
  var OUTCOME_OF = { c: 'correct', w: 'wrong', f: 'failed', '-': 'none' };
  var SYMBOL = { c: '✓', w: '✗', f: '!', '-': '–' };
  var PAGE = 100;
  var FIELDS = [
    ['task', 'Task', 1], ['depth', 'Depth', 2], ['length', 'Context length', 4], ['distractor', 'Distractor', 5], ['label', 'Label', 6]
  ];

  V.index = function (data) {
    V.data = data;
    var rows = data.rows;
    var runs = data.runs;
    var state = { sort: 'id', desc: false, page: 1 };
    document.title = data.title;
    $('title').textContent = data.title;
    $('source').textContent = rows.length.toLocaleString('en-US') + ' examples from ' + data.source + ' · ' +
      (runs.length ? runs.length + ' run(s): ' + runs.map(function (r) { return r.label; }).join(', ') : 'no runs');

    // Filter form: selects of the values present, a size range, an id search, one select per run.
    var form = $('filters');
    function distinct(col) {
      var seen = {};
      rows.forEach(function (r) { seen[r[col] === null ? 'none' : r[col]] = r[col]; });
      return Object.keys(seen).map(function (k) { return seen[k]; }).sort(function (a, b) {
        if (a === null) { return 1; } if (b === null) { return -1; }
        return typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));
      });
    }
    function field(label, input) {
      var w = el('label', { 'class': 'f' }); w.appendChild(el('span', null, label)); w.appendChild(input); form.appendChild(w);
    }
    FIELDS.forEach(function (f) {
      var s = el('select', { name: f[0], id: 'f-' + f[0] });
      s.appendChild(el('option', { value: '' }, 'any'));
      distinct(f[2]).forEach(function (v) {
        s.appendChild(el('option', { value: v === null ? 'none' : String(v) }, f[0] === 'length' ? fmtLen(v) : (v === null ? 'none' : v)));
      });
      field(f[1], s);
    });
    var sizes = distinct(3);
    var smin = el('input', { type: 'number', name: 'smin', id: 'f-smin', placeholder: String(sizes[0]), min: 0 });
    var smax = el('input', { type: 'number', name: 'smax', id: 'f-smax', placeholder: String(sizes[sizes.length - 1]), min: 0 });
    var sw = el('span', { 'class': 'range' }); sw.appendChild(smin); sw.appendChild(document.createTextNode('–')); sw.appendChild(smax);
    field('Component size', sw);
    field('Id contains', el('input', { type: 'search', name: 'q', id: 'f-q', placeholder: 'e.g. count-3f' }));
    runs.forEach(function (r, i) {
      var s = el('select', { name: 'run.' + r.label, id: 'f-run' + i, 'data-run': String(i) });
      [['', 'any'], ['answered', 'answered'], ['correct', 'correct'], ['wrong', 'wrong'], ['failed', 'failed'], ['none', 'not run']]
        .forEach(function (o) { s.appendChild(el('option', { value: o[0] }, o[1])); });
      field(r.label, s);
    });

    function readState() {
      var h = parseHash();
      var f = { task: h.task || '', depth: h.depth || '', length: h.length || '', distractor: h.distractor || '', label: h.label || '', q: h.q || '' };
      var size = h.size || '';
      var m = /^(\d*)(?:-(\d*))?$/.exec(size);
      f.smin = m ? m[1] : ''; f.smax = m ? (m[2] === undefined ? m[1] : m[2]) : '';
      f.runs = runs.map(function (r) { return h['run.' + r.label] || ''; });
      if (h.model) {  // the report's links: model=LABEL (its answered examples), optionally outcome=correct|wrong
        runs.forEach(function (r, i) { if (r.label === h.model || r.model === h.model) { f.runs[i] = h.outcome || 'answered'; } });
      }
      state.sort = h.sort || 'id'; state.desc = h.desc === '1'; state.page = Math.max(1, parseInt(h.page || '1', 10) || 1);
      return f;
    }
    function writeState(f) {
      var obj = { task: f.task, depth: f.depth, length: f.length, distractor: f.distractor, label: f.label, q: f.q };
      if (f.smin || f.smax) { obj.size = f.smin === f.smax ? f.smin : (f.smin + '-' + f.smax); }
      runs.forEach(function (r, i) { obj['run.' + r.label] = f.runs[i]; });
      if (state.sort !== 'id') { obj.sort = state.sort; }
      if (state.desc) { obj.desc = '1'; }
      if (state.page > 1) { obj.page = String(state.page); }
      var h = buildHash(obj);
      if (window.location.hash.replace(/^#/, '') !== h) { history.replaceState(null, '', h ? '#' + h : window.location.pathname); }
    }
    function formToFilter() {
      var f = { task: $('f-task').value, depth: $('f-depth').value, length: $('f-length').value, distractor: $('f-distractor').value,
        label: $('f-label').value, q: $('f-q').value.trim(), smin: $('f-smin').value, smax: $('f-smax').value };
      f.runs = runs.map(function (r, i) { return $('f-run' + i).value; });
      return f;
    }
    function filterToForm(f) {
      ['task', 'depth', 'length', 'distractor', 'label', 'q', 'smin', 'smax'].forEach(function (k) { $('f-' + k).value = f[k]; });
      runs.forEach(function (r, i) { $('f-run' + i).value = f.runs[i]; });
    }
    function matches(f) {
      var smin = f.smin === '' ? -Infinity : Number(f.smin), smax = f.smax === '' ? Infinity : Number(f.smax);
      var q = f.q.toLowerCase();
      return rows.filter(function (r) {
        if (f.task && r[1] !== f.task) { return false; }
        if (f.depth && String(r[2]) !== f.depth) { return false; }
        if (r[3] < smin || r[3] > smax) { return false; }
        if (f.length && (r[4] === null ? 'none' : String(r[4])) !== f.length) { return false; }
        if (f.distractor && r[5] !== f.distractor) { return false; }
        if (f.label && r[6] !== f.label) { return false; }
        if (q && r[0].toLowerCase().indexOf(q) < 0) { return false; }
        for (var i = 0; i < runs.length; i++) {
          var want = f.runs[i];
          if (!want) { continue; }
          var got = OUTCOME_OF[r[8].charAt(i)];
          if (want === 'answered' ? !(got === 'correct' || got === 'wrong') : got !== want) { return false; }
        }
        return true;
      });
    }
    var SORT_COL = { id: 0, task: 1, depth: 2, size: 3, length: 4, distractor: 5, label: 6, tokens: 7 };
    function sortRows(sel) {
      var col = SORT_COL[state.sort];
      var run = /^run(\d+)$/.exec(state.sort);
      var key = run ? function (r) { return 'cwf-'.indexOf(r[8].charAt(Number(run[1]))); } : function (r) { return r[col]; };
      var dir = state.desc ? -1 : 1;
      return sel.slice().sort(function (a, b) {
        var x = key(a), y = key(b);
        if (x === y) { return a[0] < b[0] ? -1 : 1; }
        if (x === null) { return 1; } if (y === null) { return -1; }
        return (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y))) * dir;
      });
    }
    function summary(sel) {
      var t = $('summary');
      t.textContent = '';
      var head = el('tr');
      ['Run', 'Accuracy', '95% Wilson interval', 'Correct / answered', 'Failed', 'Not run'].forEach(function (h) { head.appendChild(el('th', null, h)); });
      t.appendChild(head);
      if (!runs.length) { var tr0 = el('tr'); tr0.appendChild(el('td', { colspan: '6' }, 'No run journals were given (--runs).')); t.appendChild(tr0); }
      runs.forEach(function (r, i) {
        var k = 0, n = 0, failed = 0, none = 0;
        sel.forEach(function (row) {
          var c = row[8].charAt(i);
          if (c === 'c') { k++; n++; } else if (c === 'w') { n++; } else if (c === 'f') { failed++; } else { none++; }
        });
        var ci = wilson(k, n);
        var tr = el('tr', { 'class': 'run', 'data-run': r.label });
        tr.appendChild(el('td', null, r.label));
        tr.appendChild(el('td', { 'class': 'num acc' }, n ? pct(k / n) + '%' : '—'));
        tr.appendChild(el('td', { 'class': 'num ci', 'data-low': ci ? ci[0] : '', 'data-high': ci ? ci[1] : '' }, ci ? '[' + pct(ci[0]) + ', ' + pct(ci[1]) + ']' : '—'));
        tr.appendChild(el('td', { 'class': 'num' }, k + ' / ' + n));
        tr.appendChild(el('td', { 'class': 'num' }, failed));
        tr.appendChild(el('td', { 'class': 'num' }, none));
        t.appendChild(tr);
      });
    }
    function pager(box, pages) {
      box.textContent = '';
      function btn(label, page, disabled) {
        var b = el('button', { type: 'button' }, label);
        b.disabled = disabled;
        b.addEventListener('click', function () { state.page = page; render(false); });
        box.appendChild(b);
      }
      btn('«', 1, state.page <= 1); btn('‹', state.page - 1, state.page <= 1);
      box.appendChild(el('span', null, 'page ' + state.page + ' of ' + pages));
      btn('›', state.page + 1, state.page >= pages); btn('»', pages, state.page >= pages);
    }
    function table(sel) {
      var t = $('examples');
      t.textContent = '';
      var head = el('tr');
      var cols = [['id', 'Example'], ['task', 'Task'], ['depth', 'Depth'], ['size', 'Size'], ['length', 'L'], ['distractor', 'Distractor'],
        ['label', 'Label'], ['tokens', 'Tokens']];
      runs.forEach(function (r, i) { cols.push(['run' + i, r.label]); });
      cols.forEach(function (c) {
        var th = el('th', { 'data-sort': c[0], 'class': 'sortable' + (state.sort === c[0] ? (state.desc ? ' desc' : ' asc') : ''), title: 'sort by ' + c[1] }, c[1]);
        th.addEventListener('click', function () {
          if (state.sort === c[0]) { state.desc = !state.desc; } else { state.sort = c[0]; state.desc = false; }
          state.page = 1; render(false);
        });
        head.appendChild(th);
      });
      t.appendChild(head);
      var frag = document.createDocumentFragment();
      sel.forEach(function (r) {
        var tr = el('tr', { 'data-id': r[0] });
        var td = el('td', { 'class': 'id' });
        td.appendChild(el('a', { href: 'example.html#id=' + encodeURIComponent(r[0]) }, r[0]));
        tr.appendChild(td);
        tr.appendChild(el('td', null, r[1]));
        tr.appendChild(el('td', { 'class': 'num' }, r[2]));
        tr.appendChild(el('td', { 'class': 'num' }, r[3]));
        tr.appendChild(el('td', { 'class': 'num' }, fmtLen(r[4])));
        tr.appendChild(el('td', null, r[5]));
        tr.appendChild(el('td', { 'class': 'num' }, r[6]));
        tr.appendChild(el('td', { 'class': 'num' }, fmtInt(r[7])));
        runs.forEach(function (run, i) {
          var c = r[8].charAt(i);
          var ans = r[9][i];
          tr.appendChild(el('td', { 'class': 'out o-' + c, title: run.label + ': ' + OUTCOME_OF[c] + (ans !== null ? ' (answered ' + ans + ')' : '') },
            SYMBOL[c] + (ans !== null && ans !== undefined ? ' ' + ans : '')));
        });
        frag.appendChild(tr);
      });
      t.appendChild(frag);
    }
    function render(fromHash) {
      var f;
      if (fromHash) { f = readState(); filterToForm(f); } else { f = formToFilter(); }
      var sel = matches(f);
      summary(sel);
      var sorted = sortRows(sel);
      var pages = Math.max(1, Math.ceil(sorted.length / PAGE));
      state.page = Math.min(state.page, pages);
      table(sorted.slice((state.page - 1) * PAGE, state.page * PAGE));
      $('count').textContent = sel.length.toLocaleString('en-US') + ' of ' + rows.length.toLocaleString('en-US') + ' examples';
      pager($('pager'), pages); pager($('pager-top'), pages);
      writeState(f);
    }
    form.addEventListener('change', function () { state.page = 1; render(false); });
    form.addEventListener('input', function (ev) { if (ev.target.type === 'search' || ev.target.type === 'number') { state.page = 1; render(false); } });
    form.addEventListener('submit', function (ev) { ev.preventDefault(); });
    $('reset').addEventListener('click', function (ev) { ev.preventDefault(); history.replaceState(null, '', window.location.pathname); render(true); });
    window.addEventListener('hashchange', function () { render(true); });
    render(true);
  };

  // ---------------------------------------------------------------------------------------- example page
  var ROW_H = 16;
  var KIND_CLASS = ['', 'q', 'nb', 'pb'];
  var KIND_NAME = ['context', 'question', 'needle', 'paper'];  // graphniah.view.pages._KIND_CODE

  /* The user message and the data of the forest and the needle map arrive gzip-compressed and base64-encoded (graphniah.view.pages.packed_text),
     so the site weighs less than the examples file; the browser's own DecompressionStream unpacks them. */
  function unpackText(b64) {
    var bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) { bytes[i] = bin.charCodeAt(i); }
    return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).text();
  }
  /* The rows of graphniah.view.needles.prompt_rows: every line cut every `width` characters (code points,
     as Python counts them), an empty line one empty row. Spans name rows by these numbers. */
  function promptRows(text, width) {
    var rows = [];
    text.split('\n').forEach(function (line) {
      if (!line) { rows.push(''); return; }
      var cps = /[\uD800-\uDFFF]/.test(line) ? Array.from(line) : null;  // astral characters: cut by code point
      var n = cps ? cps.length : line.length;
      for (var k = 0; k < n; k += width) { rows.push(cps ? cps.slice(k, k + width).join('') : line.slice(k, k + width)); }
    });
    return rows;
  }
  V.promptRows = promptRows;

  function esc(s) {
    return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#x27;');
  }
  var ARROWS = '<defs><marker id="arr" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="5" markerHeight="5" orient="auto">' +
    '<path d="M0,0L10,5L0,10z" fill="#777"/></marker>' +
    '<marker id="arr-path" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="5" markerHeight="5" orient="auto">' +
    '<path d="M0,0L10,5L0,10z" fill="#d00"/></marker></defs>';

  /* The forest as SVG, from graphniah.view.forest.forest_data (papers by index): coloured components, arrowheads
     citing -> cited stopping at the cited paper's rim, marks (S, T or the options' letters), the path in red. */
  function forestSvg(f, palette) {
    var n = f.x.length, mark = {}, inPath = {}, onPath = {}, i;
    f.marks.forEach(function (m) { mark[m[0]] = m[1]; });
    f.path.forEach(function (v, k) {
      inPath[v] = true;
      if (k) { onPath[f.path[k - 1] + ',' + v] = true; onPath[v + ',' + f.path[k - 1]] = true; }
    });
    var out = ['<svg class="forest" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ' + f.width.toFixed(1) + ' ' + f.height.toFixed(1) +
      '" data-nodes="' + n + '" data-edges="' + (f.edges.length / 2) + '" role="img" aria-label="citation forest of ' + n + ' papers">',
      ARROWS, '<g class="edges">'];
    for (i = 0; i < f.edges.length; i += 2) {
      var a = f.edges[i], b = f.edges[i + 1];
      var x1 = f.x[a], y1 = f.y[a], x2 = f.x[b], y2 = f.y[b];
      var d = Math.hypot(x2 - x1, y2 - y1) || 1;
      var r = (mark[b] !== undefined ? f.mark_r : f.node_r) + 1;
      var hot = onPath[a + ',' + b] === true;
      out.push('<line x1="' + x1.toFixed(1) + '" y1="' + y1.toFixed(1) + '" x2="' + (x2 - (x2 - x1) / d * r).toFixed(1) + '" y2="' +
        (y2 - (y2 - y1) / d * r).toFixed(1) + '" class="' + (hot ? 'e path' : 'e') + '" marker-end="url(#' + (hot ? 'arr-path' : 'arr') + ')"/>');
    }
    out.push('</g><g class="nodes">');
    for (i = 0; i < n; i++) {
      var m = mark[i];
      out.push('<circle class="node' + (inPath[i] ? ' path' : '') + (m !== undefined ? ' mark' : '') + '" data-id="' + f.ids[i] + '" data-paper="' + f.ids[i] +
        '" cx="' + f.x[i].toFixed(1) + '" cy="' + f.y[i].toFixed(1) + '" r="' + (m !== undefined ? f.mark_r : f.node_r) +
        '" fill="' + palette[f.component[i] % palette.length] + '"><title>' + esc(f.hover[i]) + '</title></circle>');
      if (m !== undefined) { out.push('<text class="mark" x="' + f.x[i].toFixed(1) + '" y="' + (f.y[i] + 3.5).toFixed(1) + '">' + esc(m) + '</text>'); }
    }
    out.push('</g></svg>');
    return out.join('');
  }
  V.forestSvg = forestSvg;

  /* The needle map as SVG, from graphniah.view.pages.needle_map_data and the page's spans ([first row, last row,
     kind, colour]): the user message's tokens left to right, the context grey, then the question and the
     blocks over it (needles tall, in their component's colour); each mark names its row for the click. */
  function needleSvg(m, spans, palette) {
    var total = Math.max(m.total, 1), W = 1000;
    function x(t) { return t / total * W; }
    var out = ['<svg class="needles" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1000 30" preserveAspectRatio="none" data-total="' +
      m.total + '" data-blocks="' + m.blocks + '">',
      '<rect class="whole" x="0" y="8" width="1000" height="14"><title>user message: ' + fmtInt(m.total) + ' o200k tokens</title></rect>'];
    var rest = [];
    spans.forEach(function (s, i) {
      var t = m.tokens[2 * i], n = m.tokens[2 * i + 1], range = 'tokens ' + fmtInt(t) + '–' + fmtInt(t + n);
      if (s[2] === 0) {
        out.push('<rect class="context" x="' + x(t).toFixed(2) + '" y="8" width="' + Math.max(x(n), 0.5).toFixed(2) + '" height="14" data-row="' + s[0] +
          '"><title>context (distractor text between the blocks): ' + range + '</title></rect>');
        return;
      }
      var kind = KIND_NAME[s[2]], what = { question: 'question', needle: 'needle', paper: 'paper block (distractor component)' }[kind];
      var label = m.titles[i] ? what + ': ' + m.titles[i] : what;
      var fill = '', y = 8, h = 14;
      if (kind === 'needle') { fill = ' fill="' + palette[(s[3] >= 0 ? s[3] : 0) % palette.length] + '"'; y = 2; h = 26; } else if (kind === 'question') { y = 0; h = 30; }
      rest.push('<rect class="' + kind + '" x="' + x(t).toFixed(2) + '" y="' + y + '" width="' + Math.max(x(n), 1.2).toFixed(2) + '" height="' + h + '"' + fill +
        ' data-row="' + s[0] + '"><title>' + esc(label + ' — ' + range + ' of ' + fmtInt(m.total)) + '</title></rect>');
    });
    return out.concat(rest, ['</svg>']).join('');
  }
  V.needleSvg = needleSvg;

  function prompt(d) {
    var box = $('prompt'), spacer = $('prompt-spacer'), win = $('prompt-window');
    var n = d.rows.length;
    // Row -> span (later spans win: blocks and the question are drawn over the context).
    var kind = new Int8Array(n), colour = new Int16Array(n).fill(-1), first = new Int8Array(n);
    d.spans.forEach(function (s) {
      for (var r = s[0]; r <= s[1] && r < n; r++) { kind[r] = s[2]; colour[r] = s[3]; }
      if (s[2] >= 2) { first[s[0]] = 1; }
    });
    spacer.style.height = (n * ROW_H) + 'px';
    var drawn = [-1, -1];
    function draw() {
      var top = box.scrollTop, h = box.clientHeight || 600;
      var a = Math.max(0, Math.floor(top / ROW_H) - 40), b = Math.min(n, Math.ceil((top + h) / ROW_H) + 40);
      if (a === drawn[0] && b === drawn[1]) { return; }
      drawn = [a, b];
      win.style.transform = 'translateY(' + (a * ROW_H) + 'px)';
      var frag = document.createDocumentFragment();
      for (var r = a; r < b; r++) {
        var div = el('div', { 'class': 'r ' + KIND_CLASS[kind[r]] + (first[r] ? ' first' : ''), 'data-row': String(r) });
        if (kind[r] === 2 && colour[r] >= 0) { div.style.borderLeftColor = d.palette[colour[r] % d.palette.length]; }
        div.textContent = d.rows[r] || '\u200b';
        frag.appendChild(div);
      }
      win.textContent = '';
      win.appendChild(frag);
    }
    var pending = false;
    box.addEventListener('scroll', function () {
      if (!pending) { pending = true; requestAnimationFrame(function () { pending = false; draw(); }); }
    });
    V.scrollToRow = function (r) { box.scrollTop = Math.max(0, r * ROW_H - 2 * ROW_H); draw(); };
    draw();
  }

  V.example = function (d) {
    V.current = d;
    document.title = d.id + ' · GraphNIAH';
    $('title').textContent = d.id;
    var back = $('back');
    back.href = 'index.html#task=' + encodeURIComponent(d.task);
    $('facts').textContent = [d.task, 'depth ' + d.depth, 'component size ' + d.component_size, 'context ' + fmtLen(d.context_length),
      'distractor ' + d.distractor, d.papers + ' papers, ' + d.edges + ' citations', fmtInt(d.total_tokens) + ' o200k tokens (user message)'].join(' · ');
    $('question').textContent = d.question || '(the question could not be located in the prompt)';
    var ol = $('options');
    d.options.forEach(function (o) {
      var li = el('li', { 'class': o[0] === d.answer ? 'gold' : '' });
      li.appendChild(el('b', null, o[0] + ') ')); li.appendChild(document.createTextNode(o[1]));
      ol.appendChild(li);
    });
    ol.hidden = !d.options.length;
    $('gold').textContent = d.answer;
    if (d.list) { goldList(d); }

    // Answers: one row per run, then each response (and reasoning) in a collapsible block.
    var t = $('answers');
    var head = el('tr');
    ['Run', 'Result', 'Extracted answer', 'Prompt tokens', 'Completion tokens', 'Reasoning tokens', 'Cost (USD)', 'Time (s)', 'Attempts']
      .forEach(function (h) { head.appendChild(el('th', null, h)); });
    t.appendChild(head);
    var resp = $('responses');
    if (!d.runs.length) { var tr0 = el('tr'); tr0.appendChild(el('td', { colspan: '9' }, 'No run journals were given (--runs).')); t.appendChild(tr0); }
    d.runs.forEach(function (a) {
      var c = { correct: 'c', wrong: 'w', failed: 'f', none: '-' }[a.outcome];
      var tr = el('tr', { 'class': 'answer', 'data-run': a.run });
      tr.appendChild(el('td', null, a.run));
      tr.appendChild(el('td', { 'class': 'out o-' + c }, SYMBOL[c] + ' ' + a.outcome));
      tr.appendChild(el('td', { 'class': 'extracted' }, a.extracted === null ? (a.outcome === 'none' ? '' : 'no answer') : a.extracted));
      tr.appendChild(el('td', { 'class': 'num' }, fmtInt(a.prompt_tokens)));
      tr.appendChild(el('td', { 'class': 'num' }, fmtInt(a.completion_tokens)));
      tr.appendChild(el('td', { 'class': 'num' }, fmtInt(a.reasoning_tokens)));
      tr.appendChild(el('td', { 'class': 'num' }, a.cost_usd === null ? '—' : a.cost_usd.toFixed(6)));
      tr.appendChild(el('td', { 'class': 'num' }, a.time_s === null ? '—' : a.time_s.toFixed(2)));
      tr.appendChild(el('td', { 'class': 'num' }, a.attempts === null ? '—' : a.attempts));
      t.appendChild(tr);
      if (a.outcome === 'none') { return; }
      var det = el('details', { 'class': 'response' });
      det.appendChild(el('summary', null, a.run + ': ' + (a.outcome === 'failed' ? 'error' : 'response') + (a.reasoning ? ' and reasoning' : '')));
      if (a.reasoning) { det.appendChild(el('h4', null, 'Reasoning')); det.appendChild(el('pre', { 'class': 'reasoning' }, a.reasoning)); }
      if (a.outcome === 'failed') { det.appendChild(el('pre', { 'class': 'err' }, a.error || 'failed (no message)')); } else {
        det.appendChild(el('h4', null, 'Response'));
        det.appendChild(el('pre', null, a.response === null ? '(no text)' : a.response));
      }
      resp.appendChild(det);
    });

    $('forest-legend').textContent = d.forest_caption;  // worded per task by graphniah.view.forest.forest_caption
    runChoice(d);
    $('map-legend').textContent = 'The user message, ' + fmtInt(d.total_tokens) + ' o200k tokens, left to right: the question (dark), ' +
      d.blocks.needle + ' needle blocks (tall, in their component\'s colour)' + (d.blocks.paper ? ', ' + d.blocks.paper + ' paper blocks of distractor components (violet)' : '') +
      ', and the distractor text around them (grey). Click a mark to scroll the prompt there.' +
      (d.metadata ? '' : ' Without the snapshot, needles cannot be told from other paper blocks.') + (d.missing_blocks ? ' ' + d.missing_blocks + ' block(s) not found in the text!' : '');
    $('system').textContent = d.system;
    // The forest, the needle map and the prompt arrive packed (graphniah.view.pages.packed_text).
    Promise.all([unpackText(d.forest), unpackText(d.needle_map), unpackText(d.prompt)]).then(function (parts) {
      d.forest = JSON.parse(parts[0]); d.needle_map = JSON.parse(parts[1]);
      $('forest').innerHTML = forestSvg(d.forest, d.palette);  // every text in it escaped by esc
      V.applyRun(parseHash().run || '');
      $('needle-map').innerHTML = needleSvg(d.needle_map, d.spans, d.palette);
      Array.prototype.forEach.call(document.querySelectorAll('#needle-map rect[data-row]'), function (r) {
        r.addEventListener('click', function () { if (V.scrollToRow) { V.scrollToRow(Number(r.getAttribute('data-row'))); } });
      });
      d.rows = promptRows(parts[2], d.row_width);
      if (d.rows.length !== d.row_count) {  // the spans' row numbers would point elsewhere
        var e = $('error'); e.hidden = false; e.textContent = 'The prompt of ' + d.id + ' has ' + d.rows.length + ' rows, its spans expect ' + d.row_count + '.';
      }
      $('prompt-legend').textContent = d.rows.length.toLocaleString('en-US') + ' rows; only the rows on screen are drawn. Highlighted: the question (yellow), needle blocks (coloured bar), other paper blocks (violet).';
      prompt(d);
    }, function (err) {
      var e = $('error'); e.hidden = false; e.textContent = 'The page data of ' + d.id + ' could not be unpacked: ' + err;
    });
  };

  /* The gold answer of a list example as a list: one item per title, nearest the source first (hops from
     graphniah.scoring.target_distances, ties in the answer's order), closed when long. */
  function goldList(d) {
    var titles = d.answer.split('\n'), hops = d.list.hops;
    var order = titles.map(function (t, i) { return i; }).sort(function (a, b) { return hops[a] - hops[b] || a - b; });
    var box = $('gold-list');
    box.textContent = '';
    box.hidden = false;
    $('gold-line').hidden = true;
    var det = el('details', { 'class': 'gold-details' });
    det.open = titles.length <= 12;
    det.appendChild(el('summary', null, 'Gold answer: ' + titles.length + ' papers reachable from the source, nearest first (hops from the source)'));
    var list = el('ol', { 'class': 'gold-list' });
    order.forEach(function (i) {
      var li = el('li', { 'data-hop': String(hops[i]), 'data-line': String(i) });
      li.appendChild(el('span', { 'class': 'hop', title: hops[i] + ' hop(s) from the source' }, hops[i]));
      li.appendChild(document.createTextNode(titles[i]));
      list.appendChild(li);
    });
    det.appendChild(list);
    box.appendChild(det);
  }

  /* The run chooser: every run of the page; the choice goes into the address (#id=...&run=<label>). */
  function runChoice(d) {
    if (!d.runs.length) { return; }
    var sel = $('run-select');
    sel.appendChild(el('option', { value: '' }, 'none'));
    d.runs.forEach(function (a) { sel.appendChild(el('option', { value: a.run }, a.run)); });
    $('run-choice').hidden = false;
    sel.addEventListener('change', function () {
      var h = parseHash();
      h.run = sel.value;
      history.replaceState(null, '', '#' + buildHash(h));
      V.applyRun(sel.value);
    });
  }

  /* Recall at each hop distance, as graphniah.scoring.recall_by_distance counted it ([named, all] per hop). */
  function hopStrip(byHop) {
    var t = el('table', { 'class': 'hops' });
    var head = el('tr'), body = el('tr');
    head.appendChild(el('th', null, 'hops'));
    body.appendChild(el('th', null, 'recall'));
    byHop.forEach(function (c, i) {
      if (!c[1]) { return; }
      head.appendChild(el('td', null, i + 1));
      var td = el('td', { 'class': 'hop', 'data-hop': String(i + 1), 'data-named': String(c[0]), 'data-all': String(c[1]),
        title: c[0] + ' of the ' + c[1] + ' papers at ' + (i + 1) + ' hop(s) listed' }, Math.round(100 * c[0] / c[1]) + '%');
      td.style.background = 'hsl(' + Math.round(120 * c[0] / c[1]) + ', 60%, 85%)';  // red (none) to green (all)
      body.appendChild(td);
    });
    t.appendChild(head); t.appendChild(body);
    return t;
  }

  /* Colour the forest by what the chosen run answered ('' clears). Everything shown was computed in Python
     (graphniah.scoring, through graphniah.view.pages.list_overlay); the page only looks the results up. */
  V.applyRun = function (label) {
    var d = V.current, svg = document.querySelector('#forest svg');
    if (!d || !svg) { return; }
    var nodes = svg.querySelectorAll('circle.node');
    Array.prototype.forEach.call(nodes, function (c) { c.classList.remove('found', 'missed', 'extra', 'chosen'); });
    Array.prototype.forEach.call(document.querySelectorAll('#gold-list li'), function (li) { li.classList.remove('found', 'missed'); });
    svg.classList.remove('overlay');
    var summary = $('overlay-summary'), strip = $('hop-strip'), notes = $('overlay-notes');
    summary.textContent = ''; strip.textContent = ''; notes.textContent = ''; notes.hidden = true;
    var a = null;
    d.runs.forEach(function (r) { if (r.run === label) { a = r; } });
    $('run-select').value = a ? label : '';
    if (!label) { return; }
    if (!a) { summary.textContent = 'No run named ' + label + ' on this page.'; return; }
    if (a.outcome === 'none' || a.outcome === 'failed') { summary.textContent = label + ': ' + (a.outcome === 'none' ? 'no record of this example' : 'the call failed, no answer') + '.'; return; }
    var mark = {};
    d.forest.marks.forEach(function (m) { mark[m[1]] = m[0]; });
    if (d.task === 'list') {
      var o = a.overlay, found = 0, missed = 0;
      if (!o) { summary.textContent = label + ': no answer to show.'; return; }
      svg.classList.add('overlay');
      var items = {};
      Array.prototype.forEach.call(document.querySelectorAll('#gold-list li'), function (li) { items[li.getAttribute('data-line')] = li; });
      d.list.nodes.forEach(function (v, i) {
        var cls = o.hits.charAt(i) === '1' ? 'found' : 'missed';
        if (cls === 'found') { found++; } else { missed++; }
        nodes[v].classList.add(cls);
        if (items[i]) { items[i].classList.add(cls); }
      });
      o.extra.forEach(function (v) { nodes[v].classList.add('extra'); });
      var extra = o.extra.length + o.extra_undrawn;
      summary.textContent = label + ': ' + found + ' found and ' + missed + ' missed of the ' + d.list.nodes.length + ' reachable papers; ' +
        extra + ' extra (papers of the context that are not reachable' + (o.extra_undrawn ? ', ' + o.extra_undrawn + ' of them in distractor components, not drawn' : '') + ')' +
        (o.unknown.length ? '; ' + o.unknown.length + ' line(s) naming no paper of the context' : '') + (o.repeated ? '; ' + o.repeated + ' repeated line(s)' : '') + '.';
      var key = el('span', { 'class': 'key' });
      [['found', 'found'], ['missed', 'missed'], ['extra', 'extra'], ['other', 'not named, not reachable']].forEach(function (k) {
        key.appendChild(el('i', { 'class': 'swatch ' + k[0] })); key.appendChild(document.createTextNode(k[1] + ' '));
      });
      summary.appendChild(key);
      strip.appendChild(hopStrip(o.by_hop));
      if (o.unknown.length) {
        notes.hidden = false;
        notes.appendChild(el('h4', null, 'Lines naming no paper of the context (' + o.unknown.length + ')'));
        var ul = el('ul', { 'class': 'unknown-lines' });
        o.unknown.forEach(function (line) { ul.appendChild(el('li', null, line)); });
        notes.appendChild(ul);
      }
      return;
    }
    if (d.task === 'count') {
      summary.textContent = label + ' answered ' + (a.extracted === null ? 'no number' : a.extracted) + '; the true count is ' + d.answer + '.';
      return;
    }
    // YES/NO and multiple choice: the run's chosen paper (YES: the target; a letter: that candidate).
    var pick = a.extracted === null ? undefined : (d.task === 'yesno' ? (a.extracted === 'YES' ? mark.T : undefined) : mark[a.extracted]);
    if (pick !== undefined) { nodes[pick].classList.add('chosen'); }
    summary.textContent = label + ' answered ' + (a.extracted === null ? 'nothing' : a.extracted) +
      (pick !== undefined ? ' (ringed)' : (a.extracted === 'NO' ? ': no path' : (a.extracted !== null && d.task === 'mc' ? ': none of these' : ''))) +
      '; the answer is ' + d.answer + '.';
  };

  function loadExample() {
    var h = parseHash();
    var id = h.id || '';
    if (!/^[A-Za-z0-9_.-]{1,200}$/.test(id) || id.charAt(0) === '.') {
      var e = $('error'); e.hidden = false; e.textContent = id ? 'Not an example id: ' + id : 'No example given: open example.html#id=<example id> from the index.';
      $('title').textContent = 'No example';
      return;
    }
    var s = document.createElement('script');
    s.src = 'examples/' + encodeURIComponent(id) + '.js';
    s.onerror = function () { var e = $('error'); e.hidden = false; e.textContent = 'No data for example ' + id + ' in this viewer.'; $('title').textContent = id; };
    document.body.appendChild(s);
  }

  if (document.body && document.body.getAttribute('data-page') === 'example') {
    window.addEventListener('hashchange', function () {
      var h = parseHash();  // another run of the same example: recolour; another example: load it
      if (V.current && V.applyRun && h.id === V.current.id) { V.applyRun(h.run || ''); } else { window.location.reload(); }
    });
    loadExample();
  }
}());
