// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The clients a test talks to the daemon with: DBusKit in process, the
/// command-line tools, /usr/bin/python3.
extension Harness {

    /// A DBusKit client connection to the private bus, closed by `stop()`.
    func connect() throws -> Connection {
        let connection = try Connection(.address(bus.address))
        connections.withLock { $0.append(connection) }
        return connection
    }

    /// `busctl --address=BUS ARGS...`.
    func busctl(_ arguments: [String], asNobody: Bool = false, timeout: Duration = .seconds(20)) async throws -> ToolResult {
        try await run(["busctl", "--address=\(bus.address)"] + arguments, asNobody: asNobody, timeout: timeout)
    }

    /// `busctl call` on the main object (or `path`).
    func busctlCall(_ interface: InterfaceName, _ member: String, _ signatureAndArguments: [String] = [],
                    path: String = GuidedAccessBus.objectPath, asNobody: Bool = false) async throws -> ToolResult {
        try await busctl(["call", GuidedAccessBus.name, path, interface.rawValue, member] + signatureAndArguments, asNobody: asNobody)
    }

    /// `gdbus call --address BUS --dest NAME --object-path PATH --method IFACE.MEMBER ARGS...`.
    func gdbus(_ interface: InterfaceName, _ member: String, _ arguments: [String] = [], path: String = GuidedAccessBus.objectPath,
               asNobody: Bool = false) async throws -> ToolResult {
        try await run(["gdbus", "call", "--address", bus.address, "--dest", GuidedAccessBus.name, "--object-path", path,
                       "--method", "\(interface.rawValue).\(member)"] + arguments, asNobody: asNobody)
    }

    /// `dbus-send --print-reply` to the service.
    func dbusSend(_ interface: InterfaceName, _ member: String, _ arguments: [String] = [], path: String = GuidedAccessBus.objectPath,
                  asNobody: Bool = false) async throws -> ToolResult {
        try await run(["dbus-send", "--bus=\(bus.address)", "--print-reply", "--reply-timeout=15000", "--dest=\(GuidedAccessBus.name)",
                       path, "\(interface.rawValue).\(member)"] + arguments, asNobody: asNobody)
    }

    /// Runs `/usr/bin/python3 -c PRELUDE+script args...` with `GA_ADDRESS` set;
    /// the script's last stdout line must be a JSON object, which is returned.
    func python(_ script: String, _ arguments: [String] = [], asNobody: Bool = false,
                timeout: Duration = .seconds(20)) async throws -> PythonResult {
        let result = try await run([Paths.python, "-c", Python.prelude + script] + arguments,
                                   asNobody: asNobody, timeout: timeout, environment: ["GA_ADDRESS": bus.address])
        guard let line = result.stdout.split(separator: "\n").last,
              let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw HarnessError("python client printed no JSON result: \(result)")
        }
        return PythonResult(values: object, raw: result)
    }

    func run(_ argv: [String], asNobody: Bool = false, timeout: Duration = .seconds(20),
             environment: [String: String] = [:]) async throws -> ToolResult {
        let command = asNobody ? ProcessRunner.asUnprivileged(argv) : argv
        let result = try await ProcessRunner.run(command, environment: environment, timeout: timeout)
        return ToolResult(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }
}

/// The JSON a python client printed.
struct PythonResult: @unchecked Sendable {
    let values: [String: Any]
    let raw: ToolResult
    subscript(key: String) -> Any? { values[key] }
    func string(_ key: String) -> String? { values[key] as? String }
    func bool(_ key: String) -> Bool? { values[key] as? Bool }
}

/// Runs `body` with a fresh harness and stops everything afterwards, also
/// when `body` throws; the daemon log is attached to a thrown error.
func withHarness<T>(_ options: Harness.Options = .init(), _ body: (Harness) async throws -> T) async throws -> T {
    let harness = try await Harness.start(options)
    do {
        let result = try await body(harness)
        harness.stop()
        return result
    } catch {
        let log = harness.log()
        harness.stop()
        throw HarnessError("\(error)\n--- guided-accessd log ---\n\(log)")
    }
}
