// SPDX-License-Identifier: GPL-2.0-or-later
// The start sheet: what a person sees when they start Guided Access for
// the focused app (the shortcut pressed three times, or "Start Guided
// Access…" in the app's menu). A modal of the shell over the whole
// monitor, like iOS's: a live preview of the app as the session will show
// it, where the parts to switch off are drawn (RegionEditor), and the
// options: the system restrictions, the app's own custom restrictions, the
// other apps the person may switch to (AlsoAllowed: those with windows open
// now), the time limit, the presentation, the display auto-lock and the
// accessibility shortcut's features. It opens with the
// app's last options (GetLastOptions); Start calls Start with all of them,
// letting polkit ask. On the first start without a passcode it asks for
// one twice before starting, as iOS does.

import {desktopBackgrounds} from './blockers.js';
import {RegionEditor} from './regionEditor.js';
import {fitView, presentedRect, toView} from './regionGeometry.js';
import {SHORTCUT_FEATURES, SYSTEM_RESTRICTIONS, choicesFrom, joinTime, splitTime, startOptions} from './sheetOptions.js';
import {AUTO_LOCK, PRESENTATION, SYSTEM_RESTRICTION} from '../common/contract.js';
import {featureTitle} from '../common/features.js';
import {OptionControls} from './optionControls.js';
import {isClosing, newDialog, openOnMonitor} from './monitorDialog.js';
import {nameText} from './accessibleText.js';

const SHEET_MARGIN = 48;
const OPTIONS_WIDTH = 380;
// Room the title, the buttons and the dialog's own margins take.
const CHROME_HEIGHT = 260;
const DEFAULT_TIME_LIMIT = 30 * 60;

// What each system restriction is called on the sheet, and what "on"
// means, in one line.
function systemTexts(_) {
    const name = SYSTEM_RESTRICTION;
    return {
        [name.sleepWakeButton]: [_('Sleep Button'), _('The power button may suspend')],
        [name.volumeButtons]: [_('Volume Keys'), _('The volume keys change the volume')],
        [name.motion]: [_('Motion'), _('Turning the screen rotates it')],
        [name.keyboards]: [_('Keyboards'), _('Typing reaches the app')],
        [name.touch]: [_('Touch'), _('Pointer and touch reach the app')],
        [name.notifications]: [_('Notifications'), _('Banners may appear')],
        [name.appSwitching]: [_('Switching Windows'), _('Between the app\'s own windows')],
        [name.powerMenu]: [_('System Menu'), _('Log out, power off, switch user')],
    };
}

export class StartSheet {
    // target: {window (Meta.Window), app (its preferred app id), ids (all
    // its app ids)}; callbacks: {closed(), openSettings()}.
    constructor(deps, service, target, callbacks) {
        this._deps = deps;
        this._service = service;
        this._target = target;
        this._callbacks = callbacks;
        this._dialog = null;
        this._closed = false;
        // A passcode was set on this sheet, or the person chose to start without.
        this._passcodeSettled = false;
    }

    // Asks the daemon what the sheet shows, then opens it.
    async open() {
        const {app, ids} = this._target;
        const daemon = this._service.daemon;
        const [rows, last, otherApps] = await Promise.all([
            daemon.restrictionRows().catch(() => []),
            daemon.lastOptions(app).then(unpackOptions).catch(() => ({})),
            this._otherApps(),
        ]);
        if (this._closed)
            return;
        this._appRows = rows
            .filter(([, , , , rowApp, registered]) => registered && ids.includes(rowApp))
            .map(([identifier, text, detail, state]) => ({identifier, text, detail, state}));
        this._choice = choicesFrom(last, {
            autoLock: this._defaultAutoLock(),
            accessibilityShortcut: daemon.session()?.accessibilityShortcut,
        }, this._appRows);
        // The apps to offer: those with windows now, and those the last
        // session allowed (kept chosen, though not open now).
        this._others = otherApps;
        for (const id of this._choice.alsoAllowed) {
            if (!otherApps.has(id))
                otherApps.set(id, id.split('/').pop());
        }
        this._build();
        if (!openOnMonitor(this._dialog, this._target.window.get_monitor())) {
            this._dialog.destroy();
            throw new Error('the shell refused the sheet the keyboard and pointer (another grab holds them)');
        }
    }

    // The other apps with a window open now: app id (GetAppIds' first) →
    // the name the shell knows it by, without the chosen app.
    async _otherApps() {
        const {Meta, Shell, global} = this._deps;
        const tracker = Shell.WindowTracker.get_default();
        const windows = global.display.list_all_windows().filter(window => !window.is_override_redirect() &&
            window.get_window_type() === Meta.WindowType.NORMAL && !window.skip_taskbar);
        const answers = await Promise.all(windows.map(window =>
            this._service.appIds(window.get_pid()).then(ids => [window, ids], () => [window, []])));
        const apps = new Map();
        for (const [window, ids] of answers) {
            if (ids.length === 0 || ids.some(id => this._target.ids.includes(id)) || apps.has(ids[0]))
                continue;
            const shellApp = tracker.get_window_app(window);
            const name = shellApp !== null && !shellApp.is_window_backed() ? shellApp.get_name() : window.get_title();
            apps.set(ids[0], name || ids[0]);
        }
        return apps;
    }

    _defaultAutoLock() {
        const {settings} = this._deps;
        return settings.settings_schema.has_key('default-auto-lock')
            ? settings.get_int64('default-auto-lock') : AUTO_LOCK.desktop;
    }

    // Closed or closing, however its dialog was closed: the next sheet may
    // open meanwhile.
    get closing() {
        return this._closed || (this._dialog !== null && isClosing(this._dialog, this._deps.ModalDialog));
    }

    close() {
        this._closed = true;
        this._dialog?.close();
    }

    // The sheet goes at once (disable()); the dialog finishes its own
    // fade-out and is destroyed a frame later (newDialog; destroying an
    // open ModalDialog aborts the shell on GNOME 43).
    destroy() {
        this.close();
        this._dialog = null;
    }

    _build() {
        const {_, St, Clutter} = this._deps;
        const dialog = newDialog(this._deps, {styleClass: 'guided-access-sheet'});
        dialog.accessible_name = _('Start Guided Access');
        dialog.connect('destroy', () => {
            this._dialog = null;
            this._editor?.destroy();
            this._callbacks.closed();
        });
        this._dialog = dialog;
        const monitor = this._monitor();
        const width = monitor.width - 2 * SHEET_MARGIN;
        const height = monitor.height - 2 * SHEET_MARGIN - CHROME_HEIGHT;

        this._main = new St.BoxLayout({vertical: true, style: 'spacing: 12px;', width});
        this._main.add_child(new St.Label({
            text: _('Guided Access'), style_class: 'message-dialog-title headline',
            x_align: Clutter.ActorAlign.CENTER,
        }));
        this._main.add_child(new St.Label({
            text: _('Draw around the parts of %s to switch off, choose the options, then Start.')
                .format(this._target.window.get_title() ?? this._target.app),
            style_class: 'message-dialog-description', x_align: Clutter.ActorAlign.CENTER,
        }));
        const body = new St.BoxLayout({style: 'spacing: 24px;', x_expand: true});
        body.add_child(this._previewColumn(width - OPTIONS_WIDTH - 24, height));
        this._options = new OptionControls(this._deps, OPTIONS_WIDTH, height + 40);
        this._fillOptions();
        body.add_child(this._options.actor);
        this._main.add_child(body);
        this._message = new St.Label({style_class: 'prompt-dialog-error-label', x_align: Clutter.ActorAlign.CENTER});
        this._message.clutter_text.line_wrap = true;
        dialog.contentLayout.add_child(this._main);
        dialog.contentLayout.add_child(this._message);
        this._mainButtons();
    }

    _monitor() {
        const {Main} = this._deps;
        const index = this._target.window.get_monitor();
        return Main.layoutManager.monitors[index] ?? Main.layoutManager.primaryMonitor;
    }

    _mainButtons() {
        const {_, Clutter} = this._deps;
        this._dialog.setButtons([
            {label: _('Cancel'), action: () => this.close(), key: Clutter.KEY_Escape},
            {
                label: _('Guided Access Settings…'), action: () => {
                    this.close();
                    this._callbacks.openSettings();
                },
            },
            {label: _('Start'), action: () => this._start(), default: true},
        ]);
    }

    // -- the preview ---------------------------------------------------------

    _previewColumn(width, height) {
        const {_, St, Clutter} = this._deps;
        const column = new St.BoxLayout({vertical: true, style: 'spacing: 12px;', x_expand: true});
        const view = fitView(this._monitor(), width, height - 48);
        this._editor = new RegionEditor(this._deps, view, {
            changed: () => (this._choice.regions = this._editor.regions()),
            focusAway: () => this._addRegionButton.grab_key_focus(),
        });
        this._editor.actor.x_align = Clutter.ActorAlign.CENTER;
        this._editor.actor.accessible_name = _('Preview of %s').format(this._target.window.get_title() ?? '');
        this._showPreview();
        this._editor.setRegions(this._choice.regions);
        column.add_child(this._editor.actor);
        this._addRegionButton = new St.Button({
            label: _('Add Region'), style_class: 'button', can_focus: true, x_align: Clutter.ActorAlign.CENTER,
        });
        this._addRegionButton.connect('clicked', () => this._editor.addCentred());
        column.add_child(this._addRegionButton);
        return column;
    }

    // The app as the session will show it: its window, live, where the
    // chosen presentation puts it, over the desktop's background.
    _showPreview() {
        const {Clutter, Main} = this._deps;
        const window = this._target.window;
        const view = this._editor.view;
        const monitor = this._monitor();
        const background = new Clutter.Clone({
            source: desktopBackgrounds(this._deps), scale_x: view.scale, scale_y: view.scale,
            x: -monitor.x * view.scale, y: -monitor.y * view.scale,
        });
        const frame = plainRect(window.get_frame_rect());
        const buffer = plainRect(window.get_buffer_rect());
        const shown = presentedRect(this._choice.presentation, frame,
            plainRect(Main.layoutManager.getWorkAreaForMonitor(window.get_monitor())), plainRect(monitor));
        this._shownInView = toView(view, shown);
        // The frame goes where it will be; the shadows around it follow.
        const kx = shown.width / frame.width, ky = shown.height / frame.height;
        const place = toView(view, {
            x: shown.x + (buffer.x - frame.x) * kx, y: shown.y + (buffer.y - frame.y) * ky,
            width: buffer.width * kx, height: buffer.height * ky,
        });
        const clone = new Clutter.Clone({
            source: window.get_compositor_private(),
            x: place.x, y: place.y, width: place.width, height: place.height,
        });
        this._editor.setBackdrop([background, clone]);
    }

    // -- the options -----------------------------------------------------------

    _fillOptions() {
        const {_, ngettext} = this._deps;
        const options = this._options;
        const choice = this._choice;
        options.heading(_('Hardware and Screen'));
        const texts = systemTexts(_);
        for (const [name] of SYSTEM_RESTRICTIONS) {
            const [title, description] = texts[name];
            options.switchRow(title, description, choice.system[name] === 'allow',
                on => (choice.system[name] = on ? 'allow' : 'deny'));
        }
        if (this._appRows.length > 0) {
            options.heading(_('This App'));
            for (const row of this._appRows) {
                options.switchRow(row.text, row.detail, choice.app[row.identifier] === 'allow',
                    on => (choice.app[row.identifier] = on ? 'allow' : 'deny'));
            }
        }
        if (this._others.size > 0) {
            // AlsoAllowed: the person may switch to them (Alt+Tab) too.
            options.heading(_('Other Apps Allowed'));
            for (const [id, name] of this._others) {
                options.switchRow(name, _('Can be switched to'), choice.alsoAllowed.includes(id), on => {
                    choice.alsoAllowed = choice.alsoAllowed.filter(other => other !== id);
                    if (on)
                        choice.alsoAllowed.push(id);
                });
            }
        }
        this._timeOptions();
        options.heading(_('Presentation'));
        options.choiceRow(_('Presentation'), [
            [PRESENTATION.asIs, _('As It Is')], [PRESENTATION.maximized, _('Maximized')],
            [PRESENTATION.fullscreen, _('Full Screen')],
        ], choice.presentation, value => {
            // Regions are drawn on the app as it will be shown: when the
            // window moves for another presentation, they move with it.
            const from = this._shownInView;
            choice.presentation = value;
            this._showPreview();
            this._editor.carry(from, this._shownInView);
            choice.regions = this._editor.regions();
        });
        options.heading(_('Display Auto-Lock'));
        const autoLock = [[AUTO_LOCK.desktop, _('The Desktop\'s Own')], [AUTO_LOCK.never, _('Never')]];
        if (choice.autoLock > 0) {
            const minutes = Math.max(1, Math.round(choice.autoLock / 60));
            autoLock.push([choice.autoLock, ngettext('After %d Minute', 'After %d Minutes', minutes).format(minutes)]);
        }
        options.choiceRow(_('Display Auto-Lock'), autoLock, choice.autoLock, value => (choice.autoLock = value));
        this._shortcutOptions();
    }

    // The features the person may switch during the session (the session's
    // menu and the end dialog), without the passcode.
    _shortcutOptions() {
        const {_} = this._deps;
        const choice = this._choice;
        this._options.heading(_('Accessibility Shortcut'));
        const offered = [...SHORTCUT_FEATURES,
            ...choice.accessibilityShortcut.filter(feature => !SHORTCUT_FEATURES.includes(feature))];
        for (const feature of offered) {
            this._options.switchRow(featureTitle(feature, _), '', choice.accessibilityShortcut.includes(feature), on => {
                const chosen = choice.accessibilityShortcut.filter(other => other !== feature);
                // In the order offered, as the menu shows them.
                choice.accessibilityShortcut = offered.filter(name => name === feature ? on : chosen.includes(name));
            });
        }
    }

    _timeOptions() {
        const {_} = this._deps;
        const options = this._options;
        const choice = this._choice;
        options.heading(_('Time Limit'));
        const {hours, minutes} = splitTime(choice.timeLimit || DEFAULT_TIME_LIMIT);
        const time = {hours, minutes};
        const update = () => (choice.timeLimit = joinTime(time.hours, time.minutes));
        let steppers = null;
        options.switchRow(_('Time Limit'), _('Cover the app when time is up'),
            choice.timeLimit > 0, on => {
                choice.timeLimit = on ? joinTime(time.hours, time.minutes) || DEFAULT_TIME_LIMIT : 0;
                steppers.visible = on;
            });
        steppers = options.group([
            options.stepper(_('Hours'), time.hours, 0, 23, 1, value => {
                time.hours = value;
                update();
            }),
            options.stepper(_('Minutes'), time.minutes, 0, 55, 5, value => {
                time.minutes = value;
                update();
            }),
        ]);
        steppers.visible = choice.timeLimit > 0;
    }

    // -- starting ---------------------------------------------------------------

    _start() {
        if (!this._service.session()?.passcodeSet && !this._passcodeSettled) {
            this._askPasscode();
            return;
        }
        this._message.text = '';
        this._dialog.buttonLayout.reactive = false;
        this._service.daemon.start(this._target.app, startOptions(this._deps.GLib, this._choice))
            .then(() => this.close(), error => {
                this._message.text = error.message;
                if (this._dialog !== null)
                    this._dialog.buttonLayout.reactive = true;
            });
    }

    // The first start: a new passcode, twice; where the person may not set
    // one, starting with an administrator's confirmation for ending.
    _askPasscode() {
        const {_, St, Clutter} = this._deps;
        this._main.hide();
        const page = new St.BoxLayout({vertical: true, style: 'spacing: 12px;', x_align: Clutter.ActorAlign.CENTER});
        page.add_child(new St.Label({text: _('Set a Passcode'), style_class: 'message-dialog-title headline'}));
        page.add_child(new St.Label({
            text: _('The passcode ends Guided Access. Enter it twice.'),
            style_class: 'message-dialog-description',
        }));
        const entry = label => {
            const field = new St.PasswordEntry({
                can_focus: true, hint_text: label, style: 'min-width: 16em;', accessible_name: label,
            });
            nameText(field.clutter_text, label);
            page.add_child(field);
            return field;
        };
        const first = entry(_('New passcode'));
        const second = entry(_('Confirm passcode'));
        this._dialog.contentLayout.insert_child_below(page, this._message);
        this._message.text = '';
        const back = () => {
            page.destroy();
            this._main.show();
            this._message.text = '';
            this._mainButtons();
        };
        const submit = () => this._setPasscodeAndStart(first.get_text(), second.get_text(), () => {
            first.set_text('');
            second.set_text('');
            first.grab_key_focus();
        });
        first.clutter_text.connect('activate', () => second.grab_key_focus());
        second.clutter_text.connect('activate', submit);
        this._dialog.setButtons([
            {label: _('Back'), action: back, key: Clutter.KEY_Escape},
            {label: _('Set Passcode and Start'), action: submit, default: true},
        ]);
        first.grab_key_focus();
    }

    _setPasscodeAndStart(passcode, again, retry) {
        const {_} = this._deps;
        if (passcode.length === 0) {
            this._message.text = _('Enter a passcode.');
            retry();
            return;
        }
        if (passcode !== again) {
            this._message.text = _('The passcodes do not match. Enter the new passcode twice.');
            retry();
            return;
        }
        this._service.daemon.setPasscode(passcode).then(() => {
            this._passcodeSettled = true; // set; PasscodeSet may not have arrived yet
            this._start();
        }, error => {
            this._message.text = _('%s\nYou can start without a passcode: ending Guided Access will then need an administrator\'s password.')
                .format(error.message);
            this._offerStartWithoutPasscode();
        });
    }

    _offerStartWithoutPasscode() {
        const {_, Clutter} = this._deps;
        this._dialog.setButtons([
            {label: _('Cancel'), action: () => this.close(), key: Clutter.KEY_Escape},
            {
                label: _('Start Without Passcode'), default: true, action: () => {
                    this._passcodeSettled = true;
                    this._start();
                },
            },
        ]);
    }
}

// A Meta.Rectangle (whose fields a spread does not copy) as a plain object.
function plainRect({x, y, width, height}) {
    return {x, y, width, height};
}

// GetLastOptions' a{sv}, its values unpacked all the way down.
function unpackOptions(options) {
    return Object.fromEntries(Object.entries(options).map(([key, value]) =>
        [key, typeof value?.recursiveUnpack === 'function' ? value.recursiveUnpack() : value]));
}
