// SPDX-License-Identifier: LGPL-2.1-or-later
import CGIO
import DBusKit
import Dispatch
import Glibc

// The footprint floor of guided-accessd's stack, for scripts/bench: a Swift
// program built like the daemon (release, Swift runtime linked in) on the
// same libraries, doing what the daemon does before any Guided Access code
// runs. It connects to the session bus with DBusKit, exports one object,
// owns a name, and watches the GSettings schemas the daemon reads (dconf
// backend) from a GLib main loop on a thread of its own. Then it idles until
// killed. Its resident memory is the least any daemon on this stack can use.

/// A thread's body: watches the schemas from its own GLib main loop; never
/// returns. A named nonisolated function, as a closure written at top level
/// would belong to the main actor and trap on this thread.
nonisolated func watchSettings(_: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let schemas = [
        "org.gnome.desktop.a11y.applications", "org.gnome.desktop.a11y.interface", "org.gnome.desktop.a11y.keyboard",
        "org.gnome.desktop.a11y.magnifier", "org.gnome.desktop.interface", "org.gnome.desktop.notifications",
        "org.gnome.desktop.peripherals.touchpad", "org.gnome.desktop.wm.preferences",
        "org.gnome.settings-daemon.peripherals.touchscreen", "org.gnome.settings-daemon.plugins.power",
    ]
    let context = g_main_context_new()
    g_main_context_push_thread_default(context)
    let source = g_settings_schema_source_get_default()
    for id in schemas {
        guard let schema = g_settings_schema_source_lookup(source, id, 1) else { continue }
        defer { g_settings_schema_unref(schema) }
        // Read every key once and watch for changes, as the daemon does.
        let settings = g_settings_new(id)
        if let keys = g_settings_schema_list_keys(schema) {
            var index = 0
            while let key = keys[index] { g_variant_unref(g_settings_get_value(settings, key)); index += 1 }
            g_strfreev(keys)
        }
        for signal in ["changed", "writable-changed"] {
            _ = cgio_connect_key_signal(UnsafeMutableRawPointer(settings), signal, { _, _, _ in }, nil)
        }
    }
    g_main_loop_run(g_main_loop_new(context, 0))
    fatalError("the GLib main loop ended")
}

var thread = pthread_t()
pthread_create(&thread, nil, watchSettings, nil)

// Serves from a detached task while the main thread waits, as the daemon does
// (an async main would end the main thread by unwinding it).
Task.detached {
    do {
        let bus = try Connection(.session)
        bus.export(try ObjectPath(validating: "/org/example/FootprintFloor"), [
            Interface(try InterfaceName(validating: "org.example.FootprintFloor1"), [
                .property(try MemberName(validating: "Version")) { UInt32(1) },
            ]),
        ])
        try await bus.requestName(try BusName(validating: "org.example.FootprintFloor"))
        while true { try await Task.sleep(for: .seconds(3600)) }
    } catch {
        fatalError("footprint-floor: \(error)")
    }
}
DispatchSemaphore(value: 0).wait()
