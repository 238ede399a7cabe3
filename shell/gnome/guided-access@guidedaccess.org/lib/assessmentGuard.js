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
// A screencast that does not stop when told (RemoteAccessStop) means the
// extension no longer keeps capture off: `captureKept(false)` says so, and
// `captureKept(true)` once no assessment denies capture any more.
//
// Notifications, speech and spelling help are the daemon's (a system
// restriction, features, IBus's settings; docs/assessment.md).
// destroy() (the extension's disable()) puts back what the parts changed
// and empties nothing: the assessment goes on and is applied again at the
// next enable().

import {assessmentDenies} from '../common/session.js';
import {RemoteAccessStop, ScreenshotRefusal} from './screenCapture.js';
import {clearClipboard} from './clipboard.js';

export class AssessmentGuard {
    // captureKept(kept): called when whether capture is kept off changes.
    constructor(deps, captureKept) {
        this._deps = deps;
        this._captureKeptChanged = captureKept;
        this._capture = null; // [ScreenshotRefusal, RemoteAccessStop] while refused
        this._captureKept = true; // false once a capture could not be stopped, until capture is no longer denied
        this._clipboardDenied = false; // during an assessment that does not allow it
    }

    // session: the session enforced now (../common/session.js), or null.
    apply(session) {
        const captureDenied = assessmentDenies(session, 'allowsScreenCapture');
        if (captureDenied && this._capture === null) {
            this._capture = [new ScreenshotRefusal(this._deps),
                new RemoteAccessStop(this._deps, () => this._setCaptureKept(false))];
        } else if (!captureDenied) {
            this._stopRefusing();
            this._setCaptureKept(true);
        }
        const clipboardDenied = assessmentDenies(session, 'allowsClipboard');
        if (clipboardDenied !== this._clipboardDenied)
            clearClipboard(this._deps); // begins, or ends
        this._clipboardDenied = clipboardDenied;
    }

    _setCaptureKept(kept) {
        if (kept === this._captureKept)
            return;
        this._captureKept = kept;
        this._captureKeptChanged(kept);
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
