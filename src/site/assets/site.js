// ravenpost site script: steps through a game on its page, sorts the index's table.
// No dependencies, nothing fetched: the game's data is in the page (#game-data); a page
// served by `ravenpost serve` also has #play-data, and asks the server for moves.
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

  // On a narrow window, the levels of a board with several (Gygax Chess: Air, Land,
  // Subterranean) are drawn one above the other instead of side by side.
  function stack(svg) {
    var levels = svg.querySelectorAll('g.level');
    var holder = document.getElementById('board');
    if (levels.length < 2 || !holder) return;
    var vb = svg.viewBox.baseVal;
    var W = vb.width, H = vb.height;
    if (W <= holder.clientWidth * 1.6) return;
    function left(g) {
      var m = Infinity;
      Array.prototype.forEach.call(g.querySelectorAll('rect.square'), function (r) { m = Math.min(m, Number(r.getAttribute('x'))); });
      return m;
    }
    var step = left(levels[1]) - left(levels[0]);
    Array.prototype.forEach.call(levels, function (g, i) {
      var dx = -i * step, dy = i * H;
      Array.prototype.forEach.call(g.querySelectorAll('*'), function (e) {
        ['x', 'cx'].forEach(function (a) { if (e.hasAttribute(a)) e.setAttribute(a, Number(e.getAttribute(a)) + dx); });
        ['y', 'cy'].forEach(function (a) { if (e.hasAttribute(a)) e.setAttribute(a, Number(e.getAttribute(a)) + dy); });
      });
    });
    var w = W - (levels.length - 1) * step, h = H * levels.length;
    svg.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
    svg.setAttribute('width', w);
    svg.setAttribute('height', h);
    var bg = svg.querySelector('rect.background');
    if (bg) { bg.setAttribute('width', w); bg.setAttribute('height', h); }
    document.body.classList.add('stacked');
  }

  function viewer(data, atEnd) {
    var svg = document.querySelector('#board svg');
    stack(svg);
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
    // A position outside the record (the analysis board's): { b: board, p: ply data }.
    var shown = null;
    function view() { return shown || { b: boards[ply], p: data.plies[ply] }; }

    function el(name, attrs, parent) {
      var e = document.createElementNS(SVG, name);
      Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
      parent.appendChild(e);
      return e;
    }
    function draw() {
      var b = view().b;
      while (layer.firstChild) layer.removeChild(layer.firstChild);
      // Under the pieces: a royal piece in check (red), a frozen piece (dashed blue).
      (view().p.m || []).forEach(function (mk) {
        var r = squares[mk[0]];
        if (!r) return;
        var x = Number(r.getAttribute('x')), y = Number(r.getAttribute('y'));
        if (mk[1] === 'check') {
          el('rect', { 'class': 'check', 'data-square': mk[0], x: x, y: y, width: cell, height: cell, fill: '#e02020', 'fill-opacity': 0.55 }, layer);
        } else {
          el('rect', {
            'class': 'frozen', 'data-square': mk[0], x: x + 2, y: y + 2, width: cell - 4, height: cell - 4,
            fill: '#60a0ff', 'fill-opacity': 0.35, stroke: '#1040a0', 'stroke-width': 2, 'stroke-dasharray': '3 2'
          }, layer);
        }
      });
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
      view().p.l.forEach(function (name) {
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
        var held = view().p.h[side];
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
      labels();
      Array.prototype.forEach.call(document.querySelectorAll('#moves .move'), function (a) {
        var on = Number(a.getAttribute('data-ply')) === ply;
        a.classList.toggle('current', on);
        if (on) a.setAttribute('aria-current', 'step'); else a.removeAttribute('aria-current');
      });
      if (!fromHash && location.hash !== '#ply=' + ply) location.replace('#ply=' + ply);
    }
    function labels() {
      document.getElementById('side-line').textContent = view().p.s;
      document.getElementById('fen').textContent = view().p.f;
    }
    // Shows `state` ({ b, p }) instead of the game's ply, or the game again (null).
    function show(state, pieces) {
      if (pieces) Object.assign(data.pieces, pieces);
      shown = state;
      draw();
      hands();
      labels();
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
    // Stepping: through the game, or through what `hook` takes over (the analysis line).
    var hook = null;
    function nav(what) {
      if (hook && hook(what)) return;
      if (what === 'first') go(0);
      else if (what === 'prev') go(ply - 1);
      else if (what === 'next') go(ply + 1);
      else if (what === 'last') go(last);
    }
    ['first', 'prev', 'next', 'last'].forEach(function (id) {
      document.getElementById(id).addEventListener('click', function () { nav(id); });
    });
    document.getElementById('flip').addEventListener('click', mirror);
    document.getElementById('moves').addEventListener('click', function (e) {
      var a = e.target.closest('.move');
      if (!a) return;
      e.preventDefault();
      go(Number(a.getAttribute('data-ply')));
    });
    var start = atEnd ? null : fromHash();
    go(start === null ? last : start, start !== null);
    return {
      go: go, mirror: mirror, fromHash: fromHash, svg: svg, squares: squares, cell: cell, el: el,
      ply: function () { return ply; }, last: last, show: show, nav: nav,
      setHook: function (h) { hook = h; }
    };
  }

  // A served game page (`ravenpost serve`): the legal moves are in #play-data; a click on
  // a piece marks where it can go, a click on a mark asks which move when several
  // share it (a promotion) and then for one confirmation, and the move is sent to the
  // server, which plays it as `ravenpost move` does.
  function player(v, play) {
    var line = document.getElementById('play-line');
    var choice = document.getElementById('choice');
    var confirm = document.getElementById('confirm');
    var leaveForm = document.getElementById('leave-form');
    var layer = document.createElementNS(SVG, 'g');
    layer.setAttribute('class', 'targets');
    v.svg.appendChild(layer);
    var selected = null;
    var pending = null;
    // The analysis board: { from: the game's ply, line: SANs, at: the position shown,
    // positions: the server's, pieces: styles, lines: every line tried } while on.
    var an = null;
    function say(text, error) {
      line.textContent = text;
      line.classList.toggle('error', !!error);
    }
    function idle() {
      if (an) {
        say('Analysis: click a piece, then where it goes; ◀ ▶ step through the line. Nothing is played.');
      } else if (!play.yours) {
        say(play.plays ? 'Waiting for the opponent: this page shows the move when it arrives.' : 'You play no side here.');
      } else if (v.ply() !== v.last) {
        say('Go to the last position (») to move.');
      } else {
        say('Your move' + (play.me ? ', ' + play.me : '') + ': click a piece, then where it goes.');
      }
    }
    function clear() {
      selected = null;
      pending = null;
      while (layer.firstChild) layer.removeChild(layer.firstChild);
      choice.hidden = true;
      confirm.hidden = true;
      leaveForm.hidden = true;
      Array.prototype.forEach.call(document.querySelectorAll('.held.selected'), function (h) { h.classList.remove('selected'); });
    }
    function movesOf(key) {
      var list = an ? an.positions[an.at].moves : play.moves;
      return list.filter(function (m) { return m.from === key || (m.from === null && m.drop === key); });
    }
    function mark(name, cls, moves) {
      var r = v.squares[name];
      if (!r) return;
      var x = Number(r.getAttribute('x')), y = Number(r.getAttribute('y')), c = v.cell;
      var attrs = { 'class': 'target ' + cls, 'data-square': name, 'data-san': moves.map(function (m) { return m.san; }).join(' ') };
      if (cls === 'origin') {
        attrs.x = x + 1; attrs.y = y + 1; attrs.width = c - 2; attrs.height = c - 2;
        attrs.fill = 'none'; attrs.stroke = '#1060d0'; attrs['stroke-width'] = Math.max(Math.floor(c / 8), 3);
        v.el('rect', attrs, layer);
      } else if (cls === 'move' || cls === 'drop') {
        attrs.cx = x + c / 2; attrs.cy = y + c / 2; attrs.r = Math.floor(c / 6);
        attrs.fill = '#1060d0'; attrs['fill-opacity'] = 0.6;
        v.el('circle', attrs, layer);
      } else {
        // A capture (a ring round the piece taken), from afar (dashed), a promotion (gold).
        attrs.cx = x + c / 2; attrs.cy = y + c / 2; attrs.r = Math.floor(c * 9 / 20);
        attrs.fill = '#ffffff'; attrs['fill-opacity'] = 0.01;
        attrs.stroke = cls === 'promotion' ? '#c08000' : '#d02020';
        attrs['stroke-width'] = Math.max(Math.floor(c / 10), 3);
        if (cls === 'afar') attrs['stroke-dasharray'] = '4 3';
        v.el('circle', attrs, layer);
      }
    }
    function select(key, isDrop) {
      clear();
      var list = movesOf(key);
      if (!list.length) return false;
      selected = key;
      if (!isDrop) mark(key, 'origin', list);
      var by = {};
      list.forEach(function (m) { (by[m.to] = by[m.to] || []).push(m); });
      Object.keys(by).forEach(function (to) {
        var kinds = by[to].map(function (m) { return m.kind; });
        var k = kinds.indexOf('promotion') >= 0 ? 'promotion' : kinds.indexOf('afar') >= 0 ? 'afar' : kinds.indexOf('capture') >= 0 ? 'capture' : kinds[0];
        mark(to, k, by[to]);
      });
      say((isDrop ? 'Drop ' + key : 'The piece on ' + key) + ': ' + list.length + ' legal move' + (list.length === 1 ? '' : 's') + ', marked. Click one (or another piece).');
      return true;
    }
    function ask(m) {
      pending = m;
      choice.hidden = true;
      document.getElementById('confirm-text').textContent = 'Play ' + m.san + ' (' + m.long + ')?';
      document.getElementById('confirm-play').textContent = 'Play';
      confirm.hidden = false;
      document.getElementById('confirm-play').focus();
    }
    var ACTIONS = {
      'resign': ['Resign', 'Resign this game?'],
      'offer-draw': ['Offer a draw', 'Offer a draw? It goes with your next move; your opponent answers it then.'],
      'accept-draw': ['Accept the draw', 'Accept the draw offer? The game ends drawn.'],
      'decline-draw': ['Decline the draw', 'Decline the draw offer?'],
      'claim-draw': ['Claim a draw', 'Claim a draw (threefold repetition or 100 plies)?'],
      'claim-timeout': ['Claim the win on time', 'Claim the game on time? Your opponent is over time.'],
      'leave': ['Book leave…', null]
    };
    document.getElementById('clock-line').textContent = play.clock || '';
    var offerLine = document.getElementById('offer-line');
    offerLine.textContent = play.offer || '';
    offerLine.hidden = !play.offer;
    var actions = document.getElementById('actions');
    (play.actions || []).forEach(function (a) {
      var b = document.createElement('button');
      b.type = 'button';
      b.className = 'action';
      b.setAttribute('data-action', a);
      b.textContent = ACTIONS[a][0];
      b.addEventListener('click', function () {
        clear();
        if (a === 'leave') {
          var from = document.getElementById('leave-from');
          if (!from.value) from.value = play.today;
          leaveForm.hidden = false;
          from.focus();
          return;
        }
        pending = { action: a };
        document.getElementById('confirm-text').textContent = ACTIONS[a][1];
        document.getElementById('confirm-play').textContent = ACTIONS[a][0];
        confirm.hidden = false;
        document.getElementById('confirm-play').focus();
      });
      actions.appendChild(b);
    });
    function choose(list) {
      while (choice.firstChild) choice.removeChild(choice.firstChild);
      var p = document.createElement('p');
      p.textContent = 'Which move?';
      choice.appendChild(p);
      list.forEach(function (m) {
        var b = document.createElement('button');
        b.type = 'button';
        b.className = 'choose';
        b.setAttribute('data-san', m.san);
        b.textContent = m.san + ' (' + m.long + ')';
        b.addEventListener('click', function () { pick(m); });
        choice.appendChild(b);
      });
      choice.hidden = false;
    }
    function squareOf(target) {
      var t = target.closest('[data-square]');
      if (t) return t.getAttribute('data-square');
      if (target.classList && target.classList.contains('square')) return target.id;
      return null;
    }
    function pick(m) { if (an) tryMove(m); else ask(m); }
    function active() { return an || (play.yours && v.ply() === v.last); }
    v.svg.addEventListener('click', function (e) {
      if (!active()) return;
      var name = squareOf(e.target);
      if (!name) return;
      if (selected !== null) {
        var list = movesOf(selected).filter(function (m) { return m.to === name; });
        if (list.length === 1) return pick(list[0]);
        if (list.length > 1) return choose(list);
      }
      if (!select(name, false)) { clear(); idle(); }
    });
    Array.prototype.forEach.call(document.querySelectorAll('.hand-pieces'), function (h) {
      h.addEventListener('click', function (e) {
        var held = e.target.closest('.held');
        if (!held || !active()) return;
        if (select(held.getAttribute('data-piece'), true)) held.classList.add('selected');
      });
    });
    document.getElementById('confirm-cancel').addEventListener('click', function () { clear(); idle(); });
    document.getElementById('leave-cancel').addEventListener('click', function () { clear(); idle(); });
    document.getElementById('leave-book').addEventListener('click', function () {
      var from = document.getElementById('leave-from').value;
      var days = Number(document.getElementById('leave-days').value);
      say('Booking ' + days + ' day' + (days === 1 ? '' : 's') + ' of leave…');
      post('/leave', { from: from || null, days: days }, true, function (r) { say(r.said); refresh(); });
    });
    document.getElementById('confirm-play').addEventListener('click', function () {
      if (!pending) return;
      var m = pending;
      document.getElementById('confirm-play').disabled = true;
      var path = m.action ? '/action' : '/move';
      var body = m.action ? { action: m.action } : { san: m.san, ply: play.plies + 1 };
      say('Sending ' + (m.action ? ACTIONS[m.action][0].toLowerCase() : m.san) + '…');
      var button = document.getElementById('confirm-play');
      postJson('/game/' + encodeURIComponent(play.game) + path, body, play.csrf, function () {
        button.disabled = false;
        refresh();
      }, function (message, refused) {
        button.disabled = false;
        if (refused) clear();
        say(message, true);
      });
    });
    // The analysis board.
    var panel = document.getElementById('analysis');
    var movedOn = false;
    function post(path, body, csrf, done) {
      postJson('/game/' + encodeURIComponent(play.game) + path, body, csrf ? play.csrf : null, done,
        function (message) { say(message, true); });
    }
    function boardOf(p) {
      var b = {};
      p.d.forEach(function (c) { if (c[1]) b[c[0]] = c[1]; });
      return b;
    }
    function prefix(a, b) {
      return a.length <= b.length && a.every(function (x, i) { return x === b[i]; });
    }
    // The lines tried as one tree in movetext: each variation right after the move it
    // replaces, as `ravenpost conditional add` reads it.
    function movetext(lines) {
      var root = { kids: [] };
      lines.forEach(function (l) {
        var n = root;
        l.forEach(function (san) {
          var k = n.kids.filter(function (c) { return c.san === san; })[0];
          if (!k) { k = { san: san, kids: [] }; n.kids.push(k); }
          n = k;
        });
      });
      function write(n) {
        if (!n.kids.length) return '';
        var out = [n.kids[0].san];
        n.kids.slice(1).forEach(function (alt) {
          var rest = write(alt);
          out.push('(' + alt.san + (rest ? ' ' + rest : '') + ')');
        });
        var rest = write(n.kids[0]);
        if (rest) out.push(rest);
        return out.join(' ');
      }
      return write(root);
    }
    function showLine() {
      var pos = an.positions[an.at];
      v.show({ b: boardOf(pos.p), p: pos.p }, an.pieces);
      var text = document.getElementById('analysis-line');
      while (text.firstChild) text.removeChild(text.firstChild);
      if (!an.line.length) text.textContent = 'from ply ' + an.from + ': click a piece, then where it goes.';
      an.line.forEach(function (san, i) {
        var m = document.createElement('a');
        m.href = '#';
        m.className = 'amove' + (i + 1 === an.at ? ' current' : '');
        m.setAttribute('data-at', String(i + 1));
        m.textContent = san;
        text.appendChild(m);
        text.appendChild(document.createTextNode(' '));
      });
      var list = document.getElementById('analysis-lines');
      while (list.firstChild) list.removeChild(list.firstChild);
      an.lines.forEach(function (l) {
        var li = document.createElement('li');
        li.textContent = l.join(' ');
        list.appendChild(li);
      });
      document.getElementById('analysis-back').disabled = an.at === 0;
      document.getElementById('analysis-forward').disabled = an.at === an.line.length;
      var save = document.getElementById('analysis-save');
      save.hidden = !(play.prepare && an.from === play.plies);
      save.disabled = !an.lines.length;
      idle();
    }
    function tryMove(m) {
      var line = an.line.slice(0, an.at).concat([m.san]);
      post('/analyse', { from: an.from, line: line }, false, function (r) {
        clear();
        an.line = r.sans;
        an.positions = r.positions;
        an.at = r.sans.length;
        Object.assign(an.pieces, r.pieces);
        if (!an.lines.some(function (l) { return prefix(an.line, l); })) {
          an.lines = an.lines.filter(function (l) { return !prefix(l, an.line); });
          an.lines.push(an.line.slice());
        }
        showLine();
      });
    }
    function step(what) {
      if (!an) return false;
      if (what === 'first') an.at = 0;
      else if (what === 'prev') an.at = Math.max(0, an.at - 1);
      else if (what === 'next') an.at = Math.min(an.line.length, an.at + 1);
      else if (what === 'last') an.at = an.line.length;
      else return false;
      clear();
      showLine();
      return true;
    }
    v.setHook(step);
    function leave() {
      an = null;
      clear();
      panel.hidden = true;
      document.getElementById('analyse').hidden = false;
      v.show(null);
      if (movedOn) refresh(); else idle();
    }
    document.getElementById('analyse').addEventListener('click', function () {
      var from = v.ply();
      clear();
      post('/analyse', { from: from, line: [] }, false, function (r) {
        an = { from: from, line: [], at: 0, positions: r.positions, pieces: r.pieces, lines: [] };
        panel.hidden = false;
        document.getElementById('analyse').hidden = true;
        showLine();
      });
    });
    document.getElementById('analysis-back').addEventListener('click', function () { step('prev'); });
    document.getElementById('analysis-forward').addEventListener('click', function () { step('next'); });
    document.getElementById('analysis-leave').addEventListener('click', leave);
    document.getElementById('analysis-line').addEventListener('click', function (e) {
      var a = e.target.closest('.amove');
      if (!a || !an) return;
      e.preventDefault();
      an.at = Number(a.getAttribute('data-at'));
      clear();
      showLine();
    });
    document.getElementById('analysis-save').addEventListener('click', function () {
      if (!an || !an.lines.length) return;
      // A line ends with a reply of yours: an expected move with none is left out.
      var lines = an.lines.map(function (l) { return l.slice(0, l.length - l.length % 2); })
        .filter(function (l) { return l.length; });
      if (!lines.length) {
        say('Each line needs your reply to the move you expect: play both, then save.', true);
        return;
      }
      post('/conditional', { movetext: movetext(lines) }, true, function (r) {
        say('Saved as your conditional moves (' + r.lines.length + ' line' + (r.lines.length === 1 ? '' : 's') +
          '): ' + r.movetext + '. They stay in this archive and are played when the expected move arrives.');
      });
    });
    idle();
    return {
      idle: idle, clear: clear,
      analysing: function () { return !!an; },
      movedOn: function () { movedOn = true; }
    };
  }

  // A served page's change: POST `body` as JSON to `url` with the page's CSRF token;
  // `done(answer)` when accepted, `failed(message, refused)` when refused (true) or
  // unanswered (false).
  function postJson(url, body, csrf, done, failed) {
    var headers = { 'Content-Type': 'application/json' };
    if (csrf) headers['X-Ravenpost-Csrf'] = csrf;
    fetch(url, { method: 'POST', credentials: 'same-origin', headers: headers, body: JSON.stringify(body) })
      .then(function (r) {
        return r.json().then(function (j) { return { ok: r.ok, body: j }; });
      }).then(function (a) {
        if (a.ok) done(a.body); else failed(a.body.error || 'refused', true);
      }).catch(function (err) { failed('The server did not answer: ' + err, false); });
  }

  // A secret army choice (`ravenpost serve`, Fantasy Grand Chess): choose an army, then
  // reveal it once both players have chosen. The page reloads when the other player acts.
  function armyPage(data) {
    var line = document.getElementById('army-line');
    var confirm = document.getElementById('confirm');
    var pending = null;
    function say(t, e) { line.textContent = t; line.classList.toggle('error', !!e); }
    function send(path, body) {
      say('Sending…');
      postJson('/army/' + encodeURIComponent(data.game) + path, body, data.csrf, function (answer) {
        if (answer.started) location.href = '/game/' + encodeURIComponent(data.game);
        else location.reload();
      }, function (message, refused) {
        if (refused) confirm.hidden = true;
        say(message, true);
      });
    }
    Array.prototype.forEach.call(document.querySelectorAll('.choose-army'), function (b) {
      b.addEventListener('click', function () {
        pending = b.getAttribute('data-army');
        document.getElementById('confirm-text').textContent = b.textContent +
          '? The choice is final; it stays secret until both players have chosen.';
        confirm.hidden = false;
        document.getElementById('confirm-play').focus();
      });
    });
    document.getElementById('confirm-cancel').addEventListener('click', function () { confirm.hidden = true; });
    document.getElementById('confirm-play').addEventListener('click', function () {
      if (pending) send('/commit', { army: pending });
    });
    var reveal = document.getElementById('army-reveal');
    if (reveal) reveal.addEventListener('click', function () { send('/reveal', {}); });
    var state = document.getElementById('army-state').textContent;
    setInterval(function () {
      fetch(location.pathname, { credentials: 'same-origin' }).then(function (r) {
        if (r.redirected) { location.href = r.url; return null; }
        return r.ok ? r.text() : null;
      }).then(function (html) {
        if (!html) return;
        var doc = new DOMParser().parseFromString(html, 'text/html');
        var now = doc.getElementById('army-state');
        if (now && now.textContent !== state) location.reload();
      }).catch(function () {});
    }, 3000);
  }

  var current = null;
  function start(atEnd) {
    var army = document.getElementById('army-data');
    if (army) { armyPage(JSON.parse(army.textContent)); return; }
    var table = document.querySelector('table.sortable');
    if (table) sortable(table);
    var data = document.getElementById('game-data');
    if (!data) return;
    var v = viewer(JSON.parse(data.textContent), atEnd);
    var playData = document.getElementById('play-data');
    var p = null;
    if (playData) {
      var play = JSON.parse(playData.textContent);
      v.play = play;
      p = player(v, play);
      v.player = p;
      var go = v.go;
      v.go = function (n, h) { go(n, h); p.clear(); p.idle(); };
      ['first', 'prev', 'next', 'last', 'flip'].forEach(function (id) {
        document.getElementById(id).addEventListener('click', function () { p.clear(); p.idle(); });
      });
    }
    current = v;
  }
  // A served page redraws itself from the server when the game has moved on.
  function refresh() {
    fetch(location.pathname, { credentials: 'same-origin' }).then(function (r) { return r.text(); }).then(function (html) {
      var doc = new DOMParser().parseFromString(html, 'text/html');
      document.body.innerHTML = doc.body.innerHTML;
      document.title = doc.title;
      start(true);
    });
  }
  document.addEventListener('keydown', function (e) {
    if (!current || e.altKey || e.ctrlKey || e.metaKey) return;
    var t = e.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'BUTTON')) return;
    if (e.key === 'ArrowRight') current.nav('next');
    else if (e.key === 'ArrowLeft') current.nav('prev');
    else if (e.key === 'Home') current.nav('first');
    else if (e.key === 'End') current.nav('last');
    else if (e.key === 'f') current.mirror();
    else return;
    e.preventDefault();
  });
  window.addEventListener('hashchange', function () {
    if (!current) return;
    var n = current.fromHash();
    if (n !== null) current.go(n, true);
  });
  start(false);
  setInterval(function () {
    if (!current || !current.play) return;
    var play = current.play;
    fetch('/game/' + encodeURIComponent(play.game) + '/ply', { credentials: 'same-origin' })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (j) {
        if (!j || j.state === play.state) return;
        // An analysis in progress is kept; leaving it shows the game as it is now.
        if (current.player && current.player.analysing()) current.player.movedOn(); else refresh();
      })
      .catch(function () {});
  }, 2000);
})();
