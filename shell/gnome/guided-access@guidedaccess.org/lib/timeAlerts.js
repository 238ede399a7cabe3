// SPDX-License-Identifier: GPL-2.0-or-later
// What a person hears at a time-limit warning (TimeLimitWarning: 5 min,
// 1 min and 10 s before the end), as the settings window chose: a sound of
// the desktop's sound theme through the shell's sound player, and the time
// left spoken through speech-dispatcher's `spd-say` when it is installed.
// Speech asked for but not installed plays the sound instead, so the
// warning is never silent. The OSD is SessionUI's.

import {format} from './formatting.js';

export const SOUND_KEY = 'time-limit-sound';
export const SPEECH_KEY = 'time-limit-speech';
// freedesktop sound theme name ("an alarm clock went off"); sound themes
// fall back along the theme's inheritance, then to no sound.
export const THEME_SOUND = 'alarm-clock-elapsed';
const SPEAKER = 'spd-say';

// The sentence spoken for `seconds` left, in whole minutes from a minute on.
export function spokenTimeLeft(seconds, {_, ngettext}) {
    const plural = ngettext ?? ((one, many, n) => (n === 1 ? one : many));
    if (seconds >= 60) {
        const minutes = Math.round(seconds / 60);
        return format(plural('Guided Access ends in %d minute.', 'Guided Access ends in %d minutes.', minutes),
            minutes);
    }
    return format(plural('Guided Access ends in %d second.', 'Guided Access ends in %d seconds.', seconds), seconds);
}

export class TimeAlerts {
    // deps: {Gio, GLib, global, settings, _, ngettext}; the sound player is
    // the shell's (global.display), asked at each warning.
    constructor(deps) {
        this._deps = deps;
        this._cancellable = new deps.Gio.Cancellable();
        this._speakers = new Set();
    }

    announce(secondsLeft) {
        const {settings, GLib, global, _} = this._deps;
        const seconds = Number(secondsLeft);
        const speak = settings.get_boolean(SPEECH_KEY);
        const speaker = speak ? GLib.find_program_in_path(SPEAKER) : null;
        if (settings.get_boolean(SOUND_KEY) || (speak && speaker === null)) {
            global.display.get_sound_player().play_from_theme(THEME_SOUND,
                _('Guided Access time limit'), this._cancellable);
        }
        if (speaker !== null)
            this._speak(speaker, spokenTimeLeft(seconds, this._deps));
    }

    _speak(speaker, text) {
        const {Gio} = this._deps;
        let process;
        try {
            // `--`: the text is never taken for an option.
            process = Gio.Subprocess.new([speaker, '--', text], Gio.SubprocessFlags.STDOUT_SILENCE |
                Gio.SubprocessFlags.STDERR_SILENCE);
        } catch (error) {
            log(`Guided Access: cannot run ${speaker}: ${error.message}`);
            return;
        }
        this._speakers.add(process);
        process.wait_async(this._cancellable, () => this._speakers.delete(process));
    }

    destroy() {
        this._cancellable.cancel();
        for (const process of this._speakers)
            process.force_exit();
        this._speakers.clear();
    }
}
