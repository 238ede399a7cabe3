// SPDX-License-Identifier: LGPL-2.1-or-later
import FoundationEssentials
import GuidedAccessCore

/// One boolean entry of a KDE configuration file (KConfig's INI format:
/// `[Group]` headers, `key=value` lines) in the user's configuration
/// directory, such as kwinrc's `[Plugins] guidedaccessEnabled`, which KDE's
/// settings write to turn a KWin script off.
struct KConfigSetting: Sendable {
    /// The file's name in the configuration directory.
    let file: String
    let group: String
    let key: String

    /// What the audit log and the daemon log call it.
    var name: String { "\(file) [\(group)] \(key)" }

    /// `text` without the entries that set the key to false in its group, or
    /// nil when none does. Removed rather than set: the default applies
    /// again, and an administrator's lock in the system's file
    /// (`[Group][$i]`, see shell/kde/README.md) still wins over the user's.
    func removingFalse(from text: String) -> String? {
        var config = KConfigText(text)
        return config.remove(group: group, key: key, where: Self.isFalse) ? config.text : nil
    }

    /// Removes the false entries from the file in `directory`; true when it
    /// did, false when there was none (or no file).
    func removeFalse(in directory: String) throws -> Bool {
        let path = "\(directory)/\(file)"
        guard let data = try FileSystem.readFile(path),
              let updated = removingFalse(from: String(decoding: data, as: UTF8.self)) else { return false }
        try FileSystem.writeAtomically(Data(updated.utf8), to: path, directory: directory)
        return true
    }

    /// KConfig's spellings of false.
    private static func isFalse(_ value: String) -> Bool {
        ["false", "0", "off", "no"].contains(value.lowercased())
    }
}
