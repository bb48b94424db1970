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
    .badge.recorded.changed { background: #ffd0d0; }
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
    .seen { position: absolute; border: 2px dotted #e0e; pointer-events: none; }
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
    /* Review states: approved (green), flagged (orange); the photo and face the keys act on. */
    section.photo[data-review="approved"] { border-left: 6px solid #2e7d32; }
    section.photo[data-review="flagged"] { border-left: 6px solid #ef6c00; }
    .review-state { font-size: 12px; padding: 1px 6px; border-radius: 8px; background: #e6e6e6; }
    section[data-review="approved"] .review-state { background: #2e7d32; color: #fff; }
    section[data-review="flagged"] .review-state { background: #ef6c00; color: #fff; }
    section.photo > header button { font: inherit; font-size: 12px; padding: 0 6px; }
    section.photo.current { outline: 3px solid #1d1d1b; outline-offset: 1px; }
    .box.current { outline: 2px solid #fff; box-shadow: 0 0 0 4px #1d1d1b; z-index: 1; }
    ol.faces li.current button { outline: 3px solid #1d1d1b; }
    /* The grid: many photos, several per row, each its render (or original) with its boxes; a
       photo opened (Enter, "Open") spans the row with both previews and its faces. */
    body.view-grid main#photos { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr));
      gap: 8px; align-content: start; }
    body.view-grid section.photo:not(.open) { margin: 0; padding: 4px 6px; contain-intrinsic-size: auto 212px; }
    body.view-grid section.photo.open { grid-column: 1 / -1; }
    body:not(.view-grid) .open-photo { display: none; }
    body.view-grid section.photo:not(.open) > header { overflow: hidden; gap: 2px 4px; height: 42px;
      align-items: center; }
    body.view-grid section.photo:not(.open) h2 { font-size: 12px; white-space: nowrap; overflow: hidden;
      text-overflow: ellipsis; min-width: 0; flex: 1 0 100%; margin: 0; word-break: normal; }
    body.view-grid section.photo:not(.open) :is(.badge, .summary, .problem, ol.faces, .steps, figcaption,
      header button:not(.open-photo)) { display: none; }
    body.view-grid section.photo:not(.open) .review-state { display: inline; }
    body.view-grid.layout-both section.photo:not(.open) figure.view + figure.view { display: none; }
    body.view-grid section.photo:not(.open) .views { height: 150px; justify-content: center; }
    body.view-grid section.photo:not(.open) figure.view { flex: 0 1 auto; }
    body.view-grid section.photo:not(.open) .stage img { max-height: 150px; }
    body.view-grid section.photo:not(.open) .box span { display: none; }
    body.view-grid section.photo:not(.open) .box { border-width: 1px; }
    #keys { position: fixed; inset: 10vh 20vw auto; z-index: 10; background: #fff; border: 2px solid #1d1d1b;
      border-radius: 6px; padding: 12px 20px; box-shadow: 0 8px 30px rgba(0, 0, 0, .3); }
    #keys[hidden] { display: none; }
    #keys table { border-collapse: collapse; }
    #keys td { padding: 2px 12px 2px 0; vertical-align: top; }
    kbd { font: 12px ui-monospace, monospace; border: 1px solid #999; border-radius: 3px; padding: 0 4px;
      background: #f6f6f6; }
    #saved { font-size: 12px; color: #555; }
    /* The loupe ('z'): the preview under the pointer, or the current face, at 4 times its shown size. */
    #loupe { position: fixed; right: 16px; bottom: 16px; width: 384px; height: 384px; overflow: hidden; z-index: 9;
      border: 3px solid #1d1d1b; background: #333; cursor: crosshair; touch-action: none; user-select: none; }
    #loupe[hidden] { display: none; }
    #loupe img { position: absolute; max-width: none; max-height: none; pointer-events: none; }
    #loupe .loupe-caption { position: absolute; left: 0; top: 0; z-index: 2; font-size: 12px; line-height: 1.3;
      padding: 1px 6px; background: rgba(255, 255, 255, .85); }
    """

  static let script = #"""
    (function () {
      'use strict';
      const config = JSON.parse(document.getElementById('review-config').textContent);
      const main = document.getElementById('photos');
      const sections = Array.from(main.querySelectorAll('section[data-photo]'));
      const byName = new Map(sections.map((sec) => [sec.dataset.photo, sec]));
      const words = { hidden: 'hidden', excluded: 'excluded (left visible)', added: 'added, hidden' };
      const reviewWords = { unreviewed: 'unreviewed', approved: 'approved', flagged: 'flagged' };
      const faceItems = (sec) => Array.from(sec.querySelectorAll('li[data-face]'))
        .sort((a, b) => Number(a.dataset.face) - Number(b.dataset.face));
      const snapshot = (sec) =>
        faceItems(sec).map((li) => li.dataset.face + ':' + li.dataset.state + ':' + li.dataset.box).join(',');
      const initial = new Map(sections.map((sec) => [sec, snapshot(sec)]));
      // The review state each photo starts in: the one its sidecar records, unless it changed since.
      const initialReview = new Map(sections.map((sec) => [sec, sec.dataset.review]));
      // The faces the page was written with (found ones and the step's own add= boxes), per photo.
      const written = new Map(sections.map((sec) => [sec, faceItems(sec).length]));
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

      // Every change goes through these, so it can be undone ('u') and is saved in this browser.
      const undoStack = [];
      let restoring = false;
      function changed(action) {
        if (restoring) return;
        undoStack.push(action);
        update();
      }

      function setState(sec, li, state) {
        li.dataset.state = state;
        li.querySelector('.what').textContent = words[state] + (li.dataset.added === 'page' ? ' (drawn here)' : '');
        sec.querySelectorAll('.box[data-box="' + li.dataset.face + '"]').forEach((b) => { b.dataset.look = state; });
      }
      function toggle(sec, k) {
        if (sec.dataset.correctable !== 'true') return;
        const li = sec.querySelector('li[data-face="' + k + '"]');
        if (!li) return;
        const before = li.dataset.state;
        const next = before !== 'excluded' ? 'excluded' : (li.dataset.found === 'true' ? 'hidden' : 'added');
        setState(sec, li, next);
        changed({ undo: () => setState(sec, li, before) });
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
        if (!list || sec.dataset.correctable !== 'true') return null;
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
        changed({ undo: () => {
          li.remove();
          sec.querySelectorAll('.box[data-box="' + k + '"]').forEach((b) => b.remove());
          if (faceIndex.get(sec) >= faceItems(sec).length) faceIndex.set(sec, -1);
        } });
        return li;
      }
      function setReview(sec, state) {
        const before = sec.dataset.review;
        if (before === state) return;
        const show = (s) => {
          sec.dataset.review = s;
          sec.querySelector('.review-state').textContent = reviewWords[s];
        };
        show(state);
        changed({ undo: () => show(before) });
      }

      // What the page would change for one photo, or null.
      function correction(sec) {
        if (sec.dataset.correctable !== 'true' || snapshot(sec) === initial.get(sec)) return null;
        const items = faceItems(sec);
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

      // Saving in this browser's local storage, under the page's identity: a hash of the folder
      // and of every photo's faces as the page was written, so that a page made again after the
      // corrections were applied starts afresh, and two reviews never share their work.
      function hash(text) {
        let h1 = 0x811c9dc5, h2 = 0x01000193;
        for (let i = 0; i < text.length; i++) {
          const c = text.charCodeAt(i);
          h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
          h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0;
        }
        return h1.toString(16).padStart(8, '0') + h2.toString(16).padStart(8, '0');
      }
      const identity = hash(JSON.stringify([config.folder, sections.map((sec) =>
        [sec.dataset.photo, sec.dataset.step || '', initial.get(sec), sec.dataset.render || '', initialReview.get(sec)])]));
      const storageKey = 'photoedit-review:' + identity;
      document.documentElement.dataset.identity = identity;
      // The work on the page: per photo that differs from how it was written, each written
      // face's state, the faces drawn here, and the review state.
      function work() {
        const photos = {};
        sections.forEach((sec) => {
          const items = faceItems(sec);
          const s = items.slice(0, written.get(sec)).map((li) => li.dataset.state);
          const d = items.slice(written.get(sec)).map((li) => boxOf(li).concat([li.dataset.state]));
          const r = sec.dataset.review;
          if (snapshot(sec) !== initial.get(sec) || r !== initialReview.get(sec)) photos[sec.dataset.photo] = { s, d, r };
        });
        return photos;
      }
      let saved = null, exported = JSON.stringify({}), storageProblem = null;
      function save(text) {
        try {
          localStorage.setItem(storageKey, JSON.stringify({ version: 1, photos: JSON.parse(text), exported }));
          storageProblem = null;
        } catch (error) {
          storageProblem = String(error && error.name || error);
        }
      }
      const isBox = (b) => Array.isArray(b) && b.length === 4 && b.every((f) => typeof f === 'number' && isFinite(f)) &&
        b[0] >= 0 && b[1] >= 0 && b[2] > 0 && b[3] > 0 && b[0] + b[2] <= 1 + 1e-9 && b[1] + b[3] <= 1 + 1e-9;
      // The saved work, checked as strictly as a file (another local page could have written it).
      function restore() {
        let stored;
        try { stored = JSON.parse(localStorage.getItem(storageKey) || 'null'); } catch (error) { return 0; }
        if (!stored || stored.version !== 1 || typeof stored.photos !== 'object' || !stored.photos) return 0;
        let restored = 0;
        restoring = true;
        for (const name of Object.keys(stored.photos)) {
          const sec = byName.get(name), p = stored.photos[name];
          if (!sec || !p || typeof p !== 'object') continue;
          const items = faceItems(sec).slice(0, written.get(sec));
          const s = Array.isArray(p.s) ? p.s : [], d = Array.isArray(p.d) ? p.d : [];
          const statesOK = s.length === items.length && s.every((st, i) =>
            st === 'excluded' || st === (items[i].dataset.found === 'true' ? 'hidden' : 'added'));
          const drawnOK = d.length <= 1000 && d.every((b) => Array.isArray(b) && b.length === 5 &&
            isBox(b.slice(0, 4)) && (b[4] === 'added' || b[4] === 'excluded'));
          const reviewOK = Object.prototype.hasOwnProperty.call(reviewWords, p.r);
          if (!statesOK || !drawnOK || !reviewOK) continue;
          if (sec.dataset.correctable === 'true') {
            items.forEach((li, i) => { if (li.dataset.state !== s[i]) setState(sec, li, s[i]); });
            d.forEach((b) => {
              const li = addFace(sec, b.slice(0, 4).map(round6));
              if (li && b[4] === 'excluded') setState(sec, li, 'excluded');
            });
          }
          setReview(sec, p.r);
          restored += 1;
        }
        if (typeof stored.exported === 'string') exported = stored.exported;
        restoring = false;
        return restored;
      }

      let corrections = [], current = JSON.stringify({});
      function update() {
        corrections = [];
        const lines = [];
        const counts = { unreviewed: 0, approved: 0, flagged: 0 };
        sections.forEach((sec) => {
          const c = correction(sec);
          sec.classList.toggle('corrected', c !== null);
          if (c) { corrections.push(c); lines.push(commandLine(sec, c)); }
          counts[sec.dataset.review] += 1;
        });
        current = JSON.stringify(work());
        if (current !== saved) { save(current); saved = current; }
        const reviewed = reviewedList().length;
        document.getElementById('correction-count').textContent = String(corrections.length);
        document.getElementById('review-counts').textContent = counts.approved + ' approved, ' +
          counts.flagged + ' flagged, ' + counts.unreviewed + ' unreviewed';
        document.getElementById('commands').textContent = lines.join('\n');
        document.getElementById('export').disabled = corrections.length === 0 && reviewed === 0;
        document.getElementById('reset').disabled = current === '{}';
        document.getElementById('saved').textContent = storageProblem
          ? 'Not saved in this browser (' + storageProblem + '): export before you leave.'
          : current === '{}' ? '' : current === exported ? 'Saved in this browser; exported.'
          : 'Saved in this browser; not exported yet.';
        const f = document.getElementById('filter').value;
        if (f === 'corrected' || reviewWords[f]) arrange();
        drawLoupe();
      }
      // "reviewed" holds each photo approved or flagged, and each the page started approved or
      // flagged (as its sidecar records) and a person returned to unreviewed, with the render shown.
      function reviewedList() {
        return sections.filter((sec) => sec.dataset.review !== 'unreviewed' || initialReview.get(sec) !== 'unreviewed')
          .map((sec) => sec.dataset.render ? { photo: sec.dataset.photo, state: sec.dataset.review, render: sec.dataset.render }
            : { photo: sec.dataset.photo, state: sec.dataset.review });
      }
      function exportCorrections() {
        // One photo a line, so the file reads (and diffs) well.
        const reviewed = reviewedList();
        const list = (items) => (items.length ? '\n' + items.map((c) => '  ' + JSON.stringify(c)).join(',\n') + '\n ' : '');
        const text = '{\n "formatIdentifier": ' + JSON.stringify(config.formatIdentifier) +
          ',\n "formatVersion": ' + JSON.stringify(config.formatVersion) +
          ',\n "folder": ' + JSON.stringify(config.folder) +
          ',\n "photos": [' + list(corrections) + ']' +
          ',\n "reviewed": [' + list(reviewed) + ']\n}\n';
        const blob = new Blob([text], { type: 'application/json' });
        const a = document.createElement('a');
        a.href = URL.createObjectURL(blob);
        a.download = 'corrections.json';
        document.body.appendChild(a);
        a.click();
        setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 60000);
        exported = current;
        save(current);
        update();
      }

      // The photo and face the keys act on.
      let currentSection = null;
      const faceIndex = new Map();
      const shownSections = () => Array.from(main.children).filter((sec) => sec.matches('section[data-photo]') && !sec.hidden);
      function showFace(sec) {
        sec.querySelectorAll('.current').forEach((el) => el.classList.remove('current'));
        const items = faceItems(sec), i = faceIndex.get(sec);
        if (i === undefined || i < 0 || i >= items.length) return;
        items[i].classList.add('current');
        sec.querySelectorAll('.box[data-box="' + items[i].dataset.face + '"]').forEach((b) => b.classList.add('current'));
      }
      function select(sec, scroll) {
        if (currentSection && currentSection !== sec) {
          currentSection.classList.remove('current');
          currentSection.removeAttribute('aria-current');
          currentSection.querySelectorAll('.current').forEach((el) => el.classList.remove('current'));
        }
        currentSection = sec;
        if (!sec) return;
        sec.classList.add('current');
        sec.setAttribute('aria-current', 'true');
        showFace(sec);
        if (scroll) sec.scrollIntoView({ block: 'nearest' });
      }
      function move(step) {
        const list = shownSections();
        if (!list.length) return;
        const i = list.indexOf(currentSection);
        const next = i < 0 ? (step > 0 ? 0 : list.length - 1) : Math.min(list.length - 1, Math.max(0, i + step));
        select(list[next], true);
        if (!loupe.hidden) aimLoupe(list[next]);
      }
      function moveFace(step) {
        if (!currentSection) { move(1); if (!currentSection) return; }
        const items = faceItems(currentSection);
        if (!items.length) return;
        const i = faceIndex.get(currentSection);
        const next = i === undefined || i < 0 ? (step > 0 ? 0 : items.length - 1)
          : (i + step + items.length) % items.length;
        faceIndex.set(currentSection, next);
        showFace(currentSection);
        if (!loupe.hidden) aimLoupe(currentSection);
        const box = currentSection.querySelector('.box.current');
        if (box) box.scrollIntoView({ block: 'nearest' });
      }
      function currentFace() {
        if (!currentSection) return null;
        const i = faceIndex.get(currentSection);
        if (i === undefined || i < 0) { moveFace(1); return null; }
        return faceItems(currentSection)[i] || null;
      }
      function openPhoto(sec, open) {
        sec.classList.toggle('open', open);
        sec.scrollIntoView({ block: 'nearest' });
      }
      function setView(view) {
        document.getElementById('view').value = view;
        document.body.classList.toggle('view-grid', view === 'grid');
        if (currentSection) currentSection.scrollIntoView({ block: 'nearest' });
      }
      function setLayout(layout) {
        document.getElementById('layout').value = layout;
        document.body.classList.remove('layout-both', 'layout-render', 'layout-original');
        document.body.classList.add('layout-' + layout);
      }

      // The loupe: a preview shown at loupeZoom times its size on the page, around the pointer
      // or the current face; a click in it switches the face under it, a drag draws a box. On a
      // face (or a second-look region) that has a detail (its region cut from the full-size
      // image, data-detail), the loupe zooms until the region fills it (4x at least) and lays
      // the detail over the preview there; the detail is loaded only then.
      const loupe = document.getElementById('loupe');
      const loupeZoom = 4;
      const loupeImage = document.createElement('img');
      loupeImage.alt = '';
      loupeImage.draggable = false;
      const loupeDetail = document.createElement('img');
      loupeDetail.alt = '';
      loupeDetail.draggable = false;
      loupeDetail.className = 'loupe-detail';
      loupeDetail.hidden = true;
      const loupeBoxes = document.createElement('div');
      const loupeCaption = document.createElement('p');
      loupeCaption.className = 'loupe-caption';
      loupe.append(loupeImage, loupeDetail, loupeBoxes, loupeCaption);
      const detailRect = (el) => el.dataset.detailRect.split(' ').map(Number);
      // The detail for the point (cx, cy) of a view: of the face (or region) under it, else of
      // the smallest region around it; null when none holds it.
      function detailAt(view, cx, cy) {
        let best = null, rank = [2, Infinity];
        const holds = (f) => cx >= f[0] && cx <= f[0] + f[2] && cy >= f[1] && cy <= f[1] + f[3];
        view.querySelectorAll('.stage [data-detail]').forEach((el) => {
          const d = detailRect(el);
          if (!holds(d)) return;
          const r = [holds(boxFractions(el)) ? 0 : 1, d[2] * d[3]];
          if (r[0] < rank[0] || (r[0] === rank[0] && r[1] < rank[1])) { best = el; rank = r; }
        });
        return best;
      }
      let lens = null;
      const viewImage = (view) => view.querySelector('.stage img');
      const shownView = (sec) => Array.from(sec.querySelectorAll('figure.view'))
        .find((v) => viewImage(v) && viewImage(v).getClientRects().length > 0) || null;
      const boxFractions = (b) => ['left', 'top', 'width', 'height'].map((k) => parseFloat(b.style[k]) / 100);
      function drawLoupe() {
        if (loupe.hidden || !lens) return;
        const img = viewImage(lens.view), r = img.getBoundingClientRect();
        if (!r.width || !r.height) return;
        const detail = lens.detail && lens.view.contains(lens.detail) ? lens.detail : null;
        let zoom = loupeZoom;
        if (detail) {
          const d = detailRect(detail);
          zoom = Math.max(loupeZoom, Math.min(loupe.clientWidth / (d[2] * r.width), loupe.clientHeight / (d[3] * r.height)));
        }
        const W = r.width * zoom, H = r.height * zoom;
        const ox = lens.cx * W - loupe.clientWidth / 2, oy = lens.cy * H - loupe.clientHeight / 2;
        lens.geometry = { W, H, ox, oy };
        const src = img.currentSrc || img.src;
        if (loupeImage.getAttribute('src') !== src) loupeImage.src = src;
        loupeImage.style.cssText = 'left:' + (-ox) + 'px;top:' + (-oy) + 'px;width:' + W + 'px;height:' + H + 'px';
        loupeDetail.hidden = !detail;
        if (detail) {
          const d = detailRect(detail);
          if (loupeDetail.getAttribute('src') !== detail.dataset.detail) loupeDetail.src = detail.dataset.detail;
          loupeDetail.style.cssText = 'left:' + (d[0] * W - ox) + 'px;top:' + (d[1] * H - oy) + 'px;width:' + (d[2] * W) +
            'px;height:' + (d[3] * H) + 'px';
        }
        loupe.dataset.zoom = String(zoom);
        loupeBoxes.replaceChildren();
        lens.view.querySelectorAll('.stage .box').forEach((b) => {
          const f = boxFractions(b), d = b.cloneNode(true);
          d.style.cssText = 'left:' + (f[0] * W - ox) + 'px;top:' + (f[1] * H - oy) + 'px;width:' + (f[2] * W) +
            'px;height:' + (f[3] * H) + 'px';
          loupeBoxes.appendChild(d);
        });
        loupeCaption.textContent = (Math.round(zoom * 10) / 10) + 'x: ' + lens.view.dataset.kind + ' of ' +
          lens.sec.dataset.photo + (detail ? ', detail of ' + detail.dataset.detailSize.replace(' ', 'x') + ' px' : '');
      }
      // The loupe on a photo: around its current face when it has one, else its middle.
      function aimLoupe(sec) {
        const view = sec && shownView(sec);
        if (!view) return;
        lens = { sec, view, cx: 0.5, cy: 0.5, detail: null };
        const li = faceItems(sec)[faceIndex.get(sec)];
        const box = li && view.querySelector('.stage .box[data-box="' + li.dataset.face + '"]');
        if (box) {
          const f = boxFractions(box);
          lens.cx = f[0] + f[2] / 2;
          lens.cy = f[1] + f[3] / 2;
          if (box.dataset.detail) lens.detail = box;
        }
        drawLoupe();
      }
      function toggleLoupe() {
        loupe.hidden = !loupe.hidden;
        if (!loupe.hidden) aimLoupe(currentSection || shownSections()[0]);
      }
      (function () {
        let start = null, band = null;
        const at = (e) => { const r = loupe.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; };
        loupe.addEventListener('pointerdown', (e) => {
          if (e.button !== 0 || !lens || !lens.geometry) return;
          e.preventDefault();
          loupe.setPointerCapture(e.pointerId);
          start = at(e);
        });
        loupe.addEventListener('pointermove', (e) => {
          if (!start) return;
          const p = at(e);
          if (!band && Math.abs(p[0] - start[0]) < clickSlop && Math.abs(p[1] - start[1]) < clickSlop) return;
          if (!band) { band = document.createElement('div'); band.className = 'band'; loupe.appendChild(band); }
          band.style.cssText = 'left:' + Math.min(start[0], p[0]) + 'px;top:' + Math.min(start[1], p[1]) + 'px;width:' +
            Math.abs(p[0] - start[0]) + 'px;height:' + Math.abs(p[1] - start[1]) + 'px';
        });
        loupe.addEventListener('pointerup', (e) => {
          if (!start) return;
          const p = at(e), s0 = start, isDrag = band !== null;
          start = null;
          if (band) band.remove();
          band = null;
          const { W, H, ox, oy } = lens.geometry, sec = lens.sec, view = lens.view;
          if (!isDrag) {
            const under = Array.from(loupeBoxes.querySelectorAll('.box')).filter((b) => {
              const r = b.getBoundingClientRect();
              return e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom;
            }).sort((a, b) => a.offsetWidth * a.offsetHeight - b.offsetWidth * b.offsetHeight);
            if (under[0]) toggle(sec, under[0].dataset.box);
            return;
          }
          const m = matrix(view);
          if (!m || sec.dataset.correctable !== 'true') return;
          const clamp = (f) => Math.min(1, Math.max(0, f));
          const x0 = clamp((Math.min(s0[0], p[0]) + ox) / W), x1 = clamp((Math.max(s0[0], p[0]) + ox) / W);
          const y0 = clamp((Math.min(s0[1], p[1]) + oy) / H), y1 = clamp((Math.max(s0[1], p[1]) + oy) / H);
          if (x1 <= x0 || y1 <= y0) return;
          const box = mapBox(inverse(m), [x0, y0, x1 - x0, y1 - y0]).map(round6);
          box[2] = Math.min(box[2], round6(1 - box[0]));
          box[3] = Math.min(box[3], round6(1 - box[1]));
          if (box[2] > 0 && box[3] > 0) addFace(sec, box);
        });
      })();

      // Pointer: a press that moves less than a few pixels is a click, on the face under it; a
      // drag on a preview that maps onto the step's image draws a box.
      const clickSlop = 5;
      sections.forEach((sec) => {
        sec.addEventListener('pointerdown', () => { if (currentSection !== sec) select(sec, false); });
        sec.addEventListener('click', (e) => {
          const button = e.target.closest('button[data-review-to]');
          if (button) { setReview(sec, sec.dataset.review === button.dataset.reviewTo ? 'unreviewed' : button.dataset.reviewTo); return; }
          if (e.target.closest('button.open-photo')) { openPhoto(sec, !sec.classList.contains('open')); return; }
          const li = e.target.closest('li[data-face]');
          if (li) toggle(sec, li.dataset.face);
        });
        sec.addEventListener('dblclick', (e) => {
          if (document.body.classList.contains('view-grid') && !e.target.closest('.box, button, li')) {
            openPhoto(sec, !sec.classList.contains('open'));
          }
        });
        sec.querySelectorAll('figure.view').forEach((view) => {
          const stage = view.querySelector('.stage');
          stage.addEventListener('pointermove', (e) => {
            if (loupe.hidden || e.buttons) return;
            const r = stage.getBoundingClientRect();
            const cx = (e.clientX - r.left) / r.width, cy = (e.clientY - r.top) / r.height;
            lens = { sec, view, cx, cy, detail: detailAt(view, cx, cy) };
            drawLoupe();
          });
        });
        sec.querySelectorAll('figure.view[data-transform]').forEach((view) => {
          const stage = view.querySelector('.stage');
          let start = null, startPx = null, onBox = null, band = null;
          const at = (e) => {
            const r = stage.getBoundingClientRect();
            return [Math.min(1, Math.max(0, (e.clientX - r.left) / r.width)),
                    Math.min(1, Math.max(0, (e.clientY - r.top) / r.height))];
          };
          stage.addEventListener('pointerdown', (e) => {
            if (e.button !== 0) return;
            e.preventDefault();
            stage.setPointerCapture(e.pointerId);
            start = at(e);
            startPx = [e.clientX, e.clientY];
            onBox = e.target.closest('.box');
          });
          const dragged = (e) => Math.abs(e.clientX - startPx[0]) >= clickSlop || Math.abs(e.clientY - startPx[1]) >= clickSlop;
          stage.addEventListener('pointermove', (e) => {
            if (!start || (!band && !dragged(e))) return;
            if (!band) {
              band = document.createElement('div');
              band.className = 'band';
              stage.appendChild(band);
            }
            const p = at(e);
            band.style.cssText = 'left:' + pct(Math.min(start[0], p[0])) + ';top:' + pct(Math.min(start[1], p[1])) +
              ';width:' + pct(Math.abs(p[0] - start[0])) + ';height:' + pct(Math.abs(p[1] - start[1]));
          });
          const finish = (e) => {
            if (!start) return;
            const p = at(e), isDrag = band !== null || dragged(e), box0 = onBox;
            const rect = [Math.min(start[0], p[0]), Math.min(start[1], p[1]),
                          Math.abs(p[0] - start[0]), Math.abs(p[1] - start[1])];
            start = null;
            onBox = null;
            if (band) band.remove();
            band = null;
            if (!isDrag) {
              // A click: the face under the pointer, the smallest when boxes overlap.
              let hit = box0;
              if (!hit) {
                const under = Array.from(stage.querySelectorAll('.box')).filter((b) => {
                  const r = b.getBoundingClientRect();
                  return e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom;
                }).sort((a, b) => a.offsetWidth * a.offsetHeight - b.offsetWidth * b.offsetHeight);
                hit = under[0] || null;
              }
              if (hit) toggle(sec, hit.dataset.box);
              return;
            }
            if (rect[2] <= 0 || rect[3] <= 0) return;
            const box = mapBox(inverse(matrix(view)), rect).map(round6);
            box[2] = Math.min(box[2], round6(1 - box[0]));
            box[3] = Math.min(box[3], round6(1 - box[1]));
            if (box[2] > 0 && box[3] > 0) addFace(sec, box);
          };
          stage.addEventListener('pointerup', finish);
          stage.addEventListener('pointercancel', () => { if (band) band.remove(); start = null; band = null; onBox = null; });
        });
      });

      // Sorting and filtering.
      const number = (sec, key, missing) => (sec.dataset[key] === undefined ? missing : Number(sec.dataset[key]));
      const byPhoto = (a, b) => (a.dataset.photo < b.dataset.photo ? -1 : a.dataset.photo > b.dataset.photo ? 1 : 0);
      const orders = {
        look: (a, b) => number(a, 'urgency', 9) - number(b, 'urgency', 9) || number(b, 'visible', 0) - number(a, 'visible', 0) || byPhoto(a, b),
        name: byPhoto,
        faces: (a, b) => number(b, 'count', 0) - number(a, 'count', 0) || byPhoto(a, b),
        smallest: (a, b) => number(a, 'smallest', Infinity) - number(b, 'smallest', Infinity) || byPhoto(a, b),
      };
      const flagsOf = (sec) => sec.dataset.flags.split(' ');
      const filters = {
        all: () => true,
        look: (sec) => sec.dataset.flags !== '',
        corrected: (sec) => sec.classList.contains('corrected'),
        unreviewed: (sec) => sec.dataset.review === 'unreviewed',
        approved: (sec) => sec.dataset.review === 'approved',
        flagged: (sec) => sec.dataset.review === 'flagged',
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
        const present = Array.from(main.children);
        if (sorted.some((sec, i) => present[i] !== sec)) {
          const fragment = document.createDocumentFragment();
          sorted.forEach((sec) => fragment.appendChild(sec));
          main.appendChild(fragment);
        }
        document.getElementById('shown').textContent = shown + ' of ' + sections.length + ' photos shown';
      }
      document.getElementById('sort').addEventListener('change', arrange);
      document.getElementById('filter').addEventListener('change', arrange);
      document.getElementById('layout').addEventListener('change', (e) => setLayout(e.target.value));
      document.getElementById('view').addEventListener('change', (e) => setView(e.target.value));
      const keys = document.getElementById('keys');
      document.getElementById('show-keys').addEventListener('click', () => { keys.hidden = !keys.hidden; });

      // The keys (each listed in the help, '?').
      document.addEventListener('keydown', (e) => {
        if (e.target.closest('input, select, textarea') || e.altKey || e.metaKey) return;
        if (e.ctrlKey && e.key !== 'z') return;
        const act = {
          'j': () => move(1), 'ArrowRight': () => move(1), 'k': () => move(-1), 'ArrowLeft': () => move(-1),
          'n': () => moveFace(1), 'p': () => moveFace(-1),
          'x': () => { const li = currentFace(); if (li) toggle(currentSection, li.dataset.face); },
          'a': () => { if (currentSection) { setReview(currentSection, 'approved'); move(1); } else move(1); },
          'f': () => { if (currentSection) { setReview(currentSection, 'flagged'); move(1); } else move(1); },
          'u': () => { const a = undoStack.pop(); if (a) { a.undo(); update(); } },
          'z': () => { if (e.ctrlKey) act.u(); },
          'Enter': () => { if (currentSection) openPhoto(currentSection, !currentSection.classList.contains('open')); },
          'o': () => act.Enter(),
          'Escape': () => {
            if (!keys.hidden) keys.hidden = true;
            else if (!loupe.hidden) loupe.hidden = true;
            else if (currentSection && currentSection.classList.contains('open')) openPhoto(currentSection, false);
          },
          'z': () => toggleLoupe(),
          'g': () => setView(document.getElementById('view').value === 'grid' ? 'list' : 'grid'),
          't': () => setLayout(document.getElementById('layout').value === 'original' ? 'render' : 'original'),
          '?': () => { keys.hidden = !keys.hidden; },
        };
        if (e.target.closest('button') && (e.key === 'Enter' || e.key === ' ')) return;
        const f = act[e.key];
        if (!f) return;
        e.preventDefault();
        f();
      });
      document.getElementById('export').addEventListener('click', exportCorrections);
      document.getElementById('reset').addEventListener('click', () => {
        if (!window.confirm('Undo every correction and approval on this page? They are also removed from this browser.')) return;
        try { localStorage.removeItem(storageKey); } catch (error) { /* nothing saved */ }
        leaving = true;
        location.reload();
      });
      // Leaving with work that was not exported asks first (it is saved in this browser, but a
      // person may be leaving for good).
      let leaving = false;
      window.addEventListener('beforeunload', (e) => {
        if (leaving || current === '{}' || current === exported) return;
        e.preventDefault();
        e.returnValue = '';
      });
      window.photoeditReview = {
        corrections: () => corrections, toggle, addFace, identity, storageKey,
        current: () => currentSection && currentSection.dataset.photo,
        currentFace: () => { const li = currentSection && faceItems(currentSection)[faceIndex.get(currentSection)]; return li ? Number(li.dataset.face) : null; },
      };
      arrange();
      const restored = restore();
      saved = JSON.stringify(work());
      update();
      if (restored) {
        document.getElementById('saved').textContent += ' Restored ' + restored + (restored === 1 ? ' photo' : ' photos') +
          ' from this browser.';
      }
      document.documentElement.dataset.ready = 'true';
    })();
    """#
}
