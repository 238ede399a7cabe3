// SPDX-License-Identifier: GPL-2.0-or-later
// Screen capture refused while an assessment that does not allow it runs
// (its `allows-screen-capture` false). Each class changes one thing in
// its constructor and destroy() puts exactly that back:
//
// - ScreenshotRefusal: the shell's org.gnome.Shell.Screenshot service
//   answers other processes' captures (Screenshot, ScreenshotWindow,
//   ScreenshotArea, InteractiveScreenshot where the shell has it, PickColor)
//   with AccessDenied. gjs's exported object looks the method up on the
//   service at each call, so an own method on the service shadows the
//   shell's; the service is kept in a private field of Main.shellDBusService
//   (no public way to it on GNOME 43 to 50).
// - RemoteAccessStop: mutter's screencast and remote-desktop sessions (the
//   ScreenCast and RemoteDesktop D-Bus APIs the portal, gnome-remote-desktop
//   and the shell's own screen recorder use) inhibited through the backend's
//   remote access controller: mutter closes the running ones and refuses
//   new ones ("Session creation inhibited", AccessDenied); a session that
//   still reports a handle is stopped as it starts, and one that has not
//   stopped a second later is reported (`unstoppable`): the extension then
//   no longer claims screen-capture, which interrupts the assessment.
// The screenshot UI and the Print keys are closed in every session by
// ShellLockdown.

// The service's methods that capture the screen (the Async form is what
// gjs calls: `<Method>Async(parameters, invocation)`).
export const CAPTURE_METHODS = ['Screenshot', 'ScreenshotWindow', 'ScreenshotArea', 'InteractiveScreenshot', 'PickColor'];
export const REFUSAL = 'org.freedesktop.DBus.Error.AccessDenied';
export const REFUSAL_MESSAGE = 'Screen capture is not allowed during this assessment (Guided Access)';
// How long a session told to stop has before it counts as unstoppable.
export const STOP_GRACE_MS = 1000;

export class ScreenshotRefusal {
    // deps: {Main}.
    constructor({Main}) {
        this._shadowed = [];
        // Private: the shell keeps its Screenshot service here (see the top).
        const service = Main.shellDBusService?._screenshotService;
        if (!service) {
            log('Guided Access: the shell\'s Screenshot service was not found; other processes\' screenshots are not refused');
            return;
        }
        for (const method of CAPTURE_METHODS) {
            const name = `${method}Async`;
            if (typeof service[name] !== 'function')
                continue;
            const before = Object.getOwnPropertyDescriptor(service, name);
            Object.defineProperty(service, name, {
                value: (_parameters, invocation) => {
                    log(`Guided Access: refused ${method} from ${invocation.get_sender()} during the assessment`);
                    invocation.return_dbus_error(REFUSAL, REFUSAL_MESSAGE);
                },
                writable: true, configurable: true, enumerable: false,
            });
            this._shadowed.push([service, name, before]);
        }
    }

    destroy() {
        for (const [service, name, before] of this._shadowed) {
            if (before === undefined)
                delete service[name];
            else
                Object.defineProperty(service, name, before);
        }
        this._shadowed = [];
    }
}

export class RemoteAccessStop {
    // deps: {global, GLib}; unstoppable: called once a session has not
    // stopped STOP_GRACE_MS after it was told to.
    constructor({global, GLib}, unstoppable) {
        this._GLib = GLib;
        this._unstoppable = unstoppable;
        this._waiting = new Map(); // handle → [its 'stopped' handler, the grace timeout]
        this._controller = global.backend?.get_remote_access_controller?.() ?? null;
        this._handleId = 0;
        if (this._controller === null) {
            log('Guided Access: no remote access controller (mutter built without remote desktop): ' +
                'screencasts are not stopped');
            return;
        }
        this._controller.inhibit_remote_access();
        this._handleId = this._controller.connect('new-handle', (_controller, handle) => this._stop(handle));
    }

    _stop(handle) {
        log('Guided Access: a screencast or remote-desktop session started during the assessment: stopping it');
        const GLib = this._GLib;
        const stoppedId = handle.connect('stopped', () => this._forget(handle));
        const timeoutId = GLib.timeout_add(GLib.PRIORITY_DEFAULT, STOP_GRACE_MS, () => {
            this._waiting.delete(handle);
            handle.disconnect(stoppedId);
            log('Guided Access: a screencast or remote-desktop session did not stop during the assessment');
            this._unstoppable();
            return GLib.SOURCE_REMOVE;
        });
        this._waiting.set(handle, [stoppedId, timeoutId]);
        try {
            handle.stop();
        } catch (error) {
            logError(error, 'Guided Access: cannot stop a screencast or remote-desktop session during the assessment');
        }
    }

    // `handle` stopped, or the assessment's refusal ends: no longer waited for.
    _forget(handle) {
        const [stoppedId, timeoutId] = this._waiting.get(handle) ?? [0, 0];
        this._waiting.delete(handle);
        if (stoppedId)
            handle.disconnect(stoppedId);
        if (timeoutId)
            this._GLib.source_remove(timeoutId);
    }

    destroy() {
        for (const handle of [...this._waiting.keys()])
            this._forget(handle);
        if (this._controller === null)
            return;
        this._controller.disconnect(this._handleId);
        this._controller.uninhibit_remote_access();
        this._controller = null;
    }
}
