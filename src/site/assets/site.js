// ravenpost site script: steps through a game on its page, sorts the index's table.
// No dependencies, nothing fetched: the game's data is in the page (#game-data).
(function () {
  'use strict';
  var SVG = 'http://www.w3.org/2000/svg';

  function sortable(table) {
    var heads = table.tHead.rows[0].cells;
    var body = table.tBodies[0];
    var state = { col: -1, dir: 1 };
    function key(row, col, type) {
      var cell = row.cells[col];
      if (!cell) return type === 'number' ? -1 : '';
      var v = cell.getAttribute('data-value');
      if (v === null) v = cell.textContent.trim();
      return type === 'number' ? Number(v) : v.toLowerCase();
    }
    Array.prototype.forEach.call(heads, function (th, col) {
      th.tabIndex = 0;
      th.classList.add('sort');
      function sort() {
        var type = th.getAttribute('data-type');
        state.dir = state.col === col ? -state.dir : 1;
        state.col = col;
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a, col, type), y = key(b, col, type);
          return (x < y ? -1 : x > y ? 1 : 0) * state.dir;
        });
        rows.forEach(function (r) { body.appendChild(r); });
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', state.dir > 0 ? 'ascending' : 'descending');
      }
      th.addEventListener('click', sort);
      th.addEventListener('keydown', function (e) { if (e.key === 'Enter') sort(); });
    });
  }

  function viewer(data) {
    var svg = document.querySelector('#board svg');
    var squares = {};
    Array.prototype.forEach.call(svg.querySelectorAll('rect.square'), function (r) { squares[r.id] = r; });
    var cell = data.cell;
    var font = Math.max(Math.floor(cell * 9 / 20), 6);
    // Every ply's board: square name -> piece token, made from the changes.
    var boards = [];
    var board = {};
    data.plies.forEach(function (p) {
      board = Object.assign({}, board);
      p.d.forEach(function (c) { if (c[1]) board[c[0]] = c[1]; else delete board[c[0]]; });
      boards.push(board);
    });
    var last = data.plies.length - 1;
    var layer = document.createElementNS(SVG, 'g');
    layer.setAttribute('class', 'pieces');
    svg.appendChild(layer);
    var ply = -1;
    var flipped = false;

    function el(name, attrs, parent) {
      var e = document.createElementNS(SVG, name);
      Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
      parent.appendChild(e);
      return e;
    }
    function draw() {
      var b = boards[ply];
      while (layer.firstChild) layer.removeChild(layer.firstChild);
      Object.keys(squares).forEach(function (name) {
        var r = squares[name];
        var tok = b[name];
        if (tok) r.setAttribute('data-piece', tok); else r.removeAttribute('data-piece');
      });
      Object.keys(b).forEach(function (name) {
        var r = squares[name];
        if (!r) return;
        var st = data.pieces[b[name]] || { label: b[name], side: 0 };
        var x = Number(r.getAttribute('x')) + cell / 2, y = Number(r.getAttribute('y')) + cell / 2;
        var disc = st.side === 0 ? '#ffffff' : '#000000', ink = st.side === 0 ? '#000000' : '#ffffff';
        var g = el('g', { 'class': 'piece', 'data-square': name, 'data-piece': b[name] }, layer);
        el('circle', { cx: x, cy: y, r: Math.floor(cell * 2 / 5), fill: disc, stroke: ink, 'stroke-width': 1 }, g);
        var t = el('text', {
          x: x, y: y, 'font-size': st.label.length > 1 ? Math.floor(font * 3 / 4) : font, 'font-weight': 'bold',
          fill: ink, 'text-anchor': 'middle', 'dominant-baseline': 'central'
        }, g);
        t.textContent = st.label;
      });
      var w = Math.max(Math.floor(cell / 10), 2);
      data.plies[ply].l.forEach(function (name) {
        var r = squares[name];
        if (!r) return;
        el('rect', {
          'class': 'last', 'data-square': name, x: Number(r.getAttribute('x')) + w / 2, y: Number(r.getAttribute('y')) + w / 2,
          width: cell - w, height: cell - w, fill: 'none', stroke: '#1a0033', 'stroke-width': w
        }, layer);
      });
    }
    function hands() {
      Array.prototype.forEach.call(document.querySelectorAll('.hand'), function (h) {
        var side = Number(h.getAttribute('data-side'));
        var list = h.querySelector('.hand-pieces');
        while (list.firstChild) list.removeChild(list.firstChild);
        var held = data.plies[ply].h[side];
        if (!held.length) list.textContent = '—';
        held.forEach(function (e) {
          var s = document.createElement('span');
          s.className = 'held';
          s.setAttribute('data-piece', e[0]);
          s.setAttribute('data-count', e[1]);
          var st = data.pieces[e[0]];
          s.textContent = (st ? st.label : e[0]) + (e[1] > 1 ? ' ×' + e[1] : '');
          list.appendChild(s);
        });
      });
    }
    function go(n, fromHash) {
      n = Math.max(0, Math.min(last, n | 0));
      if (n === ply) return;
      ply = n;
      document.body.setAttribute('data-ply', String(ply));
      draw();
      hands();
      document.getElementById('ply-label').textContent = 'Ply ' + ply + ' of ' + last;
      document.getElementById('side-line').textContent = data.plies[ply].s;
      document.getElementById('fen').textContent = data.plies[ply].f;
      Array.prototype.forEach.call(document.querySelectorAll('#moves .move'), function (a) {
        var on = Number(a.getAttribute('data-ply')) === ply;
        a.classList.toggle('current', on);
        if (on) a.setAttribute('aria-current', 'step'); else a.removeAttribute('aria-current');
      });
      if (!fromHash && location.hash !== '#ply=' + ply) location.replace('#ply=' + ply);
    }
    function mirror() {
      // Half a turn of each level's board: squares, portals, coordinates.
      Array.prototype.forEach.call(svg.querySelectorAll('g.level'), function (g) {
        var rects = g.querySelectorAll('rect.square');
        var minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
        Array.prototype.forEach.call(rects, function (r) {
          var x = Number(r.getAttribute('x')), y = Number(r.getAttribute('y'));
          minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y);
        });
        var sx = minX + maxX, sy = minY + maxY, cx = sx + cell, cy = sy + cell;
        Array.prototype.forEach.call(rects, function (r) {
          r.setAttribute('x', sx - Number(r.getAttribute('x')));
          r.setAttribute('y', sy - Number(r.getAttribute('y')));
        });
        Array.prototype.forEach.call(g.querySelectorAll('circle.portal'), function (c) {
          c.setAttribute('cx', cx - Number(c.getAttribute('cx')));
          c.setAttribute('cy', cy - Number(c.getAttribute('cy')));
        });
        Array.prototype.forEach.call(g.querySelectorAll('text'), function (t) {
          var x = Number(t.getAttribute('x')), y = Number(t.getAttribute('y'));
          if (x < minX) t.setAttribute('y', cy - y);
          else if (y > maxY + cell) t.setAttribute('x', cx - x);
        });
      });
      flipped = !flipped;
      document.body.classList.toggle('flipped', flipped);
      var keep = ply;
      ply = -1;
      go(keep, true);
    }
    function fromHash() {
      var m = /^#ply=(\d+)$/.exec(location.hash);
      return m ? Number(m[1]) : null;
    }
    document.getElementById('first').addEventListener('click', function () { go(0); });
    document.getElementById('prev').addEventListener('click', function () { go(ply - 1); });
    document.getElementById('next').addEventListener('click', function () { go(ply + 1); });
    document.getElementById('last').addEventListener('click', function () { go(last); });
    document.getElementById('flip').addEventListener('click', mirror);
    document.getElementById('moves').addEventListener('click', function (e) {
      var a = e.target.closest('.move');
      if (!a) return;
      e.preventDefault();
      go(Number(a.getAttribute('data-ply')));
    });
    document.addEventListener('keydown', function (e) {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      var t = e.target;
      if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA')) return;
      if (e.key === 'ArrowRight') go(ply + 1);
      else if (e.key === 'ArrowLeft') go(ply - 1);
      else if (e.key === 'Home') go(0);
      else if (e.key === 'End') go(last);
      else if (e.key === 'f') mirror();
      else return;
      e.preventDefault();
    });
    window.addEventListener('hashchange', function () {
      var n = fromHash();
      if (n !== null) go(n, true);
    });
    var start = fromHash();
    go(start === null ? last : start, start !== null);
  }

  var table = document.querySelector('table.sortable');
  if (table) sortable(table);
  var data = document.getElementById('game-data');
  if (data) viewer(JSON.parse(data.textContent));
})();
