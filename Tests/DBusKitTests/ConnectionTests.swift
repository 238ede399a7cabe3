// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Testing

/// Names, peers that come and go, credentials.
@Suite struct ConnectionTests {
    @Test func takenNameIsAClearError() async throws {
        try await withTestBed { bed in
            let second = try Connection(.address(bed.bus.address))
            defer { second.close() }
            let error = await #expect(throws: NameUnavailableError.self) { try await second.requestName(TestService.name) }
            #expect(error?.owner == bed.service.connection.uniqueName)
            #expect(error?.description.contains("already owned") == true)
        }
    }

    @Test func clientDisconnectingMidCallLeavesServiceWorking() async throws {
        try await withTestBed { bed in
            let leaving = try Connection(.address(bed.bus.address))
            let pending = Task {
                try await leaving.call(TestService.name, TestService.path, TestService.interface, "Sleep", [.uint32(300)])
            }
            try await Task.sleep(for: .milliseconds(50))
            leaving.close()
            await #expect(throws: DBusError.self) { _ = try await pending.value }
            try await Task.sleep(for: .milliseconds(400))   // the service replies into the void
            let echoed = try await bed.call("Echo", [.variant(.string("still here"))])
            #expect(echoed == [.variant(.string("still here"))])
        }
    }

    @Test func pastTheSendersCapACallIsBusyButAMethodAnsweredOnTheLoopIsNot() async throws {
        try await withTestBed { bed in
            bed.service.connection.setCallPolicy(CallPolicy(maxInFlightPerSender: 1, busy: .limitsExceeded("one at a time")))
            let sleeping = Task { try await bed.call("Sleep", [.uint32(500)]) }
            try await Task.sleep(for: .milliseconds(100))
            let refused = await #expect(throws: DBusError.self) { _ = try await bed.call("Sleep", [.uint32(1)]) }
            #expect(refused?.message == "one at a time")
            #expect(try await bed.call("Length", [.string("naïve")]) == [.uint32(6)])
            let thrown = await #expect(throws: DBusError.self) { _ = try await bed.call("Length", [.string("")]) }
            #expect(thrown?.name == DBusError.invalidArgs("").name && thrown?.message == "nothing to measure")
            #expect(try await sleeping.value == [.uint32(500)])
        }
    }

    @Test("A call past the policy's size is LimitsExceeded before its handler runs; one at the size is served")
    func pastTheMessageSizeACallIsRefusedUnread() async throws {
        try await withTestBed { bed in
            // Echo(v) of a string of n bytes counts n + 5 (length, bytes, nul).
            bed.service.connection.setCallPolicy(CallPolicy(maxMessageBytes: 1_005))
            #expect(try await bed.call("Echo", [.variant(.string(String(repeating: "a", count: 1_000)))]).count == 1)
            let served = bed.service.calls.withLock { $0 }
            let refused = await #expect(throws: DBusError.self) {
                _ = try await bed.call("Echo", [.variant(.string(String(repeating: "a", count: 4 << 20)))])
            }
            #expect(refused?.name == DBusError.limitsExceeded("").name, "\(String(describing: refused))")
            #expect(refused?.message.contains("more than 1005 bytes") == true, "\(String(describing: refused))")
            #expect(bed.service.calls.withLock { $0 } == served, "the handler never ran")
            // Arrays of fixed-size values are counted by length, without reading them.
            let bytes = try Message.methodCall(destination: TestService.name, path: TestService.path,
                                               interface: TestService.interface, member: "Echo",
                                               arguments: [.variant(.array(element: "y", Array(repeating: .byte(1), count: 2_000)))])
            #expect(bytes.bodyByteCount(upTo: 1 << 20) == 4 + 2_000)
        }
    }

    @Test func watchOwnerReportsAPeerThatAlreadyLeft() async throws {
        try await withTestBed { bed in
            let peer = try Connection(.address(bed.bus.address))
            let name = peer.uniqueName
            peer.close()
            // The peer is gone before the watch starts: reported as gone, not missed.
            var owners = try await bed.client.watchOwner(of: name).makeAsyncIterator()
            // Either the bus already forgot the peer (first value nil) or it
            // reports the peer and then its departure; both end in nil.
            var current = await owners.next()
            if current == .some(name) { current = await owners.next() }
            #expect(current == .some(nil))
        }
    }

    @Test func watchOwnerReportsDeparture() async throws {
        try await withTestBed { bed in
            let peer = try Connection(.address(bed.bus.address))
            var owners = try await bed.client.watchOwner(of: peer.uniqueName).makeAsyncIterator()
            #expect(await owners.next() == .some(peer.uniqueName))
            peer.close()
            #expect(await owners.next() == .some(nil))
        }
    }

    @Test func handlersSeeCallerCredentialsAndInteractiveFlag() async throws {
        try await withTestBed { bed in
            let message = try Message.methodCall(destination: TestService.name, path: TestService.path, interface: TestService.interface,
                                                 member: "WhoAmI", allowInteractiveAuthorization: true)
            let reply = try await bed.client.call(message).arguments
            #expect(reply == [.uint32(UInt32(getpid())), .uint32(getuid()), .bool(true)])
            let plain = try await bed.call("WhoAmI")
            #expect(plain.last == .bool(false))
        }
    }

    @Test func objectManagerAnnouncesObjects() async throws {
        try await withTestBed { bed in
            let stream = try await bed.client.signals(MatchRule(interface: .objectManager))
            var iterator = stream.makeAsyncIterator()
            let child: ObjectPath = "/org/example/Test/child"
            bed.service.connection.export(child, [Interface("org.example.Child1", [.property("Name", String.self, changes: .const) { "kid" }])])
            let added = await iterator.next()
            #expect(added?.member == "InterfacesAdded")
            #expect(added?.arguments.first == .objectPath(child))
            let managed = try await bed.client.call(TestService.name, "/org/example", .objectManager, "GetManagedObjects")
            #expect(managed.first?.description.contains("kid") == true)
            bed.service.connection.unexport(child)
            let removed = await iterator.next()
            #expect(removed?.member == "InterfacesRemoved")
            #expect(removed?.arguments == [.objectPath(child), .array(element: "s", [.string("org.example.Child1")])])
        }
    }

    /// GetManagedObjects answers from the values last announced; a change
    /// signalled through `propertiesChanged` must show in the next answer.
    @Test func managedObjectsFollowAnnouncedChanges() async throws {
        try await withTestBed { bed in
            func count() async throws -> DBusValue? {
                let managed = try await bed.client.call(TestService.name, "/org/example", .objectManager, "GetManagedObjects")
                guard case .dictionary(_, _, let objects)? = managed.first,
                      case .dictionary(_, _, let interfaces)? = objects.first(where: { $0.key == .objectPath(TestService.path) })?.value,
                      case .dictionary(_, _, let properties)? = interfaces.first?.value else { return nil }
                return properties.first { $0.key == .string("Count") }?.value
            }
            #expect(try await count() == .variant(.uint32(0)))
            _ = try await bed.call("SetCount", [.uint32(9)])
            #expect(try await count() == .variant(.uint32(9)))
            _ = try await bed.call("SetCount", [.uint32(10)])
            #expect(try await count() == .variant(.uint32(10)))
        }
    }

    @Test func manyConcurrentCallersFromManyTasks() async throws {
        try await withTestBed { bed in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<64 {
                    group.addTask {
                        for round in 0..<20 {
                            let value = DBusValue.string("\(index)-\(round)")
                            let echoed = try await bed.call("Echo", [.variant(value)])
                            #expect(echoed == [.variant(value)])
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(bed.service.calls.withLock { $0 } == 64 * 20)
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// Connections are released safely whether or not they were closed.
@Suite struct ConnectionLifetimeTests {
    @Test func droppingAnUnclosedConnectionIsSafe() async throws {
        try await withTestBed { bed in
            for _ in 0..<5 {
                let connection = try Connection(.address(bed.bus.address))
                _ = try await connection.owner(of: TestService.name)
            }
            let echoed = try await bed.call("Echo", [.variant(.bool(true))])
            #expect(echoed == [.variant(.bool(true))])
        }
    }

    @Test func closingTwiceIsHarmless() async throws {
        try await withTestBed { bed in
            let connection = try Connection(.address(bed.bus.address))
            connection.close()
            connection.close()
            await #expect(throws: DBusError.self) { _ = try await connection.owner(of: TestService.name) }
        }
    }
}

/// A subscription filtered on a well-known sender takes signals only from
/// that name's current owner, even when another subscription lets forged
/// signals from other peers into the connection.
@Suite struct SenderFilterTests {
    @Test func forgedSignalsDoNotReachSenderFilteredSubscriptions() async throws {
        try await withTestBed { bed in
            let filtered = try await bed.client.signals(MatchRule(sender: TestService.name, path: TestService.path, member: "Changed"))
            let broad = try await bed.client.signals(MatchRule(path: TestService.path, member: "Changed"))
            let forger = try Connection(.address(bed.bus.address))
            defer { forger.close() }
            try forger.emit(TestService.path, TestService.interface, "Changed", [.string("forged")])
            await forger.flush()
            var broadIterator = broad.makeAsyncIterator()
            #expect(await broadIterator.next()?.arguments == [.string("forged")])
            try bed.service.connection.emit(TestService.path, TestService.interface, "Changed", [.string("real")])
            var filteredIterator = filtered.makeAsyncIterator()
            #expect(await filteredIterator.next()?.arguments == [.string("real")])
        }
    }
}

/// A match rule's values are quoted for the bus: a value with a `'` in it
/// still matches exactly that value.
@Suite struct MatchRuleQuotingTests {
    @Test func argumentWithQuotesMatchesOnlyItself() async throws {
        #expect(MatchRule(arg0: "it's").text == #"type='signal',arg0='it'\''s'"#)
        try await withTestBed { bed in
            let quoted = try await bed.client.signals(MatchRule(path: TestService.path, member: "Changed", arg0: "it's 'quoted'"))
            for value in ["its quoted", "it's 'quoted'"] {
                try bed.service.connection.emit(TestService.path, TestService.interface, "Changed", [.string(value)])
            }
            var iterator = quoted.makeAsyncIterator()
            #expect(await iterator.next()?.arguments == [.string("it's 'quoted'")])
        }
    }
}
