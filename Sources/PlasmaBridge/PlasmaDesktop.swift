// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import FileWatching
import FoundationEssentials
import GuidedAccessCore
import Locking

/// KDE Plasma's own settings: the features Plasma has a setting for, in
/// the KConfig files its System Settings writes (``PlasmaMappings``), and a
/// session's demands on KWin (``KWinScreenEdges``), PowerDevil
/// (``PowerDevilSettings``), the screen locker (``ScreenLockerSettings``),
/// plasmashell (``PlasmaNotifications``) and kglobalaccel (``GlobalShortcutsOff``).
///
/// Reads answer from a cache, so a reader never waits for a disk. The cache
/// follows every change: KConfig's change signal (`org.kde.kconfig.notify`
/// `ConfigChanged` on `/FILE`, sent by System Settings and
/// `kwriteconfig6 --notify`, which is what Plasma's own programs follow)
/// and the files themselves (inotify: a change made without the signal is
/// read by Plasma at its next start, so it is reported too). A write is
/// confirmed: the file is replaced atomically and synced, read back, and
/// then announced with the same signal, as KConfig's notify flag does, and
/// kaccess is run to read kaccessrc again (``KAccessReload``).
/// A key an administrator made immutable (`[$i]` in `XDG_CONFIG_DIRS`) is
/// locked, and a write to it is refused naming the file.
public final class PlasmaDesktop: DesktopSettings, Sendable {
    private let files: KConfigFiles
    private let featureSettings: [Feature: KConfigFeatureSetting]
    private let featuresByID: [String: KConfigFeatureSetting]
    private let edges: KConfigSessionEntries
    private let powerDevil: KConfigSessionEntries
    private let screenLocker: KConfigSessionEntries
    private let notifications: PlasmaNotifications
    private let shortcuts = GlobalShortcutsOff()
    /// IBus's settings, through GSettings; its outside changes are told where ours are.
    private let inputMethod: (any DesktopSettings)?
    /// A session's demands on Plasma beside the features: KWin's edges,
    /// PowerDevil's buttons and display, the screen locker, do-not-disturb
    /// and global shortcuts.
    private let demands: CombinedSettingsApplier
    /// Every mapped entry as last read.
    private let cache = Locked<[KConfigKey: KConfigEntry]>([:])
    /// Held for each read or write of a file, so an older read never lands
    /// after a newer one; counts them. Never taken by a reader: they use `cache`.
    private let fileAccess = Locked<UInt64>(0)
    private let handler = Locked<(@Sendable (DesktopSettingChange) -> Void)?>(nil)
    /// Where `ConfigChanged` goes once the daemon is on the bus, and the
    /// changes to announce before that (a session resumed at start).
    private let bus = Locked<(connection: Connection?, owed: [String: Set<KConfigKey>])>((nil, [:]))
    /// Where kaccess is looked for (`PATH`).
    private let executablePath: String?
    private let log: @Sendable (String) -> Void
    /// Kept for the daemon's life; set at the end of `init`, once their callbacks may refer to `self`.
    private let watchers: Locked<[FileWatcher]> = Locked([])
    private let startProblems = Locked<[String]>([])

    public let desktopFeatures: [Feature]
    /// Files that can only be looked at from time to time, and the input
    /// method's keys left out, to log once.
    public var problems: [String] { startProblems.withLock { $0 } + (inputMethod?.problems ?? []) }

    /// The settings of Plasma `version` (5 or 6) in `userDirectory`
    /// (`XDG_CONFIG_HOME`) over the administrator's in `systemDirectories`
    /// (`XDG_CONFIG_DIRS`, most important first); kaccess is looked for in
    /// `executablePath` (`PATH`); `inputMethod` takes the input method's
    /// part of a session's demands (IBus keeps its settings in GSettings on
    /// Plasma too). Reads them and starts watching the user's files.
    public init(version: Int, userDirectory: String, systemDirectories: [String], executablePath: String?,
                inputMethod: (any DesktopSettings)?, log: @escaping @Sendable (String) -> Void) {
        files = KConfigFiles(userDirectory: userDirectory, systemDirectories: systemDirectories)
        self.executablePath = executablePath
        self.log = log
        featureSettings = Dictionary(uniqueKeysWithValues: PlasmaMappings.features.map { ($0.feature, $0) })
        featuresByID = Dictionary(uniqueKeysWithValues: PlasmaMappings.features.map { (Self.id(of: $0.entry), $0) })
        desktopFeatures = PlasmaMappings.features.map(\.feature)
        edges = KWinScreenEdges.applier(directory: userDirectory)
        powerDevil = PowerDevilSettings.applier(plasma: version, directory: userDirectory)
        screenLocker = ScreenLockerSettings.applier(directory: userDirectory)
        // A lost do-not-disturb is told where the files' changes are told.
        let changeHandler = handler
        notifications = PlasmaNotifications { changeHandler.withLock { $0 }?(.sessionSetting(PlasmaNotifications.id)) }
        self.inputMethod = inputMethod
        demands = CombinedSettingsApplier([edges, powerDevil, screenLocker, notifications, shortcuts] + (inputMethod.map { [$0] } ?? []))
        var problems: [String] = []
        for file in PlasmaMappings.files { _ = refresh(file) }
        var watchers: [FileWatcher] = []
        for file in PlasmaMappings.files {
            guard let watcher = FileWatcher(path: files.userPath(file), changed: { [weak self] in self?.outsideChange(in: file) }) else {
                problems.append("cannot follow \(files.userPath(file)): no thread could be started; changes made outside "
                                + "the service are seen at its next start")
                continue
            }
            if case .polling(let errno) = watcher.method {
                problems.append("cannot watch \(files.userPath(file)) with inotify (errno \(errno)); looking at it every "
                                + "\(FileWatcher.pollInterval) instead")
            }
            watchers.append(watcher)
        }
        startProblems.withLock { $0 = problems }
        self.watchers.withLock { $0 = watchers }
    }

    /// `XDG_CONFIG_DIRS` as KConfig reads it: `/etc/xdg` when unset.
    public static func systemDirectories(from variable: String?) -> [String] {
        KConfigFiles.systemDirectories(from: variable)
    }

    public func observe(_ handler: @escaping @Sendable (DesktopSettingChange) -> Void) {
        self.handler.withLock { $0 = handler }
        inputMethod?.observe(handler)
    }

    /// Follows `ConfigChanged` for Plasma's files on `connection`, and sends
    /// what was written before the daemon was on the bus.
    public func connect(to connection: Connection) async {
        edges.connect(to: connection)
        powerDevil.connect(to: connection)
        screenLocker.connect(to: connection)
        shortcuts.connect(to: connection)
        await notifications.connect(to: connection)
        let owed = bus.withLock { bus in
            defer { bus = (connection, [:]) }
            return bus.owed
        }
        for (file, keys) in owed { announce(keys, in: file, on: connection) }
        guard let changes = try? await connection.signals(MatchRule(interface: Self.notifyInterface, member: "ConfigChanged"))
        else { return }
        Task { [weak self] in
            for await change in changes {
                guard let self, let path = change.path?.rawValue, PlasmaMappings.files.contains(String(path.dropFirst())) else { continue }
                outsideChange(in: String(path.dropFirst()))
            }
        }
    }

    // MARK: Features

    /// From the cache: never waits for a disk.
    public func value(of feature: Feature) -> Bool {
        guard let setting = featureSettings[feature] else { return false }
        return setting.mapping.isOn(cache.withLock { $0[setting.entry]?.value })
    }

    public func sourceDescription(of feature: Feature) -> String {
        featureSettings[feature].map { "kconfig:\($0.entry)" } ?? "service"
    }

    /// From the cache: never waits for a disk.
    public func isLocked(_ feature: Feature) -> Bool {
        guard let setting = featureSettings[feature] else { return false }
        return cache.withLock { $0[setting.entry]?.lockedBy } != nil
    }

    public func lockDescription(of feature: Feature) -> String {
        guard let setting = featureSettings[feature],
              let file = cache.withLock({ $0[setting.entry]?.lockedBy }) else { return sourceDescription(of: feature) }
        return "kconfig:\(setting.entry), made immutable ([$i]) in \(file)"
    }

    /// Writes the user's entry, confirms it by reading the file back, and
    /// announces it as KConfig's notify flag does. Nothing is written when
    /// KDE already reads the value; a value the administrator's files give
    /// is written as no entry, so a feature turned on and off again leaves
    /// the file as it was. Blocks on the disk: call it off the cooperative pool.
    public func set(_ enabled: Bool, for feature: Feature) throws {
        guard let setting = featureSettings[feature] else { throw PlasmaSettingError("\(feature.name) has no Plasma setting") }
        let mapping = setting.mapping
        try rewrite(setting.entry) { user, current in
            if let file = current.lockedBy {
                throw PlasmaSettingError("\(setting.entry) is immutable ([$i]) in \(file), which the administrator keeps; lift it there")
            }
            guard mapping.isOn(current.value) != enabled else { return }
            let text = mapping.isOn(current.systemValue) == enabled ? nil : mapping.text(on: enabled)
            user.set(group: setting.entry.group, key: setting.entry.key, to: text)
        }
        guard value(of: feature) == enabled else {
            throw PlasmaSettingError("\(files.userPath(setting.entry.file)) did not keep \(setting.entry) for \(feature.name) "
                                     + "\(enabled ? "on" : "off"): check that the file and its directory can be written")
        }
    }

    /// Changes the user's copy of `entry`'s file with `change` (given the
    /// entry as KDE reads it now), writes it atomically when that changed
    /// it, reads it back into the cache and announces the entry.
    private func rewrite(_ entry: KConfigKey, _ change: (inout KConfigText, KConfigEntry) throws -> Void) throws {
        let written = try fileAccess.withLock { count in
            count &+= 1
            let snapshot = files.read(entry.file)
            var user = snapshot.user
            try change(&user, snapshot.entry(group: entry.group, key: entry.key))
            guard user != snapshot.user else { return false }
            try FileSystem.writeAtomically(Data(user.text.utf8), to: files.userPath(entry.file), directory: files.userDirectory)
            store(files.read(entry.file), of: entry.file)
            return true
        }
        guard written else { return }
        announceWhenConnected([entry], in: entry.file)
        if entry.file == "kaccessrc", let problem = KAccessReload.run(path: executablePath) { log(problem) }
    }

    // MARK: A session's demands

    /// A feature's entry in the state file, `FILE:GROUP/KEY`, as KWin's edges are named.
    private static func id(of entry: KConfigKey) -> String { "\(entry.file):\(entry.group)/\(entry.key)" }

    public func source(of restriction: SystemRestriction) -> String { demands.source(of: restriction) }

    /// The other demands' settings, and the entries of the features the
    /// session holds: the model writes those through ``set(_:for:)``; their
    /// exact text is kept here, so the end puts back the user's own line
    /// (`VisibleBell=false`, `AnimationDurationFactor=0.5`) or none, not
    /// just on or off.
    public func settings(for demand: DesktopDemand) -> [String] {
        demands.settings(for: demand) + demand.features.keys.compactMap { featureSettings[$0].map { Self.id(of: $0.entry) } }.sorted()
    }

    /// From the cache: never waits for a disk.
    public func originals(of settings: [String]) -> [String: SavedSetting] {
        let cache = cache.withLock { $0 }
        var originals = demands.originals(of: settings.filter(demands.owns))
        for id in settings {
            if let setting = featuresByID[id] { originals[id] = SavedSetting(userValue: cache[setting.entry]?.userValue) }
        }
        return originals
    }

    public func apply(_ demand: DesktopDemand) -> [String] { demands.apply(demand) }

    public func restore(_ originals: [String: SavedSetting]) -> [String] {
        var problems = demands.restore(originals.filter { demands.owns($0.key) })
        for (id, saved) in originals.sorted(by: { $0.key < $1.key }) {
            guard let setting = featuresByID[id] else { continue }
            do {
                try rewrite(setting.entry) { user, _ in user.set(group: setting.entry.group, key: setting.entry.key, to: saved.userValue) }
            } catch {
                problems.append("cannot put back \(setting.entry) for \(setting.feature.name): \(error)")
            }
        }
        return problems
    }

    public func owns(_ setting: String) -> Bool { demands.owns(setting) || featuresByID[setting] != nil }
    public var refreshesOriginals: Bool { demands.refreshesOriginals }
    public func refreshOriginals() { demands.refreshOriginals() }

    // MARK: Following changes

    /// A file may have changed (its watcher or someone's `ConfigChanged`):
    /// reads it and reports each feature whose entry changed.
    private func outsideChange(in file: String) {
        let changed = fileAccess.withLock { count in
            count &+= 1
            return refresh(file)
        }
        guard !changed.isEmpty, let notify = handler.withLock({ $0 }) else { return }
        for setting in PlasmaMappings.features where changed.contains(setting.entry) { notify(.feature(setting.feature)) }
    }

    /// Reads `file` into the cache; the entries that changed.
    private func refresh(_ file: String) -> Set<KConfigKey> {
        store(files.read(file), of: file)
    }

    @discardableResult
    private func store(_ snapshot: KConfigSnapshot, of file: String) -> Set<KConfigKey> {
        let entries = PlasmaMappings.features.map(\.entry).filter { $0.file == file }
        let now = Dictionary(entries.map { ($0, snapshot.entry(group: $0.group, key: $0.key)) }) { first, _ in first }
        return cache.withLock { cache in
            var changed: Set<KConfigKey> = []
            for (key, entry) in now where cache[key] != entry {
                cache[key] = entry
                changed.insert(key)
            }
            return changed
        }
    }

    // MARK: KConfig's change signal

    static let notifyInterface: InterfaceName = "org.kde.kconfig.notify"

    private func announceWhenConnected(_ keys: Set<KConfigKey>, in file: String) {
        guard let connection = bus.withLock({ bus -> Connection? in
            if bus.connection == nil { bus.owed[file, default: []].formUnion(keys) }
            return bus.connection
        }) else { return }
        announce(keys, in: file, on: connection)
    }

    /// `ConfigChanged` on `/FILE`, `{group: [keys]}`, as KConfig sends it.
    private func announce(_ keys: Set<KConfigKey>, in file: String, on connection: Connection) {
        let groups = Dictionary(grouping: keys, by: \.group)
        let entries = groups.keys.sorted().map { group in
            DBusValue.DictionaryEntry(key: .string(group), value: .array(element: "ay", groups[group, default: []].map(\.key).sorted().map {
                .array(element: "y", Array($0.utf8).map(DBusValue.byte))
            }))
        }
        guard let path = try? ObjectPath(validating: "/\(file)") else { return }
        try? connection.emit(path, Self.notifyInterface, "ConfigChanged", [.dictionary(key: "s", value: "aay", entries)])
    }
}

/// Why a Plasma setting could not be written, with what to do.
struct PlasmaSettingError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
