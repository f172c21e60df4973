// The lecture pages' and the course page's script (_output/assets/page.js). Everything works
// without it (answers fold in <details>, links are links); it adds what needs a script: a copy
// button on each code block (copying the code alone: no line numbers, no prompt), the contents
// opened beside the text on a wide screen, keyboard access to boxes that scroll sideways, a
// stepper's lines lit with the step pointed at, and the search across the course's pages.
(function () {
  "use strict";
  var body = document.body;
  var words = body.dataset;

  // ---- copy buttons ----------------------------------------------------------------------------
  function codeText(pre) {
    // innerText leaves out what the stylesheet adds (line numbers are a counter's ::before).
    var code = pre.querySelector("code") || pre;
    return code.innerText.replace(/\n$/, "");
  }

  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      body.appendChild(area);
      area.select();
      var ok = document.execCommand("copy");
      body.removeChild(area);
      ok ? resolve() : reject(new Error("copy refused"));
    });
  }

  document.querySelectorAll("main div.sourceCode").forEach(function (box) {
    var pre = box.querySelector("pre");
    if (!pre) return;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy-code";
    button.textContent = words.copy;
    button.setAttribute("aria-label", words.copyLabel);
    button.addEventListener("click", function () {
      copy(codeText(pre)).then(function () {
        button.textContent = words.copied;
        button.classList.add("done");
        setTimeout(function () { button.textContent = words.copy; button.classList.remove("done"); }, 2000);
      });
    });
    box.classList.add("has-copy");
    box.appendChild(button);
  });

  // ---- contents beside the text on a wide screen -------------------------------------------------
  var toc = document.querySelector(".toc-box");
  var wide = window.matchMedia("(min-width: 1100px)");
  function placeContents() { if (toc && wide.matches) toc.open = true; }
  placeContents();
  if (wide.addEventListener) wide.addEventListener("change", placeContents);

  // ---- the contents mark where the reader is (and keep it in view beside the text) ---------------
  var tocLinks = {};
  document.querySelectorAll(".toc a[href^='#']").forEach(function (a) { tocLinks[a.getAttribute("href").slice(1)] = a; });
  var current = null;
  if (window.IntersectionObserver && toc) {
    var seen = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (!entry.isIntersecting) return;
        var link = tocLinks[entry.target.id];
        if (!link || link === current) return;
        if (current) current.removeAttribute("aria-current");
        link.setAttribute("aria-current", "location");
        current = link;
        if (wide.matches && toc.open) {
          var box = toc.getBoundingClientRect(), at = link.getBoundingClientRect();
          if (at.top < box.top || at.bottom > box.bottom) toc.scrollTop += at.top - box.top - box.height / 3;
        }
      });
    }, { rootMargin: "0px 0px -70% 0px" });
    Object.keys(tocLinks).forEach(function (id) {
      var section = document.getElementById(id);
      if (section) seen.observe(section);
    });
  }

  // ---- boxes that scroll sideways can be scrolled from the keyboard ------------------------------
  function scrollable() {
    document.querySelectorAll("main pre, main .table-box, main .katex-display, main figure").forEach(function (box) {
      if (box.scrollWidth > box.clientWidth + 1) {
        box.setAttribute("tabindex", "0");
      } else {
        box.removeAttribute("tabindex");
      }
    });
  }
  scrollable();
  var resized;
  window.addEventListener("resize", function () { clearTimeout(resized); resized = setTimeout(scrollable, 150); });
  if (document.fonts && document.fonts.ready) document.fonts.ready.then(scrollable);

  // ---- steppers: the lines of the step pointed at ----------------------------------------------------
  function linesOf(spec) {
    var lines = [];
    spec.split(",").forEach(function (part) {
      var range = part.trim().split("-").map(Number);
      for (var n = range[0]; n <= (range[1] || range[0]); n++) lines.push(n);
    });
    return lines;
  }
  document.querySelectorAll(".page-stepper[data-step-lines]").forEach(function (stepper) {
    var specs = stepper.getAttribute("data-step-lines").split("|");
    var lines = stepper.querySelectorAll("pre.numbered code > span");
    var steps = stepper.querySelectorAll(":scope > ol > li");
    steps.forEach(function (step, k) {
      function light(on) {
        step.classList.toggle("lit", on);
        linesOf(specs[k] || "").forEach(function (n) { if (lines[n - 1]) lines[n - 1].classList.toggle("lit", on); });
      }
      step.addEventListener("mouseenter", function () { light(true); });
      step.addEventListener("mouseleave", function () { light(false); });
      step.addEventListener("click", function () { light(!step.classList.contains("lit")); });
    });
  });

  // ---- search -----------------------------------------------------------------------------------------
  var box = document.getElementById("search-box");
  if (!box) return;
  var form = box.closest(".search");
  var results = form.querySelector(".search-results");
  // Result links are relative to the site's root, the folder that holds assets/.
  var root = box.getAttribute("data-index").replace(/assets\/search-index\.js$/, "");
  var found = null;  // the loaded index
  var loading = null;
  form.hidden = false;

  function load() {
    if (loading) return loading;
    loading = new Promise(function (resolve, reject) {
      // The library and the index are scripts (a page opened from disk may not fetch files).
      var index = box.getAttribute("data-index");
      var scripts = [index.replace(/search-index\.js$/, "minisearch.js"), index.replace(/search-index\.js$/, "search.js"), index];
      var next = function () {
        if (!scripts.length) {
          found = window.CourseSearch.load(window.COURSE_SEARCH_INDEX);
          return resolve(found);
        }
        var script = document.createElement("script");
        script.src = scripts.shift();
        script.onload = next;
        script.onerror = reject;
        document.head.appendChild(script);
      };
      next();
    });
    return loading;
  }

  function show(hits) {
    results.textContent = "";
    var query = box.value.trim();
    results.dataset.query = box.value;  // which query the list answers
    if (!query) return;
    if (!hits.length) {
      var none = document.createElement("p");
      none.textContent = words.noResults;
      results.appendChild(none);
      return;
    }
    var list = document.createElement("ol");
    hits.slice(0, 12).forEach(function (hit) {
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = root + hit.id;
      var title = document.createElement("span");
      title.className = "hit-title";
      title.textContent = hit.title;
      var where = document.createElement("span");
      where.className = "hit-where";
      where.textContent = hit.where;
      link.appendChild(title);
      link.appendChild(where);
      item.appendChild(link);
      list.appendChild(item);
    });
    var count = document.createElement("p");
    count.textContent = words.results.replace("{count}", window.CourseSearch.digits(String(hits.length)));
    results.appendChild(count);
    results.appendChild(list);
  }

  var typed;
  box.addEventListener("focus", function () { load(); });
  box.addEventListener("input", function () {
    clearTimeout(typed);
    typed = setTimeout(function () {
      load().then(function () { show(window.CourseSearch.search(found, box.value)); });
    }, 120);
  });
  box.addEventListener("keydown", function (event) {
    if (event.key === "Escape") { box.value = ""; results.textContent = ""; }
    if (event.key === "ArrowDown") {
      var first = results.querySelector("a");
      if (first) { event.preventDefault(); first.focus(); }
    }
  });
  results.addEventListener("keydown", function (event) {
    var links = Array.prototype.slice.call(results.querySelectorAll("a"));
    var at = links.indexOf(document.activeElement);
    if (event.key === "ArrowDown" && at < links.length - 1) { event.preventDefault(); links[at + 1].focus(); }
    if (event.key === "ArrowUp") { event.preventDefault(); (at > 0 ? links[at - 1] : box).focus(); }
    if (event.key === "Escape") { box.focus(); results.textContent = ""; }
  });
})();
