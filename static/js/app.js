/* Draws every [data-plotly] figure on load and after each htmx swap; figures come from plotly.py as JSON. */
(function () {
  "use strict";

  function drawFigures(root) {
    if (!window.Plotly) return;
    root.querySelectorAll("[data-plotly]").forEach(function (el) {
      var source = el.getAttribute("data-plotly");
      var figure;
      try {
        figure = JSON.parse(source.charAt(0) === "#" ? document.querySelector(source).textContent : source);
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

  window.karmadaUi = { drawFigures: drawFigures };
  document.addEventListener("DOMContentLoaded", function () { drawFigures(document); });
  document.addEventListener("htmx:afterSettle", function (evt) { drawFigures(evt.target); });
})();
