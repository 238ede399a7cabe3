// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import Testing
import Locking

/// One declaration, two sides: a service implements it and a `Proxy` calls
/// it, through a real dbus-daemon, with an independent peer reading the result.
@Suite struct DeclarationTests {
    enum Counter {
        static let interface: InterfaceName = "org.example.Counter1"
        static let path: ObjectPath = "/org/example/Counter"
        static let add = MethodDeclaration<String, UInt32, UInt32>(interface, "Add", in: ["who", "amount"], out: "total")
        static let reset = MethodDeclaration<Void>(interface, "Reset")
        static let total = PropertyDeclaration<UInt32>(interface, "Total")
        static let added = SignalDeclaration<String, UInt32>(interface, "Added", ["who", "amount"])
        /// The same member name as `add`, with the types a stale client might have.
        static let staleAdd = MethodDeclaration<Int32, UInt32>(interface, "Add", in: ["amount"], out: "total")
    }

    final class Tally: Sendable {
        let value = Locked<UInt32>(0)
        func withLock<T: Sendable>(_ body: (inout UInt32) -> T) -> T { value.withLock { body(&$0) } }
    }

    /// Exports the counter on the test bed's service connection.
    static func exportCounter(on bed: TestBed) -> Tally {
        let total = Tally()
        let connection = bed.service.connection
        connection.export(Counter.path, [Interface(Counter.interface, [
            .property(Counter.total) { total.withLock { $0 } },
            .method(Counter.add) { _, who, amount in
                let sum = total.withLock { $0 += amount; return $0 }
                try connection.emit(Counter.path, Counter.added, who, amount)
                return sum
            },
            .method(Counter.reset) { _ in total.withLock { $0 = 0 } },
            .signal(Counter.added),
        ])])
        return total
    }

    @Test func aProxyCallsWhatTheServiceDeclaredAndReadsTypedReplies() async throws {
        try await withTestBed { bed in
            let total = Self.exportCounter(on: bed)
            let counter = Proxy(bed.client, destination: TestService.name, path: Counter.path)
            let signals = try await bed.client.signals(MatchRule(path: Counter.path, interface: Counter.interface))
            var iterator = signals.makeAsyncIterator()

            #expect(try await counter.call(Counter.add, "ann", 5) == 5)
            #expect(try await counter.call(Counter.add, "bob", 2) == 7)
            #expect(try await counter.get(Counter.total) == 7)
            #expect(Counter.total.value(in: try await counter.getAll(Counter.interface)) == 7)

            let first = try #require(await iterator.next())
            let (who, amount) = try #require(Counter.added.arguments(of: first))
            #expect(who == "ann" && amount == 5)
            // A declaration recognises only its own signal.
            #expect(StandardSignals.propertiesChanged.arguments(of: first) == nil)

            try await counter.call(Counter.reset)
            #expect(total.withLock { $0 } == 0)
        }
    }

    @Test func introspectionNamesTheDeclaredArguments() async throws {
        try await withTestBed { bed in
            _ = Self.exportCounter(on: bed)
            let result = try await bed.run(["busctl", "--user", "introspect", "--xml-interface", TestService.name.rawValue, Counter.path.rawValue])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains(#"<arg name="who" type="s" direction="in"/>"#))
            #expect(result.stdout.contains(#"<arg name="total" type="u" direction="out"/>"#))
            #expect(result.stdout.contains(#"<signal name="Added">"#))
        }
    }

    @Test func aStaleDeclarationIsRefusedWithInvalidArgs() async throws {
        try await withTestBed { bed in
            let total = Self.exportCounter(on: bed)
            let counter = Proxy(bed.client, destination: TestService.name, path: Counter.path)
            let error = await #expect(throws: DBusError.self) { try await counter.call(Counter.staleAdd, 3) }
            #expect(error?.name == .invalidArgs)
            #expect(total.withLock { $0 } == 0, "a call with the wrong arguments must not run")
        }
    }

    @Test func aMethodTakingInt32AsUInt32TakesANonNegativeIOnly() async throws {
        try await withTestBed { bed in
            let square: MemberName = "Square"
            bed.service.connection.export(Counter.path, [Interface(Counter.interface, [
                .method(square, in: ["n"], out: ["square"]) { (_: MethodCall, n: UInt32) -> UInt32 in n &* n }
                    .takingInt32AsUInt32(),
                .method(Counter.add) { _, _, amount in amount },
            ])])
            func call(_ member: MemberName, _ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
                let result = try await bed.run(["busctl", "--user", "call", "--", TestService.name.rawValue, Counter.path.rawValue,
                                                Counter.interface.rawValue, member.rawValue] + arguments)
                return (result.status, result.stdout, result.stderr)
            }
            #expect(try await call(square, ["u", "7"]).stdout == "u 49\n")
            #expect(try await call(square, ["i", "7"]).stdout == "u 49\n", "an int32 from a binding that has no unsigned numbers")
            let negative = try await call(square, ["i", "-7"])
            #expect(negative.status != 0 && negative.stderr.contains("negative"), "\(negative)")
            let strict = try await call(Counter.add.name, ["si", "ann", "5"])
            #expect(strict.status != 0 && strict.stderr.contains("expects arguments of type 'su'"), "\(strict)")
            let introspection = try await bed.run(["busctl", "--user", "introspect", "--xml-interface",
                                                   TestService.name.rawValue, Counter.path.rawValue])
            #expect(introspection.stdout.contains(#"<arg name="n" type="u" direction="in"/>"#), "introspection still says u")
        }
    }

    @Test func anOptionIsWrittenAndReadUnderItsKeyWithItsType() {
        let limit = OptionDeclaration<UInt64>("time-limit")
        #expect(limit.signature == "t")
        var options: [String: Variant] = [:]
        options[limit] = 600
        #expect(options == ["time-limit": Variant(UInt64(600))])
        #expect(options[limit] == 600)
        options["time-limit"] = Variant(UInt32(600))
        #expect(options[limit] == nil, "a value of another type reads as absent")
        options[limit] = nil
        #expect(options.isEmpty)
    }
}
