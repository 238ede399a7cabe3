// SPDX-License-Identifier: GPL-2.0-or-later
// Unit tests of the extension's logic that needs no shell, in plain gjs:
//
//     gjs -m shell/gnome/tests/unit.js
//
// Prints one line per test and "N passed, N failed"; exits 1 on a failure.
// Among them the contract test: lib/daemon.js, the one place the extension
// reaches guided-accessd, run against stand-ins made from the repository's
// dbus/*.xml, so a member renamed or retyped in the daemon fails here.
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Gtk from 'gi://Gtk?version=3.0';

import {APP_SWITCHER_BINDINGS, bindingAllowed, OWN_WINDOW_BINDINGS, VOLUME_KEYSYMS} from '../guided-access@guidedaccess.org/lib/keybindingPolicy.js';
import {RelaunchBudget} from '../guided-access@guidedaccess.org/lib/relaunchBudget.js';
import {Overrides} from '../guided-access@guidedaccess.org/lib/overrides.js';
import * as geometry from '../guided-access@guidedaccess.org/lib/regionGeometry.js';
import {followRange} from '../guided-access@guidedaccess.org/lib/optionControls.js';
import {choicesFrom, startOptions, splitTime, joinTime, SHORTCUT_FEATURES, SYSTEM_RESTRICTIONS} from '../guided-access@guidedaccess.org/lib/sheetOptions.js';
import {autoLockChoices, checkShortcut, restrictionsByApp} from '../guided-access@guidedaccess.org/lib/settingsModel.js';
import {SOUND_KEY, SPEECH_KEY, THEME_SOUND, TimeAlerts, spokenTimeLeft} from '../guided-access@guidedaccess.org/lib/timeAlerts.js';
import {
    CALL_TIMEOUT_MS, Daemon, INTERACTIVE_TIMEOUT_MS, INTERFACES_DIRECTORY, RESTRICTION_INTERFACE,
    RESTRICTIONS_INTERFACE, SESSION_INTERFACE,
} from '../guided-access@guidedaccess.org/lib/daemon.js';
import {PRESS_WINDOW_US, TriplePress} from '../guided-access@guidedaccess.org/lib/triplePress.js';
import {focusTarget, windowAction} from '../guided-access@guidedaccess.org/lib/reachability.js';
import {enforcementPlan} from '../guided-access@guidedaccess.org/lib/enforcementPlan.js';

// Each test is awaited, so that one whose body is async ends before the next.
import {expect, summarize, test} from '../../tests/gjsunit.js';

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

await test('every installed keybinding is blocked but the own-window ones and the end shortcut', () => {
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

await test('app-switching deny blocks switching between the app\'s own windows', () => {
    for (const name of OWN_WINDOW_BINDINGS)
        expect(!bindingAllowed(name, 0, DENIED), `${name} allowed with app-switching denied`);
});

await test('Alt+Tab and the window switchers run only with other apps allowed (AlsoAllowed) and app-switching allowed', () => {
    const bindings = installedBindings();
    for (const name of APP_SWITCHER_BINDINGS) {
        expect(bindings.includes(name), `${name} is not in the installed schemas`);
        expect(bindingAllowed(name, 0, {...OPEN, switchApps: true}), `${name} blocked with other apps allowed`);
        expect(!bindingAllowed(name, 0, OPEN), `${name} allowed without other apps`);
        expect(!bindingAllowed(name, 0, {...DENIED, switchApps: false}), `${name} allowed with app-switching denied`);
    }
    const passing = bindings.filter(name => bindingAllowed(name, 0, {...OPEN, switchApps: true}));
    expect(passing.every(name => OWN_WINDOW_BINDINGS.includes(name) || APP_SWITCHER_BINDINGS.includes(name)),
        `also allowed: ${passing}`);
    return `allowed with other apps: ${passing.join(', ')}`;
});

await test('of the media keys (external grabs), only the volume keys pass, and not with volume-buttons denied', () => {
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

await test('the relaunch budget allows 3 launches in any minute, a new session all 3 again', () => {
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

await test('Overrides puts back own properties, shadowed methods and set values, newest first', () => {
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
    overrides.destroy();
    expect(object.method() === 'base' && !Object.prototype.hasOwnProperty.call(object, 'method'), 'method not restored');
    expect(object.own === 'own' && object.value === 1, `values not restored: ${object.own}, ${object.value}`);
    expect(order.join() === 'second,first', `undone in order ${order}`);
    expect(overrides.empty, 'not empty after destroy');
});

await test('Overrides puts back an own property\'s exact descriptor and never runs a setter of the class', () => {
    let setterRan = false;
    class Shell {
        set open(_value) {
            setterRan = true;
        }
    }
    const object = new Shell();
    const getter = () => 'own getter';
    Object.defineProperty(object, 'accessor', {get: getter, configurable: true, enumerable: false});
    Object.defineProperty(object, 'hidden', {value: 'hidden', writable: false, configurable: true, enumerable: false});
    const before = ['accessor', 'hidden'].map(name => Object.getOwnPropertyDescriptor(object, name));
    const overrides = new Overrides();
    overrides.replace(object, 'accessor', () => 'shadow');
    overrides.replace(object, 'hidden', 'shadow');
    overrides.replace(object, 'open', () => 'shadow');
    expect(!setterRan && object.open() === 'shadow', 'the class\'s setter ran, or open was not shadowed');
    expect(object.accessor() === 'shadow' && object.hidden === 'shadow', 'not applied');
    overrides.destroy();
    const after = ['accessor', 'hidden'].map(name => Object.getOwnPropertyDescriptor(object, name));
    for (const [i, name] of ['accessor', 'hidden'].entries()) {
        for (const key of ['get', 'set', 'value', 'writable', 'configurable', 'enumerable'])
            expect(before[i][key] === after[i][key], `${name}.${key} is ${after[i][key]}, was ${before[i][key]}`);
    }
    expect(!Object.prototype.hasOwnProperty.call(object, 'open') && !setterRan, 'open not put back');
});

await test('the preview maps drawn regions to stage pixels and back, on a second monitor too', () => {
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

await test('moving and resizing keep a region inside the preview and at least MIN_REGION', () => {
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

await test('the presentation decides where the preview shows the window', () => {
    const frame = {x: 10, y: 20, width: 600, height: 400};
    const work = {x: 0, y: 32, width: 1280, height: 768};
    const monitor = {x: 0, y: 0, width: 1280, height: 800};
    expect(JSON.stringify(geometry.presentedRect('as-is', frame, work, monitor)) === JSON.stringify(frame), 'as-is moved');
    expect(geometry.presentedRect('maximized', frame, work, monitor).y === 32, 'maximized is not the work area');
    expect(geometry.presentedRect('fullscreen', frame, work, monitor).height === 800, 'full screen is not the monitor');
});

await test('a region goes with the window when another presentation moves it in the preview', () => {
    const view = {width: 640, height: 400};
    const asIs = {x: 5, y: 10, width: 300, height: 200};
    const full = {x: 0, y: 0, width: 640, height: 400};
    // The window's top-left quarter, drawn as it is: the same quarter full screen.
    const drawn = {x: 5, y: 10, width: 150, height: 100};
    const onFull = geometry.carried(view, drawn, asIs, full);
    expect(JSON.stringify(onFull) === JSON.stringify({x: 0, y: 0, width: 320, height: 200}), JSON.stringify(onFull));
    const back = geometry.carried(view, onFull, full, asIs);
    expect(JSON.stringify(back) === JSON.stringify(drawn), `there and back: ${JSON.stringify(back)}`);
    // Control: the window where it was, the region where it was.
    expect(JSON.stringify(geometry.carried(view, drawn, asIs, asIs)) === JSON.stringify(drawn), 'moved in place');
    // Beside the window, carried out of the view: cut to it, or gone.
    const beside = geometry.carried(view, {x: 290, y: 10, width: 20, height: 20}, asIs, full);
    expect(beside.x + beside.width === 640 && beside.x > 600, `left the view: ${JSON.stringify(beside)}`);
    expect(geometry.carried(view, {x: 320, y: 10, width: 20, height: 20}, asIs, full) === null, 'kept outside the view');
});

await test('a focused option is scrolled clear of the faded edges', () => {
    // Page 400, fade 68 + 12: a row of 50 at 1000 wants the value within [1000-80, 1000+50+80-400].
    const [top, bottom] = followRange(1000, 50, 400, 80);
    expect(top === 920 && bottom === 730, `${top} ${bottom}`);
    // A row taller than the page less both margins: seen from its top, no margin it cannot have.
    const [tallTop, tallBottom] = followRange(1000, 390, 400, 80);
    expect(tallTop === 995 && tallBottom === 995, `${tallTop} ${tallBottom}`);
    const [hugeTop] = followRange(1000, 500, 400, 80);
    expect(hugeTop === 1000, `${hugeTop}`);
});

await test('the sheet opens with the last options, else the defaults, and Start gets them all', () => {
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
    // Other apps and the accessibility shortcut: none and the default at
    // first (the default left to the daemon, which may have the
    // administrator's), else the last session's, sent as Start's options.
    expect(fresh.alsoAllowed.length === 0 && fresh.accessibilityShortcut.join() === 'ScreenReader,Zoom,InvertColors,LargeText,OnScreenKeyboard',
        `fresh ${fresh.alsoAllowed} ${fresh.accessibilityShortcut}`);
    expect(!('also-allowed' in startOptions(GLib, fresh)) && !('accessibility-shortcut' in startOptions(GLib, fresh)),
        'the default shortcut or no other app sent');
    const chosen = choicesFrom({'also-allowed': ['org.example.Other'], 'accessibility-shortcut': ['Zoom', 'StickyKeys']},
        {autoLock: -1}, rows);
    const sent = startOptions(GLib, chosen);
    expect(sent['also-allowed'].get_type_string() === 'as' && sent['also-allowed'].deepUnpack().join() === 'org.example.Other',
        'also-allowed');
    expect(sent['accessibility-shortcut'].deepUnpack().join() === 'Zoom,StickyKeys', 'accessibility-shortcut');
    expect(SHORTCUT_FEATURES.slice(0, 5).join() === fresh.accessibilityShortcut.join() && SHORTCUT_FEATURES.includes('StickyKeys'),
        `offered ${SHORTCUT_FEATURES}`);
    // The administrator's default (the daemon's AccessibilityShortcut
    // without a session) is shown, and left to the daemon when unchanged.
    const managed = choicesFrom({}, {autoLock: -1, accessibilityShortcut: ['ScreenReader']}, rows);
    expect(managed.accessibilityShortcut.join() === 'ScreenReader', `managed ${managed.accessibilityShortcut}`);
    expect(!('accessibility-shortcut' in startOptions(GLib, managed)), 'the managed default sent back');
    managed.accessibilityShortcut = [...fresh.accessibilityShortcut];
    expect(startOptions(GLib, managed)['accessibility-shortcut'].deepUnpack().join() === fresh.accessibilityShortcut.join(),
        'the built-in default, chosen over the managed one, not sent');
    const {hours, minutes} = splitTime(5400);
    expect(hours === 1 && minutes === 30 && joinTime(hours, minutes) === 5400, 'time split');
});

const gettext = {_: text => text, ngettext: (one, many, n) => (n === 1 ? one : many)};

await test('display auto-lock choices: the desktop\'s own, never, durations, and an unlisted current value kept', () => {
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

await test('restrictions are grouped by app, each app and its restrictions in a stable order', () => {
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

await test('a typed shortcut needs a key and a modifier other than Shift; it is stored in GTK\'s form', () => {
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

await test('the time left is spoken in minutes from a minute on, else in seconds', () => {
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

await test('time-limit alerts: sound and/or spd-say as set; speech without spd-say plays the sound', () => {
    const played = [];
    const global = {display: {get_sound_player: () => ({play_from_theme: name => played.push(name)})}};
    const directory = GLib.dir_make_tmp('ga-unit-XXXXXX');
    const said = `${directory}/said`;
    const speaker = Gio.File.new_for_path(`${directory}/bin/spd-say`);
    speaker.get_parent().make_directory(null);
    speaker.replace_contents(`#!/bin/sh\nprintf '%s|' "$@" > ${said}\n`, null, false, Gio.FileCreateFlags.NONE, null);
    GLib.spawn_command_line_sync(`chmod +x ${speaker.get_path()}`);
    const path = GLib.getenv('PATH');
    const keys = {};
    const settings = {get_boolean: key => keys[key]};
    const alerts = new TimeAlerts({Gio, GLib, global, settings, ...gettext});
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
        GLib.spawn_command_line_sync(`rm -rf ${directory}`);
    }
    return `spd-say got "Guided Access ends in 5 minutes."`;
});

await test('prefs.esm.js (GNOME 45+) imports with the shell\'s prefs module stubbed and exports fillPreferencesWindow', () => {
    const source = Gio.File.new_for_uri(import.meta.url).get_parent().get_parent()
        .get_child('guided-access@guidedaccess.org').get_path();
    const directory = GLib.dir_make_tmp('ga-prefs-XXXXXX');
    GLib.spawn_command_line_sync(`cp -rL ${source}/lib ${source}/common ${source}/prefs.esm.js ${directory}/`);
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

// -- the contract with guided-accessd ------------------------------------------

const HERE = Gio.File.new_for_uri(import.meta.url).get_parent();
const REPOSITORY = HERE.get_parent().get_parent().get_parent();

function readText(file) {
    return new TextDecoder().decode(file.load_contents(null)[1]);
}

// The interface as the daemon declares it: the repository's dbus/<name>.xml,
// which the daemon's build writes (scripts/generate-interfaces) and its
// golden test keeps current.
function interfaceInfo(name) {
    const node = Gio.DBusNodeInfo.new_for_xml(readText(REPOSITORY.get_child(`dbus/${name}.xml`)));
    const info = node.lookup_interface(name);
    expect(info !== null, `dbus/${name}.xml does not declare ${name}`);
    return info;
}

const tupleOf = args => `(${args.map(arg => arg.signature).join('')})`;

// `value` packed as `signature` (as gjs packs what is sent), or an error
// that says what did not fit.
function packed(what, signature, value) {
    try {
        return new GLib.Variant(signature, value);
    } catch (error) {
        throw new Error(`${what} is ${signature} in dbus/*.xml; ${JSON.stringify(value)} does not fit: ${error.message}`);
    }
}

// A stand-in for the proxy gjs makes from dbus/<iface>.xml with
// Gio.DBusProxy.makeProxyWrapper, without a bus. It has what gjs generates
// from the XML and nothing else: NameAsync for each method (the arguments
// packed with the XML's signature, as gjs does, so a wrong type throws; the
// reply from `daemon.replies`, checked against the out signature), a getter
// for each property (null while `daemon.properties` has no value, as gjs's),
// and connectSignal for the XML's signals. Any other member that starts with
// a capital, which is what a D-Bus member is called, throws: the generated
// proxy would not have it.
function standIn(iface, {flags, timeout}, daemon) {
    const info = interfaceInfo(iface);
    const missing = member => new Error(`${iface} (dbus/${iface}.xml) has no ${member}, which lib/daemon.js uses`);
    const generated = {};
    for (const method of info.methods) {
        generated[`${method.name}Async`] = (...args) => {
            const own = args.slice(0, method.in_args.length);
            const extra = args.slice(method.in_args.length);
            expect(extra.every(arg => typeof arg === 'number' || arg instanceof Gio.Cancellable),
                `${method.name}Async${tupleOf(method.in_args)} was called with ${args.length} arguments`);
            packed(`${iface}.${method.name}'s input`, tupleOf(method.in_args), own);
            daemon.calls.push({
                member: method.name, flags: extra.find(arg => typeof arg === 'number') ?? 0, timeout,
            });
            const reply = packed(`${iface}.${method.name}'s reply`, tupleOf(method.out_args),
                daemon.replies[method.name] ?? []);
            return Promise.resolve(reply.deepUnpack());
        };
    }
    for (const property of info.properties) {
        Object.defineProperty(generated, property.name, {
            get: () => {
                daemon.read.add(property.name);
                const value = daemon.properties[property.name];
                return value === undefined ? null
                    : packed(`${iface}.${property.name}`, property.signature, value).deepUnpack();
            },
        });
    }
    const handlers = new Map(); // id → [signal, handler, 'gobject' or 'dbus']
    let lastId = 0;
    const add = (signal, handler, kind) => {
        handlers.set(++lastId, [signal, handler, kind]);
        return lastId;
    };
    const base = {
        g_name_owner: ':1.7', g_interface_name: iface, g_flags: flags, g_default_timeout: timeout, handlers,
        connect: (signal, handler) => add(signal, handler, 'gobject'),
        disconnect: id => handlers.delete(id),
        connectSignal(name, handler) {
            if (info.lookup_signal(name) === null)
                throw missing(`signal ${name}`);
            return add(name, handler, 'dbus');
        },
        disconnectSignal: id => handlers.delete(id),
        // Gio.DBusProxy's own call(): only Properties.Get of this interface's properties.
        call(method, parameters, flags, timeout, _cancellable, callback) {
            const [iface2, name] = parameters.deepUnpack();
            const property = info.lookup_property(name);
            if (method !== 'org.freedesktop.DBus.Properties.Get' || iface2 !== iface || property === null)
                throw missing(`${method}(${iface2}, ${name})`);
            daemon.calls.push({member: `Get ${name}`, flags, timeout});
            const value = packed(`${iface}.${name}`, property.signature, daemon.properties[name]);
            callback({call_finish: () => new GLib.Variant('(v)', [value])}, null);
        },
        set_cached_property(name, value) {
            daemon.properties[name] = value.deepUnpack();
        },
        // The daemon emits `name` with `args` (checked against the XML).
        emitSignal(name, args) {
            const unpacked = packed(`${iface}.${name}`, tupleOf(info.lookup_signal(name).args), args).deepUnpack();
            for (const [signal, handler, kind] of [...handlers.values()]) {
                if (kind === 'dbus' && signal === name)
                    handler(this, ':1.7', unpacked);
            }
        },
    };
    return new Proxy(base, {
        get(target, key, receiver) {
            if (Object.prototype.hasOwnProperty.call(generated, key))
                return Reflect.get(generated, key, receiver);
            if (typeof key === 'string' && /^[A-Z]/.test(key))
                throw missing(key);
            return Reflect.get(target, key, receiver);
        },
    });
}

// What the stand-in daemon publishes and answers, and what it was asked.
function standInDaemon() {
    return {
        calls: [],
        read: new Set(),
        properties: {
            Enabled: true, State: 'active', App: 'org.example.App', StartedAt: 1000000, TimeLimit: 600,
            PasscodeSet: true, SystemRestrictions: {'touch': 'deny', 'app-switching': 'allow'},
            DisabledRegions: [[1, 2, 30, 40]], Presentation: 'fullscreen', AllowedApplications: ['org.example.Kiosk'],
            Mode: 'guided', AlsoAllowed: ['org.example.Other'], AccessibilityShortcut: ['Zoom', 'ScreenReader'],
            Zoom: true,
        },
        replies: {
            GetAppIds: [['org.example.App', '/usr/bin/example']],
            GetLastOptions: [{'time-limit': new GLib.Variant('t', 600)}],
            List: [[['org.example.App.chat', 'Chat', 'Chat with others', 'deny', 'org.example.App', true]]],
        },
    };
}

// A bus connection that only records signal_subscribe.
function recordingConnection() {
    const subscriptions = new Map();
    let lastId = 0;
    return {
        subscriptions,
        signal_subscribe: (...args) => {
            subscriptions.set(++lastId, args);
            return lastId;
        },
        signal_unsubscribe: id => subscriptions.delete(id),
    };
}

// Every public member of lib/daemon.js's Daemon, each used once as the
// extension uses it. A member added to Daemon without a line here fails
// the test, so every way the extension reaches the daemon is run.
const DAEMON_USES = {
    connected: daemon => daemon.connected,
    reachable: daemon => daemon.reachable,
    session: daemon => daemon.session(),
    passcodeSet: daemon => daemon.passcodeSet,
    allowedApplications: daemon => daemon.allowedApplications,
    registerEnforcer: daemon => daemon.registerEnforcer('gnome-shell', ['app-lock', 'touch']),
    appIds: daemon => daemon.appIds(4242),
    lastOptions: daemon => daemon.lastOptions('org.example.App'),
    start: daemon => daemon.start('org.example.App', {'interactive': new GLib.Variant('b', true)}),
    end: daemon => daemon.end({'passcode': new GLib.Variant('s', '2468')}),
    setPasscode: daemon => daemon.setPasscode('2468'),
    restrictionRows: daemon => daemon.restrictionRows(),
    setRestriction: daemon => daemon.setRestriction('org.example.App.chat', 'deny'),
    resetRestrictions: daemon => daemon.resetRestrictions(['org.example.App.chat']),
    feature: daemon => daemon.feature('Zoom'),
    toggleAccessibilityFeature: daemon => daemon.toggleAccessibilityFeature('Zoom', false),
    readFeature: daemon => daemon.readFeature('Zoom'),
};
const INTERACTIVE_CALLS = ['Start', 'SetPasscode', 'SetState', 'Reset'];

await test('every member of guided-accessd that the extension uses is in dbus/*.xml, with the types it sends and reads', async () => {
    const published = standInDaemon();
    const proxies = [];
    const makeProxy = (_deps, iface, _connection, options) => {
        const proxy = standIn(iface, options, published);
        proxies.push(proxy);
        return Promise.resolve(proxy);
    };
    const heard = [];
    const daemon = new Daemon({Gio, GLib, makeProxy}, {
        propertiesChanged: () => heard.push('properties'),
        ownerChanged: () => heard.push('owner'),
        timeLimitWarning: secondsLeft => heard.push(`warning ${secondsLeft}`),
        restrictionsChanged: () => heard.push('restrictions'),
        featuresChanged: () => heard.push('features'),
    });
    const connection = recordingConnection();
    await daemon.connect(connection);

    const members = Object.getOwnPropertyNames(Daemon.prototype)
        .filter(name => name !== 'constructor' && name !== 'connect' && name !== 'destroy' && !name.startsWith('_'));
    const unused = members.filter(name => !(name in DAEMON_USES));
    expect(unused.length === 0, `Daemon.${unused.join(', Daemon.')} not run by this test: add to DAEMON_USES`);
    const answers = {};
    for (const [name, use] of Object.entries(DAEMON_USES))
        answers[name] = await use(daemon);

    const session = answers.session;
    expect(session.enabled && session.app === 'org.example.App' && session.timeLimit === 600 &&
        session.systemRestrictions.touch === 'deny' && session.regions[0].width === 30 &&
        session.presentation === 'fullscreen' && session.passcodeSet && session.mode === 'guided' &&
        session.alsoAllowed.join() === 'org.example.Other' && session.accessibilityShortcut.join() === 'Zoom,ScreenReader',
        `session ${JSON.stringify(session)}`);
    expect(answers.feature === true && answers.readFeature === true, `Features1.Zoom read as ${answers.feature}, ${answers.readFeature}`);
    expect(answers.appIds.join() === 'org.example.App,/usr/bin/example', `GetAppIds gave ${answers.appIds}`);
    expect(answers.lastOptions['time-limit'].unpack() === 600, 'GetLastOptions\' a{sv}');
    expect(answers.restrictionRows[0][0] === 'org.example.App.chat' && answers.restrictionRows[0][5] === true, 'List');
    expect(answers.allowedApplications.join() === 'org.example.Kiosk', 'AllowedApplications');
    for (const call of published.calls) {
        const interactive = INTERACTIVE_CALLS.includes(call.member);
        const flags = interactive ? Gio.DBusCallFlags.ALLOW_INTERACTIVE_AUTHORIZATION : Gio.DBusCallFlags.NONE;
        const timeout = interactive ? INTERACTIVE_TIMEOUT_MS : CALL_TIMEOUT_MS;
        expect(call.flags === flags && call.timeout === timeout,
            `${call.member} sent with flags ${call.flags} and a ${call.timeout} ms timeout`);
    }

    const [session0, restrictions0] = proxies;
    session0.emitSignal('TimeLimitWarning', [300]);
    restrictions0.emitSignal('RestrictionChanged', ['org.example.App.chat', 'allow']);
    // readFeature() tells featuresChanged first, as Features1's PropertiesChanged would.
    expect(heard.join() === 'features,warning 300,restrictions', `heard ${heard}`);
    const subscribed = [...connection.subscriptions.values()];
    expect(subscribed.some(args => args[4] === RESTRICTION_INTERFACE), 'the restriction objects are not followed');
    interfaceInfo(RESTRICTION_INTERFACE);

    daemon.destroy();
    const left = proxies.reduce((sum, proxy) => sum + proxy.handlers.size, 0);
    expect(left === 0 && connection.subscriptions.size === 0, `${left} handlers and ${connection.subscriptions.size} subscriptions left after destroy()`);
    return `${published.calls.map(call => call.member).join(', ')}; ${[...published.read].join(', ')}; ` +
        'TimeLimitWarning, RestrictionChanged';
});

await test('the installed extension carries dbus/*.xml and builds its proxies from that copy', async () => {
    const directory = GLib.dir_make_tmp('ga-install-XXXXXX');
    try {
        const [, , err, status] = GLib.spawn_command_line_sync(
            `${HERE.get_parent().get_child('install').get_path()} ${directory} 43`);
        expect(status === 0, `install failed: ${new TextDecoder().decode(err)}`);
        const installed = Gio.File.new_for_path(`${directory}/guided-access@guidedaccess.org`);
        for (const name of [SESSION_INTERFACE, RESTRICTIONS_INTERFACE, RESTRICTION_INTERFACE]) {
            const copy = installed.get_child(`${INTERFACES_DIRECTORY}/${name}.xml`);
            expect(copy.query_exists(null), `${INTERFACES_DIRECTORY}/${name}.xml not installed`);
            expect(readText(copy) === readText(REPOSITORY.get_child(`dbus/${name}.xml`)), `${name}.xml differs from dbus/`);
        }
        const {proxyWrapper} = await import(installed.get_child('lib/daemon.js').get_uri());
        expect(typeof proxyWrapper(Gio, SESSION_INTERFACE) === 'function', 'no proxy wrapper from the installed XML');
    } finally {
        GLib.spawn_command_line_sync(`rm -rf ${directory}`);
    }
    return `${INTERFACES_DIRECTORY}/ beside lib/`;
});

// -- logic moved out of the shell's classes -------------------------------------

await test('the shortcut counts three presses within a second, then starts counting again', () => {
    const presses = new TriplePress();
    const s = 1000000;
    expect(!presses.press(0) && !presses.press(0.4 * s) && presses.press(0.8 * s), 'three within a second');
    expect(!presses.press(0.9 * s), 'a fourth press counted with the three before');
    const slow = new TriplePress();
    expect(!slow.press(0) && !slow.press(0.6 * s) && !slow.press(PRESS_WINDOW_US), 'three spread over a second');
    expect(slow.press(1.2 * s), 'the last three of four within a second');
});

await test('which windows are reachable and what the app lock does with each', () => {
    const window = (overrideRedirect, minimized, canMinimize) => ({overrideRedirect, minimized, canMinimize});
    const cases = [
        [true, window(false, true, true), 'show'], [true, window(false, false, true), 'keep'],
        [true, window(true, true, false), 'keep'],
        [false, window(false, false, true), 'minimize'], [false, window(false, false, false), 'hide-actor'],
        [false, window(true, false, false), 'hide-actor'], [false, window(false, true, true), 'none'],
    ];
    for (const [belongs, facts, action] of cases)
        expect(windowAction(belongs, facts) === action, `${belongs} ${JSON.stringify(facts)} gave ${windowAction(belongs, facts)}`);
    const mine = {name: 'mine', elsewhere: false};
    const other = {name: 'other', elsewhere: false};
    const away = {name: 'away', elsewhere: true};
    const belongs = w => (w === other ? false : true);
    const here = w => !w.elsewhere;
    expect(focusTarget(mine, [other, mine], belongs, here) === null, 'the app\'s focused window is left');
    expect(focusTarget(other, [other, away, mine], belongs, here) === away, 'not the most recent of the app');
    expect(focusTarget(away, [away, mine], belongs, here) === away, 'the app on another workspace is not brought back');
    expect(focusTarget(null, [other], belongs, here) === null, 'a window of another app was chosen');
});

await test('a session\'s restrictions and options decide what each part of the lock does', () => {
    const session = {
        enabled: true, app: 'org.example.App', alsoAllowed: [], presentation: 'maximized',
        regions: [{x: 1, y: 2, width: 3, height: 4}],
        systemRestrictions: {'notifications': 'deny', 'touch': 'deny', 'power-menu': 'allow', 'keyboards': 'allow'},
    };
    const plan = enforcementPlan(session, {panelMenus: true, regionOutlines: false});
    expect(plan.app === 'org.example.App' && plan.presentation === 'maximized' && plan.regions[0].height === 4, 'copied');
    expect(!plan.lockdown.notifications && plan.lockdown.appSwitching && plan.lockdown.volumeButtons, JSON.stringify(plan.lockdown));
    expect(plan.panelKeep.join() === 'quickSettings,aggregateMenu', `kept ${plan.panelKeep}`);
    expect(plan.touchBlocked && !plan.keyboardsBlocked && plan.regionOutlines === false, 'touch, keyboards, outlines');
    expect(enforcementPlan(session, {panelMenus: false}).panelKeep.length === 0, 'menus kept without the setting');
    expect(plan.apps.join() === 'org.example.App' && !plan.lockdown.switchApps, 'one app: no switcher');
    const more = enforcementPlan({...session, alsoAllowed: ['org.example.Other', 'org.example.App']}, {panelMenus: false});
    expect(more.apps.join() === 'org.example.App,org.example.Other' && more.lockdown.switchApps, 'AlsoAllowed reachable, switcher on');
    const denied = enforcementPlan({...session, alsoAllowed: ['org.example.Other'],
        systemRestrictions: {'app-switching': 'deny'}}, {panelMenus: false});
    expect(!denied.lockdown.switchApps && !denied.lockdown.appSwitching, 'app-switching deny: no switcher');
});

summarize();
