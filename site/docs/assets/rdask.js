// 「この質問を変えて聞く」 and 「新しい質問」: the editor, its highlighting, the board builder, and the
// conversation with the worker that runs the interpreter (rdask-worker.mjs). Nothing is fetched
// until the reader opens an editor. Everything the reader types and every error is put in the page
// as text; the answer's HTML is the wiki's own (rulesdsl/wiki/answers.py, every value escaped).
// A classic script, not a module: a page opened from a folder (file://) runs it too, and says
// there why it cannot load the runtime.
(() => {

const boxes = [...document.querySelectorAll(".rd-ask[data-rd-ask]")];
let worker = null;
let manifest = null;
let lexer = null;
let asked = 0;
const pending = new Map();

function fromFolder() {
  return location.protocol === "file:";
}

function say(box, selector, text) {
  const el = box.querySelector(selector);
  el.textContent = text;
  return el;
}

// ------------------------------------------------------------------------------ highlighting

function compileLexer(table) {
  return {
    table,
    re: new RegExp(table.rules.map(([p]) => "(" + p + ")").join("|"), "my"),
    space: new RegExp("^" + table.space + "+"),
  };
}

function escapeText(s) {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

// The text's HTML with the lexer's Pygments classes; [start, end) ranges marked as errors.
function highlight(text, marks = []) {
  const out = [];
  const emit = (value, cls, at) => {
    let pos = 0;
    for (const [s, e] of marks) {
      const a = Math.max(s - at, pos), b = Math.min(e - at, value.length);
      if (a < b) {
        if (a > pos) out.push(span(value.slice(pos, a), cls));
        out.push('<mark class="rd-ask-mark">' + span(value.slice(a, b), cls) + "</mark>");
        pos = b;
      }
    }
    if (pos < value.length) out.push(span(value.slice(pos), cls));
  };
  const span = (v, cls) => (cls ? '<span class="' + cls + '">' + escapeText(v) + "</span>" : escapeText(v));
  if (!lexer) {
    emit(text, "", 0);
    return out.join("");
  }
  const { table, re } = lexer;
  let pos = 0;
  while (pos < text.length) {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (!m || m[0].length === 0) {
      emit(text[pos], "", pos);
      pos += 1;
      continue;
    }
    let i = 1;
    while (m[i] === undefined) i++;
    let value = m[0];
    let kind = table.rules[i - 1][1];
    let at = pos;
    if (kind === "head") {
      const lead = (value.match(lexer.space) || [""])[0];
      if (lead) emit(lead, "", at);
      at += lead.length;
      value = value.slice(lead.length);
      kind = table.words[value] || table.head;
    } else if (kind === "word") {
      kind = table.words[value] || table.word;
    }
    emit(value, kind, at);
    pos += m[0].length;
  }
  return out.join("");
}

function offsetOf(text, line, col) {
  let at = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf("\n", at);
    if (nl < 0) return text.length;
    at = nl + 1;
  }
  return Math.min(at + Math.max(col - 1, 0), text.length);
}

function paint(box, marks = []) {
  const area = box.querySelector(".rd-editor-text");
  box.querySelector(".rd-editor-hl code").innerHTML = highlight(area.value, marks) + "\n";
}

// ------------------------------------------------------------------------------ the worker

function base(box) {
  return new URL(box.dataset.assets, location.href).href;
}

function prepare(box) {
  if (fromFolder()) {
    const note = box.querySelector(".rd-ask-file");
    note.hidden = false;
    note.textContent = "フォルダから開いたページ（file://）では、ブラウザが実行環境の読み込みを許しません。"
      + "サイトを配信して開いてください: rulesdsl wiki serve";
    box.querySelector(".rd-ask-go").disabled = true;
    return;
  }
  if (!manifest) {
    manifest = fetch(new URL("manifest.json", base(box))).then((r) => r.json()).then((m) => {
      lexer = compileLexer(m.lexer);
      boxes.forEach((b) => paint(b));
      return m;
    });
  }
  if (!worker) {
    showProgress("実行環境を読み込んでいます", 0);
    worker = keeper(box).then(() => {
      const w = new Worker(new URL("../rdask-worker.mjs", base(box)), { type: "module" });
      w.onmessage = (e) => received(e.data);
      w.onerror = (e) => received({ kind: "failed", message: e.message || "worker error" });
      w.postMessage({ kind: "start", base: base(box), game: box.dataset.game, id: 0 });
      return w;
    });
  }
}

// The service worker that keeps the runtime in this browser across visits (rdask-sw.js, at the
// site's root), registered under the pinned versions so that an update replaces what it kept.
// Browsers allow one only over https or from this machine (http://127.0.0.1, localhost), never
// from a folder; without it the runtime is fetched as any file is (the HTTP cache may keep it).
async function keeper(box) {
  const sw = navigator.serviceWorker;
  if (!sw || !window.isSecureContext || !box.dataset.keep) return;
  try {
    const scope = new URL(box.dataset.root, location.href);
    await sw.register(new URL("rdask-sw.js?v=" + encodeURIComponent(box.dataset.keep), scope), { scope: scope.pathname });
    if (sw.controller) return;
    // the new worker claims this page when it activates; it never holds the question back long
    await new Promise((resolve) => {
      sw.addEventListener("controllerchange", resolve, { once: true });
      setTimeout(resolve, 3000);
    });
  } catch (e) {
    console.warn("rdask: the runtime will not be kept across visits:", e);
  }
}

function showProgress(text, fraction) {
  for (const box of boxes) {
    const p = box.querySelector(".rd-ask-progress");
    p.hidden = fraction >= 1;
    p.querySelector("progress").value = fraction;
    p.querySelector("span").textContent = text;
  }
}

function received(m) {
  if (m.kind === "progress") {
    showProgress(m.text, m.fraction);
    return;
  }
  if (m.kind === "ready") {
    showProgress("実行環境の準備ができました", 1);
    return;
  }
  if (m.kind === "warm") {
    // the worker's own account of its start (seconds since it began), for the benchmark
    for (const box of boxes) {
      box.dataset.runtime = "warm";
      box.dataset.timings = JSON.stringify(m.timings);
    }
    return;
  }
  if (m.kind === "failed") {
    showProgress("", 1);
    worker?.then((w) => w.terminate());
    worker = null;
  }
  const wait = pending.get(m.id);
  if (wait) {
    pending.delete(m.id);
    wait(m);
  }
}

async function answer(box) {
  prepare(box);
  if (!worker) return;
  const area = box.querySelector(".rd-editor-text");
  const go = box.querySelector(".rd-ask-go");
  const started = performance.now();
  go.disabled = true;
  box.dataset.state = "asking";
  say(box, ".rd-ask-status", "答えを計算しています…");
  say(box, ".rd-ask-errors", "");
  const id = ++asked;
  // the ids the page uses, but for those of the answer this one replaces: the new answer's ids
  // are the Q&A page's (renamed ask-… where the page has them already), the same at every ask
  const shown = box.querySelector(".rd-ask-answer");
  const ids = [...document.querySelectorAll("[id]")].filter((e) => !shown.contains(e)).map((e) => e.id);
  const got = new Promise((resolve) => pending.set(id, resolve));
  (await worker).postMessage({ kind: "ask", id, base: base(box), game: box.dataset.game, text: area.value,
                               root: box.dataset.root, ids });
  const m = await got;
  go.disabled = false;
  if (m.kind === "failed") {
    say(box, ".rd-ask-status", "");
    say(box, ".rd-ask-errors", "インタプリタを動かせませんでした: " + m.message);
    box.dataset.state = "done";
    return;
  }
  showProgress("", 1);
  const r = m.result;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const target = box.querySelector(".rd-ask-answer");
  if (r.errors.length) {
    const list = box.querySelector(".rd-ask-errors");
    list.textContent = "";
    const marks = [];
    for (const e of r.errors) {
      const item = document.createElement("div");
      item.className = "rd-ask-error";
      const head = document.createElement("p");
      head.textContent = (e.line ? e.line + "行" + e.col + "列: " : "") + e.message + (e.hint ? "（ヒント: " + e.hint + "）" : "");
      const pre = document.createElement("pre");
      pre.textContent = e.text;
      item.append(head, pre);
      list.append(item);
      if (e.line) {
        const at = offsetOf(area.value, e.line, e.col);
        marks.push([at, Math.max(at + (e.width || 1), at + 1)]);
      }
    }
    paint(box, marks);
    if (marks.length) {
      area.focus();
      area.setSelectionRange(marks[0][0], marks[0][1]);
    }
  } else {
    paint(box);
  }
  target.innerHTML = r.html;
  target.dataset.ok = String(r.ok);
  say(box, ".rd-ask-status", r.errors.length && !r.html ? "答えられませんでした（" + seconds + " 秒）"
    : "答えました（" + seconds + " 秒）");
  box.dataset.state = "done";
  box.dispatchEvent(new CustomEvent("rd-answered", { detail: { seconds: Number(seconds), ok: r.ok } }));
}

// ------------------------------------------------------------------------------ the board builder

function builder(box) {
  const bb = box.querySelector(".rd-bb");
  if (!bb) return;
  const cfg = JSON.parse(bb.dataset.config);
  const cells = Object.fromEntries(cfg.cells.map((c) => [c, []]));
  let at = null;
  const fill = (sel, options) => {
    for (const [value, label] of options) {
      const o = document.createElement("option");
      o.value = value;
      o.textContent = label;
      sel.append(o);
    }
  };
  const q = (s) => bb.querySelector(s);
  fill(q(".rd-bb-player"), cfg.players.map((p) => [p, p]));
  fill(q(".rd-bb-pplayer"), cfg.players.slice().reverse().map((p) => [p, p]));
  for (const s of [q(".rd-bb-card"), q(".rd-bb-pcard")]) fill(s, cfg.cards.map((c) => [c.code, c.code + "《" + c.name + "》"]));
  fill(q(".rd-bb-target"), cfg.cells.map((c) => [c, c]));
  const label = (c) => (c.code ? c.code : c.weight + "kg") + (c.face === "down" ? "裏" : "表") + "(" + c.player + ")";
  const draw = () => {
    for (const b of bb.querySelectorAll(".rd-bb-cell")) {
      const cell = b.dataset.cell;
      b.querySelector(".rd-bb-stack").textContent = cells[cell].map(label).join(" / ");
      b.classList.toggle("rd-bb-selected", cell === at);
    }
    q(".rd-bb-at").textContent = at || "—";
  };
  bb.addEventListener("click", (e) => {
    const cell = e.target.closest(".rd-bb-cell");
    if (cell) { at = cell.dataset.cell; draw(); }
  });
  q(".rd-bb-put").addEventListener("click", () => {
    if (!at) return;
    const code = q(".rd-bb-card").value;
    cells[at].push({ player: q(".rd-bb-player").value, face: q(".rd-bb-face").value, code,
                     weight: code ? null : Math.max(0, Math.round(Number(q(".rd-bb-weight").value) || 0)) });
    draw();
  });
  q(".rd-bb-clear").addEventListener("click", () => { if (at) { cells[at] = []; draw(); } });
  q(".rd-bb-write").addEventListener("click", () => {
    const lines = [];
    const setup = [];
    for (const cell of cfg.cells) {
      cells[cell].forEach((c, i) => {
        let ref = c.code;
        if (!ref) {
          const name = cell + "の" + (i + 1) + "枚目";
          lines.push("  card \"" + name + "\" { weight " + c.weight + "kg }");
          ref = "\"" + name + "\"";
        }
        setup.push("  " + (i ? "stack" : "field") + " " + cell + " " + c.player + " " + ref + " " + c.face);
      });
    }
    const player = q(".rd-bb-pplayer").value;
    let card = q(".rd-bb-pcard").value;
    if (!card) {
      const w = Math.max(0, Math.round(Number(q(".rd-bb-pweight").value) || 0));
      lines.push("  card \"プレイするカード\" { weight " + w + "kg }");
      card = "\"プレイするカード\"";
    }
    const date = q(".rd-bb-date").value || cfg.today;
    const text = ["scenario " + cfg.game + "/new/board \"盤面から作った質問\" {", "  as of " + date, ...lines,
      "  turn " + player, ...setup, "  hand " + player + " " + card,
      "  play " + player + " " + card + " " + q(".rd-bb-target").value, "}", ""].join("\n");
    const area = box.querySelector(".rd-editor-text");
    area.value = text;
    prepare(box);
    paint(box);
    area.dispatchEvent(new Event("input"));
  });
  draw();
}

// ------------------------------------------------------------------------------ wiring

for (const box of boxes) {
  const area = box.querySelector(".rd-editor-text");
  const hl = box.querySelector(".rd-editor-hl");
  area.addEventListener("input", () => paint(box));
  area.addEventListener("scroll", () => { hl.scrollTop = area.scrollTop; hl.scrollLeft = area.scrollLeft; });
  area.addEventListener("focus", () => prepare(box), { once: true });
  box.querySelector(".rd-ask-go").addEventListener("click", () => answer(box));
  const details = box.closest("details");
  if (details) details.addEventListener("toggle", () => { if (details.open) prepare(box); });
  else box.addEventListener("pointerdown", () => prepare(box), { once: true });
  builder(box);
  if (fromFolder()) prepare(box);
}
})();
