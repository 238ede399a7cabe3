// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessTesting
import Testing

/// What one app or one sender can make the daemon hold or do, seen from
/// independent clients (dbus-python).
@Suite("Limits", .timeLimit(.minutes(2)))
struct LimitsTests {
    @Test("PerApp from managed.json: one app's connections together get exactly the cap; one more is QuotaExceeded, nothing half-registered",
          .enabled(if: Requirements.canRunDaemon, .daemonReason))
    func perAppCap() async throws {
        try await withHarness(.init(limits: ["PerApp": 300])) { h in
            let result = try await h.python("""
                def batch(prefix, n):
                    return dbus.Array([("com.example.%s.r%d" % (prefix, i), "Thing %d" % i, "") for i in range(n)], signature="(sss)")
                first, second, third = connect(), connect(), connect()
                a = attempt(iface(first, RESTRICTIONS).Register, batch("a", 256))
                b = attempt(iface(second, RESTRICTIONS).Register, batch("b", 44))
                try:
                    iface(third, RESTRICTIONS).Register(batch("c", 2))
                    c = ["ok", ""]
                except dbus.exceptions.DBusException as e:
                    c = [e.get_dbus_name(), e.get_dbus_message()]
                rows = iface(third, RESTRICTIONS).List()
                done(a=a[0], b=b[0], c=c, count=len(rows))
                """)
            #expect(result.string("a") == "ok" && result.string("b") == "ok", "\(result.raw)")
            let refusal = result["c"] as? [String] ?? []
            #expect(refusal.first == ServiceErrorName.quotaExceeded.rawValue)
            #expect(refusal.last?.contains("would hold 302 live restrictions; the limit is 300 (PerApp") == true, "\(refusal)")
            #expect(result["count"] as? Int == 300)
        }
    }

    @Test("The largest Register the limits allow (256 entries of the longest identifier and texts, 2 MB) is served; a call of 3 MB is LimitsExceeded before it is read",
          .enabled(if: Requirements.canRunDaemon, .daemonReason))
    func messageSizeCap() async throws {
        try await withHarness { h in
            let result = try await h.python("""
                def entry(i):
                    identifier = "com.example." + "e" * 236 + ".r%05d" % i
                    return (identifier, "t" * 3999, "d" * 3999)
                largest = dbus.Array([entry(i) for i in range(256)], signature="(sss)")
                a = attempt(iface(connect(), RESTRICTIONS).Register, largest)
                b = outcome(iface(connect(), RESTRICTIONS).Register,
                            dbus.Array([("com.example.big.r%d" % i, "x" * 3000000, "") for i in range(1)], signature="(sss)"))
                done(a=a[0], b=b, identifier=len(entry(0)[0]))
                """)
            #expect(result["identifier"] as? Int == 255)
            #expect(result.string("a") == "ok", "\(result.raw)")
            let refusal = result["b"] as? [String] ?? []
            #expect(refusal.first == "org.freedesktop.DBus.Error.LimitsExceeded", "\(refusal)")
            #expect(refusal.last?.contains("is more than any method of this service takes") == true, "\(refusal)")
        }
    }

    @Test("NO_REPLY_EXPECTED calls get no reply of any kind; past 32 calls in flight a sender gets RateLimited, never for a read answered on the loop, while others are served",
          .enabled(if: Requirements.canRunDaemon, .daemonReason))
    func senderFairness() async throws {
        try await withHarness { h in
            let result = try await h.python("""
                import signal
                from gi.repository import GLib
                bus = connect(mainloop=True)
                counts = {"return": 0, "error": 0}
                def count(_bus, message):
                    kind = message.get_type()
                    if kind == 2: counts["return"] += 1
                    if kind == 3: counts["error"] += 1
                bus.add_message_filter(count)
                def call(member, *args, no_reply=False, interface=RESTRICTIONS):
                    m = dbus.lowlevel.MethodCallMessage(NAME, PATH, interface, member)
                    if args: m.append(*args, signature="s" * len(args))
                    m.set_no_reply(no_reply)
                    bus.send_message(m)
                # Valid calls, a method that does not exist and a wrong signature: all flagged, none answered.
                for i in range(3000):
                    call("GetState", "com.example.silent", no_reply=True)
                    call("NoSuchMethod", no_reply=True)
                    call("GetState", "com.example.a", "extra", no_reply=True)
                    call("Get", SESSION, "State", no_reply=True, interface=PROPS)
                loop = GLib.MainLoop()
                GLib.timeout_add(1500, loop.quit)
                loop.run()
                silent = dict(counts)
                # Now 120 calls at once that want replies and run in a task of
                # their own (GetAppIds reads /proc), and 40 reads answered on the
                # daemon's loop (GetState), from a connection the daemon has not
                # met. The daemon is stopped while they are sent, so all are queued
                # when it reads the first: they wait together for its credentials,
                # then all start at once. Past 32 in flight the daemon refuses the
                # tasks as busy; the reads take no slot and are all answered.
                # When the credentials' answer comes back between two of the
                # daemon's reads (seen under ThreadSanitizer), the tasks start as
                # they are read and finish as fast, so none is refused: a flood
                # from a new connection is sent again, up to 5 floods in all.
                daemon, rate_limited = int(sys.argv[1]), sys.argv[2]
                for flood_number in range(1, 6):
                    outcomes = {"GetAppIds": {}, "GetState": {}}
                    def outcome(method):
                        def tally(key): outcomes[method][key] = outcomes[method].get(key, 0) + 1
                        return (lambda *_: tally("ok")), (lambda e: tally(e.get_dbus_name()))
                    flood = connect()
                    session, restrictions = iface(flood, SESSION), iface(flood, RESTRICTIONS)
                    os.kill(daemon, signal.SIGSTOP)
                    try:
                        for i in range(160):
                            if i % 4 == 3:
                                ok, failed = outcome("GetState")
                                restrictions.GetState("com.example.busy", reply_handler=ok, error_handler=failed)
                            else:
                                ok, failed = outcome("GetAppIds")
                                session.GetAppIds(dbus.UInt32(os.getpid()), reply_handler=ok, error_handler=failed)
                        flood.flush()
                    finally:
                        os.kill(daemon, signal.SIGCONT)
                    GLib.timeout_add(3000, loop.quit)
                    loop.run()
                    if outcomes["GetAppIds"].get(rate_limited):
                        break
                other = connect()
                state = plain(iface(other, PROPS).Get(SESSION, "State"))
                done(silent=silent, outcomes=outcomes, floods=flood_number, state=state)
                """, [String(try #require(h.daemonPID)), ServiceErrorName.rateLimited.rawValue], timeout: .seconds(60))
            let silent = result["silent"] as? [String: Int] ?? [:]
            #expect(silent == ["return": 0, "error": 0], "replies to calls that asked for none: \(result.raw)")
            let outcomes = result["outcomes"] as? [String: [String: Int]] ?? [:]
            let tasks = outcomes["GetAppIds"] ?? [:], reads = outcomes["GetState"] ?? [:]
            #expect((tasks["ok"] ?? 0) > 0 && (tasks[ServiceErrorName.rateLimited.rawValue] ?? 0) > 0,
                    "\(outcomes), the last of \(result["floods"] ?? "?") floods")
            #expect(tasks.values.reduce(0, +) == 120 && tasks.count == 2, "every call answered, ok or RateLimited: \(result.raw)")
            #expect(reads == ["ok": 40], "reads answered on the loop are never refused as busy: \(result.raw)")
            #expect(result.string("state") == "inactive")
        }
    }

    @Test("a stopped polkitd: 64 checks run, 256 wait, the rest are told polkit is busy; every call ends within the timeout; reads go on",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func hungPolkit() async throws {
        try await withHarness(.init(polkit: .real(), polkitTimeout: 3)) { h in
            let polkit = try #require(h.polkit)
            polkit.pause()
            // 12 connections × 30 Start calls: each under the per-sender cap, 360 checks in all.
            let result = try await h.python("""
                from gi.repository import GLib
                import time
                connections = [connect(mainloop=True) for _ in range(12)]
                outcomes, slowest, started = {}, [0.0], time.time()
                def finished(name, message=""):
                    key = name + (" (service busy)" if "authorization service is busy" in message else "")
                    outcomes[key] = outcomes.get(key, 0) + 1
                    slowest[0] = max(slowest[0], time.time() - started)
                for bus in connections:
                    s = iface(bus, SESSION)
                    for i in range(30):
                        s.Start("org.example.Kiosk", dbus.Dictionary({}, signature="sv"), timeout=60,
                                reply_handler=lambda: finished("ok"),
                                error_handler=lambda e: finished(e.get_dbus_name(), e.get_dbus_message()))
                reader = connect()
                reads = []
                for i in range(20):
                    t = time.time()
                    iface(reader, PROPS).Get(SESSION, "State")
                    reads.append(time.time() - t)
                    time.sleep(0.05)
                loop = GLib.MainLoop()
                def check():
                    if sum(outcomes.values()) == 360 or time.time() - started > 30: loop.quit(); return False
                    return True
                GLib.timeout_add(50, check)
                loop.run()
                done(outcomes=outcomes, slowest=slowest[0], slowest_read=max(reads))
                """, timeout: .seconds(60))
            polkit.resume()
            let outcomes = result["outcomes"] as? [String: Int] ?? [:]
            print("hung polkit: \(outcomes), slowest call \(result["slowest"] ?? 0) s, slowest read \(result["slowest_read"] ?? 0) s")
            #expect(outcomes[ServiceErrorName.rateLimited.rawValue + " (service busy)"] == 360 - 64 - 256, "\(result.raw)")
            #expect(outcomes[ServiceErrorName.permissionDenied.rawValue] == 64 + 256, "\(result.raw)")
            #expect((result["slowest"] as? Double ?? 99) < 3 + 2, "every call ends within the polkit timeout")
            #expect(result["slowest_read"] is Double, "reads were answered while polkit hung")
            #expect(try await h.connect().state() == "inactive", "nothing half-applied")
            // polkitd answers again: the next Start works.
            #expect(try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", "{}"]).ok)
        }
    }
}
