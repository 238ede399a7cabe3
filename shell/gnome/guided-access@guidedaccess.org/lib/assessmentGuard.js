// SPDX-License-Identifier: GPL-2.0-or-later
// What an assessment switches off on screen beyond the session's lock,
// each part only while an assessment runs whose configuration does not
// allow it (../common/session.js's assessmentDenies):
//
//   allows-screen-capture false → ScreenshotRefusal, RemoteAccessStop
//                                  (screenCapture.js)
//   allows-clipboard false      → the clipboard emptied when the
//                                  assessment begins and when it ends
//                                  (clipboard.js)
//
// Notifications and speech are the daemon's (system restriction,
// features); `allows-spell-check` has no desktop switch the extension
// could hold (docs/assessment.md). destroy() (the extension's disable())
// puts back what the parts changed and empties nothing: the assessment
// goes on and is applied again at the next enable().

import {assessmentDenies} from '../common/session.js';
import {RemoteAccessStop, ScreenshotRefusal} from './screenCapture.js';
import {clearClipboard} from './clipboard.js';

export class AssessmentGuard {
    constructor(deps) {
        this._deps = deps;
        this._capture = null; // [ScreenshotRefusal, RemoteAccessStop] while refused
        this._clipboardDenied = false; // during an assessment that does not allow it
    }

    // session: the session enforced now (../common/session.js), or null.
    apply(session) {
        const captureDenied = assessmentDenies(session, 'allowsScreenCapture');
        if (captureDenied && this._capture === null)
            this._capture = [new ScreenshotRefusal(this._deps), new RemoteAccessStop(this._deps)];
        else if (!captureDenied)
            this._stopRefusing();
        const clipboardDenied = assessmentDenies(session, 'allowsClipboard');
        if (clipboardDenied !== this._clipboardDenied)
            clearClipboard(this._deps); // begins, or ends
        this._clipboardDenied = clipboardDenied;
    }

    _stopRefusing() {
        for (const part of this._capture ?? [])
            part.destroy();
        this._capture = null;
    }

    destroy() {
        this._stopRefusing();
        this._clipboardDenied = false;
    }
}
