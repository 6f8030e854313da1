/* rulesdsl wiki search: the browser side of rulesdsl/wiki/search.py (read its docstring).
   Loads search/meta.js and only the shards a query needs, with <script> tags, so that it works
   from a server and from a folder (file://) alike; nothing is built when a page loads.
   Results are written with textContent: nothing from the index is ever parsed as HTML. */
(function () {
  "use strict";
  var CJK = "\u3005\u3006\u3041-\u309f\u30a1-\u30fa\u30fc-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff";
  var TOKEN = new RegExp("[a-z0-9]+(?:[._\\-][a-z0-9]+)*|[" + CJK + "]+", "g");
  var KEEP = new RegExp("[^a-z0-9" + CJK + "]+", "g");
  var B36 = "0123456789abcdefghijklmnopqrstuvwxyz";
  var PAGE = 10;
  var RANK_FACTOR = [1.3, 1.0, 0.8];

  var CJK_ONE = new RegExp("[" + CJK + "]");
  var PAGE_NEXT = 5;          // meta.rank digits 5-9: a further section of the page before it

  /* NFKC, lower case, katakana as hiragana, no long vowel mark (search.py's normalize) */
  function fold(s) {
    var out = "", i, c;
    for (i = 0; i < s.length; i++) {
      c = s.charCodeAt(i);
      if (c >= 0x30a1 && c <= 0x30f6) out += String.fromCharCode(c - 0x60);
      else if (c !== 0x30fc) out += s.charAt(i);
    }
    return out;
  }
  function normalize(text) { return fold(text.normalize("NFKC").toLowerCase()); }

  function tokenize(text) { return runs(text).terms; }

  /* the terms of a text, and (for a query) which of them are okurigana that readers vary:
     the last pair or two of a run that ends in one or two hiragana after a kanji (裏返し, 裏返す) */
  function runs(text) {
    var out = [], optional = {}, m, run, i, k;
    var s = normalize(text);
    TOKEN.lastIndex = 0;
    while ((m = TOKEN.exec(s)) !== null) {
      run = m[0];
      if (run.charCodeAt(0) < 0x3000) {
        out.push(run);
        if (run.length > 1 && !/^[a-z0-9]+$/.test(run)) {
          out.push.apply(out, run.match(/[a-z0-9]+/g));
        }
        if (/^[0-9]+$/.test(run) && CJK_ONE.test(s.charAt(m.index + run.length))) {
          out.push(run + s.charAt(m.index + run.length));      // a number and its unit: 30点
        }
      } else if (run.length === 1) {
        if (!(m.index && /[0-9]/.test(s.charAt(m.index - 1)))) out.push(run);   // 点 of 30点: in 30点
      } else {
        for (k = run.length - 1; k >= 0 && /[\u3041-\u3096]/.test(run.charAt(k)); k--) { /* trailing kana */ }
        var tail = run.length - 1 - k;
        for (i = 0; i + 1 < run.length; i++) {
          out.push(run.substr(i, 2));
          if (k >= 1 && tail >= 1 && tail <= 2 && i >= k) optional[run.substr(i, 2)] = true;
        }
      }
    }
    return { terms: out, optional: optional };
  }

  function key(text) { return normalize(text).replace(KEEP, ""); }

  function termHash(term) {
    var h = 0x811c9dc5, i;
    for (i = 0; i < term.length; i++) {
      h ^= term.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h >>> 0;
  }

  /* ------------------------------------------------------------------ loading shards */
  var base = (function () {
    var cfg = document.getElementById("__config");
    var b = ".";
    try { b = JSON.parse(cfg.textContent).base || "."; } catch (e) { /* keep "." */ }
    return new URL(b.replace(/\/?$/, "/") + "search/", document.baseURI).href;
  })();
  var meta = null, terms = {}, docs = {}, waiting = {};

  function load(name) {
    if (waiting[name]) return waiting[name];
    waiting[name] = new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = base + name;
      s.async = true;
      s.onload = function () { resolve(); };
      s.onerror = function () { delete waiting[name]; reject(new Error("検索データを読み込めません: " + name)); };
      document.head.appendChild(s);
    });
    return waiting[name];
  }

  window.__rdsearch = {
    meta: function (m) { m.rank = unruns(m.rank); meta = m; },
    t: function (n, bucket) { terms[n] = bucket; },
    d: function (n, rows) { docs[n] = rows; },
    tokenize: tokenize, key: key, termHash: termHash
  };

  /* runs written once (search.py's _runs): "1.2s." is a hundred 1s */
  function unruns(text) {
    var out = [], i = 0, end;
    while (i < text.length) {
      if (text.charAt(i + 1) === ".") {
        end = text.indexOf(".", i + 2);
        out.push(new Array(parseInt(text.slice(i + 2, end), 36) + 1).join(text.charAt(i)));
        i = end + 1;
      } else {
        out.push(text.charAt(i));
        i++;
      }
    }
    return out.join("");
  }

  /* a term's postings, id -> weight, over every part; kept, since the next prefix typed asks again */
  var decoded = new Map();
  function postings(term) {
    if (decoded.has(term)) return decoded.get(term);
    var h = termHash(term);
    var got = Promise.all(meta.parts.map(function (part, p) {
      var name = p + "/" + (h % part.shards);
      return load("t/" + name + ".js").then(function () { return terms[name][term]; });
    })).then(function (found) {
      var map = new Map();
      found.forEach(function (got) {
        if (!got) return;
        var ids = got[0] ? got[0].split(",") : [], weights = unruns(got[1]), id = 0, i, j, k, cut, delta, count;
        for (i = 0, k = 0; i < ids.length; i++) {
          cut = ids[i].indexOf(".");
          delta = parseInt(cut < 0 ? ids[i] : ids[i].slice(0, cut), 36);
          count = cut < 0 ? 1 : parseInt(ids[i].slice(cut + 1), 36);
          for (j = 0; j < count; j++, k++) {
            id += delta;
            map.set(id, B36.indexOf(weights.charAt(k)));
          }
        }
      });
      return map;
    });
    decoded.set(term, got);
    got.catch(function () { decoded.delete(term); });
    return got;
  }

  function entries(ids) {
    var per = meta.docsPerShard, need = {};
    ids.forEach(function (id) { need[Math.floor(id / per)] = true; });
    return Promise.all(Object.keys(need).map(function (n) { return load("d/" + n + ".js"); }))
      .then(function () {
        return ids.map(function (id) {
          var row = docs[Math.floor(id / per)][id % per];
          return { url: row[0], title: row[1], where: row[2], text: row[3], status: row[4] || "",
                   defines: +meta.rank.charAt(id) % PAGE_NEXT === 0 };
        });
      });
  }

  /* ------------------------------------------------------------------ ranking */
  function pageOf(id) {
    while (id > 0 && +meta.rank.charAt(id) >= PAGE_NEXT) id--;
    return id;
  }

  /* the ids found, best first, one per page; .partial when no entry holds every term */
  function search(query) {
    var list = [], seen = {}, q = runs(query);
    q.terms.forEach(function (t) { if (!seen[t]) { seen[t] = true; list.push(t); } });
    var exact = key(query);
    if (!list.length) return Promise.resolve([]);
    return load("meta.js").then(function () {
      var wanted = list.slice();
      if (exact) wanted.push("=" + exact);
      return Promise.all(wanted.map(postings));
    }).then(function (maps) {
      var exactMap = exact ? maps.pop() : new Map();
      var n = meta.docs, scores = new Map(), hits = new Map(), every = new Map(), required = 0;
      maps.forEach(function (map, i) {
        var idf = Math.log(1 + n / (map.size || 1)), opt = q.optional[list[i]];
        if (!opt) required++;
        map.forEach(function (w, id) {
          scores.set(id, (scores.get(id) || 0) + idf * w);
          if (!opt) hits.set(id, (hits.get(id) || 0) + 1);
          every.set(id, (every.get(id) || 0) + 1);
        });
      });
      var all = [], partial = [];
      scores.forEach(function (s, id) {
        var rank = RANK_FACTOR[+meta.rank.charAt(id) % PAGE_NEXT] || 1;
        var score = s * rank + (exactMap.has(id) ? 1000 : 0) + (every.get(id) === maps.length ? 1 : 0);
        if ((hits.get(id) || 0) === required) all.push([score, id]);
        else partial.push([score * (every.get(id) || 0) / maps.length, id]);
      });
      var found = all.length ? all : partial;
      found.sort(function (a, b) { return b[0] - a[0] || a[1] - b[1]; });
      var pages = {}, ids = [];
      found.forEach(function (x) {                  // one result per page: its best entry
        var p = pageOf(x[1]);
        if (!pages[p]) { pages[p] = true; ids.push(x[1]); }
      });
      ids.partial = !all.length;
      return ids;
    });
  }

  /* a word without the one or two kana of okurigana after its last kanji: 裏返し → 裏返 */
  function stem(w) { return w.replace(/^(.*[^\u3041-\u3096])[\u3041-\u3096]{1,2}$/, "$1"); }

  /* among the first results, those that hold the query's words as written (not only their
     character pairs) come first: a whole-word match above a pair match */
  function wholeFirst(rows, query) {
    var words = normalize(query).split(KEEP).filter(function (w) { return w; }).map(stem);
    if (!words.length) return rows;
    function whole(r) {                             // a page that defines things keeps its place
      if (r.defines) return true;
      var t = normalize(r.title + " " + r.text);
      return words.every(function (w) { return t.indexOf(w) >= 0; });
    }
    var yes = [], no = [];
    rows.forEach(function (r) { (whole(r) ? yes : no).push(r); });
    return yes.concat(no);
  }

  /* ------------------------------------------------------------------ the search box */
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }

  /* the query's words marked in a text; the text is normalised character by character, so that
     a character that normalises to several (「…」 to "...") or to none (ー) keeps the marks in place */
  function highlight(p, text, query) {
    var words = normalize(query).split(KEEP).filter(function (w) { return w; });
    words = words.concat(words.map(stem)
      .filter(function (w) { return w.length > 1 && words.indexOf(w) < 0; }));   // 裏返し marks 裏返す's 裏返
    var lower = "", at = [], i, j, n;
    for (i = 0; i < text.length; i++) {
      n = normalize(text.charAt(i));
      for (j = 0; j < n.length; j++) { lower += n.charAt(j); at.push(i); }
    }
    at.push(text.length);
    var pos = 0, from = 0, hit;
    while (words.length) {
      hit = -1;
      var len = 0;
      words.forEach(function (w) {
        var k = lower.indexOf(w, from);
        if (k >= 0 && (hit < 0 || k < hit || (k === hit && w.length > len))) { hit = k; len = w.length; }
      });
      if (hit < 0) break;
      var start = at[hit], end = at[hit + len] === undefined ? text.length : at[hit + len];
      if (start < pos) break;
      p.appendChild(document.createTextNode(text.slice(pos, start)));
      p.appendChild(el("mark", null, text.slice(start, end)));
      pos = end;
      from = hit + len;
    }
    p.appendChild(document.createTextNode(text.slice(pos)));
  }

  function mount(box) {
    var input = box.querySelector(".md-search__input");
    var result = box.querySelector(".md-search-result");
    var metaEl = box.querySelector(".md-search-result__meta");
    var listEl = box.querySelector(".md-search-result__list");
    var toggle = document.getElementById("__search");
    var seq = 0, ids = [], shown = 0, current = "";

    function item(entry) {
      var li = el("li", "md-search-result__item");
      var a = el("a", "md-search-result__link");
      a.href = new URL(entry.url, base.replace(/search\/$/, "")).href;
      a.tabIndex = -1;
      var art = el("article", "md-search-result__article md-typeset");
      art.appendChild(el("h1", null, entry.title));
      var where = el("p", "rd-search-where", entry.where || null);
      if (entry.status) {
        var cut = entry.status.indexOf(" ");
        var badge = el("span", "rd-badge rd-" + entry.status.slice(0, cut).replace(/[^a-z]/g, ""), entry.status.slice(cut + 1));
        if (where.firstChild) where.insertBefore(document.createTextNode(" "), where.firstChild);
        where.insertBefore(badge, where.firstChild);
      }
      if (entry.where || entry.status) art.appendChild(where);
      if (entry.text) { var p = el("p"); highlight(p, entry.text, current); art.appendChild(p); }
      a.appendChild(art);
      li.appendChild(a);
      return li;
    }

    function more(mine) {
      var next = ids.slice(shown, shown + PAGE);
      return entries(next).then(function (rows) {
        if (mine !== seq) return;
        if (shown === 0) rows = wholeFirst(rows, current);
        var old = listEl.querySelector(".rd-search-more");
        if (old) old.remove();
        rows.forEach(function (r) { listEl.appendChild(item(r)); });
        shown += rows.length;
        if (shown < ids.length) {
          var li = el("li", "md-search-result__item rd-search-more");
          var b = el("button", "md-button", "さらに表示（残り" + (ids.length - shown) + "件）");
          b.type = "button";
          b.addEventListener("click", function () { more(seq); });
          li.appendChild(b);
          listEl.appendChild(li);
        }
      });
    }

    function run() {
      var q = input.value.trim();
      var mine = ++seq;
      current = q;
      result.removeAttribute("data-rd-query");
      if (!q) {
        listEl.textContent = "";
        metaEl.textContent = "検索語を入力してください";
        return;
      }
      metaEl.textContent = "検索しています…";
      search(q).then(function (found) {
        if (mine !== seq) return null;
        ids = found;
        shown = 0;
        listEl.textContent = "";
        metaEl.textContent = !found.length ? "見つかりませんでした"
          : found.partial ? "すべての語を含むページはありません。一部が一致するページ: " + found.length + "件"
          : found.length + "件見つかりました";
        return more(mine);
      }).then(function () {
        if (mine === seq) result.setAttribute("data-rd-query", q);
      }, function (err) {
        if (mine !== seq) return;
        metaEl.textContent = String(err && err.message || err);
        result.setAttribute("data-rd-query", q);
      });
    }

    input.addEventListener("input", run);
    input.addEventListener("compositionend", run);
    box.querySelector("form").addEventListener("submit", function (e) {
      e.preventDefault();
      var first = listEl.querySelector("a");
      if (first) window.location.href = first.href;
    });
    box.querySelector("form").addEventListener("reset", function () {
      setTimeout(run, 0);
    });
    if (toggle) {
      toggle.addEventListener("change", function () {
        if (toggle.checked) input.focus();
      });
      // typing in the box opens the search, as in the theme's own search (its results show only then)
      input.addEventListener("focus", function () {
        if (!toggle.checked) { toggle.checked = true; }
      });
    }
    box.addEventListener("keydown", function (e) {
      var links = Array.prototype.slice.call(listEl.querySelectorAll("a"));
      var at = links.indexOf(document.activeElement);
      if (e.key === "Escape" && toggle) {
        toggle.checked = false;
        input.blur();
      } else if (e.key === "ArrowDown" && links.length) {
        e.preventDefault();
        links[Math.min(at + 1, links.length - 1)].focus();
      } else if (e.key === "ArrowUp" && links.length) {
        e.preventDefault();
        if (at <= 0) input.focus(); else links[at - 1].focus();
      }
    });
    document.addEventListener("keydown", function (e) {
      var t = e.target;
      if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === "/" || e.key === "s" || e.key === "f") {
        e.preventDefault();
        if (toggle) toggle.checked = true;
        input.focus();
      }
    });
    box.setAttribute("data-rd-ready", "");
  }

  function start() {
    var box = document.querySelector("[data-rd-search]");
    if (box) mount(box);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
