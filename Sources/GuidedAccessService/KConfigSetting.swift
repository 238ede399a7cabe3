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
        var group: String?
        var removed = false
        var kept: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = Self.trim(line)
            if trimmed.hasPrefix("[") {
                group = Self.groupName(trimmed)
            } else if group == self.group, let (name, value) = Self.entry(trimmed), name == key, Self.isFalse(value) {
                removed = true
                continue
            }
            kept.append(line)
        }
        return removed ? kept.joined(separator: "\n") : nil
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

    /// The group a header line opens: `[Plugins]` and `[Plugins][$i]` (its
    /// flags) open Plugins; a nested group `[A][B]` is not A.
    private static func groupName(_ header: String) -> String {
        var name = header.dropFirst()
        if let end = name.firstIndex(of: "]") {
            let rest = name[name.index(after: end)...]
            if rest.isEmpty || rest.hasPrefix("[$") { name = name[..<end] } else { return String(header) }
        }
        return String(name)
    }

    /// (key, value) of an entry line; the key without its `[$i]` or
    /// `[locale]` suffix. nil for comments and blank lines.
    private static func entry(_ line: String) -> (String, String)? {
        guard !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { return nil }
        var name = trim(line[..<equals])
        if let bracket = name.firstIndex(of: "[") { name = String(name[..<bracket]) }
        return (name, trim(line[line.index(after: equals)...]))
    }

    private static func trim(_ text: Substring) -> String {
        String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }

    /// KConfig's spellings of false.
    private static func isFalse(_ value: String) -> Bool {
        ["false", "0", "off", "no"].contains(value.lowercased())
    }
}
