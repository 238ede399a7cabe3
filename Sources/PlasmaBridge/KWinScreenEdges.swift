// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import FoundationEssentials
import GuidedAccessCore
import Locking

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
/// Only where KWin has a kwinrc when the daemon starts: a GNOME session
/// gets no kwinrc from us. KWin writes its settings without telling anyone,
/// so the entries are read again before each session starts
/// (``refreshOriginals()``) and answered from that copy under the model's lock.
final class KWinScreenEdges: SessionSettingsApplier, Sendable {
    /// An entry this class writes during a session, and the value that
    /// switches it off.
    struct Entry: Sendable, Equatable {
        let group: String
        let key: String
        let off: String

        /// The id in the state file: `kwinrc:Group/Key`.
        var id: String { "\(KWinScreenEdges.file):\(group)/\(key)" }
    }

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
    static let entries: [Entry] =
        ["Top", "TopRight", "Right", "BottomRight", "Bottom", "BottomLeft", "Left", "TopLeft"].map {
            Entry(group: "ElectricBorders", key: $0, off: "None")
        } + ["Top", "Right", "Bottom", "Left"].map {
            Entry(group: "TouchEdges", key: $0, off: "None")
        } + ["BorderActivate", "BorderAlternativeActivate", "TouchBorderActivate", "TouchBorderAlternativeActivate"].map {
            Entry(group: "TabBox", key: $0, off: "9")
        } + [
            ("Effect-overview", ["BorderActivate", "TouchBorderActivate"]),
            ("Effect-windowview", ["BorderActivate", "BorderActivateAll", "BorderActivateClass", "TouchBorderActivate",
                                   "TouchBorderActivateAll", "TouchBorderActivateClass"]),
            ("Effect-desktopgrid", ["BorderActivate", "TouchBorderActivate"]),
            ("Effect-presentwindows", ["BorderActivate", "BorderActivateAll", "BorderActivateClass", "TouchBorderActivate",
                                       "TouchBorderActivateAll", "TouchBorderActivateClass"]),
        ].flatMap { group, keys in keys.map { Entry(group: group, key: $0, off: "9") } }
        + [Entry(group: "Windows", key: "ElectricBorders", off: "0")]
        + leavingEffects.map { Entry(group: "Plugins", key: "\($0)Enabled", off: "false") }

    private let directory: String
    /// Whether kwinrc existed when the daemon started (a KDE session).
    private let active: Bool
    /// The user's entries as last read, by id; nil for an entry not set.
    private let copy = Locked<[String: String?]>([:])
    /// Where the reconfigure call goes once the daemon is on the bus, and
    /// whether kwinrc changed before that (at start, a session resumed or
    /// an interrupted End finished).
    private let bus = Locked<(connection: Connection?, pending: Bool)>((nil, false))

    /// Edges of the kwinrc in `directory` (the user's configuration directory).
    init(directory: String) {
        self.directory = directory
        active = (try? FileSystem.readFile("\(directory)/\(Self.file)")) != nil
        if active { refreshOriginals() }
    }

    func source(of restriction: SystemRestriction) -> String { "published" }

    func settings(for demand: DesktopDemand) -> [String] {
        active && demand.sessionRuns ? Self.entries.map(\.id) : []
    }

    func originals(of settings: [String]) -> [String: SavedSetting] {
        let copy = copy.withLock { $0 }
        return Dictionary(uniqueKeysWithValues: settings.map { ($0, SavedSetting(userValue: copy[$0] ?? nil)) })
    }

    func apply(_ demand: DesktopDemand) -> [String] {
        guard active, demand.sessionRuns else { return [] }
        return rewrite("switch KWin's screen edges off for the session") { config in
            for entry in Self.entries { config.set(group: entry.group, key: entry.key, to: entry.off) }
        }
    }

    func restore(_ originals: [String: SavedSetting]) -> [String] {
        let byId = Dictionary(uniqueKeysWithValues: Self.entries.map { ($0.id, $0) })
        return rewrite("put KWin's screen edges back") { config in
            for (id, saved) in originals {
                guard let entry = byId[id] else { continue }
                config.set(group: entry.group, key: entry.key, to: saved.userValue)
            }
        }
    }

    func owns(_ setting: String) -> Bool { setting.hasPrefix("\(Self.file):") }

    var refreshesOriginals: Bool { active }

    func refreshOriginals() {
        guard let config = try? read() else { return }
        copy.withLock { copy in
            for entry in Self.entries { copy[entry.id] = config.value(group: entry.group, key: entry.key) }
        }
    }

    /// Changes kwinrc with `change`, writes it when that changed it, and
    /// asks KWin to read it again. Returns what went wrong, for the log.
    private func rewrite(_ purpose: String, _ change: (inout KConfigText) -> Void) -> [String] {
        let path = "\(directory)/\(Self.file)"
        do {
            let old = try read()
            var config = old
            change(&config)
            guard config != old else { return [] }
            try FileSystem.writeAtomically(Data(config.text.utf8), to: path, directory: directory)
            reconfigure()
            return []
        } catch {
            return ["cannot \(purpose) in \(path): \(error)"]
        }
    }

    private func read() throws -> KConfigText {
        let data = try FileSystem.readFile("\(directory)/\(Self.file)")
        return KConfigText(data.map { String(decoding: $0, as: UTF8.self) } ?? "")
    }

    /// Sends KWin the `reconfigure` that a change made before now still owes.
    func connect(to connection: Connection) {
        let pending = bus.withLock { bus in
            defer { bus = (connection, false) }
            return bus.pending
        }
        if pending { reconfigure() }
    }

    /// `reconfigure` to KWin, without waiting and without starting anything
    /// (owed until ``connect(to:)`` before the daemon is on the bus).
    private func reconfigure() {
        guard let connection = bus.withLock({ bus -> Connection? in
            if bus.connection == nil { bus.pending = true }
            return bus.connection
        }) else { return }
        if let message = try? Message.methodCall(destination: "org.kde.KWin", path: "/KWin", interface: "org.kde.KWin",
                                                 member: "reconfigure", arguments: [], noReplyExpected: true,
                                                 autoStart: false) {
            connection.send(message)
        }
    }
}
