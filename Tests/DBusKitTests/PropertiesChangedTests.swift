// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import Testing

/// `PropertiesChanged` goes out once per real change and never for a no-op.
@Suite struct PropertiesChangedTests {
    /// Collects PropertiesChanged signals until a marker signal arrives, so
    /// "no signal" is observed, not assumed after a sleep.
    func changes(_ bed: TestBed, during actions: () async throws -> Void) async throws -> [[DBusValue]] {
        let stream = try await bed.client.signals(MatchRule(path: TestService.path))
        try await actions()
        try bed.service.connection.emit(TestService.path, TestService.interface, "Changed", [.string("marker")])
        var collected: [[DBusValue]] = []
        for await signal in stream {
            if signal.member == "Changed" { break }
            if signal.member == "PropertiesChanged" { collected.append(signal.arguments) }
        }
        return collected
    }

    @Test func emitsOncePerRealChange() async throws {
        try await withTestBed { bed in
            let seen = try await changes(bed) {
                _ = try await bed.call("SetCount", [.uint32(3)])
                _ = try await bed.call("SetCount", [.uint32(3)])   // same value: nothing
                _ = try await bed.call("SetCount", [.uint32(4)])
            }
            #expect(seen.count == 2)
            #expect(seen.first == [.string("org.example.Test1"),
                                   .dictionary(key: "s", value: "v", [.init(key: .string("Count"), value: .variant(.uint32(3)))]),
                                   .array(element: "s", [])])
        }
    }

    @Test func setToSameValueSendsNothing() async throws {
        try await withTestBed { bed in
            let set: (String) async throws -> Void = { title in
                _ = try await bed.client.call(TestService.name, TestService.path, .properties, "Set",
                                              [.string("org.example.Test1"), .string("Title"), .variant(.string(title))])
            }
            let seen = try await changes(bed) {
                try await set("initial")   // unchanged
                try await set("new")
                try await set("new")       // unchanged
            }
            #expect(seen.count == 1)
        }
    }

    @Test func invalidatesCarriesNameOnly() async throws {
        try await withTestBed { bed in
            let seen = try await changes(bed) { _ = try await bed.call("SetMood", [.string("happy")]) }
            #expect(seen == [[.string("org.example.Test1"), .dictionary(key: "s", value: "v", []), .array(element: "s", [.string("Mood")])]])
        }
    }

    @Test func setOnReadOnlyPropertyIsRefused() async throws {
        try await withTestBed { bed in
            await #expect(throws: DBusError.propertyReadOnly("property Count is read-only")) {
                _ = try await bed.client.call(TestService.name, TestService.path, .properties, "Set",
                                              [.string("org.example.Test1"), .string("Count"), .variant(.uint32(1))])
            }
            await #expect(throws: DBusError.invalidArgs("property Title has type 's'")) {
                _ = try await bed.client.call(TestService.name, TestService.path, .properties, "Set",
                                              [.string("org.example.Test1"), .string("Title"), .variant(.uint32(1))])
            }
        }
    }
}
