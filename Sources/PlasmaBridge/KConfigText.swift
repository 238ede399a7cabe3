// SPDX-License-Identifier: LGPL-2.1-or-later

/// The text of a KDE configuration file (KConfig's INI format: `[Group]`
/// headers, `key=value` lines), read and changed entry by entry while
/// every other line stays byte for byte.
struct KConfigText: Equatable, Sendable {
    private(set) var lines: [Substring]

    init(_ text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    var text: String { lines.joined(separator: "\n") }

    /// The value of `key` in `group` (KConfig reads the last entry of a
    /// file), nil when the file does not set it.
    func value(group: String, key: String) -> String? {
        var value: String?
        forEachEntry { entryGroup, name, entryValue, _ in
            if entryGroup == group, name == key { value = entryValue }
        }
        return value
    }

    /// Sets `key` in `group` to `value`, or removes it (its default
    /// applies) for nil. Every other entry of the key in the group, flagged
    /// ones included, goes; a missing group is added at the end, and a
    /// group left without entries goes as KConfig drops it.
    mutating func set(group: String, key: String, to value: String?) {
        var matches: [Int] = []
        var groupEnd: Int?
        forEachEntry { entryGroup, name, _, index in
            if entryGroup == group, name == key { matches.append(index) }
        }
        for index in lines.indices {
            let trimmed = Self.trim(lines[index])
            if trimmed.hasPrefix("[") {
                if groupEnd != nil { break }
                if Self.groupName(trimmed) == group { groupEnd = index + 1 }
            } else if groupEnd != nil, !trimmed.isEmpty {
                groupEnd = index + 1
            }
        }
        let entry = value.map { Substring("\(key)=\($0)") }
        if let first = matches.first, let entry {
            lines[first] = entry
            matches.removeFirst()
        } else if let entry {
            if let groupEnd {
                lines.insert(entry, at: groupEnd)
                matches = matches.map { $0 >= groupEnd ? $0 + 1 : $0 }
            } else {
                if lines.last == "" { lines.removeLast() }
                if !lines.isEmpty { lines.append("") }
                lines += [Self.header(group), entry, ""]
            }
        }
        for index in matches.reversed() { lines.remove(at: index) }
        if value == nil { removeIfEmpty(group: group) }
    }

    /// Removes the header of `group` when no entry follows it, with the
    /// blank lines after it.
    private mutating func removeIfEmpty(group: String) {
        guard let header = lines.firstIndex(where: {
            let trimmed = Self.trim($0)
            return trimmed.hasPrefix("[") && Self.groupName(trimmed) == group
        }) else { return }
        let end = lines[(header + 1)...].firstIndex { Self.trim($0).hasPrefix("[") } ?? lines.endIndex
        guard lines[(header + 1)..<end].allSatisfy({ Self.trim($0).isEmpty }) else { return }
        lines.removeSubrange(header..<end)
    }

    /// Removes the entries of `key` in `group` whose value `matches`; true
    /// when there was one.
    mutating func remove(group: String, key: String, where matches: (String) -> Bool) -> Bool {
        var found: [Int] = []
        forEachEntry { entryGroup, name, value, index in
            if entryGroup == group, name == key, matches(value) { found.append(index) }
        }
        for index in found.reversed() { lines.remove(at: index) }
        return !found.isEmpty
    }

    /// Calls `body` with (group, key, value, line index) for each entry.
    private func forEachEntry(_ body: (String?, String, String, Int) -> Void) {
        var group: String?
        for (index, line) in lines.enumerated() {
            let trimmed = Self.trim(line)
            if trimmed.hasPrefix("[") {
                group = Self.groupName(trimmed)
            } else if let (name, value) = Self.entry(trimmed) {
                body(group, name, value, index)
            }
        }
    }

    /// How this file sets `key` in `group` as KConfig reads it: the value
    /// of its last entry (nil when none), and whether an administrator made
    /// it immutable (KDE's kiosk: `[$i]` on the entry, on its group's
    /// header, or alone before the first group for the whole file), so that
    /// no file read after this one can change it.
    func lookup(group: String, key: String) -> (value: String?, immutable: Bool) {
        var current: String?
        var groupImmutable = false
        var fileImmutable = false
        var value: String?
        var immutable = false
        for line in lines {
            let trimmed = Self.trim(line)
            if trimmed.hasPrefix("[") {
                if current == nil, trimmed == "[$i]" {
                    fileImmutable = true
                    continue
                }
                current = Self.groupName(trimmed)
                groupImmutable = trimmed.hasSuffix("[$i]")
            } else if current == group, let (name, entryValue) = Self.entry(trimmed), name == key {
                value = entryValue
                immutable = immutable || Self.flags(trimmed).contains("i")
            }
            if current == group, groupImmutable { immutable = true }
        }
        return (value, immutable || fileImmutable)
    }

    /// The `$` flags of an entry line's key (`Key[$i]=` gives `i`).
    private static func flags(_ line: String) -> Set<Character> {
        guard let equals = line.firstIndex(of: "=") else { return [] }
        let brackets = line[..<equals].split(separator: "[").dropFirst().filter { $0.hasPrefix("$") }
        return Set(brackets.flatMap { $0.dropFirst().prefix { $0 != "]" } })
    }

    /// Joins the parts of a nested group's name, as KConfig does: the group
    /// `[AC][SuspendAndShutdown]` is `"AC\u{1d}SuspendAndShutdown"`.
    static let nesting: Character = "\u{1d}"

    /// The group a header line opens: `[Plugins]` and `[Plugins][$i]` (its
    /// flags) open Plugins; a nested group `[A][B]` opens `A` + ``nesting`` + `B`, not A.
    private static func groupName(_ header: String) -> String {
        var parts: [Substring] = []
        var rest = header[...]
        while rest.hasPrefix("["), let end = rest.firstIndex(of: "]") {
            let part = rest[rest.index(after: rest.startIndex)..<end]
            if part.hasPrefix("$") { break }
            parts.append(part)
            rest = rest[rest.index(after: end)...]
        }
        return parts.joined(separator: String(nesting))
    }

    /// The header line of `group`.
    private static func header(_ group: String) -> Substring {
        Substring("[" + group.split(separator: nesting, omittingEmptySubsequences: false).joined(separator: "][") + "]")
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
}
