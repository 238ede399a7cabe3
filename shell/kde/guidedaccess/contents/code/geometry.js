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
