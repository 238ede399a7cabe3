// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract

/// What one client has been told is done, and what it asked for last
/// without an answer: after a kill -9 each key must read as the former
/// or, when the latter may have landed, as the latter.
struct Acknowledged {
    /// Key ("state:ID", "feature:NAME", "session", "record:ID") → the value acknowledged.
    var values: [String: String] = [:]
    /// The call in flight when the daemon died.
    var inFlight: (key: String, value: String)?

    func accepts(_ key: String, _ found: String) -> Bool {
        found == values[key] ?? Self.initialValue(of: key) || (inFlight?.key == key && found == inFlight?.value)
    }

    /// What a key reads as before anything was done to it.
    static func initialValue(of key: String) -> String {
        switch key.prefix(while: { $0 != ":" }) {
        case "state": "allow"
        case "feature": "false"
        case "record": "unknown"
        default: ""
        }
    }
}

/// One mutation of the kinds the issue names, chosen at random.
struct Mutation {
    let key: String
    let value: String
    let perform: @Sendable (Proxy) async throws -> Void

    static func random(_ random: inout SeededRandom) -> Mutation {
        let restrictions = Contract.Restrictions.self, session = Contract.Session.self
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<4:
            let identifier = "org.stress.crash.r\(Int.random(in: 0..<8, using: &random))"
            let state = Bool.random(using: &random) ? "allow" : "deny"
            return Mutation(key: "state:\(identifier)", value: state) { try await $0.call(restrictions.setState, identifier, state) }
        case 4..<6:
            let enabled = Bool.random(using: &random)
            return Mutation(key: "feature:BoldText", value: "\(enabled)") {
                try await $0.call(Contract.Features.setFeature, "BoldText", enabled)
            }
        case 6..<8:
            let app = "/usr/bin/stress-app-\(Int.random(in: 0..<4, using: &random))"
            let start = Bool.random(using: &random)
            return Mutation(key: "session", value: start ? app : "") { proxy in
                if start { try await proxy.call(session.start, app, [:]) } else { try await proxy.call(session.end, [:]) }
            }
        default:
            let identifier = "org.stress.crash.registered\(Int.random(in: 0..<1_000_000, using: &random))"
            return Mutation(key: "record:\(identifier)", value: "known") { proxy in
                _ = try await proxy.call(restrictions.register, [RestrictionEntry(identifier: identifier, text: "Crash", detail: "")])
            }
        }
    }
}

/// Crash consistency: `kills` times, a client mutates without pause while
/// the daemon is killed (SIGKILL) at a random moment; after each restart
/// every acknowledged mutation must be there, the state file must load, and
/// no temporary file may be left.
func crashCase(_ context: StressContext) async throws -> CaseResult {
    let stage = try await Stage.start("crash", daemon: context.daemon)
    defer { Task { await stage.stop() } }
    var random = SeededRandom(seed: context.seed)
    var acknowledged = Acknowledged()
    var mutations = 0, acknowledgedCount = 0, lost: [String] = [], leftovers = 0, tempFilesAfterKill = 0
    for _ in 0..<context.scale.kills {
        let proxy = try stage.proxy(timeout: .seconds(10))
        defer { proxy.connection.close() }
        try await check(&acknowledged, through: proxy, lost: &lost)
        // Mutate until the kill; each reply is an acknowledgement.
        let killAfter = Duration.milliseconds(Int.random(in: 5...120, using: &random))
        let plan = (0..<2_000).map { _ in Mutation.random(&random) }
        let known = acknowledged
        let mutator = Task { () -> (seen: Acknowledged, sent: Int, acknowledged: Int) in
            var seen = known, sent = 0, acknowledgedHere = 0
            for mutation in plan {
                seen.inFlight = (mutation.key, mutation.value)
                sent += 1
                do {
                    try await mutation.perform(proxy)
                    seen.values[mutation.key] = mutation.value
                    acknowledgedHere += 1
                } catch let error as DBusError where error.name.rawValue.hasPrefix("org.guidedaccess.Error.") {
                    // Refused (say, End with no session): acknowledged as no change.
                } catch {
                    break  // the daemon is gone: this one stays in flight
                }
                seen.inFlight = nil
            }
            return (seen, sent, acknowledgedHere)
        }
        try await Task.sleep(for: killAfter)
        try await stage.fixture.killDaemon()
        let outcome = await mutator.value
        mutations += outcome.sent
        acknowledgedCount += outcome.acknowledged
        acknowledged = outcome.seen
        tempFilesAfterKill += temporaryFiles(in: stage.stateDirectory).count
        try await stage.fixture.startDaemon()
        leftovers += temporaryFiles(in: stage.stateDirectory).count
    }
    let finalProxy = try stage.proxy()
    try await check(&acknowledged, through: finalProxy, lost: &lost)
    let corrupt = (try? FileManager.default.contentsOfDirectory(atPath: stage.stateDirectory.path))?
        .filter { $0.contains(".corrupt-") }.count ?? -1
    return CaseResult(
        counts: "\(context.scale.kills) kills -9 during \(mutations) mutations (\(acknowledgedCount) acknowledged)",
        figures: "lost \(lost.count)\(lost.isEmpty ? "" : " (\(lost.prefix(3).joined(separator: "; ")))"); "
            + "state files set aside as corrupt \(corrupt); temp files: \(tempFilesAfterKill) found after kills, \(leftovers) after restarts",
        passed: lost.isEmpty && corrupt == 0 && leftovers == 0)
}

/// Adds to `lost` the acknowledged values the restarted daemon does not
/// have; then takes what it has for the call that was in flight as known.
private func check(_ acknowledged: inout Acknowledged, through proxy: Proxy, lost: inout [String]) async throws {
    let list = try await proxy.call(Contract.Restrictions.list)
    let known = Set(list.map(\.identifier))
    let enabled = try await proxy.get(Contract.Session.enabled)
    let app = try await proxy.get(Contract.Session.app)
    let boldText = try await proxy.get(Contract.Features.enabled(.boldText))
    for (key, _) in acknowledged.values.merging(acknowledged.inFlight.map { [$0.key: $0.value] } ?? [:], uniquingKeysWith: { old, _ in old }) {
        let found: String
        if key == "session" {
            found = enabled ? app : ""
        } else if key == "feature:BoldText" {
            found = "\(boldText)"
        } else if key.hasPrefix("record:") {
            found = known.contains(String(key.dropFirst(7))) ? "known" : "unknown"
        } else {
            found = try await proxy.call(Contract.Restrictions.getState, String(key.dropFirst(6)))
        }
        if !acknowledged.accepts(key, found) {
            lost.append("\(key) is \(found.isEmpty ? "(none)" : found), acknowledged \(acknowledged.values[key] ?? "nothing")"
                           + (acknowledged.inFlight?.key == key ? ", in flight \(acknowledged.inFlight!.value)" : ""))
        } else if acknowledged.inFlight?.key == key {
            acknowledged.values[key] = found
        }
    }
    acknowledged.inFlight = nil
}

private func temporaryFiles(in directory: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.contains(".tmp") }
}
