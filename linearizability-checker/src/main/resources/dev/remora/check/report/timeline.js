// The report's time lines: one canvas per file, drawing only the operations in view.
(function () {
  'use strict';
  var ROW = 26, BAR = 18, AXIS = 24, LEFT = 96, RIGHT = 14, MAX_ROWS = 20, MIN_SPAN = 4; // MIN_SPAN: slots; on the time axis 20 units of the embedded times
  var COLORS = {lin: '#b7e4c7', bad: '#ff8a8a', win: '#ffd8a8', none: '#e6e6e6'};
  var data = JSON.parse(document.getElementById('remora-data').textContent);
  var views = [];

  // Expands a partition's columns once: slots, times, lines, steps and rows.
  function decode(pt) {
    if (pt.dec) { return pt.dec; }
    var n = pt.p.length, i, x = 0, y = 0, z = 0;
    var c = new Float64Array(n), r = new Float64Array(n), tc = null, tr = null;
    var cl = new Int32Array(n), rl = new Int32Array(n), step = new Int32Array(n), kind = new Uint8Array(n);
    // Descriptions: 0 is the next new entry of the table, k > 0 the entry k places before it.
    var desc = new Int32Array(n), size = 0;
    for (i = 0; i < n; i++) { desc[i] = pt.d[i] === 0 ? size++ : size - pt.d[i]; }
    for (i = 0; i < n; i++) {
      x += pt.c[i]; c[i] = x; r[i] = pt.w[i] < 0 ? -1 : x + pt.w[i];
      z += pt.l[i]; cl[i] = z; rl[i] = pt.m[i] < 0 ? 0 : z + pt.m[i];
    }
    if (pt.t) {
      tc = new Float64Array(n); tr = new Float64Array(n);
      for (i = 0; i < n; i++) {
        y += pt.t[i]; tc[i] = y; tr[i] = pt.u[i] === null ? -1 : Math.max(y, y + pt.u[i]);
      }
    }
    var steps = pt.lin ? pt.lin.length : 0, j = 0;
    for (i = 0; i < steps; i++) { j += pt.lin[i]; step[j] = i + 1; }
    // kind: 0 not linearized, 1 linearized, 2 in the failing window, 3 cannot be linearized
    for (i = 0; i < n; i++) { kind[i] = step[i] > 0 ? 1 : 0; }
    if (pt.win) { pt.win.forEach(function (w) { if (!step[w]) { kind[w] = 2; } }); }
    if (pt.fail >= 0 && pt.fail !== undefined) { kind[pt.fail] = 3; }
    var rows = pt.procs.map(function () { return []; });
    for (i = 0; i < n; i++) { rows[pt.p[i]].push(i); }
    pt.dec = {n: n, desc: desc, c: c, r: r, tc: tc, tr: tr, cl: cl, rl: rl, step: step, kind: kind, steps: steps,
      rows: rows.map(function (a) { return Int32Array.from(a); })};
    return pt.dec;
  }

  function View(section, file) {
    var v = this;
    v.file = file; v.section = section; v.axis = 'ord'; v.rowOff = 0; v.drawn = 0; v.pinned = -1; v.hover = -1;
    var host = section.querySelector('.timeline');
    var bar = document.createElement('div'); bar.className = 'tl-bar';
    v.select = document.createElement('select'); v.select.className = 'tl-part';
    file.parts.forEach(function (pt, i) {
      var o = document.createElement('option'); o.value = String(i);
      o.textContent = (pt.key === null ? 'whole history' : 'key ' + pt.key) + ' — ' + pt.verdict + ' (' + pt.p.length + ' operations)';
      v.select.appendChild(o);
    });
    v.axisSel = document.createElement('select'); v.axisSel.className = 'tl-axis';
    [['ord', 'axis: ordinal (one slot per event)'], ['time', 'axis: time']].forEach(function (a) {
      var o = document.createElement('option'); o.value = a[0]; o.textContent = a[1];
      if (a[0] === 'time' && !file.times) { o.disabled = true; o.textContent += ' (no times recorded)'; }
      v.axisSel.appendChild(o);
    });
    bar.appendChild(v.select); bar.appendChild(v.axisSel);
    [['−', 'zoom out', function () { v.zoom(1.6, 0.5); }], ['+', 'zoom in', function () { v.zoom(1 / 1.6, 0.5); }],
      ['fit', 'show everything', function () { v.fit(); }],
      ['failing op', 'go to the operation that cannot be linearized', function () { v.focusFailing(); }]]
      .forEach(function (b) {
        var e = document.createElement('button'); e.type = 'button'; e.textContent = b[0]; e.title = b[1];
        e.className = 'tl-' + b[0].replace(/[^a-z]/g, '') ; e.addEventListener('click', b[2]); bar.appendChild(e);
        if (b[0] === 'failing op') { v.failBtn = e; }
      });
    v.rangeLabel = document.createElement('span'); v.rangeLabel.className = 'tl-range'; bar.appendChild(v.rangeLabel);
    v.wrap = document.createElement('div'); v.wrap.className = 'tl-wrap'; v.wrap.tabIndex = 0;
    v.canvas = document.createElement('canvas'); v.wrap.appendChild(v.canvas);
    v.tip = document.createElement('div'); v.tip.className = 'tl-tip'; v.wrap.appendChild(v.tip);
    v.detail = document.createElement('div'); v.detail.className = 'tl-detail';
    v.detail.textContent = 'Click an operation to keep its details here.';
    host.appendChild(bar); host.appendChild(v.wrap); host.appendChild(v.detail);
    v.select.addEventListener('change', function () { v.setPart(+v.select.value); });
    v.axisSel.addEventListener('change', function () { v.setAxis(v.axisSel.value); });
    v.listen();
    v.setPart(0);
    window.addEventListener('resize', function () { v.draw(); });
  }

  View.prototype.setPart = function (i) {
    this.pt = this.file.parts[i]; this.d = decode(this.pt); this.part = i; this.select.value = String(i);
    this.pinned = -1; this.hover = -1; this.rowOff = 0; this.hideTip();
    this.failBtn.disabled = !(this.pt.fail >= 0);
    if (this.axis === 'time' && !this.d.tc) { this.axis = 'ord'; this.axisSel.value = 'ord'; }
    if (this.pt.fail >= 0) { this.focusFailing(); } else { this.fit(); }
  };

  // Axis coordinates of operation i; an indeterminate one runs to the end.
  View.prototype.start = function (i) { return this.axis === 'time' ? this.d.tc[i] : this.d.c[i]; };
  View.prototype.end = function (i) {
    var e = this.axis === 'time' ? this.d.tr[i] : this.d.r[i];
    return e < 0 ? this.limit() : e;
  };
  View.prototype.limit = function () { return this.axis === 'time' ? Math.max(1, this.pt.tend) : Math.max(1, this.pt.slots); };

  View.prototype.plotWidth = function () { return Math.max(50, this.width - LEFT - RIGHT); };
  View.prototype.X = function (a) { return LEFT + (a - this.x0) / (this.x1 - this.x0) * this.plotWidth(); };
  View.prototype.A = function (px) { return this.x0 + (px - LEFT) / this.plotWidth() * (this.x1 - this.x0); };
  View.prototype.visibleRows = function () { return Math.min(MAX_ROWS, this.pt.procs.length); };

  View.prototype.setRange = function (a0, a1) {
    var lim = this.limit(), span = Math.max(this.axis === 'time' ? 20 : MIN_SPAN, a1 - a0);
    var pad = Math.min(lim * 0.02, span * 0.05) + 1;
    if (span > lim + 2 * pad) { span = lim + 2 * pad; }
    var mid = (a0 + a1) / 2;
    a0 = mid - span / 2; a1 = mid + span / 2;
    if (a0 < -pad) { a1 += -pad - a0; a0 = -pad; }
    if (a1 > lim + pad) { a0 -= a1 - lim - pad; a1 = lim + pad; }
    this.x0 = a0; this.x1 = a1; this.draw();
  };
  View.prototype.fit = function () { var lim = this.limit(); this.setRange(-lim * 0.02 - 1, lim * 1.02 + 1); };
  View.prototype.zoom = function (factor, at) {
    var a = this.x0 + (this.x1 - this.x0) * at;
    this.setRange(a - (a - this.x0) * factor, a + (this.x1 - a) * factor);
  };
  View.prototype.pan = function (px) {
    var da = px / this.plotWidth() * (this.x1 - this.x0);
    this.setRange(this.x0 + da, this.x1 + da);
  };
  View.prototype.scrollRows = function (k) {
    var max = Math.max(0, this.pt.procs.length - this.visibleRows());
    this.rowOff = Math.max(0, Math.min(max, this.rowOff + k)); this.draw();
  };
  View.prototype.showRow = function (row) {
    var vis = this.visibleRows();
    if (row < this.rowOff || row >= this.rowOff + vis) { this.rowOff = Math.max(0, Math.min(this.pt.procs.length - vis, row - (vis >> 1))); }
  };

  // Centres the failing operation with the failing window and the last steps around it.
  View.prototype.focusFailing = function () {
    var f = this.pt.fail, d = this.d;
    if (!(f >= 0)) { this.fit(); return; }
    var lo = this.start(f), hi = this.axis === 'time' ? Math.max(this.start(f), d.tr[f]) : Math.max(this.start(f), d.r[f]);
    var self = this, around = (this.pt.win || []).slice(0, 60);
    for (var i = 0, j = 0; i < d.steps; i++) { j += this.pt.lin[i]; if (i >= d.steps - 10) { around.push(j); } }
    around.forEach(function (k) {
      lo = Math.min(lo, self.start(k));
      var e = self.axis === 'time' ? d.tr[k] : d.r[k];
      hi = Math.max(hi, e < 0 ? self.start(k) : e);
    });
    var spanMax = this.axis === 'time' ? this.limit() / 20 : 400, c = this.start(f);
    if (hi - lo > spanMax) { lo = Math.max(lo, c - spanMax / 2); hi = Math.min(hi, c + spanMax / 2); }
    var span = Math.max(hi - lo, this.axis === 'time' ? 0 : 30), pad = span * 0.15 + 1;
    this.showRow(this.pt.p[f]);
    this.setRange(Math.min(lo, c) - pad, Math.max(hi, c) + pad);
  };

  View.prototype.setAxis = function (axis) {
    if (axis === 'time' && !this.d.tc) { axis = 'ord'; }
    if (axis === this.axis) { this.axisSel.value = axis; return; }
    // Keep the same operations in view: those invoked in the range on the old axis (else those
    // intersecting it), without stretching the range to the end of long or indeterminate ones.
    var d = this.d, lo = Infinity, hi = -Infinity, i, old = this.axis, pass, found = false;
    for (pass = 0; pass < 2 && !found; pass++) {
      for (i = 0; i < d.n; i++) {
        var s = this.start(i);
        if (pass === 0 ? s >= this.x0 && s <= this.x1 : s <= this.x1 && this.end(i) >= this.x0) {
          this.axis = axis;
          var ns = this.start(i), ne = (axis === 'time' ? d.tr[i] : d.r[i]);
          lo = Math.min(lo, ns); hi = Math.max(hi, pass === 0 && ne >= 0 ? ne : ns);
          this.axis = old; found = true;
        }
      }
    }
    this.axis = axis; this.axisSel.value = axis;
    if (lo === Infinity) { this.fit(); } else { this.setRange(lo, Math.max(hi, lo + 1)); }
  };

  // Index in row ops of the first operation that may intersect [a, +inf): ends are ordered within a process.
  View.prototype.firstFrom = function (ops, a) {
    var lo = 0, hi = ops.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (this.start(ops[mid]) < a) { lo = mid + 1; } else { hi = mid; } }
    var k = lo;
    // Times may step backwards: look back while earlier operations still reach into the range.
    for (var back = 0; k > 0 && back < 64 && this.end(ops[k - 1]) >= a; back++) { k--; }
    return k;
  };

  View.prototype.draw = function () {
    var cv = this.canvas, dpr = window.devicePixelRatio || 1, d = this.d, pt = this.pt;
    this.width = Math.max(300, this.wrap.clientWidth || 900);
    var vis = this.visibleRows(), height = AXIS + vis * ROW + 6;
    if (cv.width !== Math.round(this.width * dpr) || cv.height !== Math.round(height * dpr)) {
      cv.width = Math.round(this.width * dpr); cv.height = Math.round(height * dpr); cv.style.height = height + 'px';
    }
    var g = cv.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, this.width, height);
    g.font = '11px monospace'; g.textBaseline = 'middle';
    this.ticks(g, height);
    var drawn = 0, special = [], right = this.width - RIGHT, self = this;
    for (var rr = 0; rr < vis; rr++) {
      var row = this.rowOff + rr, y = AXIS + rr * ROW + (ROW - BAR) / 2, ops = d.rows[row];
      g.fillStyle = rr % 2 ? '#fafafa' : '#fff'; g.fillRect(LEFT, AXIS + rr * ROW, right - LEFT, ROW);
      g.fillStyle = '#333'; g.textAlign = 'left';
      g.fillText(clip('p ' + pt.procs[row], 13), 4, y + BAR / 2);
      var lastPx = -Infinity;
      for (var k = this.firstFrom(ops, this.x0); k < ops.length; k++) {
        var i = ops[k], s = this.start(i);
        if (s > this.x1) { break; }
        if (d.kind[i] === 3 || i === this.pinned || i === this.hover) { special.push(i); continue; }
        var x1 = Math.max(LEFT, this.X(s)), x2 = Math.min(right, this.X(this.end(i)));
        if (x2 < lastPx + 1 || x2 < LEFT) { continue; } // this pixel column already has a bar
        this.bar(g, i, x1, Math.max(x2, x1 + 1), y, false);
        lastPx = Math.max(x2, x1 + 1); drawn++;
      }
    }
    special.forEach(function (i) {
      var row = pt.p[i] - self.rowOff, y = AXIS + row * ROW + (ROW - BAR) / 2;
      var x1 = Math.max(LEFT, self.X(self.start(i))), x2 = Math.min(right, self.X(self.end(i)));
      if (x2 < LEFT || x1 > right) { return; }
      self.bar(g, i, x1, Math.max(x2, x1 + 6), y, true); drawn++;
    });
    this.drawn = drawn;
    var unit = this.axis === 'time' ? '' : ' slots';
    this.rangeLabel.textContent = 'showing ' + this.fmtA(Math.max(0, this.x0)) + ' – ' + this.fmtA(Math.min(this.limit(), this.x1)) + unit +
      ' of ' + this.fmtA(this.limit()) + unit + '; rows ' + (this.rowOff + 1) + '–' + (this.rowOff + vis) + ' of ' + pt.procs.length +
      '; ' + drawn + ' bars drawn';
  };

  View.prototype.bar = function (g, i, x1, x2, y, emph) {
    var d = this.d, kind = d.kind[i], w = x2 - x1;
    g.fillStyle = kind === 3 ? COLORS.bad : kind === 2 ? COLORS.win : kind === 1 ? COLORS.lin : COLORS.none;
    g.fillRect(x1, y, w, BAR);
    var open = this.axis === 'time' ? d.tr[i] < 0 : d.r[i] < 0;
    if (w >= 4 || emph) {
      g.strokeStyle = kind === 3 ? '#a00' : i === this.pinned || i === this.hover ? '#0969da' : '#555';
      g.lineWidth = emph ? 2 : 1;
      g.setLineDash(open || this.pt.w[i] < 0 ? [4, 3] : []);
      g.strokeRect(x1 + 0.5, y + 0.5, w - 1, BAR - 1);
      g.setLineDash([]);
    }
    var label = (d.step[i] ? d.step[i] + '. ' : kind === 3 ? '✗ ' : '') + this.pt.dict[d.desc[i]];
    var chars = Math.floor((w - 6) / 6.7);
    if (kind === 3 && chars < label.length) {
      // The failing operation's label always shows in full, beside its bar.
      var tw = label.length * 6.7, left = x2 + 4 + tw < this.width;
      g.fillStyle = '#cf222e'; g.textAlign = left ? 'left' : 'right';
      g.fillText(label, left ? x2 + 4 : x1 - 4, y + BAR / 2);
    } else if (chars >= 3) {
      g.fillStyle = '#111'; g.textAlign = 'left';
      g.fillText(clip(label, chars), x1 + 3, y + BAR / 2);
    }
  };

  function clip(s, n) { return s.length > n ? s.substring(0, Math.max(1, n - 1)) + '…' : s; }

  // An axis value, to the precision that step (in axis units) needs, in the unit the view needs.
  View.prototype.fmtA = function (a, step) {
    if (this.axis !== 'time') { return String(Math.round(a)); }
    var ns = a * this.pt.unit, stepNs = (step || (this.x1 - this.x0) / 100) * this.pt.unit;
    var big = Math.max(Math.abs(this.x0), Math.abs(this.x1)) * this.pt.unit;
    var u = big >= 1e9 ? [1e9, 's'] : big >= 1e6 ? [1e6, 'ms'] : big >= 1e3 ? [1e3, 'µs'] : [1, 'ns'];
    var dec = Math.max(0, Math.min(9, Math.ceil(-Math.log10(stepNs / u[0]) - 1e-9)));
    return (ns / u[0]).toFixed(dec) + ' ' + u[1];
  };
  function fmtNs(ns) {
    var abs = Math.abs(ns);
    if (abs >= 1e9) { return (ns / 1e9).toFixed(abs >= 1e10 ? 1 : 3) + ' s'; }
    if (abs >= 1e6) { return (ns / 1e6).toFixed(abs >= 1e7 ? 1 : 3) + ' ms'; }
    if (abs >= 1e3) { return (ns / 1e3).toFixed(abs >= 1e4 ? 1 : 3) + ' µs'; }
    return Math.round(ns) + ' ns';
  }

  // A time since the partition's first event, in seconds, to the resolution of the embedded times.
  function fmtTime(ns, unit) {
    var digits = Math.max(0, Math.min(9, 9 - Math.round(Math.log10(unit))));
    return (ns / 1e9).toFixed(digits) + ' s' + (unit > 1 ? ' (to ' + fmtNs(unit) + ')' : '');
  }

  View.prototype.ticks = function (g, height) {
    var span = this.x1 - this.x0, raw = span / Math.max(1, this.plotWidth() / 110);
    var step = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / step;
    step *= m < 2 ? 2 : m < 5 ? 5 : 10;
    if (this.axis !== 'time') { step = Math.max(1, step); }
    g.strokeStyle = '#e4e4e4'; g.fillStyle = '#666'; g.lineWidth = 1; g.textAlign = 'center';
    for (var a = Math.ceil(this.x0 / step) * step; a <= this.x1; a += step) {
      var x = Math.round(this.X(a)) + 0.5;
      if (x < LEFT) { continue; }
      g.beginPath(); g.moveTo(x, AXIS - 4); g.lineTo(x, height); g.stroke();
      var text = this.fmtA(a, step);
      if (x + g.measureText(text).width / 2 <= this.width - 2) { g.fillText(text, x, AXIS / 2 - 2); }
    }
    g.fillStyle = '#666'; g.textAlign = 'left';
    g.fillText(this.axis === 'time' ? 'time' : 'event slot', 4, AXIS / 2 - 2);
  };

  // The operation under canvas point (px, py), or -1; a bar narrower than 3 pixels counts as 3 wide.
  View.prototype.hit = function (px, py) {
    var rr = Math.floor((py - AXIS) / ROW);
    if (rr < 0 || rr >= this.visibleRows() || px < LEFT) { return -1; }
    var ops = this.d.rows[this.rowOff + rr], a = this.A(px), tol = 3 / this.plotWidth() * (this.x1 - this.x0);
    var f = this.pt.fail;
    if (f >= 0 && this.pt.p[f] === this.rowOff + rr) {
      var fx1 = this.X(this.start(f)), fx2 = Math.max(this.X(this.end(f)), fx1 + 6);
      if (px >= fx1 && px <= fx2) { return f; }
    }
    var best = -1, bestDist = Infinity;
    for (var k = this.firstFrom(ops, a - tol); k < ops.length; k++) {
      var i = ops[k], s = this.start(i), e = this.end(i);
      if (s > a + tol) { break; }
      var dist = a < s ? s - a : a > e ? a - e : 0;
      if (dist <= tol && dist < bestDist) { best = i; bestDist = dist; }
    }
    return best;
  };

  // What is known about operation i, as lines of text.
  View.prototype.describe = function (i) {
    var pt = this.pt, d = this.d, out = [pt.dict[d.desc[i]]];
    out.push('process ' + pt.procs[pt.p[i]]);
    var st;
    if (d.kind[i] === 3) {
      st = 'cannot be linearized after step ' + d.steps + ': ' + (pt.reason || '');
    } else if (d.step[i]) {
      st = 'step ' + d.step[i] + ' of ' + (pt.fail >= 0 ? 'the longest partial linearization (' + d.steps + ' steps)'
        : 'the linearization found (' + d.steps + ' steps)');
      var si = d.step[i] - pt.statesFrom;
      if (pt.states && si >= 0 && si < pt.states.length) { st += '\nstate after: ' + pt.stateDict[pt.states[si]]; }
    } else if (pt.fail >= 0) {
      st = (d.kind[i] === 2 ? 'in the smallest failing window; ' : '') + 'not in the longest partial linearization';
    } else if (pt.ordered) {
      st = pt.w[i] < 0 ? 'not in the linearization: it did not take effect' : 'not in the linearization (not needed by the model)';
    } else {
      st = 'no linearization: this partition is ' + pt.verdict;
    }
    out.push(st);
    var t = d.tc ? ', time ' + fmtTime(d.tc[i] * pt.unit, pt.unit) : '';
    out.push('invoked: line ' + d.cl[i] + ', event slot ' + d.c[i] + t);
    if (pt.w[i] < 0) {
      out.push('completed: never (indeterminate)');
    } else {
      out.push('completed: line ' + d.rl[i] + ', event slot ' + d.r[i] + (d.tr ? ', time ' + fmtTime(d.tr[i] * pt.unit, pt.unit) +
        ' (took ' + fmtNs((d.tr[i] - d.tc[i]) * pt.unit) + ')' : ''));
    }
    return out;
  };

  View.prototype.showTip = function (i, px, py) {
    var lines = this.describe(i), tip = this.tip;
    tip.textContent = '';
    var b = document.createElement('b'); b.textContent = lines[0]; tip.appendChild(b);
    tip.appendChild(document.createTextNode('\n' + lines.slice(1).join('\n')));
    tip.style.display = 'block';
    var w = tip.offsetWidth, left = px + 14 + w > this.width ? Math.max(0, px - 14 - w) : px + 14;
    tip.style.left = left + 'px'; tip.style.top = (py + 16) + 'px';
    tip.dataset.op = String(i);
  };
  View.prototype.hideTip = function () { this.tip.style.display = 'none'; this.tip.dataset.op = ''; };

  View.prototype.listen = function () {
    var v = this, cv = this.canvas, drag = null;
    function pos(e) { var r = cv.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; }
    cv.addEventListener('wheel', function (e) {
      e.preventDefault();
      var p = pos(e), dx = e.deltaX, dy = e.deltaY;
      if (e.deltaMode === 1) { dx *= 16; dy *= 16; }
      if (e.shiftKey && dx === 0) { dx = dy; dy = 0; }
      if (Math.abs(dx) > Math.abs(dy)) { v.pan(dx); return; }
      var at = Math.max(0, Math.min(1, (p[0] - LEFT) / v.plotWidth()));
      v.zoom(Math.exp(Math.max(-1, Math.min(1, dy * 0.002))), at);
    }, {passive: false});
    cv.addEventListener('mousedown', function (e) {
      if (e.button !== 0) { return; }
      var p = pos(e);
      drag = {x: p[0], y: p[1], x0: v.x0, x1: v.x1, row: v.rowOff, moved: false};
      v.wrap.focus({preventScroll: true});
      e.preventDefault();
    });
    window.addEventListener('mousemove', function (e) {
      if (!drag) { return; }
      var p = pos(e), dx = p[0] - drag.x, dy = p[1] - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; cv.classList.add('dragging'); v.hideTip(); }
      if (drag.moved) {
        var da = dx / v.plotWidth() * (drag.x1 - drag.x0);
        v.rowOff = drag.row; v.scrollRows(-Math.round(dy / ROW));
        v.setRange(drag.x0 - da, drag.x1 - da);
      }
    });
    window.addEventListener('mouseup', function (e) {
      if (!drag) { return; }
      var moved = drag.moved; drag = null; cv.classList.remove('dragging');
      if (!moved) {
        var p = pos(e), i = v.hit(p[0], p[1]);
        v.pinned = i;
        v.detail.textContent = i < 0 ? 'Click an operation to keep its details here.' : v.describe(i).join('\n');
        v.draw();
      }
    });
    cv.addEventListener('mousemove', function (e) {
      if (drag && drag.moved) { return; }
      var p = pos(e), i = v.hit(p[0], p[1]);
      if (i !== v.hover) { v.hover = i; v.draw(); }
      if (i < 0) { v.hideTip(); } else { v.showTip(i, p[0], p[1]); }
    });
    cv.addEventListener('mouseleave', function () { v.hover = -1; v.hideTip(); v.draw(); });
    v.wrap.addEventListener('keydown', function (e) {
      var k = e.key, w = v.plotWidth(), done = true;
      if (k === '+' || k === '=') { v.zoom(1 / 1.6, 0.5); } else if (k === '-' || k === '_') { v.zoom(1.6, 0.5); }
      else if (k === 'ArrowLeft') { v.pan(-w * (e.shiftKey ? 0.5 : 0.1)); } else if (k === 'ArrowRight') { v.pan(w * (e.shiftKey ? 0.5 : 0.1)); }
      else if (k === 'ArrowUp') { v.scrollRows(-1); } else if (k === 'ArrowDown') { v.scrollRows(1); }
      else if (k === '0' || k === 'Home') { v.fit(); } else if (k === 'f') { v.focusFailing(); }
      else if (k === 'a') { v.setAxis(v.axis === 'time' ? 'ord' : 'time'); }
      else { done = false; }
      if (done) { e.preventDefault(); }
    });
  };

  var sections = document.querySelectorAll('section.file');
  for (var s = 0; s < sections.length; s++) {
    var file = data[+sections[s].dataset.index];
    if (file.parts.length) {
      views.push(new View(sections[s], file));
    } else {
      sections[s].querySelector('.timeline').textContent = 'No operations.';
    }
  }
  var firstFailing = null;
  views.forEach(function (v) { if (!firstFailing && v.pt.fail >= 0) { firstFailing = v; } });
  if (firstFailing) {
    // The failing operation in view on load: its file's time line at the top of the window.
    firstFailing.section.scrollIntoView({block: 'start'});
    firstFailing.wrap.focus({preventScroll: true});
  }

  // A small interface for scripts and tests.
  window.remoraTimeline = {
    views: views,
    /** The failing operation's bar in client (viewport) coordinates, or null. */
    failingRect: function (vi) {
      var v = vi === undefined ? firstFailing : views[vi];
      if (!v || !(v.pt.fail >= 0)) { return null; }
      var f = v.pt.fail, row = v.pt.p[f] - v.rowOff;
      if (row < 0 || row >= v.visibleRows()) { return null; }
      var r = v.canvas.getBoundingClientRect(), x1 = Math.max(LEFT, v.X(v.start(f))), x2 = Math.max(Math.min(v.width - RIGHT, v.X(v.end(f))), x1 + 6);
      if (x1 > v.width - RIGHT || v.X(v.end(f)) < LEFT) { return null; }
      var y = AXIS + row * ROW + (ROW - BAR) / 2;
      return {left: r.left + x1, right: r.left + x2, top: r.top + y, bottom: r.top + y + BAR,
        x: r.left + (x1 + x2) / 2, y: r.top + y + BAR / 2};
    },
    state: function (vi) {
      var v = views[vi || 0];
      return {x0: v.x0, x1: v.x1, axis: v.axis, rowOff: v.rowOff, drawn: v.drawn, part: v.part,
        ops: v.d.n, rows: v.pt.procs.length, tip: v.tip.style.display === 'block' ? v.tip.textContent : null};
    }
  };
}());
