// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract

/// Second instance, lost name: a second daemon on the same bus must exit 1
/// with a message naming the owner; a `NameLost` forged by another client
/// must change nothing; a daemon whose bus goes away must exit non-zero,
/// so it never lingers as a stale owner.
///
/// The bus driver itself never takes the name away here: the daemon
/// requests it without `ALLOW_REPLACEMENT`, so only a disconnection ends
/// its ownership.
func nameOwnershipCase(_ context: StressContext) async throws -> CaseResult {
    let stage = try await Stage.start("names", daemon: context.daemon)
    defer { Task { await stage.stop() } }
    let argv = stage.fixture.commandLine().argv
    let second = try await ProcessRunner.run(argv, environment: stage.fixture.options.environment, timeout: .seconds(20))
    let firstOwner = try await stage.connect().owner(of: .guidedAccess)
    let namesOwner = second.stderr.contains(firstOwner?.rawValue ?? "?")

    // A NameLost from a client, addressed to the daemon, as the bus would send it.
    let daemonName = firstOwner?.rawValue ?? ""
    try await ProcessRunner.runSucceeding(["/usr/bin/python3", "-c", """
        import sys, dbus
        from dbus.lowlevel import SignalMessage
        bus = dbus.bus.BusConnection(sys.argv[1])
        m = SignalMessage("/org/freedesktop/DBus", "org.freedesktop.DBus", "NameLost")
        m.set_destination(sys.argv[2])
        m.append(sys.argv[3], signature="s")
        bus.send_message(m)
        bus.flush()
        """, stage.fixture.address, daemonName, GuidedAccessBus.name])
    try await Task.sleep(for: .milliseconds(500))
    let servesAfterForgery = await stage.daemonServes()

    // The bus goes away under a daemon of its own.
    let bus = try PrivateBus.startSession()
    defer { bus.stop() }
    let lonely = stage.fixture.commandLine(address: bus.address).argv
    let lonelyRun = Task {
        try await ProcessRunner.run(lonely, environment: stage.fixture.options.environment, timeout: .seconds(30))
    }
    let watcher = try Connection(.address(bus.address))
    for _ in 0..<500 where try await watcher.owner(of: .guidedAccess) == nil {
        try await Task.sleep(for: .milliseconds(20))
    }
    watcher.close()
    let killed = ContinuousClock.now
    kill(bus.pid, SIGKILL)
    let ending = try await lonelyRun.value
    let exitedAfter = (ContinuousClock.now - killed).milliseconds
    let lastLine = ending.stderr.split(separator: "\n").last.map(String.init) ?? ""
    return CaseResult(
        counts: "1 second instance, 1 forged NameLost, 1 bus killed under a daemon",
        figures: "second instance exited \(second.status)\(namesOwner ? ", naming the owner" : ", WITHOUT naming the owner"); "
            + "after a forged NameLost the daemon \(servesAfterForgery ? "still serves" : "STOPPED"); "
            + "bus killed: daemon exited \(ending.status) after \(Int(exitedAfter)) ms (\(lastLine))",
        passed: second.status == 1 && namesOwner && servesAfterForgery && ending.status != 0)
}
