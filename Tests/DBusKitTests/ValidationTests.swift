// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import Testing

/// Bad input from Swift is a thrown error and bad input from peers is a
/// named error reply; the process never aborts.
@Suite struct ValidationTests {
    @Test(arguments: ["", "no-slash", "/trailing/", "/double//slash", "/bad-char", "/nul\u{0}"])
    func invalidObjectPathsAreErrors(_ raw: String) {
        #expect(throws: InvalidNameError.self) { try ObjectPath(validating: raw) }
    }

    @Test func invalidNamesAreErrors() {
        #expect(throws: InvalidNameError.self) { try BusName(validating: "1starts.with.digit") }
        #expect(throws: InvalidNameError.self) { try BusName(validating: "single") }
        #expect(throws: InvalidNameError.self) { try InterfaceName(validating: "org..double") }
        #expect(throws: InvalidNameError.self) { try MemberName(validating: "has.dot") }
        #expect(throws: InvalidNameError.self) { try ErrorName(validating: "NoDots") }
        #expect(throws: InvalidNameError.self) { try Signature(validating: "a{vs}") }
        #expect(throws: InvalidNameError.self) { try Signature(validating: String(repeating: "a", count: 40) + "i") }
        #expect(throws: Never.self) { try BusName(validating: ":1.42") }
        #expect(throws: Never.self) { try Signature(validating: "a{sv}(ia(ss))") }
    }

    @Test(arguments: ["", "com.example.app.purchase", "a_b-c d", "ünïcödé ✓", "_"])
    func escapedPathElementsRoundTrip(_ text: String) throws {
        let element = ObjectPath.escapeElement(text)
        #expect(throws: Never.self) { try ObjectPath(validating: "/" + element) }
        #expect(ObjectPath.unescapeElement(Substring(element)) == text)
    }

    @Test func unescapingRefusesWhatEscapingNeverWrites() {
        #expect(ObjectPath.unescapeElement("a_2") == nil, "an escape needs two hex digits")
        #expect(ObjectPath.unescapeElement("_zz") == nil)
        #expect(ObjectPath.unescapeElement("_ff_fe") == nil, "bytes that are not UTF-8")
    }

    @Test func stringsWithNulNeverReachLibdbus() {
        #expect(throws: InvalidNameError.self) {
            _ = try Message.signal(path: "/a", interface: "org.example.I", member: "S", arguments: [.string("a\u{0}b")])
        }
        #expect(throws: InvalidNameError.self) {
            _ = try Message.signal(path: "/a", interface: "org.example.I", member: "S",
                                   arguments: [.array(element: "a{sv}", [.dictionary(key: "s", value: "v", [.init(key: .string("k"), value: .variant(.string("\u{0}")))])])])
        }
    }

    @Test func mistypedContainersAreErrors() {
        #expect(throws: MarshallingError.self) {
            _ = try Message.signal(path: "/a", interface: "org.example.I", member: "S", arguments: [.array(element: "s", [.int32(1)])])
        }
        #expect(throws: MarshallingError.self) {
            _ = try Message.signal(path: "/a", interface: "org.example.I", member: "S", arguments: [.dictionary(key: "v", value: "s", [])])
        }
        #expect(throws: MarshallingError.self) {
            _ = try Message.signal(path: "/a", interface: "org.example.I", member: "S", arguments: [.structure([])])
        }
    }

    /// Variants restart the signature, so only counting catches a deep
    /// nesting; the bus would drop such a message and the sender with it.
    @Test func containersNestedTooDeepAreErrors() {
        func nested(_ depth: Int) -> DBusValue {
            (0..<depth).reduce(DBusValue.int32(1)) { inner, _ in .variant(inner) }
        }
        #expect(throws: Never.self) {
            _ = try Message.signal(path: "/a", interface: "org.example.I", member: "S", arguments: [nested(32)])
        }
        let error = #expect(throws: MarshallingError.self) {
            _ = try Message.signal(path: "/a", interface: "org.example.I", member: "S", arguments: [nested(33)])
        }
        #expect(error?.description == "containers nested more than 32 deep")
    }

    @Test func typedDecodingRejectsWrongTypes() {
        #expect(throws: DBusError.self) { try [String: Variant](dbusValue: .array(element: "s", [])) }
        #expect(throws: DBusError.self) { try Pair(dbusValue: .structure([.int32(1), .int32(2)])) }
    }

    @Test func handlerErrorsKeepTheirNameAndMessage() async throws {
        try await withTestBed { bed in
            await #expect(throws: DBusError("org.example.Error.Custom", "what went wrong")) {
                _ = try await bed.call("Fail", [.string("org.example.Error.Custom"), .string("what went wrong")])
            }
            // An invalid error name from the handler is itself reported, not a crash.
            await #expect(throws: DBusError.invalidArgs("invalid D-Bus error name: \"not an error name\"")) {
                _ = try await bed.call("Fail", [.string("not an error name"), .string("x")])
            }
        }
    }

    @Test func wrongSignaturesAndUnknownMembersGetStandardErrors() async throws {
        try await withTestBed { bed in
            await #expect(throws: DBusError.invalidArgs("SetCount expects arguments of type 'u', got 's'")) {
                _ = try await bed.call("SetCount", [.string("five")])
            }
            let unknownMethod = await #expect(throws: DBusError.self) { _ = try await bed.call("NoSuchMethod") }
            #expect(unknownMethod?.name == .unknownMethod)
            let unknownInterface = await #expect(throws: DBusError.self) { _ = try await bed.call("Echo", interface: "org.example.Nope") }
            #expect(unknownInterface?.name == .unknownInterface)
            let unknownObject = await #expect(throws: DBusError.self) {
                _ = try await bed.client.call(TestService.name, "/org/example/Nope", TestService.interface, "Echo", [.variant(.bool(true))])
            }
            #expect(unknownObject?.name == .unknownObject)
            let unknownProperty = await #expect(throws: DBusError.self) {
                _ = try await bed.client.call(TestService.name, TestService.path, .properties, "Get", [.string("org.example.Test1"), .string("Nope")])
            }
            #expect(unknownProperty?.name == .unknownProperty)
            // The service still answers.
            let echoed = try await bed.call("Echo", [.variant(.bool(true))])
            #expect(echoed == [.variant(.bool(true))])
        }
    }

    @Test func timeoutsAreNoReplyErrors() async throws {
        try await withTestBed { bed in
            let message = try Message.methodCall(destination: TestService.name, path: TestService.path, interface: TestService.interface,
                                                 member: "Sleep", arguments: [.uint32(2000)])
            let error = await #expect(throws: DBusError.self) { _ = try await bed.client.call(message, timeout: .milliseconds(200)) }
            #expect(error?.name == .noReply)
        }
    }
}
