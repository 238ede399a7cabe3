// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation
import DBusKit
import Testing

/// Values of every type, nested, through a real dbus-daemon and back.
@Suite struct RoundTripTests {
    static let everyBasic: [DBusValue] = [
        .byte(0xFF), .bool(true), .int16(-32768), .uint16(65535), .int32(Int32.min), .uint32(UInt32.max),
        .int64(Int64.min), .uint64(UInt64.max), .double(-1.5e300), .string("grüße 👋"),
        .objectPath("/a/b_c/D9"), .signature("a{sv}(iai)"),
    ]

    static var deeplyNested: DBusValue {
        let dict = DBusValue.dictionary(key: "s", value: "v", [
            .init(key: .string("list"), value: .variant(.array(element: "(sa{sv})", [
                .structure([.string("inner"), .dictionary(key: "s", value: "v", [
                    .init(key: .string("deeper"), value: .variant(.variant(.array(element: "ay", [.array(element: "y", [.byte(1), .byte(2)])])))),
                ])]),
            ]))),
            .init(key: .string("empty"), value: .variant(.array(element: "a{ox}", []))),
            .init(key: .string("int-keys"), value: .variant(.dictionary(key: "u", value: "as", [
                .init(key: .uint32(1), value: .array(element: "s", [.string("one")])),
            ]))),
        ])
        return .array(element: "a{sv}", [dict, .dictionary(key: "s", value: "v", [])])
    }

    @Test func everyBasicTypeSurvivesAsVariant() async throws {
        try await withTestBed { bed in
            for value in Self.everyBasic {
                let reply = try await bed.call("Echo", [.variant(value)])
                #expect(reply == [.variant(value)], "\(value) came back as \(reply)")
            }
        }
    }

    @Test func nestedContainersSurvive() async throws {
        try await withTestBed { bed in
            let value = Self.deeplyNested
            let reply = try await bed.call("Echo", [.variant(value)])
            #expect(reply == [.variant(value)])
            #expect(reply.first?.signature == "v")
        }
    }

    @Test func typedArgumentsMapToSignatures() async throws {
        try await withTestBed { bed in
            let message = try Message.methodCall(destination: TestService.name, path: TestService.path,
                                                 interface: TestService.interface, member: "AllTypes", arguments: Self.everyBasic)
            let reply = try await bed.client.call(message)
            #expect(reply.arguments == Self.everyBasic)
            let (y, b, _, _, i, _, _, t, d, s, o, g) = try reply.decode(UInt8.self, Bool.self, Int16.self, UInt16.self, Int32.self, UInt32.self,
                                                                          Int64.self, UInt64.self, Double.self, String.self, ObjectPath.self, Signature.self)
            #expect(y == 0xFF && b && i == Int32.min && t == UInt64.max && d == -1.5e300)
            #expect(s == "grüße 👋" && o == "/a/b_c/D9" && g == "a{sv}(iai)")
            #expect(throws: DBusError.self) { try reply.decode(String.self) }
        }
    }

    @Test func typedNestedStructsAndDictionaries() async throws {
        try await withTestBed { bed in
            let value: [[String: [Pair]]] = [["a": [Pair(number: 1, text: "x"), Pair(number: -2, text: "")]], [:]]
            #expect([[String: [Pair]]].dbusSignature == "aa{sa(is)}")
            let reply = try await bed.call("Nested", [value.dbusValue])
            let decoded = try [[String: [Pair]]](dbusValue: reply[0])
            #expect(decoded == value)
        }
    }

    @Test func signalsCarryValuesToSubscribers() async throws {
        try await withTestBed { bed in
            let stream = try await bed.client.signals(MatchRule(path: TestService.path, interface: TestService.interface, member: "Changed"))
            try bed.service.connection.emit(TestService.path, TestService.interface, "Changed", [.string("sky ☁️")])
            var iterator = stream.makeAsyncIterator()
            let signal = await iterator.next()
            #expect(signal?.arguments == [.string("sky ☁️")])
            #expect(signal?.sender == bed.service.connection.uniqueName)
        }
    }

    @Test func fileDescriptorsArePassed() async throws {
        try await withTestBed { bed in
            var fds: [Int32] = [0, 0]
            #expect(pipe(&fds) == 0)
            defer { close(fds[0]); close(fds[1]) }
            let call = try Message.methodCall(destination: TestService.name, path: TestService.path,
                                              interface: TestService.interface, member: "Echo",
                                              arguments: [.variant(.unixFD(fds[1]))])
            let reply = try await bed.client.call(call)  // owns the descriptor it carries, while it lives
            guard case .variant(.unixFD(let received))? = reply.arguments.first else {
                Issue.record("no fd in \(reply.arguments)")
                return
            }
            #expect(received != fds[1])   // a duplicate, owned by the reply
            #expect(write(received, "x", 1) == 1)
            var byte: UInt8 = 0
            #expect(read(fds[0], &byte, 1) == 1 && byte == UInt8(ascii: "x"))
            withExtendedLifetime(reply) {}
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// Received `h` values are duplicates that libdbus hands over: the message
/// that carried them must close them, or every such call leaks descriptors.
@Suite struct DescriptorOwnershipTests {
    @Test("descriptors in received messages are closed with them: rejected calls and echoed replies leak none")
    func receivedDescriptorsAreClosed() async throws {
        try await withTestBed { bed in
            var ends: [Int32] = [0, 0]
            #expect(pipe(&ends) == 0)
            defer { ends.forEach { close($0) } }
            // Count only descriptors of this pipe: tests running meanwhile open others.
            let pipeName = linkTarget(of: ends[1])
            func copiesOfPipe() -> Int {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
                return names.compactMap(Int32.init).filter { linkTarget(of: $0) == pipeName }.count
            }
            #expect(copiesOfPipe() == 2)
            for _ in 0..<100 {
                // Wrong signature: the service decodes, rejects, and must still close.
                await #expect(throws: DBusError.self) { _ = try await bed.call("AllTypes", [.unixFD(ends[1])]) }
                // Echoed: the service's copy and the client's copy of the reply.
                let reply = try await bed.call("Echo", [.variant(.unixFD(ends[1]))])
                #expect(reply.first?.signature == "v")
            }
            var copies = copiesOfPipe()
            for _ in 0..<100 where copies > 2 {
                try await Task.sleep(for: .milliseconds(20))  // the last messages may still be in flight
                copies = copiesOfPipe()
            }
            #expect(copies == 2, "\(copies - 2) copies of the pipe leaked by 200 calls carrying one each")
        }
    }

    private func linkTarget(of fd: Int32) -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")) ?? ""
    }
}
