/* rulesdsl wiki: what a page needs after the theme has laid it out.
   A table wider than the screen scrolls inside the box the theme wraps it in
   (.md-typeset__scrollwrap, made by the theme's script); a keyboard reaches such a box only if it
   is focusable, so an overflowing box with no link inside becomes a named, focusable region.
   The copy buttons' boxes are no landmarks. Checked by axe-core in tests/test_wiki_a11y.py. */
(function () {
  "use strict";
  function label(box) {
    var el = box;
    while (el && el.previousElementSibling === null) { el = el.parentElement; }
    for (el = el && el.previousElementSibling; el; el = el.previousElementSibling) {
      if (/^H[1-6]$/.test(el.tagName)) { return el.textContent.replace(/¶/g, "").trim() + "（表）"; }
    }
    return "表";
  }
  function focusable() {
    var boxes = document.querySelectorAll(".md-typeset__scrollwrap");
    for (var i = 0; i < boxes.length; i++) {
      var box = boxes[i];
      var wide = box.scrollWidth > box.clientWidth + 1;
      var reachable = box.querySelector("a[href], button, input, select, textarea, [tabindex]") !== null;
      if (wide && !reachable && !box.hasAttribute("tabindex")) {
        box.setAttribute("tabindex", "0");
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", label(box));
      }
    }
  }
  /* the theme gives every code block a <nav> for its copy button: unnamed landmarks by the dozen;
     a copy button is no place to navigate to */
  function codeNavs() {
    var navs = document.querySelectorAll("nav.md-code__nav");
    for (var i = 0; i < navs.length; i++) { navs[i].setAttribute("role", "none"); }
  }
  function whenLaidOut() {
    window.requestAnimationFrame(function () {
      focusable();
      codeNavs();
      document.body.setAttribute("data-rd-page", "ready");   // what a test waits for
    });
  }
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(whenLaidOut);        // after the theme's own content components
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", whenLaidOut);
  } else {
    whenLaidOut();
  }
  window.addEventListener("resize", focusable);
})();

/* the review list (review.html): filtered in place by game and status. Without script the
   review page links a page per game and status instead; the filter is built only here, so no
   control is shown that does nothing. */
(function () {
  "use strict";
  function select(label, all, options, onChange) {
    var wrap = document.createElement("label");
    wrap.className = "rd-review-choice";
    wrap.appendChild(document.createTextNode(label + " "));
    var sel = document.createElement("select");
    var first = document.createElement("option");
    first.value = "";
    first.textContent = all;
    sel.appendChild(first);
    options.forEach(function (o) {
      var opt = document.createElement("option");
      opt.value = o[0];
      opt.textContent = o[1];
      sel.appendChild(opt);
    });
    sel.addEventListener("change", onChange);
    wrap.appendChild(sel);
    return { label: wrap, select: sel };
  }
  function setUp() {
    var box = document.querySelector("[data-rd-filter]");
    if (!box || box.getAttribute("data-rd-ready")) { return; }
    box.setAttribute("data-rd-ready", "1");
    var shown = document.createElement("p");
    shown.className = "rd-review-shown";
    shown.setAttribute("aria-live", "polite");
    var game, status;
    function apply() {
      var g = game.select.value, s = status.select.value, n = 0;
      var items = document.querySelectorAll(".rd-review-item");
      for (var i = 0; i < items.length; i++) {
        var ok = (!g || items[i].getAttribute("data-game") === g) && (!s || items[i].getAttribute("data-status") === s);
        items[i].hidden = !ok;
        if (ok) { n++; }
      }
      var groups = document.querySelectorAll(".rd-review-group");
      for (var j = 0; j < groups.length; j++) {
        var any = groups[j].querySelector(".rd-review-item:not([hidden])") !== null;
        groups[j].hidden = !any;
        if (groups[j].tagName === "DETAILS" && (g || s)) { groups[j].open = any; }
      }
      var sections = document.querySelectorAll(".rd-review-status");
      for (var k = 0; k < sections.length; k++) {
        sections[k].hidden = (s && sections[k].getAttribute("data-status") !== s) ||
          ((g || s) && sections[k].querySelector(".rd-review-item:not([hidden])") === null);
      }
      shown.textContent = "表示中: " + n + "件";
    }
    game = select("ゲーム", "すべてのゲーム", JSON.parse(box.getAttribute("data-games")), apply);
    status = select("状態", "すべての状態", JSON.parse(box.getAttribute("data-statuses")), apply);
    box.appendChild(game.label);
    box.appendChild(status.label);
    box.appendChild(shown);
    box.hidden = false;
    apply();
  }
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(setUp);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
