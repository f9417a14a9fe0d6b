/* Page behaviour bound by data attributes (the CSP allows no inline handlers): figures drawn from
   json_script data, polling while the tab is visible, bar widths, confirmations and small form helpers. */
(function () {
  "use strict";

  /* [data-plotly="#id"]: the figure is the JSON of the json_script element with that id. */
  function drawFigures(root) {
    if (!window.Plotly) return;
    root.querySelectorAll("[data-plotly]").forEach(function (el) {
      var source = document.getElementById(el.getAttribute("data-plotly").replace(/^#/, ""));
      var figure;
      try {
        figure = JSON.parse(source.textContent);
      } catch (err) {
        el.textContent = "Chart data could not be read.";
        return;
      }
      var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
      var layout = Object.assign({}, figure.layout || {});
      if (dark) {
        layout.paper_bgcolor = "rgba(0,0,0,0)";
        layout.plot_bgcolor = "rgba(0,0,0,0)";
        layout.font = Object.assign({}, layout.font || {}, { color: "#d8dee9" });
      }
      window.Plotly.react(el, figure.data || [], layout, { responsive: true, displaylogo: false });
      el.setAttribute("data-drawn", "true");
    });
  }

  /* [data-fill="61"]: a bar's filled share in percent, set through the CSSOM (style attributes are refused). */
  function fillBars(root) {
    root.querySelectorAll("[data-fill]").forEach(function (el) {
      var share = Math.max(0, Math.min(100, parseFloat(el.getAttribute("data-fill")) || 0));
      el.style.width = share + "%";
    });
  }

  /* Polling: an element with hx-trigger="poll" and data-poll="10s" gets a "poll" event every 10 s while
     the tab is visible, none while it is hidden, and one at once when it shows again if one is due. */
  var POLL_TICK_MS = 1000;
  var lastPolled = new WeakMap();

  function pollInterval(el) {
    var match = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec((el.getAttribute("data-poll") || "").trim());
    if (!match) return null;
    return parseFloat(match[1]) * { ms: 1, s: 1000, m: 60000 }[match[2]];
  }

  function pollDue() {
    if (document.visibilityState !== "visible") return;
    var now = Date.now();
    document.querySelectorAll("[data-poll]").forEach(function (el) {
      var interval = pollInterval(el);
      if (interval === null) return;
      var last = lastPolled.get(el);
      if (last === undefined) {
        lastPolled.set(el, now); /* new on the page (or swapped in): its content is fresh */
      } else if (now - last >= interval) {
        lastPolled.set(el, now);
        el.dispatchEvent(new CustomEvent("poll")); /* not bubbling: a polled ancestor keeps its own pace */
      }
    });
  }

  var pollTimer = null;
  function followVisibility() {
    if (document.visibilityState === "visible") {
      pollDue(); /* catch up once with whatever fell due while hidden */
      if (pollTimer === null) pollTimer = window.setInterval(pollDue, POLL_TICK_MS);
    } else if (pollTimer !== null) {
      window.clearInterval(pollTimer);
      pollTimer = null;
    }
  }

  function onChange(evt) {
    var el = evt.target;
    if (el.matches && el.matches("[data-submit-on-change]") && el.form) el.form.requestSubmit();
  }

  function onClick(evt) {
    var el = evt.target.closest && evt.target.closest("[data-remove-closest]");
    if (!el) return;
    var doomed = el.closest(el.getAttribute("data-remove-closest"));
    if (doomed) doomed.remove();
  }

  function onSubmit(evt) {
    var form = evt.target;
    if (form.matches && form.matches("form[data-confirm]") && !window.confirm(form.getAttribute("data-confirm"))) {
      evt.preventDefault();
    }
  }

  function settle(root) {
    drawFigures(root);
    fillBars(root);
  }

  window.karmadaUi = { drawFigures: drawFigures };
  document.addEventListener("change", onChange);
  document.addEventListener("click", onClick);
  document.addEventListener("submit", onSubmit, true); /* capture: before any handler sends the form */
  document.addEventListener("visibilitychange", followVisibility);
  document.addEventListener("DOMContentLoaded", function () {
    settle(document);
    followVisibility();
  });
  document.addEventListener("htmx:afterSettle", function (evt) { settle(evt.target); });
})();
