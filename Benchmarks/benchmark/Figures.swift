// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessTesting
import Locking

struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
}

/// Milliseconds from calling `start` until a watcher sees `name` get an
/// owner: for a process, exec to name owned.
func millisecondsToOwner(_ name: BusName, on desktop: Desktop, start: () async throws -> Void) async throws -> Double {
    let watcher = try desktop.connect()
    defer { watcher.close() }
    let changes = try await watcher.signals(MatchRule(interface: .bus, member: "NameOwnerChanged", arg0: name.rawValue))
    let owned = Task { () -> ContinuousClock.Instant? in
        for await message in changes {
            if case .string(let owner)? = message.arguments.last, !owner.isEmpty { return .now }
        }
        return nil
    }
    let began = ContinuousClock.now
    try await start()
    // A process that dies before owning its name must not hang the run.
    let deadline = Task { try await Task.sleep(for: .seconds(10)); owned.cancel() }
    defer { deadline.cancel() }
    guard let at = await owned.value else { throw BenchmarkFailure(description: "\(name) got no owner within 10 s") }
    return (at - began).milliseconds
}

/// Returns once `name` has an owner (30 s at most).
func waitForOwner(_ name: BusName, _ client: Connection) async throws {
    for _ in 0..<600 {
        if try await client.owner(of: name) != nil { return }
        try await Task.sleep(for: .milliseconds(50))
    }
    throw BenchmarkFailure(description: "\(name) did not appear on the bus")
}

/// Properties.Get round trips per second with `depth` calls in flight for `seconds`.
func getsPerSecond(_ client: Connection, _ destination: BusName, _ path: ObjectPath, _ property: (String, String),
                   depth: Int, seconds: Double) async throws -> Double {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    let start = ContinuousClock.now
    let total = try await withThrowingTaskGroup(of: Int.self) { group in
        for _ in 0..<depth {
            group.addTask {
                var count = 0
                while ContinuousClock.now < deadline {
                    _ = try await client.call(try Message.methodCall(
                        destination: destination, path: path, interface: .properties, member: "Get",
                        arguments: [.string(property.0), .string(property.1)]))
                    count += 1
                }
                return count
            }
        }
        return try await group.reduce(0, +)
    }
    return Double(total) / ((ContinuousClock.now - start).milliseconds / 1000)
}

/// Milliseconds to replace a `size`-byte file in `directory` durably, the way
/// the daemon saves state.json: temporary file, fsync, rename, fsync of the directory.
func durableReplace(size: Int, in directory: String) -> Double {
    let bytes = [UInt8](repeating: UInt8(ascii: "x"), count: size)
    let target = directory + "/reference.json", temporary = target + ".tmp"
    let start = ContinuousClock.now
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    _ = write(fd, bytes, bytes.count)
    fsync(fd)
    close(fd)
    rename(temporary, target)
    let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    fsync(directoryFD)
    close(directoryFD)
    return (ContinuousClock.now - start).milliseconds
}

/// This process as polkit's `unix-process` subject: pid, start time, uid.
func processSubject() throws -> DBusValue {
    let stat = try String(contentsOfFile: "/proc/self/stat", encoding: .utf8)
    let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
    return .structure([.string("unix-process"), .dictionary(key: "s", value: "v", [
        .init(key: .string("pid"), value: .variant(.uint32(UInt32(getpid())))),
        .init(key: .string("start-time"), value: .variant(.uint64(UInt64(fields[19]) ?? 0))),  // field 22
        .init(key: .string("uid"), value: .variant(.int32(Int32(bitPattern: getuid())))),
    ])])
}

/// Milliseconds polkitd takes to answer CheckAuthorization of `action` for
/// `subject`, asked as guided-accessd asks it, on the system bus `connection`.
func polkitCheck(_ action: String, for subject: DBusValue, on connection: Connection) async throws -> Double {
    try await Measuring.milliseconds {
        let reply = try await connection.call(
            "org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority", "org.freedesktop.PolicyKit1.Authority",
            "CheckAuthorization", [subject, .string(action), .dictionary(key: "s", value: "s", []), .uint32(0), .string("")])
        guard case .structure(let result)? = reply.first, case .bool(true)? = result.first else {
            throw BenchmarkFailure(description: "polkit refused \(action) to the benchmark: \(reply)")
        }
    }
}

/// Counts signal arrivals across many subscriber connections.
final class Arrivals: Sendable {
    private let state = Locked<(count: Int, last: ContinuousClock.Instant)>((0, .now))
    func arrived() { state.withLock { $0 = ($0.count + 1, .now) } }
    func reset() { state.withLock { $0 = (0, .now) } }
    /// Milliseconds from `start` to the `expected`-th arrival (10 s at most).
    func wait(for expected: Int, since start: ContinuousClock.Instant) async throws -> Double {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let (count, last) = state.withLock { $0 }
            if count >= expected { return (last - start).milliseconds }
            try await Task.sleep(for: .microseconds(200))
        }
        throw BenchmarkFailure(description: "only \(state.withLock { $0.count }) of \(expected) subscribers got the signal")
    }
}

/// `subscribers` connections, each counting the signals of every rule into its `Arrivals`.
func subscribe(_ count: Int, on desktop: Desktop, to rules: [(MatchRule, Arrivals)]) async throws -> [Connection] {
    var subscribers: [Connection] = []
    for _ in 0..<count {
        let subscriber = try desktop.connect()
        subscribers.append(subscriber)
        for (rule, arrivals) in rules {
            let stream = try await subscriber.signals(rule)
            Task.detached { for await _ in stream { arrivals.arrived() } }
        }
    }
    return subscribers
}

/// Registers `perConnection` restrictions from each of `connections` new
/// connections; returns the daemon's RSS with all of them live, then closes
/// the connections and returns once the daemon lists none registered.
func registerAndLeave(_ connections: Int, perConnection: Int, on desktop: Desktop) async throws -> Double {
    var apps: [Connection] = []
    for index in 0..<connections {
        let app = try desktop.connect()
        apps.append(app)
        let proxy = Proxy(app, destination: .guidedAccess, path: .guidedAccess)
        for batch in stride(from: 0, to: perConnection, by: 10) {
            _ = try await proxy.call(Contract.Restrictions.register, (batch..<min(perConnection, batch + 10)).map {
                RestrictionEntry(identifier: "org.example.load\(index).r\($0)", text: "Load \(index).\($0)", detail: "")
            })
        }
    }
    let live = desktop.daemonRSS()
    for app in apps { app.close() }
    let observer = try desktop.connect()
    defer { observer.close() }
    let proxy = Proxy(observer, destination: .guidedAccess, path: .guidedAccess, timeout: .seconds(60))
    for _ in 0..<600 {
        if try await !proxy.call(Contract.Restrictions.list).contains(where: \.registered) { return live }
        try await Task.sleep(for: .milliseconds(50))
    }
    throw BenchmarkFailure(description: "registrations were still live 30 s after their connections closed")
}

/// Size in MB of `path` once stripped of symbols, as a package ships it.
func strippedMegabytes(_ path: String) async throws -> Double {
    let stripped = NSTemporaryDirectory() + "/ga-bench-stripped-\(getpid())"
    defer { unlink(stripped) }
    _ = try await ProcessRunner.runSucceeding(["strip", "-o", stripped, path])
    return fileMegabytes(stripped)
}

/// How many functions of `scripts/hot-functions.order` the release link
/// found in `daemon`, as `scripts/check-function-order` counts them (and
/// judges them: its minimum is the target). A stale list costs idle RSS
/// without a word from the link.
func functionOrderRow(daemon: String) async throws -> Row {
    let script = Project.root.appendingPathComponent("scripts/check-function-order").path
    let result = try await ProcessRunner.run([script, "--counts", daemon])
    let numbers = result.stdout.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
    guard numbers.count == 3, numbers[1] > 0 else {
        throw BenchmarkFailure(description: "scripts/check-function-order could not count: \(result.stderr)")
    }
    let (resolved, total, minimum) = (numbers[0], numbers[1], numbers[2])
    return Row(figure: "hot-functions.order resolved", ours: "\(resolved) of \(total)",
               reference: "scripts/order-functions writes it",
               target: String(format: "≥ %d %% (%.1f %%)", minimum, Double(resolved) / Double(total) * 100),
               met: result.status == 0)
}

/// Size of the file at `path` in MB; 0 when there is none.
func fileMegabytes(_ path: String) -> Double {
    Double(fileBytes(path)) / 1_048_576
}

func fileBytes(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : 0
}

/// Drops the clean, unmapped pages of these files from the page cache, so
/// each program starts from its file as read from disk, as after an install
/// or a reboot. A binary the linker has just written sits in the cache in
/// the large blocks it was written in, and mapping its code then makes more
/// of it resident (0.7 MB more for the daemon) than the same file read back.
func dropFromPageCache(_ paths: [String]) {
    for path in paths {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { continue }
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
        close(fd)
    }
}
