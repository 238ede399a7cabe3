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
//   still reports a handle is stopped as it starts.
// The screenshot UI and the Print keys are closed in every session by
// ShellLockdown.

// The service's methods that capture the screen (the Async form is what
// gjs calls: `<Method>Async(parameters, invocation)`).
export const CAPTURE_METHODS = ['Screenshot', 'ScreenshotWindow', 'ScreenshotArea', 'InteractiveScreenshot', 'PickColor'];
export const REFUSAL = 'org.freedesktop.DBus.Error.AccessDenied';
export const REFUSAL_MESSAGE = 'Screen capture is not allowed during this assessment (Guided Access)';

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
    // deps: {global}.
    constructor({global}) {
        this._controller = global.backend?.get_remote_access_controller?.() ?? null;
        this._handleId = 0;
        if (this._controller === null) {
            log('Guided Access: no remote access controller (mutter built without remote desktop): ' +
                'screencasts are not stopped');
            return;
        }
        this._controller.inhibit_remote_access();
        this._handleId = this._controller.connect('new-handle', (_controller, handle) => {
            log('Guided Access: a screencast or remote-desktop session started during the assessment: stopped');
            try {
                handle.stop();
            } catch (error) {
                // No method of the daemon takes this: the log says it.
                logError(error, 'Guided Access: cannot stop a screencast or remote-desktop session during the assessment');
            }
        });
    }

    destroy() {
        if (this._controller === null)
            return;
        this._controller.disconnect(this._handleId);
        this._controller.uninhibit_remote_access();
        this._controller = null;
    }
}
