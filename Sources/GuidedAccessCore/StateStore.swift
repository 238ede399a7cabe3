// SPDX-License-Identifier: LGPL-2.1-or-later
import FoundationEssentials

/// Everything the daemon must remember across restarts, in one file, so one
/// atomic rename commits a consistent whole.
public struct PersistentState: Codable, Sendable, Equatable {
    /// The format this code writes.
    public static let currentVersion = 1

    /// Format version of this state.
    public var version = PersistentState.currentVersion
    /// The session, running or not.
    public var session = GuidedAccessSession()
    /// Restrictions apps registered: by identifier as loaded and as
    /// ``GuidedAccessModel/persistentState`` gives them; the file is written
    /// in that order whatever order they have here.
    public var restrictionRecords: [RestrictionRecord] = []
    /// Chosen restriction states (only `deny` is stored; absent means `allow`).
    public var restrictionStates: [String: RestrictionState] = [:]
    /// Values of features kept by the service itself, by feature name (``AccessibilityFeature/name``).
    public var featureValues: [String: Bool] = [:]
    /// Passcode hash and back-off.
    public var passcode = PasscodeVault()
    /// Desktop settings a session changed, with the values to put back, by
    /// setting id. Optional so state files written before it existed still load.
    public var desktopOriginals: [String: SavedSetting]?
    /// Feature values from before a session changed them, by feature name,
    /// until put back. Optional so older state files still load.
    public var featureOriginals: [String: Bool]?
    /// The last options started for the most recently locked apps, most
    /// recent first (``PerAppMemory``). Optional so older state files still load.
    public var lastOptions: [PerAppMemory.Entry]?

    /// A fresh state: no session, no restrictions, no passcode.
    public init() {}
}

/// The result of reading the state file.
public struct LoadedState: Sendable {
    /// The state to run with.
    public let state: PersistentState
    /// Set when the file was unusable and moved aside; the caller should log it.
    public let warning: String?
    /// Temporary files of interrupted writes that were removed.
    public var removedTemporaries: [String] = []
}

/// Reads and writes `state.json` in the user's state directory.
public struct StateStore: Sendable {
    /// The state file's name.
    public static let fileName = "state.json"

    /// The directory holding `state.json` and `audit.log`.
    public let directory: String

    /// Path of the state file.
    public var path: String { directory + "/" + Self.fileName }

    /// A store in `directory`, created (mode 0700) on first load or save.
    public init(directory: String) {
        self.directory = directory
    }

    /// `$XDG_STATE_HOME/guided-access`, else `$HOME/.local/state/guided-access`.
    /// A relative `XDG_STATE_HOME` is ignored, as the XDG spec requires.
    public static func defaultDirectory(environment: [String: String]) throws(DomainError) -> String {
        if let stateHome = environment["XDG_STATE_HOME"], stateHome.hasPrefix("/") {
            return stateHome + "/guided-access"
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return home + "/.local/state/guided-access"
        }
        throw .failed("neither XDG_STATE_HOME nor HOME is set to an absolute path; set one or pass a state directory")
    }
}

// MARK: - Loading and saving

extension StateStore {
    /// Reads the state. A missing file gives a fresh state. An unreadable or
    /// corrupt one is renamed to `state.json.corrupt-<unix time>` and a fresh
    /// state is returned with a warning — never silently overwritten.
    public func load(now: Date) throws(DomainError) -> LoadedState {
        try FileSystem.makeDirectory(directory)
        var loaded = try read(now: now)
        loaded.removedTemporaries = FileSystem.removeStrayTemporaries(of: path, directory: directory)
        return loaded
    }

    private func read(now: Date) throws(DomainError) -> LoadedState {
        let data: Data
        do {
            guard let contents = try FileSystem.readFile(path) else {
                return LoadedState(state: PersistentState(), warning: nil)
            }
            data = contents
        } catch {
            return try setAside(because: "it could not be read (\(error.message))", now: now)
        }
        do {
            let state = try JSONDecoder().decode(PersistentState.self, from: data)
            guard state.version <= PersistentState.currentVersion else {
                return try setAside(because: "it has format version \(state.version), newer than this daemon", now: now)
            }
            return LoadedState(state: state, warning: nil)
        } catch {
            return try setAside(because: "it is not valid state (\(error))", now: now)
        }
    }

    /// Writes `state` atomically (temp file, fsync, rename, fsync directory), mode 0600.
    public func save(_ state: PersistentState) throws(DomainError) {
        try FileSystem.makeDirectory(directory)
        guard let data = try? StateFileEncoding.encode(state) else {
            throw .failed("could not encode the state; report this as a bug")
        }
        try FileSystem.writeAtomically(data, to: path, directory: directory)
    }

    private func setAside(because reason: String, now: Date) throws(DomainError) -> LoadedState {
        let aside = "\(path).corrupt-\(Int64(now.timeIntervalSince1970))"
        try FileSystem.move(path, to: aside)
        let warning = "state file \(path) was unusable because \(reason); moved it to \(aside) and started fresh"
        return LoadedState(state: PersistentState(), warning: warning)
    }
}
