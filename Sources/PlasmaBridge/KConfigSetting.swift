// SPDX-License-Identifier: LGPL-2.1-or-later
import FoundationEssentials
import GuidedAccessCore

/// One boolean entry of a KDE configuration file in the user's
/// configuration directory, such as kwinrc's `[Plugins] guidedaccessEnabled`,
/// which KDE's settings write to turn a KWin script off.
public struct KConfigSetting: EnforcerOffSetting {
    /// The file's name in the configuration directory.
    public let file: String
    public let group: String
    public let key: String
    /// The user's configuration directory (`$XDG_CONFIG_HOME`).
    public let directory: String

    public init(file: String, group: String, key: String, directory: String) {
        self.file = file
        self.group = group
        self.key = key
        self.directory = directory
    }

    /// The KWin script's own switch, `kwinrc [Plugins] guidedaccessEnabled`.
    public static func kwinScript(in directory: String) -> KConfigSetting {
        KConfigSetting(file: "kwinrc", group: "Plugins", key: "guidedaccessEnabled", directory: directory)
    }

    /// What the audit log and the daemon log call it.
    public var name: String { "\(file) [\(group)] \(key)" }

    public var undo: String { "remove \(name)=false" }

    /// `text` without the entries that set the key to false in its group, or
    /// nil when none does. Removed rather than set: the default applies
    /// again, and an administrator's lock in the system's file
    /// (`[Group][$i]`, see shell/kde/README.md) still wins over the user's.
    func removingFalse(from text: String) -> String? {
        var config = KConfigText(text)
        return config.remove(group: group, key: key, where: Self.isFalse) ? config.text : nil
    }

    /// Removes the false entries from the user's file; true when it did,
    /// false when there was none (or no file).
    public func removeOff() throws -> Bool {
        let path = "\(directory)/\(file)"
        guard let data = try FileSystem.readFile(path),
              let updated = removingFalse(from: String(decoding: data, as: UTF8.self)) else { return false }
        try FileSystem.writeAtomically(Data(updated.utf8), to: path, directory: directory)
        return true
    }

    /// KConfig's spellings of false.
    static func isFalse(_ value: String) -> Bool {
        ["false", "0", "off", "no"].contains(value.lowercased())
    }
}
