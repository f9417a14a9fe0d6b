/* Policy editor behaviour: chips, repeatable rows, weight sliders kept in sync with number boxes,
   the live preview request on every change, the review dialog and jumping to a YAML error line. */
(function () {
  "use strict";

  var form;
  var typingTimer = null;
  var changeStartedAt = null;

  function requestPreview(immediate) {
    if (!form || !window.htmx) return;
    if (changeStartedAt === null) changeStartedAt = performance.now();
    window.clearTimeout(typingTimer);
    if (immediate) {
      window.htmx.trigger(form, "preview-now");
    } else {
      typingTimer = window.setTimeout(function () { window.htmx.trigger(form, "preview-now"); }, 250);
    }
  }

  function text(name) { return form ? form.getAttribute("data-text-" + name) || "" : ""; }

  function addChip(field, value) {
    value = (value || "").trim();
    var list = document.getElementById("chips-" + field);
    if (!value || !list) return false;
    var exists = Array.prototype.some.call(list.querySelectorAll("input"), function (i) { return i.value === value; });
    if (exists) return false;
    var chip = document.createElement("span");
    chip.className = "chip chip-removable";
    chip.setAttribute("role", "listitem");
    var hidden = document.createElement("input");
    hidden.type = "hidden"; hidden.name = field; hidden.value = value;
    var label = document.createElement("span");
    label.className = "chip-text"; label.textContent = value;
    var remove = document.createElement("button");
    remove.type = "button"; remove.className = "chip-remove"; remove.setAttribute("data-remove-chip", "");
    remove.setAttribute("aria-label", text("remove") + " " + value);
    remove.textContent = "×";
    chip.appendChild(hidden); chip.appendChild(label); chip.appendChild(remove);
    list.appendChild(chip);
    return true;
  }

  function addRow(kind) {
    var template = document.getElementById("tpl-" + kind);
    var rows = document.getElementById("rows-" + kind);
    if (!template || !rows) return null;
    var row = template.content.firstElementChild.cloneNode(true);
    rows.appendChild(row);
    var first = row.querySelector("input:not([type=hidden]), select");
    if (first) first.focus();
    return row;
  }

  function addWeight(cluster) {
    if (!cluster) return;
    var rows = document.getElementById("rows-w");
    var exists = Array.prototype.some.call(rows.querySelectorAll("[data-weight-label]"), function (l) {
      return l.textContent.trim() === cluster;
    });
    if (exists) return;
    var row = addRow("w");
    row.querySelector("input[name=w_target]").value = JSON.stringify({ clusterNames: [cluster] });
    row.querySelector("[data-weight-label]").textContent = cluster;
    row.querySelectorAll("[data-weight-slider], [data-weight-number]").forEach(function (el) {
      el.setAttribute("aria-label", el.getAttribute("aria-label").trim() + " " + cluster);
    });
    row.querySelector("[data-weight-slider]").focus();
  }

  function syncWeight(source) {
    var row = source.closest("[data-weight-row]");
    if (!row) return;
    var slider = row.querySelector("[data-weight-slider]");
    var number = row.querySelector("[data-weight-number]");
    if (source === slider) {
      number.value = slider.value;
    } else {
      var value = parseInt(number.value, 10);
      if (value > parseInt(slider.max, 10)) slider.max = String(value * 2);
      if (!isNaN(value)) slider.value = String(value);
    }
  }

  function applyVisibility() {
    if (!form) return;
    /* data-show-when="name=value;other=value": shown while every named radio group has that value */
    form.querySelectorAll("[data-show-when]").forEach(function (el) {
      el.hidden = !el.getAttribute("data-show-when").split(";").every(function (condition) {
        var parts = condition.split("=");
        var checked = form.querySelector("input[name='" + parts[0] + "']:checked");
        return checked && checked.value === parts[1];
      });
    });
    var kind = form.querySelector("select[name=kind]");
    var namespace = form.querySelector("input[name=namespace]");
    if (kind && namespace) namespace.disabled = kind.value === "ClusterPropagationPolicy";
  }

  function gotoLine(line) {
    var area = document.getElementById("policy-yaml");
    if (!area) return;
    var lines = area.value.split("\n");
    var start = 0;
    for (var i = 0; i < line - 1 && i < lines.length; i++) start += lines[i].length + 1;
    var end = start + (lines[line - 1] || "").length;
    area.focus();
    area.setSelectionRange(start, end);
    var lineHeight = area.scrollHeight / Math.max(lines.length, 1);
    area.scrollTop = Math.max(0, (line - 3) * lineHeight);
  }

  function onInput(evt) {
    var el = evt.target;
    if (el.matches("[data-workload-select]")) {
      var box = document.getElementById("preview-replicas");
      if (box) box.value = ""; /* the chosen workload's own replica count applies */
      requestPreview(true);
    } else if (el.matches("[data-weight-slider], [data-weight-number]")) {
      syncWeight(el);
      requestPreview(true);
    } else if (el.matches("[data-preview-input], input, select, textarea") && !el.matches("[data-chip-input]")) {
      if (el.type === "radio" || el.tagName === "SELECT") applyVisibility();
      requestPreview(el.type === "radio" || el.tagName === "SELECT" || el.type === "checkbox");
    }
  }

  function onClick(evt) {
    var el = evt.target.closest("button");
    if (!el || !form || !form.contains(el)) return;
    if (el.getAttribute("role") === "tab") window.clearTimeout(typingTimer); /* the switch re-previews */
    if (el.hasAttribute("data-remove-chip")) {
      var chip = el.closest(".chip");
      var list = chip.parentElement;
      var field = list.id.replace("chips-", "");
      chip.remove();
      var input = form.querySelector("[data-chip-input='" + field + "']");
      if (input) input.focus();
      requestPreview(true);
    } else if (el.hasAttribute("data-chip-add")) {
      var source = document.getElementById(el.getAttribute("data-chip-add"));
      if (addChip(source.getAttribute("data-chip-input"), source.value)) { source.value = ""; requestPreview(true); }
      source.focus();
    } else if (el.hasAttribute("data-add-row")) {
      addRow(el.getAttribute("data-add-row"));
    } else if (el.hasAttribute("data-add-weight")) {
      addWeight(document.getElementById(el.getAttribute("data-add-weight")).value);
      requestPreview(true);
    } else if (el.hasAttribute("data-remove-row")) {
      var row = el.closest("[data-row]");
      var next = row.nextElementSibling || row.previousElementSibling;
      row.remove();
      var focusTarget = next ? next.querySelector("input:not([type=hidden]), select") : null;
      if (focusTarget) focusTarget.focus();
      requestPreview(true);
    } else if (el.hasAttribute("data-goto-line")) {
      gotoLine(parseInt(el.getAttribute("data-goto-line"), 10));
    }
  }

  function onKeydown(evt) {
    var el = evt.target;
    if (el.matches && el.matches("[data-chip-input]")) {
      if (evt.key === "Enter") {
        evt.preventDefault();
        if (addChip(el.getAttribute("data-chip-input"), el.value)) { el.value = ""; requestPreview(true); }
      } else if (evt.key === "Backspace" && !el.value) {
        var list = document.getElementById("chips-" + el.getAttribute("data-chip-input"));
        var last = list && list.lastElementChild;
        if (last) { last.remove(); requestPreview(true); }
      }
    } else if (el.matches && el.matches(".chip-remove") && (evt.key === "Delete" || evt.key === "Backspace")) {
      evt.preventDefault();
      el.click();
    } else if (el.matches && el.matches("[role=tab]") && (evt.key === "ArrowRight" || evt.key === "ArrowLeft")) {
      var other = el.parentElement.querySelector("[role=tab][aria-selected=false]");
      if (other) { other.focus(); other.click(); }
    } else if (el.tagName === "INPUT" && el.type !== "submit" && evt.key === "Enter" && form && form.contains(el)) {
      evt.preventDefault(); /* Enter in a field must not submit the draft form */
    }
  }

  /* Redraw the persistent split chart from the figure the preview brought (plotly diffs it in place). */
  function redrawChart() {
    var chart = document.getElementById("split-chart");
    if (!chart) return;
    var hasFigure = !!document.getElementById("split-figure");
    chart.hidden = !hasFigure;
    if (hasFigure && window.karmadaUi) window.karmadaUi.drawFigures(chart.parentElement);
  }

  /* The preview response carries every field's errors as JSON; write them into the slots beside the fields. */
  function showFieldErrors() {
    var data = document.getElementById("field-errors");
    if (!data) return;
    var slots;
    try { slots = JSON.parse(data.textContent); } catch (err) { return; }
    Object.keys(slots).forEach(function (slot) {
      var target = document.getElementById("err-" + slot);
      if (!target) return;
      var messages = slots[slot];
      if (target.childElementCount === 0 && messages.length === 0) return;
      target.textContent = "";
      messages.forEach(function (message) {
        var line = document.createElement("div");
        line.textContent = message;
        target.appendChild(line);
      });
    });
  }

  function recordLatency() {
    var preview = document.getElementById("preview");
    if (!preview || changeStartedAt === null) return;
    var started = changeStartedAt;
    changeStartedAt = null;
    window.requestAnimationFrame(function () {
      var ms = Math.round(performance.now() - started);
      preview.setAttribute("data-latency-ms", String(ms));
      var timing = document.getElementById("preview-timing");
      if (timing) timing.textContent = text("updated").replace("%s", ms);
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    form = document.getElementById("policy-editor");
    if (!form) return;
    form.addEventListener("input", onInput);
    form.addEventListener("click", onClick);
    form.addEventListener("keydown", onKeydown);
    applyVisibility();
    document.body.addEventListener("htmx:afterSettle", function (evt) {
      if (evt.target && evt.target.id === "preview") {
        redrawChart();
        showFieldErrors();
        var area = document.getElementById("policy-yaml");
        if (area) area.setAttribute("aria-invalid", document.querySelector("#yaml-errors li") ? "true" : "false");
        recordLatency();
        var box = document.getElementById("preview-replicas");
        var summary = document.getElementById("preview-summary");
        if (box && !box.value && summary) box.value = summary.getAttribute("data-replicas") || "";
      }
      if (evt.target && evt.target.id === "editor-body") { applyVisibility(); requestPreview(true); }
      if (evt.target && evt.target.id === "review-body") {
        var dialog = document.getElementById("review-dialog");
        if (dialog && !dialog.open) dialog.showModal();
        var apply = document.getElementById("apply-button");
        if (apply) apply.focus();
      }
    });
    document.body.addEventListener("htmx:responseError", function (evt) {
      var target = evt.detail.target;
      if (!target) return;
      if (target.id === "review-body") {
        target.innerHTML = evt.detail.xhr.responseText;
        var dialog = document.getElementById("review-dialog");
        if (dialog && !dialog.open) dialog.showModal();
      } else if (target.id === "save-status") {
        target.textContent = evt.detail.xhr.responseText;
        target.className = "field-error";
      }
    });
  });
})();
