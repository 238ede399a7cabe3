// SPDX-License-Identifier: GPL-2.0-or-later
// Rectangles {x, y, width, height} in KWin's global logical pixels: the
// surround shield is the screen minus the locked app's windows. Pure logic,
// unit tested in shell/kde/tests/unit.js.

function isEmpty(r) {
    return !(r.width > 0 && r.height > 0);
}

function intersection(a, b) {
    var x = Math.max(a.x, b.x);
    var y = Math.max(a.y, b.y);
    var right = Math.min(a.x + a.width, b.x + b.width);
    var bottom = Math.min(a.y + a.height, b.y + b.height);
    return {x: x, y: y, width: Math.max(0, right - x), height: Math.max(0, bottom - y)};
}

// `r` minus `cut`: up to four disjoint rectangles (bands above and below
// the cut, then the parts left and right of it).
function subtractOne(r, cut) {
    var c = intersection(r, cut);
    if (isEmpty(c))
        return [r];
    var parts = [
        {x: r.x, y: r.y, width: r.width, height: c.y - r.y},
        {x: r.x, y: c.y + c.height, width: r.width, height: r.y + r.height - (c.y + c.height)},
        {x: r.x, y: c.y, width: c.x - r.x, height: c.height},
        {x: c.x + c.width, y: c.y, width: r.x + r.width - (c.x + c.width), height: c.height},
    ];
    return parts.filter(function (p) { return !isEmpty(p); });
}

// The area of `rects` (disjoint) not in any of `cuts`, as disjoint rectangles.
function subtract(rects, cuts) {
    var result = rects.filter(function (r) { return !isEmpty(r); });
    for (var i = 0; i < cuts.length; i++) {
        var next = [];
        for (var j = 0; j < result.length; j++)
            next = next.concat(subtractOne(result[j], cuts[i]));
        result = next;
    }
    return result;
}

// `rects` (which may overlap) as disjoint rectangles covering the same area.
function disjoint(rects) {
    var result = [];
    for (var i = 0; i < rects.length; i++)
        result = result.concat(subtract([rects[i]], result));
    return result;
}

// The shield: `screen` minus the app's windows, where no other window lies
// over them. Disjoint rectangles, merged where two bands line up.
function shieldRects(screen, app, others) {
    var holes = subtract(disjoint(app), others);
    return merge(subtract([screen], holes));
}

// Joins rectangles that share a full edge (fewer windows to make).
function merge(rects) {
    var list = rects.slice();
    var joined = true;
    while (joined) {
        joined = false;
        for (var i = 0; i < list.length && !joined; i++) {
            for (var j = i + 1; j < list.length && !joined; j++) {
                var a = list[i];
                var b = list[j];
                var union = null;
                if (a.x === b.x && a.width === b.width && (a.y + a.height === b.y || b.y + b.height === a.y))
                    union = {x: a.x, y: Math.min(a.y, b.y), width: a.width, height: a.height + b.height};
                else if (a.y === b.y && a.height === b.height && (a.x + a.width === b.x || b.x + b.width === a.x))
                    union = {x: Math.min(a.x, b.x), y: a.y, width: a.width + b.width, height: a.height};
                if (union !== null) {
                    list.splice(j, 1);
                    list[i] = union;
                    joined = true;
                }
            }
        }
    }
    return list;
}

// The total area of disjoint rectangles.
function area(rects) {
    var total = 0;
    for (var i = 0; i < rects.length; i++)
        total += rects[i].width * rects[i].height;
    return total;
}

// Whether the point (x, y) lies in one of `rects`.
function contains(rects, x, y) {
    for (var i = 0; i < rects.length; i++) {
        var r = rects[i];
        if (x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height)
            return true;
    }
    return false;
}

// -- Monitors ---------------------------------------------------------------
// KWin's outputs as rectangles in the same global logical pixels (at scale
// 2 a 2560x1600 panel is 1280x800 here). A person works on one monitor:
// what we show them (the time left, warnings, the time-up message, the
// dialog) goes whole onto the monitor of the locked app, never across the
// seam between two.

// The index in `outputs` of the output that holds `rect` (a window): the
// one with the largest part of it; when it lies on none, the one nearest
// its centre. -1 when there are no outputs.
function outputIndexOf(outputs, rect) {
    var best = -1;
    var bestArea = 0;
    for (var i = 0; i < outputs.length; i++) {
        var part = intersection(outputs[i], rect);
        var a = isEmpty(part) ? 0 : part.width * part.height;
        if (a > bestArea) {
            best = i;
            bestArea = a;
        }
    }
    if (best >= 0 || outputs.length === 0)
        return best;
    var cx = rect.x + rect.width / 2;
    var cy = rect.y + rect.height / 2;
    var nearest = Infinity;
    for (var j = 0; j < outputs.length; j++) {
        var o = outputs[j];
        var dx = Math.max(o.x - cx, 0, cx - (o.x + o.width));
        var dy = Math.max(o.y - cy, 0, cy - (o.y + o.height));
        if (dx * dx + dy * dy < nearest) {
            nearest = dx * dx + dy * dy;
            best = j;
        }
    }
    return best;
}

// The output the person works on: that of the first of `windows` (the
// app's windows, topmost or active first); with none, the first output
// (KWin's primary comes first); with no outputs, `fallback` (the whole
// desktop), so that something is always shown.
function workArea(outputs, windows, fallback) {
    if (outputs.length === 0)
        return fallback;
    for (var i = 0; i < windows.length; i++) {
        if (windows[i] && !isEmpty(windows[i])) {
            var index = outputIndexOf(outputs, windows[i]);
            if (index >= 0)
                return outputs[index];
        }
    }
    return outputs[0];
}

// Where a `width` x `height` window goes in `area`: centred across, and
// down at `fraction` of the free height (1/2: the middle; 1/3: a dialog's
// place). Whole numbers, and never past the area's edges (a message wider
// than its monitor starts at its left edge rather than on the other one).
function placeIn(area, width, height, fraction) {
    var x = area.x + Math.round((area.width - width) / 2);
    var y = area.y + Math.round((area.height - height) * fraction);
    return {
        x: Math.max(area.x, Math.min(x, area.x + area.width - width)),
        y: Math.max(area.y, Math.min(y, area.y + area.height - height)),
        width: width,
        height: height
    };
}

// A `width` x `height` window at the top right of `area`, `margin` in.
function topRightIn(area, width, height, margin) {
    return {x: area.x + area.width - width - margin, y: area.y + margin, width: width, height: height};
}

// A `width` x `height` window centred at the bottom of `area`, `margin` up.
function bottomCentreIn(area, width, height, margin) {
    var placed = placeIn(area, width, height, 1);
    placed.y = Math.max(area.y, area.y + area.height - height - margin);
    return placed;
}

// Whether `inner` lies whole inside `outer`.
function inside(inner, outer) {
    return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.width <= outer.x + outer.width
        && inner.y + inner.height <= outer.y + outer.height;
}
