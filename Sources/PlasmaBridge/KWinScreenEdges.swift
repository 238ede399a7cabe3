// SPDX-License-Identifier: LGPL-2.1-or-later

/// KWin's screen edges and touch-screen edges, and the effects they open,
/// switched off for every session through the user's kwinrc: a corner set
/// to the task switcher, the overview or KRunner would otherwise act above
/// the locked app, and a KWin script can add edge actions but not remove
/// KWin's own.
///
/// The daemon writes "none" to each edge entry while a session runs and puts
/// the user's entries back at its end, as it does with GSettings: the
/// originals are in the state file before the first write, so a crash puts
/// them back on restart. KWin is then asked to read its configuration again
/// (`org.kde.KWin /KWin reconfigure`).
///
/// Only in a Plasma session (``PlasmaDesktop``): a GNOME session gets no
/// kwinrc from us.
enum KWinScreenEdges {
    static let file = "kwinrc"

    /// The effects that show every window or desktop, which edges and
    /// gestures open (the KWin script unloads them too, at once: the same
    /// names as its code/effects.js).
    static let leavingEffects = ["overview", "windowview", "desktopgrid", "presentwindows", "cube", "tileseditor",
                                 "kwin4_effect_cube"]

    /// Every edge action KWin 5.27 to 6.x reads from kwinrc: the edges'
    /// own actions (none, show desktop, lock screen, KRunner, activities,
    /// launcher), the task switcher's edges, and the edges of the effects
    /// that show every window (`9` is KWin's `ElectricNone`), mouse and
    /// touch; and those effects themselves, off, so that the reconfigure
    /// (ours or anyone's) does not load back what the script unloaded.
    static let entries: [KConfigSessionEntries.Entry] = [(group: String, key: String, value: String)](
        ["Top", "TopRight", "Right", "BottomRight", "Bottom", "BottomLeft", "Left", "TopLeft"].map {
            (group: "ElectricBorders", key: $0, value: "None")
        } + ["Top", "Right", "Bottom", "Left"].map {
            (group: "TouchEdges", key: $0, value: "None")
        } + ["BorderActivate", "BorderAlternativeActivate", "TouchBorderActivate", "TouchBorderAlternativeActivate"].map {
            (group: "TabBox", key: $0, value: "9")
        } + [
            ("Effect-overview", ["BorderActivate", "TouchBorderActivate"]),
            ("Effect-windowview", ["BorderActivate", "BorderActivateAll", "BorderActivateClass", "TouchBorderActivate",
                                   "TouchBorderActivateAll", "TouchBorderActivateClass"]),
            ("Effect-desktopgrid", ["BorderActivate", "TouchBorderActivate"]),
            ("Effect-presentwindows", ["BorderActivate", "BorderActivateAll", "BorderActivateClass", "TouchBorderActivate",
                                       "TouchBorderActivateAll", "TouchBorderActivateClass"]),
        ].flatMap { group, keys in keys.map { (group: group, key: $0, value: "9") } }
        + [(group: "Windows", key: "ElectricBorders", value: "0")]
        + leavingEffects.map { (group: "Plugins", key: "\($0)Enabled", value: "false") }
    ).map { .init(group: $0.group, key: $0.key, value: $0.value, when: { $0.sessionRuns }) }

    /// The edges of the user's kwinrc in `directory`, off for every
    /// session; KWin is asked to `reconfigure` after each change.
    static func applier(directory: String) -> KConfigSessionEntries {
        KConfigSessionEntries(file: file, directory: directory, entries: entries,
                              reload: .init(destination: "org.kde.KWin", path: "/KWin", interface: "org.kde.KWin", member: "reconfigure"))
    }
}
