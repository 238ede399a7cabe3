// SPDX-License-Identifier: GPL-2.0-or-later
// Unit tests of the logic both enforcers share (shell/common), in plain gjs:
//
//     gjs -m shell/tests/common.js
//
// Each test runs twice: against the ES modules as the GNOME Shell extension
// imports them, and against the plain scripts shell/kde/install makes of
// them for KWin's QML (the same text without `export`, its imports QML's
// `.import`). Prints one line per test and "N passed, N failed"; exits 1
// on a failure.
import GLib from 'gi://GLib';

import * as sessionModule from '../common/session.js';
import * as identityModule from '../common/identity.js';
import * as monitorsModule from '../common/monitors.js';
import * as featuresModule from '../common/features.js';
import * as shortcutModule from '../common/shortcut.js';
import {ASSESSMENT_OPTIONS} from '../common/contract.js';
import {same, summarize, test as testOnce} from './gjsunit.js';

const common = `${GLib.path_get_dirname(GLib.path_get_dirname(GLib.filename_from_uri(import.meta.url)[0]))}/common`;

// A file of shell/common loaded as KWin loads what shell/kde/install wrote
// (without `export`; a namespace import made `.import "X.js" as Name`, which
// QML resolves to that plain script's functions and vars, as here).
function asKWinScript(name) {
    const [, bytes] = GLib.file_get_contents(`${common}/${name}`);
    const imports = {};
    const text = new TextDecoder().decode(bytes).replace(/^export /gm, '')
        .replace(/^import \* as (\w+) from '\.\/([\w.-]+\.js)';$/gm, '.import "$2" as $1')
        .replace(/^\.import "([\w.-]+\.js)" as (\w+)$/gm, (_line, file, as) => {
            imports[as] = asKWinScript(file);
            return '';
        });
    if (/^\s*(import|export) /m.test(text))
        throw new Error(`${name}: module syntax that shell/kde/install leaves for KWin`);
    const names = [...text.matchAll(/^(?:function|var)\s+([A-Za-z_$][\w$]*)/gm)].map(match => match[1]);
    // eslint-disable-next-line no-new-func
    return new Function(...Object.keys(imports), `${text}\nreturn {${names.join(', ')}};`)(...Object.values(imports));
}

// The features of the contract: Features1's boolean properties, as generated into dbus/.
const CONTRACT_FEATURES = (() => {
    const repo = GLib.path_get_dirname(GLib.path_get_dirname(common));
    const [, bytes] = GLib.file_get_contents(`${repo}/dbus/org.guidedaccess.Features1.xml`);
    return [...new TextDecoder().decode(bytes).matchAll(/<property name="(\w+)" type="b"/g)].map(match => match[1]);
})();

const forms = [
    ['ES module', sessionModule, identityModule, monitorsModule, featuresModule, shortcutModule],
    ['KWin script', asKWinScript('session.js'), asKWinScript('identity.js'), asKWinScript('monitors.js'),
        asKWinScript('features.js'), asKWinScript('shortcut.js')],
];

// Each test runs once in each form.
function test(name, body) {
    for (const [form, Session, Identity, Monitors, Features, Shortcut] of forms) {
        testOnce(`${name} (${form})`, () => {
            body(Session, Identity, Monitors, Features, Shortcut);
        });
    }
}

// GetAll as KWin's DBusCall hands it over (checked in KWin 5.27: a map of
// plain values, structures and arrays as arrays).
const GET_ALL = {
    Version: 1, Enabled: true, State: 'active', App: '/usr/bin/python3.11', StartedAt: 1795671827000000,
    TimeLimit: 600, TimeRemaining: 412, PasscodeSet: true,
    SystemRestrictions: {'touch': 'deny', 'notifications': 'allow', 'keyboards': 'allow'},
    SystemRestrictionSources: {}, DisabledRegions: [[300, 300, 100, 100], [0, 0, 0, 50]],
    Enforcers: {kwin: ['app-lock']}, AllowedApplications: [], Presentation: 'as-is', AutoLock: -1,
};

test('shortcutLabel: an accelerator as a person reads it, modifiers as written', (...modules) => {
    const Shortcut = modules[4];
    same(Shortcut.shortcutLabel('<Super><Alt>Escape'), 'Super+Alt+Escape', 'the default gesture');
    same(Shortcut.shortcutLabel('<Primary><Shift>g'), 'Ctrl+Shift+G', 'Primary is Ctrl; a letter in capitals');
    same(Shortcut.shortcutLabel('<Control>F12'), 'Ctrl+F12', 'Control');
    same(Shortcut.shortcutLabel('<Meta><Alt>Escape'), 'Meta+Alt+Escape', 'KDE\'s Meta');
    same(Shortcut.shortcutLabel('<Mod4>Escape'), 'Mod4+Escape', 'an unknown modifier as written');
    same(Shortcut.shortcutLabel('Escape'), 'Escape', 'no modifier');
});

test('featureTitle: a title for every feature of the contract, through the caller\'s translation', (...modules) => {
    const Features = modules[3];
    const upper = text => text.toUpperCase();
    same(Features.featureTitle('ScreenReader', upper), 'SCREEN READER', 'ScreenReader, translated');
    same(Features.featureTitle('OnScreenKeyboard', text => text), 'Screen Keyboard', 'OnScreenKeyboard');
    same(Features.featureTitle('Teleport', upper), 'Teleport', 'a feature the table lacks: its own name, untranslated');
    if (CONTRACT_FEATURES.length < 20)
        throw new Error(`only ${CONTRACT_FEATURES.length} features read from dbus/org.guidedaccess.Features1.xml`);
    const untitled = CONTRACT_FEATURES.filter(name => Features.featureTitle(name, upper) === name);
    same(untitled, [], 'features of the contract without a title');
});

test('sessionFrom reads GetAll as DBusCall gives it', Session => {
    const session = Session.sessionFrom(GET_ALL);
    same([session.enabled, session.state, session.app, session.startedAt, session.timeLimit, session.passcodeSet],
        [true, 'active', '/usr/bin/python3.11', 1795671827000000, 600, true], 'fields');
    same(session.regions, [{x: 300, y: 300, width: 100, height: 100}], 'regions (the empty one left out)');
    same(session.enforcers, {kwin: ['app-lock']}, 'enforcers');
});

test('sessionFrom: what the daemon has not sent (null, as the extension\'s proxy gives it) takes the inactive default', Session => {
    const session = Session.sessionFrom({
        Enabled: null, State: null, App: null, StartedAt: null, TimeLimit: null, PasscodeSet: null,
        SystemRestrictions: null, DisabledRegions: null, Presentation: null,
    });
    same([session.enabled, session.state, session.app, session.startedAt, session.timeLimit, session.passcodeSet,
        session.systemRestrictions, session.regions, session.presentation],
    [false, 'inactive', '', 0, 0, false, {}, [], 'as-is'], 'defaults');
    const given = Session.sessionFrom({Enabled: false, TimeLimit: 0, State: 'expired', Presentation: 'maximized'});
    same([given.enabled, given.timeLimit, given.state, given.presentation], [false, 0, 'expired', 'maximized'],
        'false and 0 taken for unset');
});

test('reachableApps: the app first, then AlsoAllowed without repeats; none without a session', Session => {
    const session = Session.sessionFrom(Object.assign({}, GET_ALL, {
        Mode: 'single-app', AlsoAllowed: ['org.example.Calc', '/usr/bin/python3.11', 'org.example.Calc', 7],
        AccessibilityShortcut: ['Zoom'],
    }));
    same([session.mode, session.alsoAllowed, session.accessibilityShortcut],
        ['single-app', ['org.example.Calc', '/usr/bin/python3.11', 'org.example.Calc'], ['Zoom']], 'fields (a number left out)');
    same(Session.reachableApps(session), ['/usr/bin/python3.11', 'org.example.Calc'], 'reachable');
    same(Session.reachableApps(Session.sessionFrom({Enabled: false, App: 'x'})), [], 'no session');
    same(Session.sessionFrom(GET_ALL).alsoAllowed, [], 'an older daemon: none');
    // KWin 5.27 hands an `as` over as a list-like object that is not an Array; a string is no list.
    same(Session.sessionFrom({AlsoAllowed: {0: 'org.example.Calc', length: 1}, AccessibilityShortcut: 'Zoom'}).alsoAllowed
        .concat(Session.sessionFrom({AccessibilityShortcut: 'Zoom'}).accessibilityShortcut), ['org.example.Calc'], 'list-like');
});

test('sessionFrom: a reply that is not a map changes nothing (null); Enabled must be the boolean true', Session => {
    same([Session.sessionFrom(null), Session.sessionFrom([1]), Session.sessionFrom('x')], [null, null, null], 'not maps');
    same([Session.sessionFrom({Enabled: 'true'}).enabled, Session.sessionFrom({Enabled: true}).enabled], [false, true],
        'a string is not true; control: true is');
});

test('assessmentFrom: every key of the contract read, defaults filled in, {} is none (fail closed on odd values)', Session => {
    // As the extension's proxy gives a{sv}: each value still a GLib.Variant.
    const variant = (type, value) => new GLib.Variant(type, value);
    const all = Session.sessionFrom(Object.assign({}, GET_ALL, {
        Mode: 'assessment', AlsoAllowed: ['org.example.Calc'],
        Assessment: {
            'participants': variant('as', ['org.example.Calc']), 'allows-screen-capture': variant('b', false),
            'allows-clipboard': variant('b', true), 'allows-notifications': variant('b', false),
            'allows-accessibility-speech': variant('b', true), 'keep-accessibility': variant('b', false),
            'allows-spell-check': variant('b', false), 'time-limit': variant('t', 3600),
        },
    })).assessment;
    same(all, {participants: ['org.example.Calc'], allowsScreenCapture: false, allowsClipboard: true,
        allowsNotifications: false, allowsAccessibilitySpeech: true, keepAccessibility: false, allowsSpellCheck: false,
        timeLimit: 3600}, 'GLib.Variant values');
    same(Object.keys(all).sort(), Object.keys(ASSESSMENT_OPTIONS).sort(), 'one field per key of contract.js ASSESSMENT_OPTIONS');
    // As KWin's DBusCall gives it: plain values; a key missing takes the daemon's default.
    same(Session.assessmentFrom({'allows-screen-capture': true, 'participants': {0: 'x', length: 1}}),
        {participants: ['x'], allowsScreenCapture: true, allowsClipboard: false, allowsNotifications: false,
            allowsAccessibilitySpeech: false, keepAccessibility: true, allowsSpellCheck: false, timeLimit: 0}, 'plain values');
    same([Session.sessionFrom(GET_ALL).assessment, Session.sessionFrom(Object.assign({}, GET_ALL, {Assessment: {}})).assessment,
        Session.assessmentFrom(null), Session.assessmentFrom([1]), Session.assessmentFrom('x')],
    [null, null, null, null, null], 'no assessment: an older daemon, {}, not a map');
    same([Session.assessmentFrom({'allows-clipboard': 'true'}).allowsClipboard, Session.assessmentFrom({'allows-clipboard': 1}).allowsClipboard,
        Session.assessmentFrom({'keep-accessibility': 0}).keepAccessibility, Session.assessmentFrom({'time-limit': -5}).timeLimit],
    [false, false, true, 0], 'a string or a number allows nothing; control: see above');
});

test('assessmentFrom: each field read from its own key of contract.js ASSESSMENT_OPTIONS (each key set alone, off its default)', Session => {
    const defaults = {participants: [], allowsScreenCapture: false, allowsClipboard: false, allowsNotifications: false,
        allowsAccessibilitySpeech: false, keepAccessibility: true, allowsSpellCheck: false, timeLimit: 0};
    const unusual = {participants: ['org.example.Calc'], allowsScreenCapture: true, allowsClipboard: true,
        allowsNotifications: true, allowsAccessibilitySpeech: true, keepAccessibility: false, allowsSpellCheck: true,
        timeLimit: 60};
    same(Object.keys(unusual).sort(), Object.keys(ASSESSMENT_OPTIONS).sort(), 'a value for every key of the contract');
    for (const field of Object.keys(ASSESSMENT_OPTIONS)) {
        same(Session.assessmentFrom({[ASSESSMENT_OPTIONS[field]]: unusual[field]}),
            Object.assign({}, defaults, {[field]: unusual[field]}), `${ASSESSMENT_OPTIONS[field]} alone`);
    }
});

test('assessmentDenies: what an enforcer switches off, only during an assessment that does not allow it', Session => {
    const session = Session.sessionFrom(Object.assign({}, GET_ALL, {Assessment: {'allows-clipboard': true}}));
    same([Session.assessmentDenies(session, 'allowsScreenCapture'), Session.assessmentDenies(session, 'allowsClipboard'),
        Session.assessmentDenies(Session.sessionFrom(GET_ALL), 'allowsScreenCapture'),
        Session.assessmentDenies(Object.assign({}, session, {enabled: false}), 'allowsScreenCapture'),
        Session.assessmentDenies(null, 'allowsScreenCapture')], [true, false, false, false, false], 'denies');
});

test('denied: only "deny" denies, and nothing without a session', Session => {
    const session = Session.sessionFrom(GET_ALL);
    same([Session.denied(session, 'touch'), Session.denied(session, 'notifications'),
        Session.denied(session, 'motion'), Session.denied(null, 'touch')], [true, false, false, false], 'denied');
});

test('remainingSeconds counts down on the real-time clock to 0; formatRemaining shows it', Session => {
    const session = {startedAt: 10 * 1000000, timeLimit: 3700};
    same([Session.remainingSeconds(session, 10 * 1000000), Session.remainingSeconds(session, 10.5 * 1000000),
        Session.remainingSeconds(session, 4000 * 1000000), Session.remainingSeconds({startedAt: 0, timeLimit: 0}, 5),
        Session.remainingSeconds(null, 5)], [3700, 3700, 0, 0, 0], 'seconds (part of one is not rounded down)');
    same([0, 9, 65, 309, 3700, 36000].map(Session.formatRemaining), ['0:00', '0:09', '1:05', '5:09', '1:01:40', '10:00:00'],
        'text');
});

test('warningCrossed: 5 min, 1 min and 10 s, each once, nothing at the first reading', Session => {
    same([Session.warningCrossed(null, 300), Session.warningCrossed(301, 300), Session.warningCrossed(300, 299),
        Session.warningCrossed(61, 60), Session.warningCrossed(11, 10), Session.warningCrossed(400, 30),
        Session.warningCrossed(10, 11), Session.warningCrossed(5, 0)], [0, 300, 0, 60, 10, 60, 0, 0], 'crossed');
});

test('shieldReason: time up, or the app gone where the enforcer relaunches it; nothing without a session', Session => {
    same([Session.shieldReason({enabled: true, state: 'expired'}), Session.shieldReason({enabled: true, state: 'active'}),
        Session.shieldReason({enabled: true, state: 'active'}, true), Session.shieldReason({enabled: false, state: 'expired'}),
        Session.shieldReason(null, true)], ['expired', null, 'app-gone', null, null], 'reason');
});

test('belongsToApp: unknown while unanswered, not the app\'s when refused (fail closed)', (_Session, Identity) => {
    same([Identity.belongsToApp(undefined, 'a'), Identity.belongsToApp(null, 'a'), Identity.belongsToApp(['x', 'a'], 'a'),
        Identity.belongsToApp(['x'], 'a'), Identity.belongsToApp([], '')], [undefined, false, true, false, false], 'belongs');
    same([Identity.belongsToApp(['calc'], ['kiosk', 'calc']), Identity.belongsToApp(['x'], ['kiosk', 'calc']),
        Identity.belongsToApp([''], ['']), Identity.belongsToApp(['kiosk'], [])], [true, false, false, false], 'belongs to one of several');
});

test('appPresence: unknown while a window is unanswered, present with one of the app\'s, else gone', (_Session, Identity) => {
    same([Identity.appPresence([false, undefined, true]), Identity.appPresence([false, true]), Identity.appPresence([false]),
        Identity.appPresence([])], ['unknown', 'present', 'gone', 'gone'], 'presence');
});

test('workingMonitor: the focused app window\'s monitor, else the app\'s first, else the primary', (_S, _I, Monitors) => {
    same([Monitors.workingMonitor([0, 1], 1, 0), Monitors.workingMonitor([1], 0, 0), Monitors.workingMonitor([], -1, 1),
        Monitors.workingMonitor([2, 0], -1, 0)], [1, 1, 1, 2], 'working');
});

test('shieldedMonitors: every monitor without an app window; with none, all but the working one', (_S, _I, Monitors) => {
    same([Monitors.shieldedMonitors(2, [1], 1), Monitors.shieldedMonitors(3, [0, 2], 0), Monitors.shieldedMonitors(2, [], 1),
        Monitors.shieldedMonitors(1, [0], 0)], [[0], [1], [0], []], 'shielded');
});

summarize();
