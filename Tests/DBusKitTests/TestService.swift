// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Testing
import Locking

/// A struct argument `(is)`, declared the way apps declare theirs.
struct Pair: DBusStruct, Equatable {
    var number: Int32
    var text: String
    static let fieldTypes: [any DBusType.Type] = [Int32.self, String.self]
    static let qtTypeName = "Pair"
    init(number: Int32, text: String) { self.number = number; self.text = text }
    init(fields: DBusStructFields) throws {
        var fields = fields
        number = try fields.next()
        text = try fields.next()
    }
    var fields: [DBusValue] { [number.dbusValue, text.dbusValue] }
}

/// The object every DBusKit test talks to: one interface with each kind of
/// member and property change behaviour.
final class TestService: Sendable {
    static let name: BusName = "org.example.Test"
    static let path: ObjectPath = "/org/example/Test"
    static let interface: InterfaceName = "org.example.Test1"

    let connection: Connection
    let title = Locked("initial")
    let count = Locked<UInt32>(0)
    let mood = Locked("calm")
    let calls = Locked(0)

    init(address: String) async throws {
        connection = try Connection(.address(address))
        connection.export(Self.path, [Self.declaration(self)])
        connection.addObjectManager(at: "/org/example")
        try await connection.requestName(Self.name)
    }

    static func declaration(_ service: TestService) -> Interface {
        Interface(interface, [
            .property("Title", String.self, get: { service.title.withLock { $0 } },
                      set: { _, value in service.title.withLock { $0 = value } }),
            .property("Count", UInt32.self, get: { service.count.withLock { $0 } }),
            .property("Mood", String.self, changes: .invalidates, get: { service.mood.withLock { $0 } }),
            .property("Version", UInt32.self, changes: .const, get: { 7 }),
            .method("Echo", in: ["value"], out: ["value"]) { (_, value: Variant) -> Variant in
                service.calls.withLock { $0 += 1 }
                return value
            },
            .method("AllTypes", in: ["y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g"]) {
                (_, y: UInt8, b: Bool, n: Int16, q: UInt16, i: Int32, u: UInt32, x: Int64, t: UInt64, d: Double, s: String, o: ObjectPath, g: Signature)
                    -> (UInt8, Bool, Int16, UInt16, Int32, UInt32, Int64, UInt64, Double, String, ObjectPath, Signature) in
                (y, b, n, q, i, u, x, t, d, s, o, g)
            },
            .method("Nested", in: ["value"], out: ["value"]) { (_, value: [[String: [Pair]]]) in value },
            .method("SetCount", in: ["count"]) { (call, value: UInt32) in
                service.count.withLock { $0 = value }
                call.connection.propertiesChanged(path, interface, ["Count"])
            },
            .method("SetMood", in: ["mood"]) { (call, value: String) in
                service.mood.withLock { $0 = value }
                call.connection.propertiesChanged(path, interface, ["Mood"])
            },
            .method("Sleep", in: ["milliseconds"], out: ["slept"]) { (_, ms: UInt32) -> UInt32 in
                try await Task.sleep(for: .milliseconds(Int(ms)))
                return ms
            },
            .immediateMethod("Length", in: ["text"], out: ["length"]) { (_, text: String) -> UInt32 in
                guard !text.isEmpty else { throw DBusError.invalidArgs("nothing to measure") }
                return UInt32(text.utf8.count)
            },
            .method("Fail", in: ["name", "message"]) { (_, name: String, message: String) in
                throw DBusError(try ErrorName(validating: name), message)
            },
            .method("WhoAmI", out: ["pid", "uid", "interactive"]) { call -> (UInt32, UInt32, Bool) in
                let credentials = try await call.callerCredentials()
                return (credentials.processID, credentials.userID, call.allowsInteractiveAuthorization)
            },
            .signal("Changed", [("what", String.self)]),
        ])
    }

    func close() { connection.close() }
}

/// A private bus with the test service on it and a client connection.
struct TestBed {
    let bus: PrivateBus
    let service: TestService
    let client: Connection

    static func start() async throws -> TestBed {
        let bus = try PrivateBus.startSession()
        let service = try await TestService(address: bus.address)
        return TestBed(bus: bus, service: service, client: try Connection(.address(bus.address)))
    }

    func stop() {
        client.close()
        service.close()
        bus.stop()
    }

    /// Calls a member of the test interface.
    func call(_ member: MemberName, _ arguments: [DBusValue] = [], interface: InterfaceName = TestService.interface) async throws -> [DBusValue] {
        try await client.call(TestService.name, TestService.path, interface, member, arguments)
    }

    /// Runs a command-line peer against the bus and returns its output.
    func run(_ argv: [String], stdin: String? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ProcessRunner.run(argv, environment: bus.clientEnvironment, stdin: stdin, timeout: .seconds(20))
    }
}

/// Runs `body` with a fresh test bed and always tears it down.
func withTestBed(_ body: (TestBed) async throws -> Void) async throws {
    let bed = try await TestBed.start()
    defer { bed.stop() }
    try await body(bed)
}
