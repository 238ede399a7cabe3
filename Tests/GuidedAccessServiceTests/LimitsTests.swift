import DBusKit
import DBusTesting
import Foundation
import Testing

/// What one app or one sender can make the daemon hold or do, seen from
/// independent clients (dbus-python).
@Suite("Limits", .timeLimit(.minutes(2)))
struct LimitsTests {
    @Test("PerApp from managed.json: one app's connections together get exactly the cap; one more is QuotaExceeded, nothing half-registered",
          .enabled(if: Requirements.canRunDaemon, Requirements.daemonReason))
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
            #expect(refusal.first == GA.error("QuotaExceeded"))
            #expect(refusal.last?.contains("would hold 302 live restrictions; the limit is 300 (PerApp") == true, "\(refusal)")
            #expect(result["count"] as? Int == 300)
        }
    }

    @Test("NO_REPLY_EXPECTED calls get no reply of any kind; past 32 calls in flight a sender gets RateLimited while others are served",
          .enabled(if: Requirements.canRunDaemon, Requirements.daemonReason))
    func senderFairness() async throws {
        try await withHarness { h in
            let result = try await h.python("""
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
                # Now 120 at once that want replies (under the bus's own 128 pending per
                # connection): past 32 in flight the daemon refuses them as busy.
                outcomes = {}
                def ok(*_): outcomes["ok"] = outcomes.get("ok", 0) + 1
                def failed(e): outcomes[e.get_dbus_name()] = outcomes.get(e.get_dbus_name(), 0) + 1
                proxy = iface(bus, RESTRICTIONS)
                for i in range(120):
                    proxy.GetState("com.example.busy", reply_handler=ok, error_handler=failed)
                other = connect()
                state = plain(iface(other, PROPS).Get(SESSION, "State"))
                GLib.timeout_add(3000, loop.quit)
                loop.run()
                done(silent=silent, outcomes=outcomes, state=state)
                """, timeout: .seconds(60))
            let silent = result["silent"] as? [String: Int] ?? [:]
            #expect(silent == ["return": 0, "error": 0], "replies to calls that asked for none: \(result.raw)")
            let outcomes = result["outcomes"] as? [String: Int] ?? [:]
            #expect((outcomes["ok"] ?? 0) > 0 && (outcomes[GA.error("RateLimited")] ?? 0) > 0, "\(outcomes)")
            #expect(outcomes.values.reduce(0, +) == 120 && outcomes.count == 2, "every call answered, ok or RateLimited: \(result.raw)")
            #expect(result.string("state") == "inactive")
        }
    }
}
