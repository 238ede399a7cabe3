// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import FoundationEssentials
import GuidedAccessCore
import Locking

/// Entries of one KDE configuration file in the user's directory that a
/// session sets, put back exactly at its end: the user's own line of each
/// (or its absence) is in the state file before the first write, so a
/// crash puts them back on restart. After each change the program that
/// reads the file is asked to read it again (`reload`), without waiting.
///
/// KDE's programs write these files without announcing it, so the entries
/// are read again before each session starts (``refreshOriginals()``) and
/// answered from that copy under the model's lock.
final class KConfigSessionEntries: SessionSettingsApplier, Sendable {
    /// An entry a session may write, and what it writes for a demand.
    struct Entry: Sendable {
        let group: String
        let key: String
        /// The text written for `demand`; nil when the demand asks nothing of this entry.
        let value: @Sendable (DesktopDemand) -> String?

        init(group: String, key: String, value: @escaping @Sendable (DesktopDemand) -> String?) {
            self.group = group
            self.key = key
            self.value = value
        }

        /// `value` for every demand `isDemanded` accepts.
        init(group: String, key: String, value: String, when isDemanded: @escaping @Sendable (DesktopDemand) -> Bool) {
            self.init(group: group, key: key) { isDemanded($0) ? value : nil }
        }
    }

    /// A method that makes a program read its file again; nil reply expected.
    struct Reload: Sendable {
        let destination: BusName
        let path: ObjectPath
        let interface: InterfaceName
        let member: MemberName
    }

    let file: String
    let entries: [Entry]
    private let directory: String
    /// The restriction these entries enforce (named in `SystemRestrictionSources`); nil: none.
    private let restriction: SystemRestriction?
    private let reload: Reload?
    /// The user's entries as last read, by id; nil for an entry not set.
    private let copy = Locked<[String: String?]>([:])
    /// Where the reload goes once the daemon is on the bus, and whether the
    /// file changed before that (at start, a session resumed or an
    /// interrupted End finished).
    private let bus = Locked<(connection: Connection?, pending: Bool)>((nil, false))

    init(file: String, directory: String, entries: [Entry], restriction: SystemRestriction? = nil, reload: Reload?) {
        self.file = file
        self.directory = directory
        self.entries = entries
        self.restriction = restriction
        self.reload = reload
        refreshOriginals()
    }

    /// The id in the state file: `FILE:GROUP/KEY` (a nested group's parts joined by `][`).
    func id(of entry: Entry) -> String {
        "\(file):\(entry.group.split(separator: KConfigText.nesting).joined(separator: "]["))/\(entry.key)"
    }

    func source(of restriction: SystemRestriction) -> String {
        guard restriction == self.restriction else { return "published" }
        return "kconfig:\(file)"
    }

    func settings(for demand: DesktopDemand) -> [String] {
        entries.filter { $0.value(demand) != nil }.map(id(of:))
    }

    func originals(of settings: [String]) -> [String: SavedSetting] {
        let copy = copy.withLock { $0 }
        return Dictionary(uniqueKeysWithValues: settings.filter(owns).map { ($0, SavedSetting(userValue: copy[$0] ?? nil)) })
    }

    func apply(_ demand: DesktopDemand) -> [String] {
        let demanded = entries.compactMap { entry in entry.value(demand).map { (entry, $0) } }
        guard !demanded.isEmpty else { return [] }
        return rewrite("apply the session's \(file) entries") { config in
            for (entry, value) in demanded { config.set(group: entry.group, key: entry.key, to: value) }
        }
    }

    func restore(_ originals: [String: SavedSetting]) -> [String] {
        let byId = Dictionary(uniqueKeysWithValues: entries.map { (id(of: $0), $0) })
        guard originals.keys.contains(where: { byId[$0] != nil }) else { return [] }
        return rewrite("put the user's \(file) entries back") { config in
            for (id, saved) in originals {
                guard let entry = byId[id] else { continue }
                config.set(group: entry.group, key: entry.key, to: saved.userValue)
            }
        }
    }

    func owns(_ setting: String) -> Bool { setting.hasPrefix("\(file):") }

    var refreshesOriginals: Bool { true }

    func refreshOriginals() {
        guard let config = try? read() else { return }
        copy.withLock { copy in
            for entry in entries { copy[id(of: entry)] = config.value(group: entry.group, key: entry.key) }
        }
    }

    /// Changes the file with `change`, writes it when that changed it, and
    /// asks its reader to read it again. Returns what went wrong, for the log.
    private func rewrite(_ purpose: String, _ change: (inout KConfigText) -> Void) -> [String] {
        let path = "\(directory)/\(file)"
        do {
            let old = try read()
            var config = old
            change(&config)
            guard config != old else { return [] }
            try FileSystem.writeAtomically(Data(config.text.utf8), to: path, directory: directory)
            askToReload()
            return []
        } catch {
            return ["cannot \(purpose) in \(path): \(error)"]
        }
    }

    private func read() throws -> KConfigText {
        let data = try FileSystem.readFile("\(directory)/\(file)")
        return KConfigText(data.map { String(decoding: $0, as: UTF8.self) } ?? "")
    }

    /// Sends the reload that a change made before now still owes.
    func connect(to connection: Connection) {
        let pending = bus.withLock { bus in
            defer { bus = (connection, false) }
            return bus.pending
        }
        if pending { askToReload() }
    }

    /// The reload, without waiting and without starting anything (owed
    /// until ``connect(to:)`` before the daemon is on the bus).
    private func askToReload() {
        guard let reload, let connection = bus.withLock({ bus -> Connection? in
            if bus.connection == nil { bus.pending = true }
            return bus.connection
        }) else { return }
        if let message = try? Message.methodCall(destination: reload.destination, path: reload.path, interface: reload.interface,
                                                 member: reload.member, arguments: [], noReplyExpected: true, autoStart: false) {
            connection.send(message)
        }
    }
}
