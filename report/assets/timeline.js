// rebalsim's interactive timeline: member lanes of one run over virtual
// time on a canvas. Wheel zooms around the pointer, dragging pans, hovering
// names the member, its state and the time, and the disturbance list below
// zooms to the disturbance clicked. Written for this project; no libraries,
// nothing fetched: the data is the JSON in #timeline-data.
(function () {
  "use strict";
  var errors = [];
  window.addEventListener("error", function (e) { errors.push(String(e.message)); });
  var consoleError = console.error;
  console.error = function () {
    errors.push(Array.prototype.join.call(arguments, " "));
    consoleError.apply(console, arguments);
  };

  function init() {
    var holder = document.getElementById("timeline");
    var dataEl = document.getElementById("timeline-data");
    if (!holder || !dataEl) { return null; }
    var data = JSON.parse(dataEl.textContent);
    var canvas = holder.querySelector("canvas");
    var tip = holder.querySelector(".tl-tip");
    var select = holder.querySelector("select");
    var info = holder.querySelector(".tl-view");
    var list = document.getElementById("timeline-disturbances");
    var ctx = canvas.getContext("2d");
    var colours = data.colours.map(function (h) {
      return [parseInt(h.substr(1, 2), 16), parseInt(h.substr(3, 2), 16), parseInt(h.substr(5, 2), 16)];
    });
    var tl = { run: 0, view: [data.start, data.end] };
    var left = 90, right = 10, top = 24, bottom = 28;

    function run() { return data.runs[tl.run]; }
    function plotW() { return canvas.width - left - right; }
    function plotH() { return canvas.height - top - bottom; }
    function xOf(t) { return left + (t - tl.view[0]) / (tl.view[1] - tl.view[0]) * plotW(); }
    function tOf(x) { return tl.view[0] + (x - left) / plotW() * (tl.view[1] - tl.view[0]); }

    // The unit of the time axis, as the static charts choose it.
    function unit(span) {
      if (span > 5 * 3600) { return [3600, "h"]; }
      if (span > 300) { return [60, "min"]; }
      return [1, "s"];
    }
    function fmtTime(t) {
      var u = unit(tl.view[1] - tl.view[0]);
      return (t / u[0]).toFixed(u[0] === 1 ? 3 : 2).replace(/\.?0+$/, "") + " " + u[1];
    }

    // Each pixel column of each row mixes the colours of the states in
    // it, weighted by time, like the static heatmaps: nothing is drawn
    // longer than it lasted.
    function draw() {
      var r = run(), w = plotW(), h = plotH(), rows = r.lanes.length;
      ctx.fillStyle = "#ffffff";
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      var img = ctx.createImageData(w, h);
      var span = (tl.view[1] - tl.view[0]) / w;
      var acc = new Float64Array(w * 4);
      var rowH = h / rows;
      for (var i = 0; i < rows; i++) {
        acc.fill(0);
        var segs = r.lanes[i];
        for (var k = 0; k < segs.length; k += 3) {
          var s = Math.max(segs[k + 1], tl.view[0]), e = Math.min(segs[k + 2], tl.view[1]);
          if (e <= s) { continue; }
          var c = colours[segs[k]];
          var c0 = Math.floor((s - tl.view[0]) / span), c1 = Math.min(Math.floor((e - tl.view[0]) / span), w - 1);
          for (var x = c0; x <= c1; x++) {
            var lo = Math.max(s, tl.view[0] + x * span), hi = Math.min(e, tl.view[0] + (x + 1) * span);
            if (hi <= lo) { continue; }
            var wt = hi - lo;
            acc[x * 4] += wt * c[0]; acc[x * 4 + 1] += wt * c[1]; acc[x * 4 + 2] += wt * c[2]; acc[x * 4 + 3] += wt;
          }
        }
        var y0 = Math.floor(i * rowH), y1 = Math.max(Math.floor((i + 1) * rowH), y0 + 1);
        for (var x2 = 0; x2 < w; x2++) {
          var white = Math.max(span - acc[x2 * 4 + 3], 0) * 255;
          var px = [(acc[x2 * 4] + white) / span, (acc[x2 * 4 + 1] + white) / span, (acc[x2 * 4 + 2] + white) / span];
          for (var y = y0; y < y1 && y < h; y++) {
            var o = (y * w + x2) * 4;
            img.data[o] = px[0]; img.data[o + 1] = px[1]; img.data[o + 2] = px[2]; img.data[o + 3] = 255;
          }
        }
      }
      ctx.putImageData(img, left, top);
      // Disturbances: a tick along the top where each began, at most one
      // per 10 px.
      ctx.fillStyle = "#333333";
      var lastX = -1e9;
      data.disturbances.forEach(function (d) {
        var x = xOf(d.start);
        if (x < left || x > left + w || x - lastX < 10) { return; }
        lastX = x;
        ctx.fillRect(Math.round(x), top - 10, 1.5, 10);
      });
      // Row names, every k-th, and the time axis.
      ctx.font = "12px sans-serif";
      ctx.textBaseline = "middle";
      var every = Math.max(1, Math.ceil(rows / Math.max(1, Math.floor(h / 16))));
      for (var j = 0; j < rows; j += every) {
        ctx.fillText(r.names[j], 4, top + (j + 0.5) * rowH);
      }
      ctx.textBaseline = "top";
      for (var q = 0; q <= 5; q++) {
        var t = tl.view[0] + q / 5 * (tl.view[1] - tl.view[0]);
        var label = fmtTime(t), lx = xOf(t) - ctx.measureText(label).width / 2;
        ctx.fillText(label, Math.min(Math.max(lx, left), canvas.width - right - ctx.measureText(label).width), top + h + 6);
      }
      info.textContent = "showing " + fmtTime(tl.view[0]) + " to " + fmtTime(tl.view[1]) + " of " + r.protocol;
    }

    function setView(a, b) {
      var min = (data.end - data.start) / 1e6 + 1e-6;
      if (b - a < min) { var m = (a + b) / 2; a = m - min / 2; b = m + min / 2; }
      var span = Math.min(b - a, data.end - data.start);
      a = Math.max(data.start, Math.min(a, data.end - span));
      tl.view = [a, a + span];
      draw();
    }

    canvas.addEventListener("wheel", function (e) {
      e.preventDefault();
      var t = tOf(e.offsetX), f = Math.exp(e.deltaY / 500);
      setView(t - (t - tl.view[0]) * f, t + (tl.view[1] - t) * f);
    }, { passive: false });
    var drag = null;
    canvas.addEventListener("mousedown", function (e) { drag = { x: e.clientX, view: tl.view.slice() }; });
    window.addEventListener("mouseup", function () { drag = null; });
    window.addEventListener("mousemove", function (e) {
      if (!drag) { return; }
      var dt = (e.clientX - drag.x) / plotW() * (drag.view[1] - drag.view[0]);
      setView(drag.view[0] - dt, drag.view[1] - dt);
    });
    canvas.addEventListener("mousemove", function (e) {
      var r = run(), row = Math.floor((e.offsetY - top) / plotH() * r.lanes.length), t = tOf(e.offsetX);
      if (row < 0 || row >= r.lanes.length || e.offsetX < left) { tip.hidden = true; return; }
      var segs = r.lanes[row], state = / ownership$/.test(r.protocol) ? "unowned" : "not started";
      for (var k = 0; k < segs.length; k += 3) {
        if (segs[k + 1] <= t && t < segs[k + 2]) { state = data.states[segs[k]]; break; }
      }
      tip.hidden = false;
      tip.textContent = r.names[row] + ": " + state + " at " + fmtTime(t);
      tip.style.left = (e.offsetX + 12) + "px";
      tip.style.top = (e.offsetY + 12) + "px";
    });
    canvas.addEventListener("mouseleave", function () { tip.hidden = true; });
    canvas.addEventListener("dblclick", function () { setView(data.start, data.end); });
    select.addEventListener("change", function () { tl.run = select.selectedIndex; draw(); });
    if (list) {
      Array.prototype.forEach.call(list.querySelectorAll("li"), function (li) {
        li.addEventListener("click", function () {
          var s = parseFloat(li.getAttribute("data-start")), e = parseFloat(li.getAttribute("data-end"));
          var pad = Math.max((e - s) * 2, (data.end - data.start) / 200);
          setView(s - pad, e + pad);
          Array.prototype.forEach.call(list.querySelectorAll("li.on"), function (o) { o.className = ""; });
          li.className = "on";
        });
      });
    }
    draw();
    tl.canvas = canvas; tl.list = list; tl.setView = setView; tl.select = select;
    return tl;
  }

  // #selftest drives the page as a user would and writes what happened
  // into #selftest-result, for the project's browser test to read.
  function selftest(tl) {
    var out = { errors: errors, rendered: false, zoomed: false, panned: false, linked: false };
    if (tl) {
      out.rendered = true;
      var c = tl.canvas, rect = c.getBoundingClientRect();
      var full = tl.view[1] - tl.view[0];
      c.dispatchEvent(new WheelEvent("wheel", { deltaY: -600, clientX: rect.left + c.width / 2, clientY: rect.top + c.height / 2, bubbles: true, cancelable: true }));
      out.zoomed = tl.view[1] - tl.view[0] < full * 0.6;
      var before = tl.view[0];
      c.dispatchEvent(new MouseEvent("mousedown", { clientX: rect.left + 400, clientY: rect.top + 100, bubbles: true }));
      window.dispatchEvent(new MouseEvent("mousemove", { clientX: rect.left + 300, clientY: rect.top + 100, bubbles: true }));
      window.dispatchEvent(new MouseEvent("mouseup", { bubbles: true }));
      out.panned = tl.view[0] > before;
      var li = tl.list && tl.list.querySelector("li");
      if (li) {
        li.click();
        var s = parseFloat(li.getAttribute("data-start"));
        out.linked = tl.view[0] <= s && s <= tl.view[1] && tl.view[1] - tl.view[0] < full;
      } else {
        out.linked = true;
      }
      // Every run and view draws (the ownership views too).
      for (var i = 0; i < tl.select.options.length; i++) {
        tl.select.selectedIndex = i;
        tl.select.dispatchEvent(new Event("change"));
      }
      out.views = tl.select.options.length;
    }
    var pre = document.createElement("pre");
    pre.id = "selftest-result";
    pre.textContent = JSON.stringify(out);
    document.body.appendChild(pre);
  }

  window.addEventListener("load", function () {
    var tl = null;
    try { tl = init(); } catch (e) { errors.push(String(e && e.stack || e)); }
    if (location.hash === "#selftest") { selftest(tl); }
    if (location.hash === "#shot") {
      // For a screenshot of the page's first screen: the timeline first.
      var el = document.getElementById("timeline"), h1 = document.querySelector("h1");
      if (el && h1) { h1.parentNode.insertBefore(el, h1.nextSibling); }
    }
  });
})();
