// SPDX-License-Identifier: LGPL-2.1-or-later
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A custom-restriction identifier, checked to be reverse-DNS.
///
/// The form (`com.example.app.purchase`: 3–255 bytes, `[A-Za-z0-9_-]` elements
/// joined by dots, at least two elements) is part of the public contract; it
/// keeps identifiers usable in object paths once escaped and stops apps from
/// squatting on short generic names.
public struct RestrictionIdentifier: Hashable, Sendable, CustomStringConvertible {
    /// Shortest identifier the contract accepts, in UTF-8 bytes.
    public static let minimumByteCount = 3
    /// Longest identifier the contract accepts, in UTF-8 bytes.
    public static let maximumByteCount = 255

    /// The identifier exactly as the app declared it.
    public let rawValue: String

    /// Checks `raw` and keeps it; throws `invalidArgument` naming the problem.
    public init(_ raw: String) throws(DomainError) {
        try Self.check(raw)
        rawValue = raw
    }

    /// The identifier text.
    public var description: String { rawValue }

    private static func check(_ raw: String) throws(DomainError) {
        let byteCount = raw.utf8.count
        guard byteCount >= minimumByteCount, byteCount <= maximumByteCount else {
            throw .invalidArgument(
                "restriction identifier \"\(raw.prefix(64))\" is \(byteCount) bytes; "
                    + "use \(minimumByteCount) to \(maximumByteCount) bytes, e.g. com.example.app.purchase")
        }
        let elements = raw.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard elements.count >= 2, elements.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isElementByte) }) else {
            throw .invalidArgument(
                "restriction identifier \"\(raw.prefix(64))\" is not reverse-DNS; use at least two "
                    + "elements of letters, digits, '_' or '-' joined by dots, e.g. com.example.app.purchase")
        }
    }

    private static func isElementByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }
}

/// Apple's purpose-string rules for the texts a person reads before deciding
/// whether to allow a restriction.
public enum PurposeText {
    /// Texts must stay under this many UTF-8 bytes.
    public static let byteLimit = 4000

    /// Throws `invalidArgument` unless `text` has visible content and is under
    /// ``byteLimit`` bytes. `field` names the text in the message ("text",
    /// "detail text").
    public static func validate(_ text: String, field: String = "text") throws(DomainError) {
        guard !isBlank(text) else {
            throw .invalidArgument("the restriction \(field) is blank; describe what the restriction controls")
        }
        let byteCount = text.utf8.count
        guard byteCount < byteLimit else {
            throw .invalidArgument(
                "the restriction \(field) is \(byteCount) bytes; keep it under \(byteLimit) bytes")
        }
        // Noncharacters pass libdbus but make sd-bus clients (busctl) reject
        // every message carrying them, so one app could blind those tools.
        if let bad = text.unicodeScalars.first(where: { $0.properties.isNoncharacterCodePoint }) {
            throw .invalidArgument(
                "the restriction \(field) contains the noncharacter U+\(String(bad.value, radix: 16, uppercase: true)); remove it")
        }
    }

    /// True when `text` is empty or only Unicode white space and newlines.
    public static func isBlank(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.properties.isWhitespace }
    }
}

/// App ids as they appear in sessions, audit records and the allow list:
/// a Flatpak id, a systemd scope's app id or an executable path.
public enum AppIdentifier {
    /// Longest app id accepted, in UTF-8 bytes.
    public static let maximumByteCount = 255

    /// Throws `invalidArgument` unless `app` is non-empty, at most 255 bytes and
    /// free of control characters (which would corrupt logs and listings).
    public static func validate(_ app: String) throws(DomainError) {
        guard !app.isEmpty else {
            throw .invalidArgument("the app id is empty; pass the app's id, e.g. org.example.Kiosk")
        }
        guard app.utf8.count <= maximumByteCount else {
            throw .invalidArgument(
                "the app id is \(app.utf8.count) bytes; use at most \(maximumByteCount) bytes")
        }
        guard !app.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidArgument("the app id contains control characters; remove them")
        }
        // Ids are Flatpak or desktop ids (no "/") or absolute executable
        // paths; a relative path names no process, so no window could match.
        guard app.hasPrefix("/") || !app.contains("/") else {
            throw .invalidArgument(
                "the app id \(app) is a relative path, which no process can match; pass an absolute path or an app id such as org.example.Kiosk")
        }
    }

    /// The one form of `app` that the service stores and matches: an
    /// executable path with symlinks and `..` resolved (so `/usr/bin/python3`
    /// and the `/usr/bin/python3.11` that `/proc` shows are one app); any
    /// other id as given. A path that does not exist (yet) keeps its spelling.
    public static func normalized(_ app: String) -> String {
        guard app.hasPrefix("/"), let resolved = realpath(app, nil) else { return app }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
