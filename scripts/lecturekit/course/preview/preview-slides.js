/* The preview's livereload plugin: when the server rewrote only some slides of this deck
   ("lecture-preview-slides:<build>:<deck path>:<slide ids>"), those slides are replaced in place, made as
   the deck makes them when it loads (code highlighted and stepped, maths typeset), and the deck
   stays on the slide and step the author is looking at. Anything else reloads the page. */
window.LiveReloadPluginLectureSlides = (function () {
  var PREFIX = "lecture-preview-slides:";

  function typeset(root) {
    if (!window.katex) return;
    root.querySelectorAll("span.math").forEach(function (el) {
      var tex = el.firstChild;
      if (!tex || tex.nodeType !== Node.TEXT_NODE) return;
      katex.render(tex.data, el, { displayMode: el.classList.contains("display"), throwOnError: false,
                                   macros: [], fleqn: false });
    });
  }

  function highlight(root) {
    var plugin = window.Reveal && Reveal.getPlugin && Reveal.getPlugin("highlight");
    root.querySelectorAll("code.language-nohighlight").forEach(function (code) {
      code.classList.replace("language-nohighlight", "nohighlight");
    });
    root.querySelectorAll("pre code").forEach(function (block) {
      block.parentNode.classList.add("code-wrapper");
      if (!block.hasAttribute("data-noescape")) {
        block.innerHTML = block.innerHTML.replace(/</g, "&lt;").replace(/>/g, "&gt;");
      }
      if (plugin) plugin.highlightBlock(block);
    });
  }

  // reveal.js's own state on a slide element (where it is, whether it is shown).
  var STATE = ["present", "past", "future", "stack"];

  function replace(old, fresh) {
    var state = STATE.filter(function (c) { return old.classList.contains(c); });
    var kept = {};
    ["style", "hidden", "aria-hidden", "data-index-h", "data-index-v", "data-previous-indexv"].forEach(function (a) {
      if (old.hasAttribute(a)) kept[a] = old.getAttribute(a);
    });
    Array.from(old.attributes).forEach(function (a) { old.removeAttribute(a.name); });
    Array.from(fresh.attributes).forEach(function (a) { old.setAttribute(a.name, a.value); });
    Object.keys(kept).forEach(function (a) { old.setAttribute(a, kept[a]); });
    state.forEach(function (c) { old.classList.add(c); });
    old.innerHTML = fresh.innerHTML;
    highlight(old);
    typeset(old);
  }

  function Plugin(window, host) { this.window = window; this.host = host; }
  Plugin.identifier = "lecture-slides";
  Plugin.version = "1.0";
  Plugin.prototype.reload = function (path) {
    if (path.indexOf(PREFIX) !== 0) return false;
    // The page may hold two livereload clients (the deck's own and the one livereload adds); the
    // second copy of a message is the first's.
    if (window.lecturePreviewLast === path && Date.now() - window.lecturePreviewAt < 2000) return true;
    window.lecturePreviewLast = path;
    window.lecturePreviewAt = Date.now();
    var rest = path.slice(PREFIX.length);
    rest = rest.slice(rest.indexOf(":") + 1);  // the build's number: each build's message differs
    var cut = rest.lastIndexOf(":");
    var deck = rest.slice(0, cut), ids = rest.slice(cut + 1).split(" ").filter(Boolean);
    if (decodeURIComponent(location.pathname) !== deck) return true;  // another lecture's deck changed
    fetch(location.pathname, { cache: "no-store" }).then(function (response) {
      if (!response.ok) throw new Error(response.status);
      return response.text();
    }).then(function (text) {
      var page = new DOMParser().parseFromString(text, "text/html");
      var pairs = ids.map(function (id) { return [document.getElementById(id), page.getElementById(id)]; });
      if (!window.Reveal || !Reveal.isReady() || pairs.some(function (p) { return !p[0] || !p[1]; })) {
        location.reload();
        return;
      }
      var at = Reveal.getIndices();
      pairs.forEach(function (p) { replace(p[0], p[1]); });
      Reveal.sync();
      Reveal.slide(at.h, at.v, at.f);
      window.dispatchEvent(new CustomEvent("lecture-preview-slides", { detail: ids }));
    }).catch(function () { location.reload(); });
    return true;
  };
  return Plugin;
})();
