// SPDX-License-Identifier: GPL-2.0-or-later
// Unit tests of the extension's logic that needs no shell, in plain gjs:
//
//     gjs -m shell/gnome/tests/unit.js
//
// Prints one line per test and "N passed, N failed"; exits 1 on a failure.
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Gtk from 'gi://Gtk?version=3.0';

import {bindingAllowed, OWN_WINDOW_BINDINGS, VOLUME_KEYSYMS} from '../guided-access@guidedaccess.org/lib/keybindingPolicy.js';
import {RelaunchBudget} from '../guided-access@guidedaccess.org/lib/relaunchBudget.js';
import {Overrides} from '../guided-access@guidedaccess.org/lib/overrides.js';
import * as geometry from '../guided-access@guidedaccess.org/lib/regionGeometry.js';
import {choicesFrom, startOptions, splitTime, joinTime, SYSTEM_RESTRICTIONS} from '../guided-access@guidedaccess.org/lib/sheetOptions.js';
import {autoLockChoices, checkShortcut, restrictionsByApp} from '../guided-access@guidedaccess.org/lib/settingsModel.js';
import {SOUND_KEY, SPEECH_KEY, THEME_SOUND, TimeAlerts, spokenTimeLeft} from '../guided-access@guidedaccess.org/lib/timeAlerts.js';

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

const gettext = {_: text => text, ngettext: (one, many, n) => (n === 1 ? one : many)};

test('display auto-lock choices: the desktop\'s own, never, durations, and an unlisted current value kept', () => {
    const choices = autoLockChoices(-1, gettext);
    expect(choices[0].seconds === -1 && choices[0].label === 'The desktop’s own', `first is ${JSON.stringify(choices[0])}`);
    expect(choices[1].seconds === 0 && choices[1].label === 'Never', `second is ${JSON.stringify(choices[1])}`);
    expect(choices.some(c => c.seconds === 300 && c.label === 'After 5 minutes'), 'no 5 minutes');
    expect(choices.some(c => c.seconds === 60 && c.label === 'After 1 minute'), 'no 1 minute (singular)');
    const odd = autoLockChoices(45, gettext);
    expect(odd.length === choices.length + 1 && odd.some(c => c.seconds === 45 && c.label === 'After 45 seconds'),
        'a current value of 45 s is not offered');
    const seconds = odd.map(c => c.seconds);
    expect(seconds.every((value, i) => i === 0 || seconds[i - 1] < value), `not in order: ${seconds}`);
    return choices.map(c => c.label).join(', ');
});

test('restrictions are grouped by app, each app and its restrictions in a stable order', () => {
    const rows = [
        ['org.example.b.share', 'Share', 'Send', 'deny', 'org.example.B', true],
        ['org.example.a.buy', 'Buy', 'Pay', 'allow', 'org.example.A', false],
        ['org.example.b.buy', 'Buy', 'Pay', 'allow', 'org.example.B', true],
    ];
    const apps = restrictionsByApp(rows);
    expect(apps.map(a => a.app).join() === 'org.example.A,org.example.B', `apps ${apps.map(a => a.app)}`);
    const b = apps[1].restrictions;
    expect(b.map(r => r.identifier).join() === 'org.example.b.buy,org.example.b.share', `order ${b.map(r => r.identifier)}`);
    expect(b[0].allowed && !b[1].allowed, 'deny not read as off');
    expect(apps[0].restrictions[0].registered === false && b[0].registered === true, 'registered lost');
    expect(restrictionsByApp([]).length === 0, 'no rows gave apps');
});

test('a typed shortcut needs a key and a modifier other than Shift; it is stored in GTK\'s form', () => {
    // GTK 4's accelerator_parse ([ok, keyval, modifiers]) for a few inputs;
    // GTK's own needs a display.
    const SUPER_ALT = (1 << 26) | (1 << 3);
    const parsed = {
        '<Super><Alt>Escape': [true, 0xff1b, SUPER_ALT], 'a': [true, 0x61, 0], '<Shift>a': [true, 0x61, 1],
        '<Super>': [false, 0, 0], 'nonsense<': [false, 0, 0],
    };
    const tools = {
        parse: text => parsed[text], name: (keyval, modifiers) => `${keyval}/${modifiers}`, _: text => text,
    };
    const good = checkShortcut(' <Super><Alt>Escape ', tools);
    expect(good.accelerator === `${0xff1b}/${SUPER_ALT}`, `accelerator ${JSON.stringify(good)}`);
    for (const bad of ['', 'a', '<Shift>a', '<Super>', 'nonsense<'])
        expect(checkShortcut(bad, tools).error !== undefined, `"${bad}" accepted`);
});

test('the time left is spoken in minutes from a minute on, else in seconds', () => {
    const said = [300, 60, 10, 1, 89].map(seconds => spokenTimeLeft(seconds, gettext));
    const expected = ['Guided Access ends in 5 minutes.', 'Guided Access ends in 1 minute.',
        'Guided Access ends in 10 seconds.', 'Guided Access ends in 1 second.', 'Guided Access ends in 1 minute.'];
    expect(said.join('|') === expected.join('|'), said.join('|'));
});

// Runs the main loop until `done()` or `ms` pass.
function waitUntil(done, ms) {
    const context = GLib.MainContext.default();
    const end = GLib.get_monotonic_time() + ms * 1000;
    while (!done() && GLib.get_monotonic_time() < end)
        context.iteration(false) || GLib.usleep(5000);
    return done();
}

test('time-limit alerts: sound and/or spd-say as set; speech without spd-say plays the sound', () => {
    const played = [];
    globalThis.global = {display: {get_sound_player: () => ({play_from_theme: name => played.push(name)})}};
    const directory = GLib.dir_make_tmp('ga-unit-XXXXXX');
    const said = `${directory}/said`;
    const speaker = Gio.File.new_for_path(`${directory}/bin/spd-say`);
    speaker.get_parent().make_directory(null);
    speaker.replace_contents(`#!/bin/sh\nprintf '%s|' "$@" > ${said}\n`, null, false, Gio.FileCreateFlags.NONE, null);
    GLib.spawn_command_line_sync(`chmod +x ${speaker.get_path()}`);
    const path = GLib.getenv('PATH');
    const keys = {};
    const settings = {get_boolean: key => keys[key]};
    const alerts = new TimeAlerts({Gio, GLib, settings, ...gettext});
    try {
        keys[SOUND_KEY] = true;
        keys[SPEECH_KEY] = false;
        GLib.setenv('PATH', `${directory}/bin:${path}`, true);
        alerts.announce(60);
        expect(played.join() === THEME_SOUND, `sound only: played ${played}`);
        expect(!waitUntil(() => GLib.file_test(said, GLib.FileTest.EXISTS), 300), 'spoke with speech off');

        keys[SOUND_KEY] = false;
        keys[SPEECH_KEY] = true;
        alerts.announce(300);
        expect(waitUntil(() => GLib.file_test(said, GLib.FileTest.EXISTS), 5000), 'spd-say was not run');
        const words = new TextDecoder().decode(GLib.file_get_contents(said)[1]);
        expect(words === '--|Guided Access ends in 5 minutes.|', `spd-say got ${words}`);
        expect(played.length === 1, 'played a sound with sound off and spd-say installed');

        GLib.setenv('PATH', '/nonexistent', true);
        alerts.announce(10);
        expect(played.length === 2, 'speech without spd-say was silent');

        keys[SPEECH_KEY] = false;
        alerts.announce(10);
        expect(played.length === 2, 'a sound with both off');
    } finally {
        GLib.setenv('PATH', path, true);
        alerts.destroy();
        delete globalThis.global;
        GLib.spawn_command_line_sync(`rm -rf ${directory}`);
    }
    return `spd-say got "Guided Access ends in 5 minutes."`;
});

test('prefs.esm.js (GNOME 45+) imports with the shell\'s prefs module stubbed and exports fillPreferencesWindow', () => {
    const source = Gio.File.new_for_uri(import.meta.url).get_parent().get_parent()
        .get_child('guided-access@guidedaccess.org').get_path();
    const directory = GLib.dir_make_tmp('ga-prefs-XXXXXX');
    GLib.spawn_command_line_sync(`cp -r ${source}/lib ${source}/prefs.esm.js ${directory}/`);
    const prefs = Gio.File.new_for_path(`${directory}/prefs.esm.js`);
    const text = new TextDecoder().decode(prefs.load_contents(null)[1]);
    const stubbed = text.replace('resource:///org/gnome/Shell/Extensions/js/extensions/prefs.js', './stub.js');
    expect(stubbed !== text && !stubbed.includes('resource:///'), 'prefs.esm.js imports a module the check has no stub for');
    prefs.replace_contents(stubbed, null, false, Gio.FileCreateFlags.NONE, null);
    Gio.File.new_for_path(`${directory}/stub.js`).replace_contents(
        'export class ExtensionPreferences { getSettings() { return null; } }\n' +
        'export const gettext = text => text;\nexport const ngettext = (one, many, n) => (n === 1 ? one : many);\n',
        null, false, Gio.FileCreateFlags.NONE, null);
    Gio.File.new_for_path(`${directory}/check.js`).replace_contents(
        "import 'gi://Gtk?version=4.0';\nimport {ExtensionPreferences} from './stub.js';\n" +
        "const {default: Prefs} = await import('./prefs.esm.js');\n" +
        "print(Prefs.prototype instanceof ExtensionPreferences && typeof Prefs.prototype.fillPreferencesWindow === 'function');\n",
        null, false, Gio.FileCreateFlags.NONE, null);
    try {
        const [, out, err, status] = GLib.spawn_command_line_sync(`gjs -m ${directory}/check.js`);
        const printed = new TextDecoder().decode(out).trim();
        expect(status === 0 && printed === 'true', `gjs said ${printed} ${new TextDecoder().decode(err)}`);
    } finally {
        GLib.spawn_command_line_sync(`rm -rf ${directory}`);
    }
    return 'extends ExtensionPreferences, links lib/settingsWindow.js';
});

const failed = results.filter(ok => !ok).length;
print(`${results.length - failed} passed, ${failed} failed`);
if (failed > 0)
    imports.system.exit(1);
