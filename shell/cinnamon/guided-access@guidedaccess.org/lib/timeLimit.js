// SPDX-License-Identifier: GPL-2.0-or-later
// A session's time limit on screen, Cinnamon's way (its panel, with the
// clock, is hidden during a session):
//
//   the time left   in a pill at the top right of the working monitor
//                   (where the app is; the primary one until told),
//                   counted down each second (TimePill, the GNOME
//                   extension's, with Cinnamon's OSD style)
//   a warning       the daemon's TimeLimitWarning shown at the bottom of
//                   the working monitor for a few seconds, in Cinnamon's
//                   info OSD style
//
// (When the time is up the enforcer shows its Shield.) None of it takes the
// keyboard: the gesture and the end dialog still work.

import {TimePill} from './timePill.js';
import {formatRemaining, remainingSeconds} from '../common/session.js';

const WARNING_SECONDS = 4;

export class TimeLimit {
    // deps: {_, St, Clutter, GLib, Main}.
    constructor(deps) {
        this._deps = deps;
        this._session = null;
        this._pill = new TimePill(deps);
        this._tickSource = 0;
        this._warning = null;
        this._warningSource = 0;
        this._monitor = null; // the working monitor's rect; null: the primary
    }

    // The monitor the person works on ({x, y, width, height}): the time
    // left and the warnings go there.
    setMonitor(monitor) {
        this._monitor = monitor;
        this._tick();
    }

    _workingMonitor() {
        return this._monitor ?? this._deps.Main.layoutManager.primaryMonitor;
    }

    // The session enforced now, or null.
    follow(session) {
        const {GLib} = this._deps;
        this._session = session;
        const limited = session !== null && session.timeLimit > 0;
        if (limited && this._tickSource === 0) {
            this._tickSource = GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, 1, () => {
                this._tick();
                return GLib.SOURCE_CONTINUE;
            });
        } else if (!limited && this._tickSource !== 0) {
            GLib.source_remove(this._tickSource);
            this._tickSource = 0;
        }
        this._tick();
        if (session === null)
            this._hideWarning();
    }

    _tick() {
        const {_, GLib} = this._deps;
        const session = this._session;
        if (session === null || !(session.timeLimit > 0)) {
            this._pill.show('', '', null);
            return;
        }
        const left = formatRemaining(remainingSeconds(session, GLib.get_real_time()));
        this._pill.show(left, _('Guided Access, %s left').format(left), this._workingMonitor());
    }

    // TimeLimitWarning: `secondsLeft` at the bottom of the screen a moment.
    warn(secondsLeft) {
        const {_, St, GLib, Main} = this._deps;
        this._hideWarning();
        const monitor = this._workingMonitor();
        this._warning = new St.Label({
            name: 'guided-access-warning', style_class: 'info-osd',
            text: _('Guided Access ends in %s').format(formatRemaining(Number(secondsLeft))),
        });
        Main.uiGroup.add_child(this._warning);
        const [, width] = this._warning.get_preferred_width(-1);
        const [, height] = this._warning.get_preferred_height(width);
        this._warning.set_position(monitor.x + Math.round((monitor.width - width) / 2),
            monitor.y + monitor.height - height - 80);
        this._warningSource = GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, WARNING_SECONDS, () => {
            this._warningSource = 0;
            this._hideWarning();
            return GLib.SOURCE_REMOVE;
        });
    }

    _hideWarning() {
        if (this._warningSource !== 0)
            this._deps.GLib.source_remove(this._warningSource);
        this._warningSource = 0;
        this._warning?.destroy();
        this._warning = null;
    }

    destroy() {
        this.follow(null);
        this._pill.destroy();
    }
}
