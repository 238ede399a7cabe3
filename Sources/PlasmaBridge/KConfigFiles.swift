// SPDX-License-Identifier: LGPL-2.1-or-later
import FoundationEssentials
import GuidedAccessCore

/// An entry of a KDE configuration file; `Sources` names it `kconfig:FILE/GROUP/KEY`.
struct KConfigKey: Hashable, Sendable, CustomStringConvertible {
    let file: String
    let group: String
    let key: String

    var description: String { "\(file)/\(group)/\(key)" }
}

/// What one entry reads as, KConfig's way.
struct KConfigEntry: Equatable, Sendable {
    /// What a KDE program reads; nil: its built-in default.
    var value: String?
    /// What the user's own file says; nil: nothing.
    var userValue: String?
    /// What a KDE program would read without the user's file.
    var systemValue: String?
    /// The administrator's file that made the entry immutable; nil: the user may change it.
    var lockedBy: String?
}

/// KDE's configuration files as KConfig reads them: for each file the
/// administrator's copies in `XDG_CONFIG_DIRS` (the least important first),
/// then the user's own in `XDG_CONFIG_HOME`. A file, group or entry made
/// immutable (`[$i]`) wins over every file read after it.
struct KConfigFiles: Sendable {
    /// The user's configuration directory.
    let userDirectory: String
    /// The administrator's, most important first, as `XDG_CONFIG_DIRS` lists them.
    let systemDirectories: [String]

    /// `XDG_CONFIG_DIRS` split, or `/etc/xdg` when unset or empty.
    static func systemDirectories(from variable: String?) -> [String] {
        let listed = (variable ?? "").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        return listed.isEmpty ? ["/etc/xdg"] : listed
    }

    /// Every copy of `file`, read now: blocking I/O. A copy that cannot be
    /// read counts as absent (KConfig does the same).
    func read(_ file: String) -> KConfigSnapshot {
        let system = systemDirectories.reversed().compactMap { directory -> (String, KConfigText)? in
            let path = "\(directory)/\(file)"
            return Self.text(at: path).map { (path, $0) }
        }
        return KConfigSnapshot(system: system, user: Self.text(at: userPath(file)) ?? KConfigText(""))
    }

    /// The user's copy of `file`.
    func userPath(_ file: String) -> String { "\(userDirectory)/\(file)" }

    private static func text(at path: String) -> KConfigText? {
        guard let data = try? FileSystem.readFile(path) else { return nil }
        return KConfigText(String(decoding: data, as: UTF8.self))
    }
}

/// One file's copies as read at one moment.
struct KConfigSnapshot: Sendable {
    /// The administrator's copies, least important first, with their paths.
    let system: [(path: String, text: KConfigText)]
    /// The user's copy (empty when there is none).
    let user: KConfigText

    /// `group`/`key` as KConfig resolves it through the copies.
    func entry(group: String, key: String) -> KConfigEntry {
        var value: String?
        for (path, text) in system {
            let found = text.lookup(group: group, key: key)
            if let set = found.value { value = set }
            if found.immutable {
                return KConfigEntry(value: value, userValue: user.value(group: group, key: key), systemValue: value, lockedBy: path)
            }
        }
        let userValue = user.lookup(group: group, key: key).value
        return KConfigEntry(value: userValue ?? value, userValue: userValue, systemValue: value, lockedBy: nil)
    }
}
