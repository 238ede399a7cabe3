// SPDX-License-Identifier: GPL-2.0-or-later
// Unit tests of the extension's logic that needs no shell, in plain gjs:
//
//     gjs -m shell/gnome/tests/unit.js
//
// Prints one line per test and "N passed, N failed"; exits 1 on a failure.
import Gio from 'gi://Gio';
import Gtk from 'gi://Gtk?version=3.0';

import {bindingAllowed, OWN_WINDOW_BINDINGS, VOLUME_KEYSYMS} from '../guided-access@guidedaccess.org/lib/keybindingPolicy.js';
import {RelaunchBudget} from '../guided-access@guidedaccess.org/lib/relaunchBudget.js';
import {Overrides} from '../guided-access@guidedaccess.org/lib/overrides.js';
import * as geometry from '../guided-access@guidedaccess.org/lib/regionGeometry.js';
import {choicesFrom, startOptions, splitTime, joinTime, SYSTEM_RESTRICTIONS} from '../guided-access@guidedaccess.org/lib/sheetOptions.js';
import GLib from 'gi://GLib';

const results = [];

function test(name, body) {
    try {
        const detail = body();
        results.push(true);
        print(`PASS ${name}${detail ? `: ${detail}` : ''}`);
    } catch (error) {
        results.push(false);
        print(`FAIL ${name}: ${error.message}`);
    }
}

function expect(condition, message) {
    if (!condition)
        throw new Error(message);
}

// Every keybinding the desktop declares: mutter's, the window manager's and
// the shell's schemas (bindings by key name), and gnome-settings-daemon's
// media keys (external grabs, by the keysym of each default accelerator).
const BINDING_SCHEMAS = [
    'org.gnome.desktop.wm.keybindings', 'org.gnome.mutter.keybindings',
    'org.gnome.mutter.wayland.keybindings', 'org.gnome.shell.keybindings',
];
const MEDIA_KEYS_SCHEMA = 'org.gnome.settings-daemon.plugins.media-keys';

function installedSchema(id) {
    return Gio.SettingsSchemaSource.get_default().lookup(id, true);
}

function installedBindings() {
    return BINDING_SCHEMAS.map(installedSchema).filter(schema => schema !== null)
        .flatMap(schema => schema.list_keys().filter(key =>
            schema.get_key(key).get_value_type().dup_string() === 'as'));
}

// [key, keysym] of each media key's default accelerators.
function mediaKeys() {
    const schema = installedSchema(MEDIA_KEYS_SCHEMA);
    if (schema === null)
        return [];
    return schema.list_keys().flatMap(key => {
        const value = schema.get_key(key).get_default_value();
        const accelerators = value.get_type_string() === 'as' ? value.deepUnpack()
            : value.get_type_string() === 's' ? [value.deepUnpack()] : [];
        return accelerators.map(accelerator => [key, Gtk.accelerator_parse(accelerator)[0]])
            .filter(([, keysym]) => keysym !== 0);
    });
}

const OPEN = {endShortcut: 'end-shortcut', appSwitching: true, volumeButtons: true};
const DENIED = {endShortcut: 'end-shortcut', appSwitching: false, volumeButtons: false};

test('every installed keybinding is blocked but the own-window ones and the end shortcut', () => {
    const bindings = installedBindings();
    expect(bindings.length > 100, `only ${bindings.length} bindings found in ${BINDING_SCHEMAS.join(', ')}`);
    const passing = bindings.filter(name => bindingAllowed(name, 0, OPEN));
    expect(passing.every(name => OWN_WINDOW_BINDINGS.includes(name)), `also allowed: ${passing}`);
    for (const name of ['switch-to-session-3', 'activate-window-menu', 'show-screenshot-ui', 'toggle-message-tray',
        'open-application-menu', 'panel-run-dialog', 'minimize', 'close',
        'move-to-workspace-right', 'switch-to-workspace-right', 'begin-move', 'toggle-fullscreen']) {
        expect(bindings.includes(name), `${name} is not in the installed schemas`);
        expect(!bindingAllowed(name, 0, OPEN), `${name} is allowed`);
    }
    expect(bindingAllowed('end-shortcut', 0, DENIED), 'the end shortcut is blocked');
    expect(bindingAllowed('overlay-key', 0, OPEN) === false, 'the overlay key (Super) is allowed');
    return `${bindings.length - passing.length} of ${bindings.length} blocked; allowed: ${passing.join(', ')}`;
});

test('app-switching deny blocks switching between the app\'s own windows', () => {
    for (const name of OWN_WINDOW_BINDINGS)
        expect(!bindingAllowed(name, 0, DENIED), `${name} allowed with app-switching denied`);
});

test('of the media keys (external grabs), only the volume keys pass, and not with volume-buttons denied', () => {
    const keys = mediaKeys();
    expect(keys.length > 10, `only ${keys.length} media key accelerators found`);
    const passing = keys.filter(([, keysym]) => bindingAllowed('external-grab-7', keysym, OPEN)).map(([key]) => key);
    expect(passing.length > 0 && passing.every(key => key.startsWith('volume') || key.startsWith('mic-mute')),
        `allowed: ${passing}`);
    for (const key of ['logout', 'screensaver', 'terminal', 'www', 'control-center', 'home', 'search']) {
        const entry = keys.find(([name]) => name === key);
        if (entry !== undefined)
            expect(!bindingAllowed('external-grab-7', entry[1], OPEN), `${key} allowed`);
    }
    expect(!keys.some(([, keysym]) => bindingAllowed('external-grab-7', keysym, DENIED)), 'a key passed with volume-buttons denied');
    expect(VOLUME_KEYSYMS.every(keysym => !bindingAllowed('switch-to-session-1', keysym, OPEN)),
        'a volume keysym lets a non-external binding through');
    return `${keys.length - passing.length} of ${keys.length} accelerators blocked; allowed: ${[...new Set(passing)].join(', ')}`;
});

test('the relaunch budget allows 3 launches in any minute, a new session all 3 again', () => {
    const budget = new RelaunchBudget();
    const s = 1000 * 1000;
    expect([0, 10, 20].every(t => budget.take(t * s)), 'the first three were refused');
    expect(!budget.take(30 * s), 'a fourth within the minute passed');
    expect(!budget.take(59.9 * s), 'a fourth before the first left the minute passed');
    expect(budget.take(60 * s), 'refused once the first launch is a minute old');
    expect(!budget.take(61 * s), 'a second one passed while two of the last minute remain');
    budget.reset();
    expect([62, 63, 64].every(t => budget.take(t * s)), 'reset did not give the budget back');
});

test('Overrides puts back own properties, shadowed methods and set values, newest first', () => {
    class Base {
        method() {
            return 'base';
        }
    }
    const object = new Base();
    object.own = 'own';
    object.value = 1;
    const overrides = new Overrides();
    overrides.replace(object, 'method', () => 'shadow');
    overrides.replace(object, 'own', 'changed');
    overrides.set(object, 'value', 2);
    overrides.set(object, 'value', 3);
    const order = [];
    overrides.defer(() => order.push('first'));
    overrides.defer(() => order.push('second'));
    expect(object.method() === 'shadow' && object.own === 'changed' && object.value === 3, 'not applied');
    overrides.restore();
    expect(object.method() === 'base' && !Object.prototype.hasOwnProperty.call(object, 'method'), 'method not restored');
    expect(object.own === 'own' && object.value === 1, `values not restored: ${object.own}, ${object.value}`);
    expect(order.join() === 'second,first', `undone in order ${order}`);
    expect(overrides.empty, 'not empty after restore');
});

test('the preview maps drawn regions to stage pixels and back, on a second monitor too', () => {
    const monitor = {x: 1920, y: 0, width: 1280, height: 800};
    const view = geometry.fitView(monitor, 700, 500);
    expect(view.scale === 700 / 1280 && view.width === 700 && view.height === 438, `view ${JSON.stringify(view)}`);
    const drawn = geometry.dragRect(view, 350, 219, 35, 21.875); // dragged up and left
    const stage = geometry.toStage(view, drawn);
    expect(JSON.stringify(stage) === JSON.stringify({x: 1984, y: 40, width: 576, height: 360}), `stage ${JSON.stringify(stage)}`);
    const back = geometry.toStage(view, geometry.toView(view, stage));
    expect(JSON.stringify(back) === JSON.stringify(stage), `round trip ${JSON.stringify(back)}`);
    const clamped = geometry.dragRect(view, -50, -50, 2000, 2000);
    expect(clamped.x === 0 && clamped.width === view.width && clamped.height === view.height, 'a drag past the edge is not clamped');
});

test('moving and resizing keep a region inside the preview and at least MIN_REGION', () => {
    const view = {width: 400, height: 300};
    const rect = {x: 100, y: 100, width: 50, height: 40};
    const far = geometry.moved(view, rect, 1000, -1000);
    expect(far.x === 350 && far.y === 0 && far.width === 50, `moved ${JSON.stringify(far)}`);
    const shrunk = geometry.resized(view, rect, 'bottom-right', -500, -500);
    expect(shrunk.width === geometry.MIN_REGION && shrunk.height === geometry.MIN_REGION && shrunk.x === 100, `shrunk ${JSON.stringify(shrunk)}`);
    const grown = geometry.resized(view, rect, 'top-left', -500, 20);
    expect(grown.x === 0 && grown.width === 150 && grown.y === 120 && grown.height === 20, `grown ${JSON.stringify(grown)}`);
    expect(!geometry.bigEnough({width: 3, height: 50}), 'a click counts as a region');
});

test('the presentation decides where the preview shows the window', () => {
    const frame = {x: 10, y: 20, width: 600, height: 400};
    const work = {x: 0, y: 32, width: 1280, height: 768};
    const monitor = {x: 0, y: 0, width: 1280, height: 800};
    expect(JSON.stringify(geometry.presentedRect('as-is', frame, work, monitor)) === JSON.stringify(frame), 'as-is moved');
    expect(geometry.presentedRect('maximized', frame, work, monitor).y === 32, 'maximized is not the work area');
    expect(geometry.presentedRect('fullscreen', frame, work, monitor).height === 800, 'full screen is not the monitor');
});

test('the sheet opens with the last options, else the defaults, and Start gets them all', () => {
    const rows = [{identifier: 'org.example.app.chat', state: 'allow'}, {identifier: 'org.example.app.buy', state: 'deny'}];
    const fresh = choicesFrom({}, {autoLock: -1}, rows);
    expect(SYSTEM_RESTRICTIONS.every(([name, state]) => fresh.system[name] === state), 'defaults not applied');
    expect(fresh.app['org.example.app.chat'] === 'allow' && fresh.app['org.example.app.buy'] === 'deny', 'app rows not from List');
    expect(fresh.timeLimit === 0 && fresh.presentation === 'as-is' && fresh.autoLock === -1 && fresh.regions.length === 0, 'fresh choice');
    const last = {
        'disabled-regions': [[1, 2, 30, 40]], 'system-restrictions': {keyboards: 'deny'},
        'restrictions': {'org.example.app.chat': 'deny', 'org.example.gone.x': 'deny'},
        'time-limit': 5400, 'presentation': 'fullscreen', 'auto-lock': 0,
    };
    const again = choicesFrom(last, {autoLock: 300}, rows);
    expect(again.system.keyboards === 'deny' && again.system['sleep-wake-button'] === 'deny', 'system restrictions');
    expect(again.app['org.example.app.chat'] === 'deny' && !('org.example.gone.x' in again.app), 'app restrictions');
    expect(again.regions[0].width === 30 && again.timeLimit === 5400 && again.presentation === 'fullscreen' && again.autoLock === 0, 'the rest');
    const options = startOptions(GLib, again);
    const unpacked = Object.fromEntries(Object.entries(options).map(([k, v]) => [k, v.recursiveUnpack()]));
    expect(unpacked.interactive === true && unpacked['time-limit'] === 5400 && unpacked['auto-lock'] === 0, JSON.stringify(unpacked));
    expect(options['disabled-regions'].get_type_string() === 'a(iiii)' && options['auto-lock'].get_type_string() === 'x', 'types');
    expect(!('time-limit' in startOptions(GLib, fresh)) && !('disabled-regions' in startOptions(GLib, fresh)), 'empty options sent');
    const {hours, minutes} = splitTime(5400);
    expect(hours === 1 && minutes === 30 && joinTime(hours, minutes) === 5400, 'time split');
});

const failed = results.filter(ok => !ok).length;
print(`${results.length - failed} passed, ${failed} failed`);
if (failed > 0)
    imports.system.exit(1);
