// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessTesting
import Testing
import Locking

/// How the daemon behaves when polkit is missing, hung, or outlived by its caller.
@Suite("polkit failure modes", .timeLimit(.minutes(2)))
struct PolkitTests {
    @Test("No polkit reachable means deny: Start and other admin calls get PermissionDenied; reads keep working",
          .enabled(if: Requirements.canRunDaemon, .daemonReason),
          arguments: ["nonexistent socket", "system bus without polkitd"])
    func polkitAbsent(_ kind: String) async throws {
        let polkit: Harness.Polkit = kind == "nonexistent socket" ? .absent : .busWithoutPolkit
        try await withHarness(.init(polkit: polkit)) { h in
            let start = try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", "{}"])
            #expect(start.errorName == ServiceErrorName.permissionDenied.rawValue, "\(start)")
            let python = try await h.python("""
                bus = connect()
                s = iface(bus, SESSION)
                done(start=attempt(s.Start, "org.example.Kiosk", dbus.Dictionary({}, signature="sv")),
                     passcode=attempt(s.SetPasscode, "1234"),
                     feature=attempt(iface(bus, FEATURES).SetFeature, "Zoom", True),
                     state=attempt(iface(bus, RESTRICTIONS).SetState, "com.example.app.x", "deny"),
                     request=attempt(s.RequestSession, True, dbus.Dictionary({}, signature="sv")),
                     current=str(iface(bus, PROPS).Get(SESSION, "State")))
                """)
            #expect(python["start"] as? [String] == ["error", ServiceErrorName.permissionDenied.rawValue], "\(python.raw)")
            #expect(python["passcode"] as? [String] == ["error", ServiceErrorName.permissionDenied.rawValue])
            #expect(python["feature"] as? [String] == ["error", ServiceErrorName.permissionDenied.rawValue])
            #expect(python["state"] as? [String] == ["error", ServiceErrorName.permissionDenied.rawValue])
            #expect(python["request"] as? [Any] != nil && (python["request"] as? [Any])?.last as? Bool == false)
            #expect(python.string("current") == "inactive")
            #expect(try await h.busctl(getProperty(.session, "Enabled")).output == "b false")
            #expect(try await h.busctl(getProperty(.features, "Zoom")).output == "b false")
            #expect(h.auditRecords().contains { $0["action"] as? String == "start-session" && $0["result"] as? String == "denied" })
        }
    }

    @Test("Hung polkit: other calls are answered while a Start waits; the Start fails with PermissionDenied after --polkit-timeout",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func polkitHung() async throws {
        try await withHarness(.init(polkit: .real(), polkitTimeout: 2)) { h in
            let polkit = try #require(h.polkit)
            let client = try h.connect()
            let reader = try h.connect()
            polkit.pause()
            defer { polkit.resume() }
            let finished = Flag()
            let clock = ContinuousClock()
            let sent = clock.now
            let start = Task {
                defer { finished.set() }
                return await client.gaError(.session, "Start", [.string("org.example.Kiosk"), options([:])])
            }
            try await Task.sleep(for: .milliseconds(200))
            #expect(!finished.isSet)
            #expect(try await reader.state() == "inactive")
            #expect(try await reader.ga(.restrictions, "GetState", [.string("com.example.app.x")]) == [.string("allow")])
            #expect(try await reader.ga("org.freedesktop.DBus.Peer", "Ping") == [])
            #expect(try await h.busctl(getProperty(.session, "State")).output == #"s "inactive""#)
            #expect(!finished.isSet, "the other calls must be answered while Start still waits for polkit")
            #expect(clock.now - sent < .seconds(2))

            #expect(await start.value == ServiceErrorName.permissionDenied.rawValue)
            let waited = clock.now - sent
            #expect(waited >= .seconds(1.8) && waited < .seconds(10), "waited \(waited)")
            #expect(try await reader.state() == "inactive")

            // polkit is back: the same call succeeds.
            polkit.resume()
            #expect(await client.gaError(.session, "Start", [.string("org.example.Kiosk"), options([:])]) == nil)
            #expect(try await reader.state() == "active")
        }
    }

    @Test("A caller that leaves while its polkit check is pending changes nothing (exit and SIGKILL)",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func callerLeavesWhilePending() async throws {
        let sendAndLeave = """
            bus = connect()
            send_without_waiting(bus, sys.argv[2] if len(sys.argv) > 2 else "Start")
            time.sleep(float(sys.argv[1]))
            done(left=True)
            os._exit(0)
            """
        try await withHarness(.init(polkit: .real(), polkitTimeout: 20)) { h in
            let polkit = try #require(h.polkit)
            let reader = try h.connect()
            polkit.pause()
            defer { polkit.resume() }

            // 1: the client exits on its own after sending Start.
            let exited = try await h.python(sendAndLeave, ["1.0"])
            #expect(exited.bool("left") == true, "\(exited.raw)")
            polkit.resume()
            #expect(await eventually(timeout: .seconds(10)) {
                abandonedStarts(h) == 1
            }, "the daemon should record the abandoned Start as not carried out")
            #expect(try await reader.state() == "inactive")
            #expect(try await reader.enabled() == false)

            // 2: the client is killed (SIGKILL by the runner's timeout) while waiting.
            polkit.pause()
            do {
                _ = try await h.python(sendAndLeave, ["60"], timeout: .seconds(2))
                Issue.record("the client should have been killed")
            } catch let failure as ProcessRunner.Failure {
                guard case .timedOut = failure.reason else { throw failure }
            }
            polkit.resume()
            #expect(await eventually(timeout: .seconds(10)) {
                abandonedStarts(h) == 2
            })
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await reader.state() == "inactive")
            #expect(try await reader.property(.session, "App") == .string(""))

            // 3: RequestSession (root is authorized for request-session) from an app that left meanwhile.
            polkit.pause()
            let requested = try await h.python(sendAndLeave, ["1.0", "RequestSession"])
            #expect(requested.bool("left") == true, "\(requested.raw)")
            polkit.resume()
            #expect(await eventually(timeout: .seconds(10)) {
                h.auditRecords().contains { $0["action"] as? String == "request-session" }
            })
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await reader.state() == "inactive", "a session must not be locked to an app that already left")
            #expect(try await reader.property(.session, "App") == .string(""))
        }
    }

    @Test("A caller that closes its connection while polkit (which still finds the process) thinks: Start and RequestSession change nothing",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func callerClosesConnectionWhilePending() async throws {
        try await withHarness(.init(polkit: .real(), polkitTimeout: 20)) { h in
            let polkit = try #require(h.polkit)
            let reader = try h.connect()
            defer { polkit.resume() }
            // The process lives on but closes its connection, so polkit still finds
            // the subject and says yes (root); the daemon itself must notice the caller left.
            for method in ["Start", "RequestSession"] {
                let marker = h.directory.appendingPathComponent("closed-\(method)")
                polkit.pause()
                let client = Task {
                    try await h.python("""
                        bus = connect()
                        send_without_waiting(bus, sys.argv[1])
                        time.sleep(1.0)
                        name = bus.get_unique_name()
                        bus.close()
                        with open(sys.argv[2], "w") as marker:
                            marker.write(name)
                        time.sleep(2.5)
                        done(closed=True)
                        """, [method, marker.path])
                }
                #expect(await eventually(timeout: .seconds(10)) { ((try? String(contentsOf: marker, encoding: .utf8)) ?? "").hasPrefix(":") })
                // polkit answers only once the bus has dropped the caller and the daemon has
                // heard so (its signals come in order before the reply to a later call).
                let name = try BusName(validating: String(contentsOf: marker, encoding: .utf8))
                #expect(await eventually(timeout: .seconds(10)) { (try? await reader.owner(of: name)) == .some(nil) })
                _ = try await reader.state()
                let audited = h.auditRecords().count
                polkit.resume()
                #expect(await eventually(timeout: .seconds(10)) { h.auditRecords().count > audited }, "\(method)")
                try await Task.sleep(for: .milliseconds(300))
                #expect(try await reader.state() == "inactive", "\(method): nothing may change for a caller that left")
                let last = h.auditRecords().last
                // polkit said yes for the live process; the daemon's own check refused.
                #expect(last?["result"] as? String == "Failed", "\(method): \(String(describing: last))")
                _ = try await client.value
                if try await reader.enabled() {
                    _ = try await reader.ga(.session, "End", [options([:])])
                }
            }
        }
    }
}

/// Start requests that were audited but not carried out (the caller had left:
/// `Failed`, or polkit could no longer find the process: `denied`).
func abandonedStarts(_ h: Harness) -> Int {
    h.auditRecords().filter { $0["action"] as? String == "start-session" && $0["result"] as? String != "allowed" }.count
}

/// A flag set once from any task.
final class Flag: Sendable {
    private let value = Locked(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
