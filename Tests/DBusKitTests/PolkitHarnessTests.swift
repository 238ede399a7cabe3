// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import Testing

/// The test harness can run the real polkitd on a private system bus, and
/// DBusKit can talk to it. Needs root: polkitd reads only system directories.
@Suite(.enabled(if: PolkitTestAuthority.isAvailable, "\(PolkitTestAuthority.skipReason ?? "")"))
struct PolkitHarnessTests {
    @Test func polkitdAnswersOnAPrivateSystemBus() async throws {
        let authority = try await PolkitTestAuthority.start()
        defer { authority.stop() }
        let connection = try Connection(.address(authority.systemBusAddress))
        defer { connection.close() }
        let reply = try await connection.call("org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority", .properties, "Get",
                                              [.string("org.freedesktop.PolicyKit1.Authority"), .string("BackendName")])
        guard case .variant(.string(let backend))? = reply.first else { Issue.record("no backend name in \(reply)"); return }
        #expect(!backend.isEmpty)
    }
}
