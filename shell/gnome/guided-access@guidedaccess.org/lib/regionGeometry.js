// SPDX-License-Identifier: GPL-2.0-or-later
// The arithmetic of the start sheet's preview, kept apart from the shell so
// that plain gjs can test it (tests/unit.js). A rectangle is {x, y, width,
// height}; "stage" rectangles are in the shell's global stage coordinates,
// which is what DisabledRegions holds; "view" rectangles are in the
// preview's own coordinates, the monitor scaled down by `scale`.

import {PRESENTATION} from '../common/contract.js';

// Smallest region, in view pixels, a drag or a resize can make.
export const MIN_REGION = 12;

// Where a window will be shown for `presentation` ('as-is', 'maximized' or
// 'fullscreen'): its frame today, the work area, or the whole monitor.
export function presentedRect(presentation, frame, workArea, monitor) {
    if (presentation === PRESENTATION.fullscreen)
        return {...monitor};
    if (presentation === PRESENTATION.maximized)
        return {...workArea};
    return {...frame};
}

// The view of `monitor` that fits inside width × height, keeping its shape.
export function fitView(monitor, width, height) {
    const scale = Math.min(width / monitor.width, height / monitor.height);
    return {
        scale,
        originX: monitor.x, originY: monitor.y,
        width: Math.round(monitor.width * scale), height: Math.round(monitor.height * scale),
    };
}

export function toView(view, rect) {
    return {
        x: (rect.x - view.originX) * view.scale, y: (rect.y - view.originY) * view.scale,
        width: rect.width * view.scale, height: rect.height * view.scale,
    };
}

// Whole stage pixels, as DisabledRegions holds them.
export function toStage(view, rect) {
    const left = Math.round(view.originX + rect.x / view.scale);
    const top = Math.round(view.originY + rect.y / view.scale);
    const right = Math.round(view.originX + (rect.x + rect.width) / view.scale);
    const bottom = Math.round(view.originY + (rect.y + rect.height) / view.scale);
    return {x: left, y: top, width: right - left, height: bottom - top};
}

// The rectangle a drag from (x0, y0) to (x1, y1) spans, inside the view.
export function dragRect(view, x0, y0, x1, y1) {
    const clampX = x => Math.min(Math.max(x, 0), view.width);
    const clampY = y => Math.min(Math.max(y, 0), view.height);
    const [left, right] = [clampX(Math.min(x0, x1)), clampX(Math.max(x0, x1))];
    const [top, bottom] = [clampY(Math.min(y0, y1)), clampY(Math.max(y0, y1))];
    return {x: left, y: top, width: right - left, height: bottom - top};
}

// `rect` moved by (dx, dy), kept whole inside the view.
export function moved(view, rect, dx, dy) {
    return {
        ...rect,
        x: Math.min(Math.max(rect.x + dx, 0), view.width - rect.width),
        y: Math.min(Math.max(rect.y + dy, 0), view.height - rect.height),
    };
}

// `rect` with `corner` ('top-left', 'top-right', 'bottom-left' or
// 'bottom-right') dragged by (dx, dy); the opposite corner stays, and the
// rectangle never gets smaller than MIN_REGION or leaves the view.
export function resized(view, rect, corner, dx, dy) {
    let left = rect.x, top = rect.y, right = rect.x + rect.width, bottom = rect.y + rect.height;
    if (corner.endsWith('left'))
        left = Math.min(Math.max(left + dx, 0), right - MIN_REGION);
    else
        right = Math.max(Math.min(right + dx, view.width), left + MIN_REGION);
    if (corner.startsWith('top'))
        top = Math.min(Math.max(top + dy, 0), bottom - MIN_REGION);
    else
        bottom = Math.max(Math.min(bottom + dy, view.height), top + MIN_REGION);
    return {x: left, y: top, width: right - left, height: bottom - top};
}

// `rect` carried along with the window it was drawn on, from where the
// window was shown (`from`) to where it is shown now (`to`): the same part
// of the window, scaled as the preview scales the window, cut to the view
// (null when nothing of it is left inside).
export function carried(view, rect, from, to) {
    const kx = to.width / from.width, ky = to.height / from.height;
    const left = Math.max(0, to.x + (rect.x - from.x) * kx);
    const top = Math.max(0, to.y + (rect.y - from.y) * ky);
    const right = Math.min(view.width, to.x + (rect.x + rect.width - from.x) * kx);
    const bottom = Math.min(view.height, to.y + (rect.y + rect.height - from.y) * ky);
    if (right - left < 1 || bottom - top < 1)
        return null;
    return {x: left, y: top, width: right - left, height: bottom - top};
}

export function bigEnough(rect) {
    return rect.width >= MIN_REGION && rect.height >= MIN_REGION;
}
