// SPDX-License-Identifier: GPL-2.0-or-later
// Unit tests of the KWin enforcer's logic that needs no KWin, in plain gjs:
//
//     gjs -m shell/kde/tests/unit.js
//
// Prints one line per test and "N passed, N failed"; exits 1 on a failure.
// The files under guidedaccess/contents/code/ are plain scripts (function
// declarations and var, as KWin's QML imports and its JavaScript scripts
// take them); each is loaded here as KWin would, with stand-ins for what
// KWin provides (registerShortcut, callDBus, print in gesture.js).
import GLib from 'gi://GLib';

import {expect, same, summarize, test} from '../../tests/gjsunit.js';

const here = GLib.path_get_dirname(GLib.filename_from_uri(import.meta.url)[0]);
const kde = GLib.path_get_dirname(here);
const code = `${kde}/guidedaccess/contents/code`;
const ui = `${kde}/guidedaccess/contents/ui`;
const common = `${GLib.path_get_dirname(kde)}/common`;

function readText(path) {
    const [, bytes] = GLib.file_get_contents(path);
    return new TextDecoder().decode(bytes);
}

// A file as shell/kde/install writes it under code/: its own, or one of
// shell/common without its `export` keywords and with its namespace
// imports as QML's `.import "X.js" as Name`.
function installedText(name) {
    if (name.startsWith('/'))
        return readText(name);
    const own = `${code}/${name}`;
    return GLib.file_test(own, GLib.FileTest.EXISTS) ? readText(own)
        : readText(`${common}/${name}`).replace(/^export /gm, '')
            .replace(/^import \* as (\w+) from '\.\/([\w.-]+\.js)';$/gm, '.import "$2" as $1');
}

// The top-level functions and vars of a plain script (under code/ unless a
// path), run with `globals` (name → value) in scope and with what its
// `.import "X.js" as Name` lines import (as QML does for a script it imports).
function loadScript(name, globals = {}) {
    const imports = {};
    const text = installedText(name).replace(/^\.import "([\w.]+\.js)" as (\w+)$/gm, (line, file, as) => {
        imports[as] = loadScript(file);
        return '';
    });
    const scope = {...imports, ...globals};
    const names = [...text.matchAll(/^(?:function|var)\s+([A-Za-z_$][\w$]*)/gm)].map(match => match[1]);
    const body = `${text}\nreturn {${names.join(', ')}};`;
    // eslint-disable-next-line no-new-func
    return new Function(...Object.keys(scope), body)(...Object.values(scope));
}

const Contract = loadScript('contract.js');
const Claims = loadScript('claims.js');
const Reachability = loadScript('reachability.js');
const Geometry = loadScript('geometry.js');
const Effects = loadScript('effects.js');
const Strings = loadScript('text.js');

// The names RegisterEnforcer accepts (DESIGN.md: the system restrictions
// plus app-lock and disabled-regions), from the generated contract.
const ENFORCEABLE = [...Object.values(Contract.CAPABILITY), ...Contract.SYSTEM_RESTRICTIONS];

test('the claims: exactly what the KWin enforcer enforces, each a name the daemon accepts', () => {
    same(Claims.CLAIMS, ['app-lock', 'disabled-regions', 'app-switching', 'notifications', 'power-menu', 'touch', 'keyboards',
        'also-allowed', 'accessibility-shortcut', 'assessment'], 'claims');
    for (const claim of Claims.CLAIMS)
        expect(ENFORCEABLE.includes(claim), `${claim} is not a name RegisterEnforcer accepts`);
    expect(Claims.ENFORCER_NAME === 'kwin', 'the enforcer is "kwin"');
    return Claims.CLAIMS.join(' ');
});

test('needsRegistration: when the daemon lacks our claims or has others', () => {
    const claims = Claims.CLAIMS;
    same([Claims.needsRegistration({}, 'kwin', claims), Claims.needsRegistration(null, 'kwin', claims),
        Claims.needsRegistration({kwin: []}, 'kwin', claims), Claims.needsRegistration({kwin: claims.slice(1)}, 'kwin', claims),
        Claims.needsRegistration({kwin: claims.slice()}, 'kwin', claims),
        Claims.needsRegistration({'gnome-shell': claims.slice(), kwin: claims.slice()}, 'kwin', claims)],
    [true, true, true, true, false, false], 'needs');
});

test('windowAction: minimize others, show the app\'s, leave shell windows to the shield', () => {
    const normal = {minimized: false, minimizable: true};
    same([
        Reachability.windowAction(true, normal), Reachability.windowAction(true, {minimized: true, minimizable: true}),
        Reachability.windowAction(false, normal), Reachability.windowAction(false, {minimized: true, minimizable: true}),
        Reachability.windowAction(false, {minimized: false, minimizable: false}),
        Reachability.windowAction(false, {minimized: false, minimizable: true, dock: true}),
        Reachability.windowAction(false, {minimized: false, minimizable: false, desktopWindow: true}),
        Reachability.windowAction(false, {minimized: false, minimizable: true, notification: true}),
    ], ['keep', 'show', 'minimize', 'none', 'cover', 'keep', 'keep', 'keep'], 'actions');
});

test('focusTarget: the app\'s topmost shown window when another has the focus', () => {
    const app1 = {id: 'app1', app: true, minimized: false};
    const app2 = {id: 'app2', app: true, minimized: true};
    const other = {id: 'other', app: false, minimized: false};
    const belongs = window => window.app;
    same(Reachability.focusTarget(other, [app1, other, app2], belongs)?.id, 'app1', 'other active: the shown app window');
    same(Reachability.focusTarget(app1, [app1, other], belongs), null, 'control: the app active stays');
    same(Reachability.focusTarget(null, [app1, other], belongs)?.id, 'app1', 'nothing active: the shown app window');
    same(Reachability.focusTarget(null, [other, app2], belongs), null, 'nothing active, no shown app window: left');
    same(Reachability.focusTarget(other, [other, app2], belongs), null, 'no shown app window: left');
});

test('screenParts: the app\'s shown windows are holes, other shown windows cover', () => {
    const frame = (x, y) => ({x, y, width: 10, height: 10, left: x});
    const windows = [
        {app: true, minimized: false, frameGeometry: frame(0, 0)},
        {app: true, minimized: true, frameGeometry: frame(50, 50)},
        {app: false, minimized: false, frameGeometry: frame(20, 20), dock: true},
        {app: false, minimized: false, frameGeometry: frame(0, 0), desktopWindow: true},
        {app: undefined, minimized: false, frameGeometry: frame(30, 30)},
    ];
    same(Reachability.screenParts(windows, window => window.app),
        {app: [{x: 0, y: 0, width: 10, height: 10}], others: [{x: 20, y: 20, width: 10, height: 10}, {x: 30, y: 30, width: 10, height: 10}]},
        'parts');
});

const SCREEN = {x: 0, y: 0, width: 1024, height: 768};

test('shieldRects: the screen minus the app\'s window, disjoint, and nothing of the app covered', () => {
    const app = {x: 321, y: 316, width: 600, height: 400};
    const rects = Geometry.shieldRects(SCREEN, [app], []);
    expect(Geometry.area(rects) === 1024 * 768 - 600 * 400, `area ${Geometry.area(rects)}`);
    same(Geometry.disjoint(rects).length, rects.length, 'disjoint');
    expect(!Geometry.contains(rects, 600, 500), 'a point in the app is not shielded');
    expect(Geometry.contains(rects, 50, 50), 'control: a point outside it is');
    expect(rects.length <= 4, `${rects.length} rectangles`);
    return `${rects.length} rectangles`;
});

test('shieldRects: overlapping app windows, one partly off screen', () => {
    const rects = Geometry.shieldRects(SCREEN, [{x: 100, y: 100, width: 300, height: 300}, {x: 200, y: 200, width: 300, height: 300},
        {x: 900, y: 700, width: 300, height: 300}], []);
    const union = 300 * 300 * 2 - 200 * 200 + 124 * 68;
    expect(Geometry.area(rects) === 1024 * 768 - union, `area ${Geometry.area(rects)}, expected ${1024 * 768 - union}`);
    expect(!Geometry.contains(rects, 450, 450) && !Geometry.contains(rects, 150, 150) && !Geometry.contains(rects, 1000, 750),
        'the app\'s windows are not shielded');
    expect(Geometry.contains(rects, 450, 150) && Geometry.contains(rects, 150, 450), 'control: the corners between them are');
});

test('shieldRects: a panel lying over the app stays shielded', () => {
    const rects = Geometry.shieldRects(SCREEN, [{x: 0, y: 0, width: 1024, height: 768}], [{x: 0, y: 724, width: 1024, height: 44}]);
    same(rects, [{x: 0, y: 724, width: 1024, height: 44}], 'only the panel');
    expect(!Geometry.contains(rects, 500, 500), 'control: the app elsewhere is not');
});

test('shieldRects: no app window: the whole screen', () => {
    same(Geometry.shieldRects(SCREEN, [], []), [SCREEN], 'everything');
});

test('subtract and merge keep areas', () => {
    const parts = Geometry.subtract([{x: 0, y: 0, width: 100, height: 100}], [{x: 25, y: 25, width: 50, height: 50}]);
    same([parts.length, Geometry.area(parts)], [4, 7500], 'ring');
    same(Geometry.merge([{x: 0, y: 0, width: 10, height: 5}, {x: 0, y: 5, width: 10, height: 5}]), [{x: 0, y: 0, width: 10, height: 10}], 'merged');
    same(Geometry.subtract([{x: 0, y: 0, width: 0, height: 10}], []), [], 'empty dropped');
});

// Two 1280x800 monitors side by side, as KWin's virtual backend puts them.
const LEFT = {x: 0, y: 0, width: 1280, height: 800};
const RIGHT = {x: 1280, y: 0, width: 1280, height: 800};

test('outputIndexOf: the monitor with the largest part of a window, else the nearest', () => {
    same(Geometry.outputIndexOf([LEFT, RIGHT], {x: 100, y: 100, width: 400, height: 300}), 0, 'on the left');
    same(Geometry.outputIndexOf([LEFT, RIGHT], {x: 1400, y: 100, width: 400, height: 300}), 1, 'on the right');
    // Across the seam: 100 px on the left, 300 px on the right.
    same(Geometry.outputIndexOf([LEFT, RIGHT], {x: 1180, y: 100, width: 400, height: 300}), 1, 'mostly right');
    same(Geometry.outputIndexOf([LEFT, RIGHT], {x: 3000, y: 100, width: 100, height: 100}), 1, 'off screen, right');
    same(Geometry.outputIndexOf([LEFT, RIGHT], {x: -500, y: 900, width: 100, height: 100}), 0, 'off screen, left');
    same(Geometry.outputIndexOf([], {x: 0, y: 0, width: 10, height: 10}), -1, 'no outputs');
});

test('workArea: the monitor of the app\'s first window; the first monitor without one; the desktop without outputs', () => {
    const desktop = {x: 0, y: 0, width: 2560, height: 800};
    same(Geometry.workArea([LEFT, RIGHT], [{x: 1500, y: 50, width: 300, height: 200}, {x: 10, y: 10, width: 900, height: 700}],
        desktop), RIGHT, 'the first window decides, not the largest');
    same(Geometry.workArea([LEFT, RIGHT], [{x: 0, y: 0, width: 0, height: 0}, {x: 1500, y: 50, width: 300, height: 200}],
        desktop), RIGHT, 'an empty frame is skipped');
    same(Geometry.workArea([LEFT, RIGHT], [], desktop), LEFT, 'no window: the first monitor');
    same(Geometry.workArea([], [{x: 1500, y: 50, width: 300, height: 200}], desktop), desktop, 'no outputs: the desktop');
});

test('placeIn, topRightIn, bottomCentreIn: whole inside the monitor, never across the seam', () => {
    // The old placement, centred on the whole two-monitor desktop, put a
    // 420 px dialog across the seam at x 1070..1490.
    const desktop = {x: 0, y: 0, width: 2560, height: 800};
    const old = Geometry.placeIn(desktop, 420, 200, 1 / 3);
    expect(!Geometry.inside(old, LEFT) && !Geometry.inside(old, RIGHT), `control: the desktop's centre ${JSON.stringify(old)} straddles`);
    same(Geometry.placeIn(RIGHT, 420, 200, 1 / 3), {x: 1710, y: 200, width: 420, height: 200}, 'a dialog on the right');
    same(Geometry.placeIn(RIGHT, 420, 200, 1 / 2), {x: 1710, y: 300, width: 420, height: 200}, 'in the middle');
    same(Geometry.placeIn(RIGHT, 1500, 900, 1 / 2), {x: 1280, y: 0, width: 1500, height: 900}, 'too big: from the monitor\'s corner');
    same(Geometry.topRightIn(RIGHT, 150, 36, 12), {x: 2398, y: 12, width: 150, height: 36}, 'the pill');
    same(Geometry.topRightIn(LEFT, 150, 36, 12), {x: 1118, y: 12, width: 150, height: 36}, 'the pill on the left');
    same(Geometry.bottomCentreIn(RIGHT, 420, 64, 80), {x: 1710, y: 656, width: 420, height: 64}, 'a warning');
    // Scale 1.25: a 1280x800 panel is 1024x640 logical pixels.
    const scaled = {x: 0, y: 0, width: 1024, height: 640};
    for (const placed of [Geometry.placeIn(scaled, 420, 200, 1 / 3), Geometry.topRightIn(scaled, 150, 36, 12),
        Geometry.bottomCentreIn(scaled, 420, 64, 80)])
        expect(Geometry.inside(placed, scaled), `${JSON.stringify(placed)} inside 1024x640`);
});

test('effectsToUnload: only the loaded ones that lead away', () => {
    const loaded = ['colorpicker', 'outputlocator', 'screenshot', 'screenedge', 'zoom', 'desktopgrid', 'highlightwindow', 'overview',
        'tileseditor', 'windowview', 'startupfeedback', 'kscreen'];
    same(Effects.effectsToUnload(loaded), ['overview', 'windowview', 'desktopgrid', 'tileseditor'], 'KWin 5.27 defaults');
    same(Effects.effectsToUnload(['zoom']), [], 'control: none to unload');
});

test('effectProperties, zoomSteps: the zoom effect\'s properties as KWin reports them; steps to 2x from actual size', () => {
    // org.kde.KWin /Effects supportInformation("zoom") on KWin 5.27 (the
    // effect's Q_PROPERTYs, one a line).
    const report = 'zoom:\nzoomFactor: 1.2\nmousePointer: 0\nmouseTracking: 0\nenableFocusTracking: false\n' +
        'followFocus: true\nfocusDelay: 350\nmoveFactor: 20\ntargetZoom: 1.728\n';
    same(Effects.effectProperties(report), {zoomFactor: 1.2, mousePointer: 0, mouseTracking: 0, focusDelay: 350, moveFactor: 20,
        targetZoom: 1.728}, 'numbers only');
    same([Effects.effectProperties(''), Effects.effectProperties(undefined), Effects.effectProperties('zoom:\ntargetZoom: ')],
        [{}, {}, {}], 'nothing to read');
    same([1.2, 1.25, 1.5, 2, 3, 1.01, 1, 0.5, undefined, NaN].map(Effects.zoomSteps), [4, 4, 2, 1, 1, 10, 1, 1, 1, 1],
        'steps (KWin 5.27\'s default factor 1.2, 6\'s 1.25)');
    for (const factor of [1.2, 1.25, 1.5, 2])
        expect(factor ** Effects.zoomSteps(factor) >= Effects.MAGNIFICATION, `${factor}: at least ${Effects.MAGNIFICATION}x`);
    same(['gl2', 'gles', 'qpainter', 'none', undefined].map(Effects.effectRunsWith), [true, true, false, false, false],
        'OpenGL compositing only');
    same([Effects.ZOOM_EFFECT, Effects.ZOOM_IN, Effects.ZOOM_ACTUAL_SIZE], ['zoom', 'view_zoom_in', 'view_actual_size'],
        'KWin\'s names');
    same([Effects.INVERT_EFFECT, Effects.INVERT_SCREEN], ['invert', 'Invert'], 'KWin\'s names for inverting');
    same([['zoom', 'invert'], ['zoom'], [], undefined].map(active => Effects.isActive(active, 'invert')),
        [true, false, false, false], 'active effects');
});

test('tr fills %1, %2 and leaves the text as is', () => {
    same([Strings.tr('%1 left', '5:00'), Strings.tr('a %2 %1', 'x', 'y'), Strings.tr('plain'), Strings.tr('%1 and %2', 'x')],
        ['5:00 left', 'a y x', 'plain', 'x and %2'], 'text');
});

test('featureName: the title both shells show (shell/common\'s features.js) for every feature of Features1, else the name', () => {
    same(Contract.DEFAULT_ACCESSIBILITY_SHORTCUT.map(Strings.featureName),
        ['Screen Reader', 'Zoom', 'Invert Colors', 'Large Text', 'Screen Keyboard'], 'default shortcut');
    same([Strings.featureName('MouseKeys'), Strings.featureName('NoSuchFeature')], ['Mouse Keys', 'NoSuchFeature'], 'others');
    const Features = loadScript('features.js');
    for (const feature of ['ScreenReader', 'AssistiveTouch', 'VisualBell', 'OnScreenKeyboard'])
        same(Strings.featureName(feature), Features.featureTitle(feature, text => text), `${feature}: the shared title`);
});

test('switcher.js registers KWin\'s own task switcher shortcuts again, with callbacks that do nothing', () => {
    const shortcuts = [];
    loadScript('switcher.js', {registerShortcut: (name, text, keys, callback) => shortcuts.push({name, keys, callback}),
        print: () => {}});
    same(shortcuts.map(s => s.name), ['Walk Through Windows', 'Walk Through Windows (Reverse)'], 'names (KWin\'s)');
    same(shortcuts.map(s => s.name), Effects.SWITCHER_SHORTCUTS, 'the names ShortcutBlock makes not present first');
    expect(shortcuts.every(s => s.callback() === undefined), 'callbacks');
});

// gesture.js as KWin runs it, with KWin's functions recorded.
function loadGesture() {
    const shortcuts = [];
    const calls = [];
    const gesture = loadScript('gesture.js', {
        registerShortcut: (name, text, keys, callback) => shortcuts.push({name, text, keys, callback}),
        callDBus: (...args) => calls.push(args),
        print: () => {},
    });
    return {gesture, shortcuts, calls};
}

test('gesture.js registers Meta+Alt+Escape once', () => {
    const {shortcuts} = loadGesture();
    same(shortcuts.map(s => s.keys), ['Meta+Alt+Escape'], 'shortcuts');
});

test('press: three within a second make a triple press, then the count starts again', () => {
    const {gesture} = loadGesture();
    let state = {presses: []};
    const results = [0, 300, 600, 700, 1000, 1300].map(time => {
        state = gesture.press(state.presses, time);
        return state.complete;
    });
    same(results, [false, false, true, false, false, true], 'complete');
});

test('press: presses a second or more apart never make one', () => {
    const {gesture} = loadGesture();
    let state = {presses: []};
    const results = [0, 600, 1000, 1600, 2000].map(time => {
        state = gesture.press(state.presses, time);
        return state.complete;
    });
    same(results, [false, false, false, false, false], 'complete');
});

test('the gesture opens the dialog script, on top: one already open is made again', () => {
    const {gesture, shortcuts, calls} = loadGesture();
    shortcuts[0].callback();
    shortcuts[0].callback();
    expect(calls.length === 0, 'two presses open nothing');
    shortcuts[0].callback();
    same(calls.map(c => c.slice(0, 5)), [['org.kde.KWin', '/Scripting', 'org.kde.kwin.Scripting', 'unloadScript', 'guidedaccess-dialog']],
        'closes one that is open first');
    calls[0][5](true);
    same(calls[1].slice(3, 6), ['loadDeclarativeScript', gesture.DIALOG_PATH, 'guidedaccess-dialog'], 'loads the dialog');
    calls[1][6](7);
    same(calls[2].slice(3), ['start'], 'and starts it');
    shortcuts[0].callback();
    shortcuts[0].callback();
    shortcuts[0].callback();
    calls[3][5](false);
    same(calls[4].slice(3, 6), ['loadDeclarativeScript', gesture.DIALOG_PATH, 'guidedaccess-dialog'], 'none open: loads it too');
});

// Runs shell/kde/install into a temporary directory.
function install() {
    const datadir = GLib.dir_make_tmp('guided-access-kde-XXXXXX');
    const [, out, err, status] = GLib.spawn_sync(null, [`${kde}/install`, datadir], null, GLib.SpawnFlags.DEFAULT, null);
    const decoder = new TextDecoder();
    return {datadir, target: `${datadir}/kwin/scripts/guidedaccess`, out: decoder.decode(out), err: decoder.decode(err), status};
}

test('install: the package where KWin looks, the dialog\'s absolute path written into gesture.js', () => {
    const {datadir, target, out, err, status} = install();
    try {
        checkInstalled(target, out, err, status);
    } finally {
        GLib.spawn_sync(null, ['rm', '-rf', datadir], null, GLib.SpawnFlags.SEARCH_PATH, null);
    }
});

function checkInstalled(target, out, err, status) {
    expect(status === 0, `install failed: ${err}`);
    const metadata = JSON.parse(readText(`${target}/metadata.json`));
    same([metadata.KPlugin.Id, metadata.KPlugin.EnabledByDefault, metadata['X-Plasma-API'], metadata['X-Plasma-MainScript'],
        metadata.KPackageStructure], ['guidedaccess', true, 'declarativescript', 'ui/main.qml', 'KWin/Script'], 'metadata');
    const gesture = loadScript(`${target}/contents/code/gesture.js`, {registerShortcut: () => {}, callDBus: () => {}, print: () => {}});
    same(gesture.DIALOG_PATH, `${target}/contents/ui/DialogScript.qml`, 'dialog path');
    expect(GLib.file_test(gesture.DIALOG_PATH, GLib.FileTest.EXISTS), 'the dialog is there');
    expect(GLib.file_test(`${target}/COPYING`, GLib.FileTest.EXISTS), 'COPYING');
    expect(out.includes(target), `it says where: ${out}`);
    const {gesture: source} = loadGesture();
    expect(source.DIALOG_PATH === '@GESTURE_DIALOG@', 'control: the source keeps the placeholder');
}

test('install --help and a missing argument', () => {
    const decoder = new TextDecoder();
    const [, out, , helpStatus] = GLib.spawn_sync(null, [`${kde}/install`, '--help'], null, GLib.SpawnFlags.DEFAULT, null);
    expect(helpStatus === 0 && decoder.decode(out).includes('DATADIR'), '--help');
    const [, , , status] = GLib.spawn_sync(null, [`${kde}/install`], null, GLib.SpawnFlags.DEFAULT, null);
    expect(status !== 0, 'no DATADIR fails');
});

test('every script the QML imports exists, and every QML type it names is in ui/', () => {
    const files = qmlFiles();
    let imports = 0;
    for (const file of files) {
        const text = readText(`${ui}/${file}`);
        for (const match of text.matchAll(/^import "([^"]+)"/gm)) {
            imports++;
            const script = match[1].replace('../code/', '');
            expect(GLib.file_test(`${ui}/${match[1]}`, GLib.FileTest.EXISTS) ||
                GLib.file_test(`${common}/${script}`, GLib.FileTest.EXISTS), `${file} imports ${match[1]}, which is missing`);
        }
        expect(!/i18nd?\(/.test(text), `${file} calls i18n, which KWin 5.27's script engine lacks`);
    }
    const uses = {
        'main.qml': ['KWinApi', 'Enforcer'],
        'DialogScript.qml': ['KWinApi', 'Dialog'],
        'Enforcer.qml': ['AppLock', 'AppKeeper', 'ShortcutBlock', 'SurroundShield', 'RegionBlockers', 'NotificationHider', 'TimeLeft',
            'ExpiryShield', 'Magnifier', 'Registration', 'Windows', 'Bus'],
    };
    for (const [file, types] of Object.entries(uses)) {
        const text = readText(`${ui}/${file}`);
        for (const type of types)
            expect(text.includes(`${type} {`) && files.includes(`${type}.qml`), `${file} uses ${type}`);
    }
    // The API files KWinApi loads by name, one per KWin.
    const api = readText(`${ui}/KWinApi.qml`);
    for (const file of ['KWin5.qml', 'KWin6.qml'])
        expect(api.includes(`'${file}'`) && files.includes(file), `KWinApi.qml loads ${file}`);
    // Both offer the same members: the parts use them without asking which.
    const members = file => [...readText(`${ui}/${file}`).matchAll(/^    (?:readonly property \S+ |function )(\w+)/gm)]
        .map(match => match[1]).sort().join(' ');
    expect(members('KWin5.qml') === members('KWin6.qml'),
        `KWin5.qml has ${members('KWin5.qml')}; KWin6.qml ${members('KWin6.qml')}`);
    return `${files.length} QML files, ${imports} imports; the API files both have ${members('KWin5.qml')}`;
});

// The QML files of ui/.
function qmlFiles() {
    const [, names] = GLib.spawn_sync(null, ['ls', ui], null, GLib.SpawnFlags.SEARCH_PATH, null);
    return new TextDecoder().decode(names).split('\n').filter(name => name.endsWith('.qml'));
}

// The text of the QML object whose `{` is at `open`, without the objects
// nested in it: its own properties only.
function ownText(text, open) {
    let depth = 0;
    let own = '';
    for (let index = open; index < text.length; index++) {
        const char = text[index];
        if (char === '{')
            depth++;
        else if (char === '}' && --depth === 0)
            break;
        else if (depth === 1)
            own += char;
    }
    return own;
}

// KWin's own windows are not on the accessibility bus (its QPA has no
// at-spi bridge in 5.27, 6.3 or 6.7), so no at-spi walk can read them: the
// names a screen reader would say are checked where they are written.
test('every control a person works in the KWin windows has an accessible name of its own (Accessible.name)', () => {
    const controls = ['Button', 'TextField', 'TextArea', 'CheckBox', 'RadioButton', 'Switch', 'ComboBox', 'SpinBox', 'Slider'];
    const found = new RegExp(`^\\s*(${controls.join('|')}) \\{`, 'gm');
    let count = 0;
    const unnamed = [];
    for (const file of qmlFiles()) {
        const text = readText(`${ui}/${file}`);
        for (const match of text.matchAll(found)) {
            count++;
            if (!/^\s*Accessible\.name:\s*\S/m.test(ownText(text, match.index + match[0].length - 1)))
                unnamed.push(`${file}:${text.slice(0, match.index + match[0].indexOf(match[1])).split('\n').length}: ${match[1]}`);
        }
    }
    expect(count > 0, 'no control found: the search is broken');
    expect(unnamed.length === 0, `controls without Accessible.name: ${unnamed.join('; ')}`);
    return `A11Y KWin windows: ${count} controls, unnamed: ${unnamed.length}`;
});

test('no file under code/ uses what QML imports or KWin scripts cannot take (.pragma, import, export, let, const, =>)', () => {
    const shared = ['session.js', 'identity.js', 'contract.js', 'features.js'].map(name => [name, installedText(name)]);
    const own = ['claims.js', 'reachability.js', 'geometry.js', 'effects.js', 'text.js', 'gesture.js', 'switcher.js']
        .map(name => [name, readText(`${code}/${name}`)]);
    for (const [name, text] of [...shared, ...own]) {
        expect(!/^\s*(\.pragma|import |export )/m.test(text), `${name}: module syntax`);
        expect(!/\b(let|const)\s/.test(text) && !/=>/.test(text), `${name}: let, const or an arrow function`);
    }
});

summarize();
