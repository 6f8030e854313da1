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
