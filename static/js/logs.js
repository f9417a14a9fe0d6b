/* The logs page: with "follow" ticked, the container's last lines and then each new one arrive through
   an EventSource while the tab stays open; unticking, or leaving the page, closes the stream. */
(function () {
  "use strict";

  function follow(box) {
    var output = document.getElementById("log-text");
    var source = null;

    function append(line) {
      output.appendChild(document.createTextNode(line + "\n"));
      output.scrollTop = output.scrollHeight;
    }
    function stop() {
      if (source) source.close();
      source = null;
      box.removeAttribute("data-following");
    }
    function start() {
      stop();
      output.textContent = ""; /* the stream begins with the same tail: shown once, not twice */
      source = new EventSource(box.getAttribute("data-log-follow"));
      box.setAttribute("data-following", "true");
      source.onmessage = function (event) { append(event.data); };
      source.addEventListener("failure", function (event) { append("(" + event.data + ")"); });
      /* The member closed the stream or it idled out: open it again while still ticked. */
      source.addEventListener("end", function () { if (box.checked) start(); else stop(); });
    }
    box.addEventListener("change", function () { if (box.checked) start(); else stop(); });
    window.addEventListener("pagehide", stop);
    if (box.checked) start();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var box = document.querySelector("[data-log-follow]");
    if (box) follow(box);
  });
})();
