// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation

/// A program a private session bus starts when a client first calls its
/// name (D-Bus activation), as a desktop's session bus starts its services:
/// a `.service` file for one of the bus's `serviceDirectories`, whose `Exec=`
/// is a small `sh` wrapper. The wrapper gives the program its environment
/// (then whatever an environment file, read at each start, sets over it),
/// appends its stderr to a log, and fails while a hold file exists, so that a
/// test can keep the name without an owner after killing the program.
///
/// ```swift
/// var service = ActivatableService(busName: "org.example.Daemon", argv: ["/usr/libexec/exampled"])
/// service.holdFile = directory.appendingPathComponent("hold")
/// try service.install(in: servicesDirectory, wrapper: directory.appendingPathComponent("run-exampled"))
/// let bus = try PrivateBus.startSession(serviceDirectories: [servicesDirectory.path])
/// ```
public struct ActivatableService: Sendable {
    /// The name whose first call starts the program.
    public var busName: String
    /// The program and its arguments.
    public var argv: [String]
    /// Added to what the bus gives the program.
    public var environment: [String: String] = [:]
    /// The program's stderr is appended here; nil leaves it to the bus.
    public var log: URL?
    /// Activation fails while this file exists.
    public var holdFile: URL?
    /// Read by `sh` at each start, when it exists, after `environment` (so
    /// that its `NAME=value` lines win): a test restarts the program with
    /// other settings without reinstalling the service.
    public var environmentFile: URL?

    public init(busName: String, argv: [String]) {
        self.busName = busName
        self.argv = argv
    }

    /// Writes the wrapper (mode 0755) at `wrapper` and `<busName>.service`
    /// into `serviceDirectory`.
    public func install(in serviceDirectory: URL, wrapper: URL) throws {
        try wrapperScript.write(to: wrapper, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper.path)
        try "[D-BUS Service]\nName=\(busName)\nExec=\(wrapper.path)\n"
            .write(to: serviceDirectory.appendingPathComponent("\(busName).service"), atomically: true, encoding: .utf8)
    }

    /// The wrapper's text.
    var wrapperScript: String {
        var lines = ["#!/bin/sh"]
        if let holdFile { lines.append("[ -e \(Self.quoted(holdFile.path)) ] && exit 1") }
        lines += environment.sorted { $0.key < $1.key }.map { "export \(Self.quoted("\($0.key)=\($0.value)"))" }
        if let environmentFile {
            let file = Self.quoted(environmentFile.path)
            lines.append("if [ -e \(file) ]; then set -a; . \(file); set +a; fi")
        }
        var command = ["exec"] + argv.map(Self.quoted)
        if let log { command.append("2>>\(Self.quoted(log.path))") }
        lines.append(command.joined(separator: " "))
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` as one word for `sh`.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
