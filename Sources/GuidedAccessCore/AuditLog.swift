// SPDX-License-Identifier: LGPL-2.1-or-later
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Who made a request, as the service established it from the bus and `/proc`.
public struct AuditCaller: Codable, Sendable, Equatable {
    /// Unix user id.
    public let uid: UInt32
    /// Process id.
    public let pid: UInt32
    /// App id (Flatpak id, scope app id or executable path).
    public let app: String

    /// Bundles the caller's identity.
    public init(uid: UInt32, pid: UInt32, app: String) {
        self.uid = uid
        self.pid = pid
        self.app = app
    }
}

/// How an admin request ended: `allowed`, `denied`, or the error's ``DomainError/name``.
public enum AuditResult: Sendable, Equatable {
    /// Authorized and carried out.
    case allowed
    /// Refused by polkit or the passcode check.
    case denied
    /// Failed with this error.
    case error(DomainError)

    /// The text written to the log.
    public var text: String {
        switch self {
        case .allowed: "allowed"
        case .denied: "denied"
        case .error(let error): error.name
        }
    }
}

/// One line of `audit.log`.
public struct AuditRecord: Codable, Sendable, Equatable {
    /// ISO 8601 time with fractional seconds.
    public let time: String
    /// Who asked.
    public let caller: AuditCaller
    /// What was asked: a polkit action id or a method name.
    public let action: String
    /// What it was applied to (app, identifier, feature, …); may be empty.
    public let target: String
    /// `allowed`, `denied` or an error name.
    public let result: String

    /// A record stamped with `time`.
    public init(time: Date, caller: AuditCaller, action: String, target: String, result: AuditResult) {
        self.time = UTCTimestamp.string(time, fractionalSeconds: true)
        self.caller = caller
        self.action = action
        self.target = target
        self.result = result.text
    }
}

/// Append-only JSON-lines record of every admin action, in the state directory.
///
/// The file is opened with `O_APPEND` for each record and each record goes
/// out in a single `write`, so concurrent writers and crashes can at worst
/// lose a line, never interleave or rewrite earlier ones.
public struct AuditLog: Sendable {
    /// The log file's name inside the state directory.
    public static let fileName = "audit.log"

    /// Full path of the log file.
    public let path: String

    /// A log in `directory` (which must exist; ``StateStore`` creates it).
    public init(directory: String) {
        path = directory + "/" + Self.fileName
    }

    /// Appends one record; throws `failed` naming the path when the write fails.
    public func append(_ record: AuditRecord) throws(DomainError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(record) else {
            throw .failed("could not encode an audit record; report this as a bug")
        }
        line.append(UInt8(ascii: "\n"))
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileSystem.failure("open", path) }
        defer { close(fd) }
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == line.count else { throw FileSystem.failure("write", path) }
    }

    /// Appends a record stamped `now`.
    public func append(
        caller: AuditCaller, action: String, target: String, result: AuditResult, now: Date
    ) throws(DomainError) {
        try append(AuditRecord(time: now, caller: caller, action: action, target: target, result: result))
    }
}
