// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessTesting
import GuidedAccessContract

/// A seeded generator (SplitMix64): a failing run is replayed with `--seed`.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Every method and property of the contract, read from `dbus/*.xml`, so
/// that a member added to the contract is fuzzed without editing this file.
struct ContractMember {
    let interface: InterfaceName
    let member: MemberName
    /// The `in` signature of a method; nil for a property.
    let signature: String?

    static func load(from directory: URL) throws -> [ContractMember] {
        var members: [ContractMember] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) where file.hasSuffix(".xml") {
            let xml = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            let interface = try InterfaceName(validating: String(file.dropLast(4)))
            for block in xml.components(separatedBy: "<method name=\"").dropFirst() {
                let name = String(block.prefix { $0 != "\"" })
                let body = block.components(separatedBy: "</method>")[0]
                let types = body.components(separatedBy: "<arg ").dropFirst()
                    .filter { !$0.contains("direction=\"out\"") }
                    .map { $0.components(separatedBy: "type=\"")[1].prefix { $0 != "\"" } }
                members.append(ContractMember(interface: interface, member: try MemberName(validating: name),
                                              signature: types.joined()))
            }
            for block in xml.components(separatedBy: "<property name=\"").dropFirst() {
                members.append(ContractMember(interface: interface, member: try MemberName(validating: String(block.prefix { $0 != "\"" })),
                                              signature: nil))
            }
        }
        return members
    }
}

/// Builds hostile but well-formed calls: right signatures with odd values,
/// wrong signatures, huge strings and arrays, deep variants, odd Unicode,
/// empty and 255-byte names, unknown paths and interfaces; and a share of
/// huge messages, 64 KiB to 4 MiB (`HugeMessages.swift`).
struct CallFuzzer {
    var random: SeededRandom
    let members: [ContractMember]
    /// Paths of live restriction objects, and some that never exist.
    let paths: [ObjectPath]

    static let oddStrings = [
        "", "e\u{301}\u{302}\u{303}", "\u{202E}evil\u{202C}", "مرحبا", "𝄞😀👩‍👩‍👧", "\u{200B}\u{FEFF}",
        "../../etc/passwd", "/usr/bin/../bin/sh", "deny", "allow", "ask", "Zoom", "org.guidedaccess.x",
        String(repeating: "n", count: 255), String(repeating: "é", count: 300), "a\tb\nc", "%s%n%x",
    ]

    mutating func call() throws -> Message {
        if hugeAllowed, Int.random(in: 0..<Self.hugeOneIn, using: &random) == 0 {
            hugeCalls += 1
            return try hugeCall()
        }
        let roll = Int.random(in: 0..<100, using: &random)
        let target = members.randomElement(using: &random)!
        // Mostly the object that has the member, now and then one that has not.
        let owner = target.interface.rawValue.hasSuffix(".Restriction1") ? paths.first! : ObjectPath.guidedAccess
        let path = roll < 85 ? owner : paths.randomElement(using: &random)!
        if roll >= 97 { return try unknownMember(path) }
        guard let signature = target.signature else { return try propertyCall(target, path) }
        let wrong = Int.random(in: 0..<3, using: &random) == 0
        let arguments = wrong ? randomArguments() : try values(for: signature)
        return try Message.methodCall(destination: .guidedAccess, path: path, interface: target.interface,
                                      member: target.member, arguments: arguments)
    }

    private mutating func propertyCall(_ target: ContractMember, _ path: ObjectPath) throws -> Message {
        let arguments: [DBusValue]
        let member: MemberName
        switch Int.random(in: 0..<4, using: &random) {
        case 0: (member, arguments) = ("GetAll", [.string(target.interface.rawValue)])
        case 1: (member, arguments) = ("Set", [.string(target.interface.rawValue), .string(target.member.rawValue),
                                              .variant(anyValue(depth: 0))])
        case 2: (member, arguments) = ("Get", [.string(Self.oddStrings.randomElement(using: &random)!),
                                              .string(target.member.rawValue)])
        default: (member, arguments) = ("Get", [.string(target.interface.rawValue), .string(target.member.rawValue)])
        }
        return try Message.methodCall(destination: .guidedAccess, path: path, interface: .properties, member: member,
                                      arguments: arguments)
    }

    private mutating func unknownMember(_ path: ObjectPath) throws -> Message {
        let interface: InterfaceName = Bool.random(using: &random)
            ? "org.example.Nope" : try InterfaceName(validating: "a." + String(repeating: "b", count: 253))
        let member = try MemberName(validating: Bool.random(using: &random) ? "X" : String(repeating: "M", count: 255))
        return try Message.methodCall(destination: .guidedAccess, path: path, interface: interface, member: member,
                                      arguments: randomArguments())
    }

    private mutating func randomArguments() -> [DBusValue] {
        (0..<Int.random(in: 0...4, using: &random)).map { _ in anyValue(depth: 0) }
    }

    /// Values of `signature`'s types, chosen to hurt.
    mutating func values(for signature: String) throws -> [DBusValue] {
        var rest = Substring(signature)
        var result: [DBusValue] = []
        while !rest.isEmpty { result.append(try value(parsing: &rest)) }
        return result
    }

    private mutating func value(parsing rest: inout Substring) throws -> DBusValue {
        let code = rest.removeFirst()
        switch code {
        case "s": return .string(string())
        case "o": return .objectPath(paths.randomElement(using: &random)!)
        case "b": return .bool(Bool.random(using: &random))
        case "u": return .uint32([0, 1, UInt32.max, UInt32.random(in: 0...UInt32.max, using: &random)].randomElement(using: &random)!)
        case "t": return .uint64([0, 1, UInt64.max, UInt64(Int64.max)].randomElement(using: &random)!)
        case "i": return .int32([0, -1, Int32.min, Int32.max].randomElement(using: &random)!)
        case "x": return .int64([0, -1, Int64.min, Int64.max].randomElement(using: &random)!)
        case "d": return .double([0, -1, .nan, .infinity, 1e308].randomElement(using: &random)!)
        case "y": return .byte(UInt8.random(in: 0...255, using: &random))
        case "v": return .variant(anyValue(depth: 0))
        case "(":
            var fields: [DBusValue] = []
            while rest.first != ")" { fields.append(try value(parsing: &rest)) }
            rest.removeFirst()
            return .structure(fields)
        case "a" where rest.first == "{":
            rest.removeFirst()
            let keyStart = rest
            let key = try value(parsing: &rest)
            let keySignature = try Signature(validating: String(keyStart.prefix(keyStart.count - rest.count)))
            let valueStart = rest
            let first = try value(parsing: &rest)
            let valueSignature = try Signature(validating: String(valueStart.prefix(valueStart.count - rest.count)))
            rest.removeFirst()  // "}"
            var entries = [DBusValue.DictionaryEntry(key: key, value: first)]
            let wasHuge = inHugeArray
            defer { inHugeArray = wasHuge }
            for _ in 0..<count() {
                var again = Substring(keySignature.rawValue), againValue = Substring(valueSignature.rawValue)
                entries.append(.init(key: try value(parsing: &again), value: try value(parsing: &againValue)))
            }
            return .dictionary(key: keySignature, value: valueSignature, entries)
        case "a":
            let elementStart = rest
            _ = try value(parsing: &rest)
            let element = try Signature(validating: String(elementStart.prefix(elementStart.count - rest.count)))
            var elements: [DBusValue] = []
            let wasHuge = inHugeArray
            defer { inHugeArray = wasHuge }
            for _ in 0..<count() {
                var again = Substring(element.rawValue)
                elements.append(try value(parsing: &again))
            }
            return .array(element: element, elements)
        default:
            throw DaemonFixture.Failure("the contract uses type \(code), which the fuzzer does not generate")
        }
    }

    /// Mostly few elements; now and then 100,000 (whose elements are small).
    private mutating func count() -> Int {
        guard !inHugeArray, Int.random(in: 0..<400, using: &random) == 0 else { return Int.random(in: 0...3, using: &random) }
        inHugeArray = true
        return 100_000
    }

    /// Set while the elements of a 100,000-element container are built.
    var inHugeArray = false
    /// How many of the calls built so far were huge messages.
    var hugeCalls = 0
    /// Whether huge messages are mixed in: not in the warm-up, so "before"
    /// is the daemon at work on ordinary calls, not already swollen by huge ones.
    var hugeAllowed = false

    /// A 1 MB string now and then, but only short ones among 100,000
    /// elements: a message over the bus's size limit gets the fuzzer
    /// disconnected, which tests the bus, not the daemon.
    private mutating func string() -> String {
        if inHugeArray { return Self.oddStrings[Int.random(in: 0..<6, using: &random)] }
        switch Int.random(in: 0..<500, using: &random) {
        case 0: return String(repeating: "x", count: 1 << 20)
        case 1..<250: return Self.oddStrings.randomElement(using: &random)!
        default: return "org.stress.fuzz.r\(Int.random(in: 0..<64, using: &random))"
        }
    }

    /// Any type at all, variants nested up to 30 deep.
    private mutating func anyValue(depth: Int) -> DBusValue {
        switch Int.random(in: 0..<10, using: &random) {
        case 0 where depth < 30: return .variant(anyValue(depth: depth + 1))
        case 1:
            let wasHuge = inHugeArray
            defer { inHugeArray = wasHuge }
            return .array(element: "s", (0..<count()).map { _ in .string(string()) })
        case 2:
            let huge = !inHugeArray && Int.random(in: 0..<20, using: &random) == 0
            return .array(element: "i", Array(repeating: .int32(7), count: huge ? 100_000 : 3))
        case 3: return .dictionary(key: "s", value: "v", [.init(key: .string(string()), value: .variant(.bool(true)))])
        case 4: return .structure([.string(string()), .uint32(1), .double(.nan)])
        case 5: return .objectPath(paths.randomElement(using: &random)!)
        case 6: return .uint64(UInt64.max)
        case 7: return .bool(false)
        default: return .string(string())
        }
    }
}

/// Fuzz: `count` hostile calls from four connections, 16 in flight each,
/// one in 40 of them a huge message. Every call must get a reply or a
/// named error; the daemon must live, and its RSS after a settle be at most
/// 1.2× what it was before (issue 29).
func fuzzCase(_ context: StressContext) async throws -> CaseResult {
    let stage = try await Stage.start("fuzz", daemon: context.daemon,
                                      Stage.Options(passcodeCost: 1))
    defer { Task { await stage.stop() } }
    let owner = try stage.proxy()
    let registered: [ObjectPath] = try await owner.call(Contract.Restrictions.register, (0..<8).map {
        RestrictionEntry(identifier: "org.stress.fuzz.r\($0)", text: "Fuzzed \($0)", detail: "")
    })
    let paths = registered + ["/", "/org/guidedaccess/GuidedAccess1/restrictions/nope", "/org/example/Unknown"]
    let members = try ContractMember.load(from: Project.root.appendingPathComponent("dbus"))
    var fuzzer = CallFuzzer(random: SeededRandom(seed: context.seed), members: members, paths: paths)
    let connections = try (0..<4).map { _ in try stage.connect() }
    func fuzz(_ count: Int) async throws -> CallOutcome { try await fuzzer.sendCalls(count, over: connections) }
    // Warm up first, so "before" is the daemon at work, not fresh.
    fuzzer.hugeAllowed = false
    _ = try await fuzz(500)
    fuzzer.hugeAllowed = true
    let warmUpHuge = fuzzer.hugeCalls
    let before = await settledFootprint(stage)
    let (outcome, peak) = try await sampledPeak(of: stage) { try await fuzz(context.scale.fuzzCalls) }
    let after = await settledFootprint(stage)
    let alive = await stage.daemonServes()
    let named = outcome.errors.filter { !$0.key.hasPrefix("(") && ![ErrorName.noReply.rawValue, ErrorName.disconnected.rawValue].contains($0.key) }
    let calls = context.scale.fuzzCalls
    let answered = outcome.replies + named.values.reduce(0, +)
    let topErrors = named.sorted { $0.value > $1.value }.prefix(4)
        .map { "\($0.key.split(separator: ".").last!) \($0.value)" }.joined(separator: ", ")
    let unanswered = outcome.errors.filter { named[$0.key] == nil }
        .map { "\($0.key.prefix(120)) ×\($0.value)" }.joined(separator: "; ")
    let memory = String(format: "RSS %.1f → peak %.1f → %.1f MB after a settle (anonymous %.1f → %.1f → %.1f; threads %d → %d)",
                        before.rss, peak.rss, after.rss, before.anonymous, peak.anonymous, after.anonymous,
                        before.threads, after.threads)
    return CaseResult(
        counts: "\(calls) calls (seed \(context.seed)), \(fuzzer.hugeCalls - warmUpHuge) of them huge (64 KiB to 4 MiB), \(members.count) members",
        figures: "\(outcome.replies) replies, \(named.values.reduce(0, +)) errors (\(topErrors)); "
            + "unanswered \(calls - answered)\(unanswered.isEmpty ? "" : " (\(unanswered))"); " + memory,
        passed: alive && answered == calls && after.rss <= 1.2 * before.rss)
}

extension CallFuzzer {
    /// Sends `count` fuzzed calls over `connections`, in batches of 1,000
    /// built as they go (a built call holds its values twice).
    mutating func sendCalls(_ count: Int, over connections: [Connection]) async throws -> CallOutcome {
        var outcome = CallOutcome()
        for start in stride(from: 0, to: count, by: 1_000) {
            let batch = try (start..<min(count, start + 1_000)).map { _ in try call() }
            outcome.add(await send(batch, over: connections))
        }
        return outcome
    }
}

/// Runs `work` while sampling the daemon's footprint every 100 ms, and
/// returns its result with the highest RSS and anonymous RSS seen.
func sampledPeak<T: Sendable>(of stage: Stage, _ work: () async throws -> T) async throws -> (T, (rss: Double, anonymous: Double)) {
    let sampler = Task {
        var peak = (rss: 0.0, anonymous: 0.0)
        while !Task.isCancelled {
            let now = stage.footprint()
            peak = (max(peak.rss, now.rss), max(peak.anonymous, now.anonymous))
            try? await Task.sleep(for: .milliseconds(100))
        }
        return peak
    }
    defer { sampler.cancel() }
    let result = try await work()
    sampler.cancel()
    return (result, await sampler.value)
}

/// The counts of a batch of calls: replies, and errors by name.
struct CallOutcome {
    var replies = 0
    var errors: [String: Int] = [:]
    mutating func add(_ other: CallOutcome) {
        replies += other.replies
        errors.merge(other.errors, uniquingKeysWith: +)
    }
}

/// Sends `calls` round-robin over `connections`, at most 16 in flight on each.
func send(_ calls: [Message], over connections: [Connection], timeout: Duration = .seconds(60)) async -> CallOutcome {
    await withTaskGroup(of: CallOutcome.self) { group in
        for (index, connection) in connections.enumerated() {
            let mine = stride(from: index, to: calls.count, by: connections.count).map { calls[$0] }
            group.addTask {
                await withTaskGroup(of: CallOutcome.self) { inner in
                    var outcome = CallOutcome()
                    for (sent, call) in mine.enumerated() {
                        if sent >= 16, let done = await inner.next() { outcome.add(done) }
                        inner.addTask { await outcomeOf(call, on: connection, timeout: timeout) }
                    }
                    for await done in inner { outcome.add(done) }
                    return outcome
                }
            }
        }
        var total = CallOutcome()
        for await outcome in group { total.add(outcome) }
        return total
    }
}

func outcomeOf(_ call: Message, on connection: Connection, timeout: Duration) async -> CallOutcome {
    var outcome = CallOutcome()
    do {
        let reply = try await connection.call(call, timeout: timeout)
        if let name = reply.errorName { outcome.errors[name.rawValue, default: 0] += 1 } else { outcome.replies += 1 }
    } catch let error as DBusError {
        outcome.errors[error.name.rawValue, default: 0] += 1
    } catch {
        outcome.errors["(not a D-Bus error) \(error)", default: 0] += 1
    }
    return outcome
}

/// The daemon's footprint once it has released what it freed: after 1.5 s
/// (the daemon gives freed heap back 1 s after a burst of frees), and then
/// once its RSS stops falling, within 5 s more. A busy host can delay the
/// release; a leak never falls, so waiting for it hides nothing.
func settledFootprint(_ stage: Stage) async -> Footprint {
    try? await Task.sleep(for: .milliseconds(1_500))
    var latest = stage.footprint()
    for _ in 0..<10 {
        try? await Task.sleep(for: .milliseconds(500))
        let next = stage.footprint()
        let falling = next.rss < latest.rss - 0.05
        latest = next
        if !falling { break }
    }
    return latest
}
