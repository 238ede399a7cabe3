// SPDX-License-Identifier: LGPL-2.1-or-later
import Testing
@testable import GuidedAccessCore

@Suite("Restriction registry")
struct RestrictionRegistryTests {
    private func declarations(_ count: Int, prefix: String = "com.example.r") -> [RestrictionDeclaration] {
        (0..<count).map { RestrictionDeclaration(identifier: "\(prefix)\($0)", text: "Thing \($0)", detail: "") }
    }

    @Test func quotaAllows256AndRefuses257() throws {
        var registry = RestrictionRegistry()
        try registry.register(owner: ":1.1", app: "app", declarations(256))
        #expect(registry.records.count == 256)
        #expect(throws: DomainError.self) {
            try registry.register(owner: ":1.1", app: "app", [RestrictionDeclaration(identifier: "com.example.more", text: "x", detail: "")])
        }
        // Another connection has its own quota.
        try registry.register(owner: ":1.2", app: "app", declarations(1, prefix: "org.other.r"))
    }

    @Test func quotaIsCheckedForTheWholeCallAndReRegisteringDoesNotCount() throws {
        var registry = RestrictionRegistry()
        #expect {
            try registry.register(owner: ":1.1", app: "app", declarations(257))
        } throws: { ($0 as? DomainError)?.name == "QuotaExceeded" }
        #expect(registry.records.count == 0)
        try registry.register(owner: ":1.1", app: "app", declarations(256))
        try registry.register(owner: ":1.1", app: "app", declarations(256))
    }

    @Test func allOrNothing() {
        var registry = RestrictionRegistry()
        let batch = [
            RestrictionDeclaration(identifier: "com.example.ok", text: "Fine", detail: ""),
            RestrictionDeclaration(identifier: "bad", text: "Fine", detail: ""),
        ]
        #expect(throws: DomainError.self) { try registry.register(owner: ":1.1", app: "app", batch) }
        #expect(registry.records.count == 0)
        let blankDetail = [RestrictionDeclaration(identifier: "com.example.ok", text: "Fine", detail: "   ")]
        #expect(throws: DomainError.self) { try registry.register(owner: ":1.1", app: "app", blankDetail) }
    }

    @Test func reRegisteringUpdatesTextAndAnotherLiveOwnerIsRefused() throws {
        var registry = RestrictionRegistry()
        try registry.register(owner: ":1.1", app: "app", [.init(identifier: "com.example.buy", text: "Old", detail: "")])
        try registry.register(owner: ":1.1", app: "app", [.init(identifier: "com.example.buy", text: "New", detail: "d")])
        #expect(registry.records["com.example.buy"]?.text == "New")
        #expect(throws: DomainError.notOwner(
            "restriction com.example.buy is registered by another running app; use an identifier in your own namespace")) {
            try registry.register(owner: ":1.2", app: "other", [.init(identifier: "com.example.buy", text: "Mine", detail: "")])
        }
    }

    @Test func ownerLeftKeepsRecordAndStateAndFreesTheIdentifier() throws {
        var registry = RestrictionRegistry()
        try registry.register(owner: ":1.1", app: "app", [.init(identifier: "com.example.buy", text: "Buy", detail: "")])
        try registry.setState(.deny, for: "com.example.buy")
        #expect(registry.ownerLeft(":1.1") == ["com.example.buy"])
        #expect(registry.ownerLeft(":1.1") == [])
        let listing = try #require(registry.list().first)
        #expect(listing.registered == false)
        #expect(listing.text == "Buy")
        #expect(listing.state == .deny)
        try registry.register(owner: ":1.2", app: "app", [.init(identifier: "com.example.buy", text: "Buy", detail: "")])
        #expect(registry.state(of: "com.example.buy") == .deny)
    }

    @Test func unregisterOnlyByTheRegistrant() throws {
        var registry = RestrictionRegistry()
        try registry.register(owner: ":1.1", app: "app", [.init(identifier: "com.example.buy", text: "Buy", detail: "")])
        #expect { try registry.unregister(owner: ":1.2", identifiers: ["com.example.buy"]) } throws: {
            ($0 as? DomainError)?.name == "NotOwner"
        }
        #expect { try registry.unregister(owner: ":1.1", identifiers: ["com.example.nope"]) } throws: {
            ($0 as? DomainError)?.name == "InvalidArgument"
        }
        try registry.unregister(owner: ":1.1", identifiers: ["com.example.buy"])
        #expect(registry.records["com.example.buy"]?.registered == false)
    }

    @Test func statesDefaultToAllowAndUnknownIdentifiersCanBePreDenied() throws {
        var registry = RestrictionRegistry()
        #expect(registry.state(of: "com.example.unknown") == .allow)
        #expect(try registry.setState(.deny, for: "com.example.unknown"))
        #expect(try registry.setState(.deny, for: "com.example.unknown") == false)
        #expect(registry.isAllowed("com.example.unknown", sessionActive: false))
        #expect(registry.isAllowed("com.example.unknown", sessionActive: true) == false)
        #expect(throws: DomainError.self) { try registry.setState(.deny, for: "nodots") }
    }

    @Test func resetOneOrAll() throws {
        var registry = RestrictionRegistry()
        try registry.setState(.deny, for: "com.example.a")
        try registry.setState(.deny, for: "com.example.b")
        #expect(try registry.reset(["com.example.a", "com.example.c"]) == ["com.example.a"])
        try registry.setState(.deny, for: "com.example.a")
        #expect(try registry.reset([]) == ["com.example.a", "com.example.b"])
        #expect(try registry.reset([]) == [])
    }

    @Test func forcedStatesCannotBeChanged() throws {
        var registry = RestrictionRegistry(forcedStates: ["com.example.purchase": .deny])
        #expect(registry.state(of: "com.example.purchase") == .deny)
        #expect {
            try registry.setState(.allow, for: "com.example.purchase")
        } throws: { error in
            (error as? DomainError)?.name == "PermissionDenied"
                && (error as? DomainError)?.message.contains("managed.json") == true
        }
        #expect(try registry.setState(.deny, for: "com.example.purchase") == false)
        #expect(throws: DomainError.self) { try registry.reset(["com.example.purchase"]) }
        #expect(try registry.reset([]) == [], "reset of everything skips forced states")
        #expect(registry.list().map(\.identifier) == ["com.example.purchase"])
    }
}
