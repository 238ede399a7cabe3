// SPDX-License-Identifier: LGPL-2.1-or-later
import CGIO
import FoundationEssentials
import GuidedAccessCore
#if canImport(Glibc)
import Glibc
#endif

/// Launches apps the way the desktop does, through GIO's desktop files
/// (`GDesktopAppInfo`), with the daemon's environment: on KDE Plasma and
/// GNOME the session bus activates the daemon with the session's
/// `WAYLAND_DISPLAY` and `DISPLAY`.
public struct DesktopAppLauncher: AppLauncher {
    public init() {}

    public func launch(_ app: String) throws(DomainError) {
        guard let info = Self.appInfo(for: app) else {
            throw .failed("cannot launch \(app): no desktop file \(app).desktop and no such program")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(info)) }
        var error: UnsafeMutablePointer<GError>?
        guard g_app_info_launch(info, nil, nil, &error) != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            g_clear_error(&error)
            throw .failed("cannot launch \(app): \(message)")
        }
    }

    /// The app's desktop file (`APP.desktop`, or for a path the installed
    /// one whose program it is), else the program alone; nil when none.
    /// Owned: the caller unrefs it.
    private static func appInfo(for app: String) -> OpaquePointer? {
        guard app.hasPrefix("/") else {
            return g_desktop_app_info_new("\(app).desktop")
        }
        if let installed = installedApp(running: app) { return installed }
        guard access(app, X_OK) == 0 else { return nil }
        let quoted = g_shell_quote(app)
        defer { g_free(quoted) }
        return g_app_info_create_from_commandline(quoted, nil, G_APP_INFO_CREATE_NONE, nil)
    }

    /// The installed desktop file whose program resolves to `path`.
    private static func installedApp(running path: String) -> OpaquePointer? {
        let all = g_app_info_get_all()
        defer { g_list_free_full(all, g_object_unref) }
        var node = all
        while let current = node {
            if let info = OpaquePointer(current.pointee.data), let program = program(of: info), resolved(program) == path {
                g_object_ref(UnsafeMutableRawPointer(info))
                return info
            }
            node = current.pointee.next
        }
        return nil
    }

    /// The program a desktop file runs: the first word of its command line,
    /// unquoted (GIO's `executable` keeps the quotes of a quoted `Exec`).
    private static func program(of info: OpaquePointer) -> String? {
        guard let commandLine = g_app_info_get_commandline(info) else { return nil }
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        guard g_shell_parse_argv(commandLine, nil, &argv, nil) != 0, let argv else { return nil }
        defer { g_strfreev(argv) }
        return argv[0].map { String(cString: $0) }
    }

    /// `program` as a real path: looked up in PATH when it has no slash,
    /// symbolic links resolved (as the daemon names an app by its resolved executable).
    private static func resolved(_ program: String) -> String? {
        guard let found = g_find_program_in_path(program) else { return nil }
        defer { g_free(found) }
        guard let real = realpath(found, nil) else { return String(cString: found) }
        defer { free(real) }
        return String(cString: real)
    }
}
