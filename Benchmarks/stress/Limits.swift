// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract

/// The per-app cap the limits case sets in managed.json: 50 apps at this
/// cap (12,800 registrations) stay under the user's total of 16,384.
private let perAppCap = 256

/// Limits: `limitApps` apps each register the per-app cap; one more
/// `Register` from each must be refused with `QuotaExceeded`, and `List`
/// with everything registered must answer p99 < 10 ms, or as fast as the bus
/// carries the same reply from a plain libdbus service (within 25 %): its
/// 2 MB take the bus alone about 8 ms here. Right after each change the
/// reply is built again: `listRebuilds` such calls must answer p99 ≤ 100 ms
/// and show the change.
///
/// An app is an executable: each app here is a hard link of this program
/// under its own name, run in `--hold-registrations` mode.
func limitsCase(_ context: StressContext) async throws -> CaseResult {
    let stage = try await Stage.start("limits", daemon: context.daemon,
                                      Stage.Options(managedConfig: #"{"Limits": {"PerApp": \#(perAppCap)}}"#))
    defer { Task { await stage.stop() } }
    let apps = try makeApps(context.scale.limitApps)
    defer { try? FileManager.default.removeItem(at: apps[0].deletingLastPathComponent()) }
    let holders = try apps.enumerated().map { index, app in try AppProcess(app, address: stage.fixture.address, index: index) }
    defer { holders.forEach { $0.finish() } }
    let answers = try holders.map { try $0.readyLine() }
    let refusals = answers.filter { $0.hasSuffix("org.guidedaccess.Error.QuotaExceeded") }.count

    // Until the reply is in, as any client sees it, beside the same bytes from
    // a plain libdbus service (the bus alone); DBusKit's decoding into rows is shown apart.
    let observer = try stage.connect()
    let plain = try PlainReplier(address: stage.fixture.address, copying: (GuidedAccessBus.name,
        GuidedAccessBus.objectPath, "org.guidedaccess.Restrictions1", "List"))
    defer { plain.stop() }
    let plainCall = try Message.methodCall(destination: BusName(validating: PlainReplier.name), path: .guidedAccess,
                                           interface: "org.guidedaccess.Restrictions1", member: "List")
    var total = 0
    var samples: [Double] = [], bus: [Double] = [], decoding: [Double] = []
    for _ in 0..<100 {
        var reply: Message?
        samples.append(try await Measuring.milliseconds { reply = try await observer.call(listCall()) })
        decoding.append(try await Measuring.milliseconds { total = try reply!.decode([RestrictionRow].self).count })
        bus.append(try await Measuring.milliseconds { _ = try await observer.call(plainCall) })
    }
    // After each change the reply is built again, and must show the change.
    let admin = Proxy(observer, destination: .guidedAccess, path: .guidedAccess)
    var afterChange: [Double] = [], stale = 0
    for round in 0..<context.scale.listRebuilds {
        let state = round % 2 == 0 ? "deny" : "allow"
        try await admin.call(Contract.Restrictions.setState, "org.stress.limits.app0.r0", state)
        var reply: Message?
        afterChange.append(try await Measuring.milliseconds { reply = try await observer.call(listCall()) })
        let row = try reply!.decode([RestrictionRow].self).first { $0.identifier == "org.stress.limits.app0.r0" }
        if row?.state != state { stale += 1 }
    }
    let (p50, p99) = (Measuring.percentile(samples, 0.5), Measuring.percentile(samples, 0.99))
    let (busP50, busP99) = (Measuring.percentile(bus, 0.5), Measuring.percentile(bus, 0.99))
    // Under 10 ms, or as fast as the bus carries the same bytes (within 25 %):
    // past a size no service answers faster than the bus moves its reply.
    let fastEnough = p99 < 10 || (p50 <= busP50 * 1.25 && p99 <= busP99 * 1.25)
    let rebuiltP99 = Measuring.percentile(afterChange, 0.99)
    return CaseResult(
        counts: "\(apps.count) apps × \(perAppCap) registrations (PerApp cap), then one more each",
        figures: "\(refusals)/\(apps.count) refused with QuotaExceeded; List of \(total) (\(plain.replyBytes / 1024) KiB): " + latencies(samples)
            + String(format: "; the same reply from a plain libdbus service (the bus alone): p50 %.2f, p99 %.2f ms (List %.2f×, %.2f×)",
                     busP50, busP99, p50 / busP50, p99 / busP99)
            + String(format: "; DBusKit decoding apart: p50 %.2f ms; right after a change (built again, %d calls): p50 %.2f, p99 %.2f ms, %d stale",
                     Measuring.percentile(decoding, 0.5), afterChange.count, Measuring.percentile(afterChange, 0.5), rebuiltP99, stale),
        passed: refusals == apps.count && total == apps.count * perAppCap && fastEnough && rebuiltP99 <= 100 && stale == 0)
}

private func listCall() throws -> Message {
    try Message.methodCall(destination: .guidedAccess, path: .guidedAccess, interface: "org.guidedaccess.Restrictions1", member: "List")
}

/// `count` hard links of this executable, each a distinct app to the daemon.
private func makeApps(_ count: Int) throws -> [URL] {
    let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    let directory = me.deletingLastPathComponent().appendingPathComponent("stress-apps-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return try (0..<count).map { index in
        let app = directory.appendingPathComponent("app-\(index)")
        try FileManager.default.linkItem(at: me, to: app)
        return app
    }
}

/// One app holding its registrations until its standard input closes.
private final class AppProcess {
    let process = Process()
    let input = Pipe(), output = Pipe()

    init(_ executable: URL, address: String, index: Int) throws {
        process.executableURL = executable
        process.arguments = ["--hold-registrations", address, String(perAppCap), "org.stress.limits.app\(index)"]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// "ready N ERROR": N registered, then what one more got.
    func readyLine() throws -> String {
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }

    func finish() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// `--hold-registrations ADDRESS COUNT PREFIX`: registers COUNT restrictions,
/// tries one more, prints "ready COUNT <what the extra one got>", then holds
/// them until standard input closes.
func holdRegistrations(_ arguments: [String]) async -> Never {
    do {
        let proxy = Proxy(try Connection(.address(arguments[0])), destination: .guidedAccess, path: .guidedAccess)
        let count = Int(arguments[1]) ?? 0
        let entries = (0...count).map { RestrictionEntry(identifier: "\(arguments[2]).r\($0)", text: "Held \($0)", detail: "") }
        for start in stride(from: 0, to: count, by: 64) {
            _ = try await proxy.call(Contract.Restrictions.register, Array(entries[start..<min(count, start + 64)]))
        }
        var extra = "accepted"
        do {
            _ = try await proxy.call(Contract.Restrictions.register, [entries[count]])
        } catch let error as DBusError {
            extra = error.name.rawValue
        }
        FileHandle.standardOutput.write(Data("ready \(count) \(extra)\n".utf8))
        while readLine() != nil {}
        exit(0)
    } catch {
        print("failed \(error)")
        exit(1)
    }
}
