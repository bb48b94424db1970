/// The review page's style and script, inlined into the page: nothing is fetched, so the page
/// works from `file://` with no network.
enum ReviewAssets {
  static let css = """
    :root { color-scheme: light; --hidden: #d7263d; --excluded: #f4b400; --added: #1e88e5; }
    * { box-sizing: border-box; }
    body { margin: 0; font: 14px/1.4 system-ui, sans-serif; background: #f3f3f1; color: #1d1d1b;
      display: grid; grid-template-columns: minmax(0, 1fr) 24rem; grid-template-areas: "top top" "main side"; }
    header.top { grid-area: top; padding: 12px 20px; background: #fff; border-bottom: 1px solid #ccc; }
    h1 { font-size: 20px; margin: 0 0 8px; }
    .notice { margin: 0 0 8px; padding: 8px 12px; border-radius: 4px; background: #e8f0fe; }
    .notice.unredacted { background: #fde7e9; border: 2px solid var(--hidden); }
    .controls { display: flex; flex-wrap: wrap; gap: 16px; align-items: center; }
    .help { color: #555; margin: 6px 0; }
    main { grid-area: main; padding: 12px 20px; min-width: 0; }
    aside#corrections { grid-area: side; position: sticky; top: 0; align-self: start; max-height: 100vh;
      overflow: auto; padding: 12px 16px; background: #fff; border-left: 1px solid #ccc; }
    aside h2 { font-size: 16px; margin: 0 0 8px; }
    aside pre { white-space: pre-wrap; word-break: break-all; background: #f6f6f6; padding: 6px;
      font-size: 12px; }
    section.photo { background: #fff; border: 1px solid #ccc; border-radius: 6px; margin: 0 0 16px;
      padding: 10px 12px; }
    section.photo[hidden] { display: none; }
    /* Photos off screen are laid out only when scrolled to: 500 photos open in a fraction of a second. */
    section.photo { content-visibility: auto; contain-intrinsic-size: auto 760px; }
    section.photo.corrected { border-color: var(--added); box-shadow: 0 0 0 2px var(--added) inset; }
    section.photo > header { display: flex; flex-wrap: wrap; gap: 6px; align-items: baseline; }
    section.photo h2 { font-size: 15px; margin: 0 8px 0 0; word-break: break-all; }
    .badge { font-size: 12px; padding: 1px 6px; border-radius: 8px; background: #e6e6e6; }
    .badge.status-damaged, .badge.status-stale, .badge.status-modified { background: var(--hidden); color: #fff; }
    .badge.flag-unedited, .badge.flag-no-faces { background: #ffe0b2; }
    .badge.flag-small-faces, .badge.flag-many-faces, .badge.flag-strengthened { background: #fff3c4; }
    .badge.flag-weak-hiding { background: #ffd0d0; }
    .corrected-badge { display: none; background: var(--added); color: #fff; }
    section.corrected .corrected-badge { display: inline; }
    .problem { color: var(--hidden); margin: 4px 0; }
    .summary { margin: 4px 0 8px; }
    .views { display: flex; gap: 8px; align-items: flex-start; }
    figure.view { flex: 1 1 0; min-width: 0; margin: 0; }
    body.layout-render figure.view:not([data-kind="render"]) { display: none; }
    body.layout-original figure.view[data-kind="render"] { display: none; }
    body.layout-original section:not(:has(figure.view:not([data-kind="render"]))) figure.view { display: block; }
    .stage { position: relative; display: inline-block; max-width: 100%; line-height: 0; user-select: none;
      touch-action: none; background: #ddd; vertical-align: top; }
    .stage img { display: block; max-width: 100%; max-height: 70vh; width: auto; height: auto; }
    figure.view[data-transform] .stage { cursor: crosshair; }
    figcaption { display: block; font-size: 12px; color: #555; margin-top: 2px; }
    .box { position: absolute; border: 2px solid var(--hidden); cursor: pointer; line-height: 1; }
    .box span { position: absolute; left: -2px; top: -16px; font-size: 11px; padding: 1px 3px;
      color: #fff; background: var(--hidden); white-space: nowrap; }
    .box[data-look="excluded"] { border-style: dashed; border-color: var(--excluded); }
    .box[data-look="excluded"] span { background: var(--excluded); color: #000; }
    .box[data-look="added"] { border-color: var(--added); }
    .box[data-look="added"] span { background: var(--added); }
    .band { position: absolute; border: 2px dashed var(--added); background: rgba(30, 136, 229, .15);
      pointer-events: none; }
    ol.faces { display: flex; flex-wrap: wrap; gap: 4px 12px; list-style: none; padding: 0; margin: 8px 0 0; }
    ol.faces li { cursor: pointer; }
    ol.faces button { font: inherit; font-weight: 600; border: 2px solid var(--hidden); background: #fff;
      border-radius: 4px; cursor: pointer; }
    ol.faces li[data-state="excluded"] button { border-style: dashed; border-color: var(--excluded); }
    ol.faces li[data-state="added"] button { border-color: var(--added); }
    ol.faces .size { color: #777; }
    .steps h3 { font-size: 13px; margin: 8px 0 2px; }
    .steps pre { margin: 0; font-size: 12px; white-space: pre-wrap; }
    """

  static let script = #"""
    (function () {
      'use strict';
      const config = JSON.parse(document.getElementById('review-config').textContent);
      const main = document.getElementById('photos');
      const sections = Array.from(main.querySelectorAll('section[data-photo]'));
      const words = { hidden: 'hidden', excluded: 'excluded (left visible)', added: 'added, hidden' };
      const faceItems = (sec) => Array.from(sec.querySelectorAll('li[data-face]'));
      const snapshot = (sec) =>
        faceItems(sec).map((li) => li.dataset.face + ':' + li.dataset.state + ':' + li.dataset.box).join(',');
      const initial = new Map(sections.map((sec) => [sec, snapshot(sec)]));
      const boxOf = (li) => li.dataset.box.split(' ').map(Number);

      function matrix(view) {
        const t = view.dataset.transform;
        return t ? t.split(' ').map(Number) : null;
      }
      function mapBox(m, b) {
        const pts = [[b[0], b[1]], [b[0] + b[2], b[1] + b[3]]].map(([x, y]) =>
          [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]]);
        const x0 = Math.min(pts[0][0], pts[1][0]), x1 = Math.max(pts[0][0], pts[1][0]);
        const y0 = Math.min(pts[0][1], pts[1][1]), y1 = Math.max(pts[0][1], pts[1][1]);
        return [x0, y0, x1 - x0, y1 - y0];
      }
      function inverse(m) {
        const [a, b, c, d, e, f] = m;
        const det = a * d - b * c;
        return [d / det, -b / det, -c / det, a / det, (c * f - d * e) / det, (b * e - a * f) / det];
      }
      const pct = (f) => (Math.round(f * 100000) / 1000) + '%';
      const round6 = (f) => Math.round(f * 1e6) / 1e6;

      function setState(sec, li, state) {
        li.dataset.state = state;
        li.querySelector('.what').textContent = words[state];
        sec.querySelectorAll('.box[data-box="' + li.dataset.face + '"]').forEach((b) => { b.dataset.look = state; });
      }
      function toggle(sec, k) {
        if (sec.dataset.correctable !== 'true') return;
        const li = sec.querySelector('li[data-face="' + k + '"]');
        if (!li) return;
        const next = li.dataset.state !== 'excluded' ? 'excluded' : (li.dataset.found === 'true' ? 'hidden' : 'added');
        setState(sec, li, next);
        update();
      }
      function drawBox(sec, view, k, box, look, found) {
        const m = matrix(view);
        if (!m) return;
        const [x, y, w, h] = mapBox(m, box);
        const div = document.createElement('div');
        div.className = 'box';
        div.dataset.box = String(k);
        div.dataset.look = look;
        div.style.cssText = 'left:' + pct(x) + ';top:' + pct(y) + ';width:' + pct(w) + ';height:' + pct(h);
        const label = document.createElement('span');
        label.textContent = k + (found ? '' : '+');
        div.appendChild(label);
        view.querySelector('.stage').appendChild(div);
      }
      function addFace(sec, box) {
        const list = sec.querySelector('ol.faces');
        const k = faceItems(sec).reduce((n, li) => Math.max(n, Number(li.dataset.face) + 1), 0);
        const li = document.createElement('li');
        li.dataset.face = String(k);
        li.dataset.state = 'added';
        li.dataset.found = 'false';
        li.dataset.added = 'page';
        li.dataset.box = box.join(' ');
        li.innerHTML = '<button type="button"></button> <span class="what"></span>';
        li.querySelector('button').textContent = '#' + k + '+';
        li.querySelector('.what').textContent = words.added + ' (drawn here)';
        list.appendChild(li);
        sec.querySelectorAll('figure.view').forEach((view) => drawBox(sec, view, k, box, 'added', false));
        update();
      }

      // What the page would change for one photo, or null.
      function correction(sec) {
        if (sec.dataset.correctable !== 'true' || snapshot(sec) === initial.get(sec)) return null;
        const items = faceItems(sec).sort((a, b) => Number(a.dataset.face) - Number(b.dataset.face));
        const found = items.filter((li) => li.dataset.found === 'true');
        const exclude = [], add = [];
        found.forEach((li) => { if (li.dataset.state === 'excluded') exclude.push(Number(li.dataset.face)); });
        // Added faces are renumbered after the found ones; one switched off is dropped from add=.
        items.filter((li) => li.dataset.found !== 'true' && li.dataset.state !== 'excluded')
          .forEach((li) => add.push(boxOf(li)));
        return { photo: sec.dataset.photo, step: Number(sec.dataset.step), found: found.map(boxOf), exclude, add };
      }
      function commandLine(sec, c) {
        const boxes = c.add.map((b) => b.map((f) => (Math.round(f * 1e8) / 1e6) + '%').join(':')).join('/');
        return 'photoedit edit ' + sec.dataset.commandPath + ' --step ' + c.step +
          ' --set exclude=' + c.exclude.join('/') + ',add=' + boxes;
      }
      let corrections = [];
      function update() {
        corrections = [];
        const lines = [];
        sections.forEach((sec) => {
          const c = correction(sec);
          sec.classList.toggle('corrected', c !== null);
          if (c) { corrections.push(c); lines.push(commandLine(sec, c)); }
        });
        document.getElementById('correction-count').textContent = String(corrections.length);
        document.getElementById('commands').textContent = lines.join('\n');
        document.getElementById('export').disabled = corrections.length === 0;
        document.getElementById('reset').disabled = corrections.length === 0;
        if (document.getElementById('filter').value === 'corrected') arrange();
      }
      function exportCorrections() {
        // One photo a line, so the file reads (and diffs) well.
        const text = '{\n "formatIdentifier": ' + JSON.stringify(config.formatIdentifier) +
          ',\n "formatVersion": ' + JSON.stringify(config.formatVersion) +
          ',\n "folder": ' + JSON.stringify(config.folder) +
          ',\n "photos": [\n' + corrections.map((c) => '  ' + JSON.stringify(c)).join(',\n') + '\n ]\n}\n';
        const blob = new Blob([text], { type: 'application/json' });
        const a = document.createElement('a');
        a.href = URL.createObjectURL(blob);
        a.download = 'corrections.json';
        document.body.appendChild(a);
        a.click();
        setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 60000);
      }

      // Drawing: drag on a preview that maps onto the step's image.
      sections.forEach((sec) => {
        sec.addEventListener('click', (e) => {
          const box = e.target.closest('.box');
          if (box) { toggle(sec, box.dataset.box); return; }
          const li = e.target.closest('li[data-face]');
          if (li) toggle(sec, li.dataset.face);
        });
        sec.querySelectorAll('figure.view[data-transform]').forEach((view) => {
          const stage = view.querySelector('.stage');
          let start = null, band = null;
          const at = (e) => {
            const r = stage.getBoundingClientRect();
            return [Math.min(1, Math.max(0, (e.clientX - r.left) / r.width)),
                    Math.min(1, Math.max(0, (e.clientY - r.top) / r.height))];
          };
          stage.addEventListener('pointerdown', (e) => {
            if (e.button !== 0 || e.target.closest('.box')) return;
            e.preventDefault();
            stage.setPointerCapture(e.pointerId);
            start = at(e);
            band = document.createElement('div');
            band.className = 'band';
            stage.appendChild(band);
          });
          stage.addEventListener('pointermove', (e) => {
            if (!start) return;
            const p = at(e);
            band.style.cssText = 'left:' + pct(Math.min(start[0], p[0])) + ';top:' + pct(Math.min(start[1], p[1])) +
              ';width:' + pct(Math.abs(p[0] - start[0])) + ';height:' + pct(Math.abs(p[1] - start[1]));
          });
          const finish = (e) => {
            if (!start) return;
            const p = at(e);
            const rect = [Math.min(start[0], p[0]), Math.min(start[1], p[1]),
                          Math.abs(p[0] - start[0]), Math.abs(p[1] - start[1])];
            start = null;
            band.remove();
            band = null;
            if (rect[2] < 0.005 || rect[3] < 0.005) return;
            const box = mapBox(inverse(matrix(view)), rect).map(round6);
            box[2] = Math.min(box[2], round6(1 - box[0]));
            box[3] = Math.min(box[3], round6(1 - box[1]));
            if (box[2] > 0 && box[3] > 0) addFace(sec, box);
          };
          stage.addEventListener('pointerup', finish);
          stage.addEventListener('pointercancel', () => { if (band) band.remove(); start = null; band = null; });
        });
      });

      // Sorting and filtering.
      const number = (sec, key, missing) => (sec.dataset[key] === undefined ? missing : Number(sec.dataset[key]));
      const byName = (a, b) => (a.dataset.photo < b.dataset.photo ? -1 : a.dataset.photo > b.dataset.photo ? 1 : 0);
      const orders = {
        look: (a, b) => number(a, 'urgency', 9) - number(b, 'urgency', 9) || byName(a, b),
        name: byName,
        faces: (a, b) => number(b, 'count', 0) - number(a, 'count', 0) || byName(a, b),
        smallest: (a, b) => number(a, 'smallest', Infinity) - number(b, 'smallest', Infinity) || byName(a, b),
      };
      const flagsOf = (sec) => sec.dataset.flags.split(' ');
      const filters = {
        all: () => true,
        look: (sec) => sec.dataset.flags !== '',
        corrected: (sec) => sec.classList.contains('corrected'),
      };
      function arrange() {
        const order = orders[document.getElementById('sort').value] || orders.look;
        const f = document.getElementById('filter').value;
        const keep = filters[f] || ((sec) => flagsOf(sec).includes(f));
        const sorted = sections.slice().sort(order);
        let shown = 0;
        sorted.forEach((sec) => {
          const hide = !keep(sec);
          if (sec.hidden !== hide) sec.hidden = hide;
          if (!hide) shown += 1;
        });
        // Sections are moved only when the order changed (the page opens in the first order).
        const current = Array.from(main.children);
        if (sorted.some((sec, i) => current[i] !== sec)) {
          const fragment = document.createDocumentFragment();
          sorted.forEach((sec) => fragment.appendChild(sec));
          main.appendChild(fragment);
        }
        document.getElementById('shown').textContent = shown + ' of ' + sections.length + ' photos shown';
      }
      document.getElementById('sort').addEventListener('change', arrange);
      document.getElementById('filter').addEventListener('change', arrange);
      document.getElementById('layout').addEventListener('change', (e) => {
        document.body.className = 'layout-' + e.target.value;
      });
      document.addEventListener('keydown', (e) => {
        if (e.key !== 't' || e.target.closest('input, select, textarea')) return;
        const layout = document.getElementById('layout');
        layout.value = layout.value === 'original' ? 'render' : 'original';
        document.body.className = 'layout-' + layout.value;
      });
      document.getElementById('export').addEventListener('click', exportCorrections);
      document.getElementById('reset').addEventListener('click', () => { location.reload(); });
      window.photoeditReview = { corrections: () => corrections, toggle, addFace };
      arrange();
      update();
      document.documentElement.dataset.ready = 'true';
    })();
    """#
}
