// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation
import Testing
@testable import GuidedAccessCore

@Suite("Registration limits and forgetting")
struct RegistrationLimitsTests {
    private func declarations(_ count: Int, prefix: String) -> [RestrictionDeclaration] {
        (0..<count).map { RestrictionDeclaration(identifier: "\(prefix).r\($0)", text: "Thing \($0)", detail: "") }
    }

    private func quotaMessage(_ body: () throws -> Void) -> String? {
        do { try body() } catch let error as DomainError {
            return error.name == "QuotaExceeded" ? error.message : "\(error)"
        } catch { return "\(error)" }
        return nil
    }

    @Test("per app: exactly the cap across connections passes, one more is QuotaExceeded naming PerApp and its value")
    func perApp() throws {
        var limits = RegistrationLimits()
        limits.perApp = 300
        var registry = RestrictionRegistry(limits: limits)
        try registry.register(owner: ":1.1", app: "/usr/bin/app", declarations(256, prefix: "com.example.a"))
        try registry.register(owner: ":1.2", app: "/usr/bin/app", declarations(44, prefix: "com.example.b"))
        #expect(registry.liveRegistrations(of: "/usr/bin/app") == 300)
        let message = quotaMessage { try registry.register(owner: ":1.3", app: "/usr/bin/app", declarations(1, prefix: "com.example.c")) }
        #expect(message == "app /usr/bin/app across its connections would hold 301 live restrictions; the limit is 300 "
                + "(PerApp in managed.json's Limits); unregister some first")
        #expect(registry.records["com.example.c.r0"] == nil, "nothing half-registered")
        // Another app is not affected, and a connection that leaves frees its share.
        try registry.register(owner: ":1.4", app: "/usr/bin/other", declarations(1, prefix: "com.example.d"))
        registry.ownerLeft(":1.2")
        try registry.register(owner: ":1.3", app: "/usr/bin/app", declarations(44, prefix: "com.example.c"))
    }

    @Test("per connection and total: the exact boundary passes; one more names its cap")
    func perConnectionAndTotal() throws {
        var limits = RegistrationLimits()
        limits.total = 20
        limits.perConnection = 8
        var registry = RestrictionRegistry(limits: limits)
        try registry.register(owner: ":1.1", app: "a", declarations(8, prefix: "com.example.a"))
        #expect(quotaMessage { try registry.register(owner: ":1.1", app: "a", declarations(9, prefix: "com.example.a")) }?
            .contains("this connection would hold 9 live restrictions; the limit is 8 (PerConnection") == true)
        try registry.register(owner: ":1.2", app: "b", declarations(8, prefix: "com.example.b"))
        try registry.register(owner: ":1.3", app: "c", declarations(4, prefix: "com.example.c"))
        #expect(quotaMessage { try registry.register(owner: ":1.4", app: "d", declarations(1, prefix: "com.example.d")) }?
            .contains("this user's apps together would hold 21 live restrictions; the limit is 20 (Total") == true)
    }

    @Test("apps that left: undecided titles past the bound are forgotten, least recently registered first; decided ones never")
    func forgetting() throws {
        var limits = RegistrationLimits()
        limits.rememberedTitles = 10
        var registry = RestrictionRegistry(limits: limits)
        try registry.register(owner: ":1.1", app: "a", declarations(8, prefix: "com.example.old"))
        try registry.setState(.deny, for: "com.example.old.r0")
        registry.ownerLeft(":1.1")
        try registry.register(owner: ":1.2", app: "b", declarations(8, prefix: "com.example.new"))
        registry.ownerLeft(":1.2")
        // 16 remembered: 15 undecided, 1 decided; the 5 oldest undecided go.
        #expect(registry.records.count == 11)
        #expect(registry.records["com.example.old.r0"] != nil, "a decided record is never dropped")
        for index in 1...5 { #expect(registry.records["com.example.old.r\(index)"] == nil) }
        for index in 0..<8 { #expect(registry.records["com.example.new.r\(index)"] != nil) }
    }

    @Test("once apps that left are forgotten, the records give back the room they took")
    func forgettingGivesBackRoom() throws {
        var limits = RegistrationLimits()
        limits.rememberedTitles = 100
        var registry = RestrictionRegistry(limits: limits)
        for app in 0..<40 {
            try registry.register(owner: ":1.\(app)", app: "app\(app)", declarations(100, prefix: "com.example.app\(app)"))
        }
        let peak = registry.records.capacity
        for app in 0..<40 { registry.ownerLeft(":1.\(app)") }
        #expect(registry.records.count == 100)
        #expect(registry.records.capacity < 400, "room for \(registry.records.capacity) records kept after the peak of \(peak)")
    }

    @Test("managed.json Limits: read, checked, and refused when unknown or below 1")
    func managed() throws {
        let config = try ManagedConfig.parse(Data(#"{"Limits": {"PerApp": 2048, "Total": 20000}}"#.utf8), path: "m.json")
        #expect(config.limits.perApp == 2048 && config.limits.total == 20000 && config.limits.perConnection == 256)
        #expect(throws: ManagedConfigError.self) { try ManagedConfig.parse(Data(#"{"Limits": {"PerAp": 1}}"#.utf8), path: "m.json") }
        #expect(throws: ManagedConfigError.self) { try ManagedConfig.parse(Data(#"{"Limits": {"Total": 0}}"#.utf8), path: "m.json") }
    }

    @Test("a start removes temporary files of interrupted writes, even when their pid is alive again, but not one a writer holds locked")
    func strayTemporaries() throws {
        try withTemporaryDirectory { directory in
            let stray = directory + "/state.json.tmp-999999999-42"
            // A pid that runs (reused, or a zombie) does not make a write live: only its lock does.
            let reused = directory + "/state.json.tmp-\(getppid())-7"
            let live = directory + "/state.json.tmp-\(getpid())-8"
            for path in [stray, reused, live] { _ = FileManager.default.createFile(atPath: path, contents: Data("{".utf8)) }
            let writer = open(live, O_RDWR)
            defer { close(writer) }
            #expect(flock(writer, LOCK_EX) == 0)
            let model = try makeModel(in: directory)
            #expect(!FileManager.default.fileExists(atPath: stray))
            #expect(!FileManager.default.fileExists(atPath: reused))
            #expect(FileManager.default.fileExists(atPath: live))
            #expect(model.startupWarnings.contains { $0.contains("state.json.tmp-999999999-42") })
        }
    }
}
