// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation
import Testing
@testable import GuidedAccessCore

@Suite("Audit log")
struct AuditLogTests {
    @Test func appendsOneJSONObjectPerLine() throws {
        try withTemporaryDirectory { directory in
            let log = AuditLog(directory: directory)
            let caller = AuditCaller(uid: 1000, pid: 4242, app: "org.example.Admin")
            try log.append(caller: caller, action: AdminAction.startSession.rawValue, target: "org.example.Kiosk",
                           result: .allowed, now: t0)
            try log.append(caller: caller, action: AdminAction.endSession.rawValue, target: "",
                           result: .error(.passcodeBackOff(seconds: 5)), now: at(1))
            let text = try String(contentsOfFile: log.path, encoding: .utf8)
            let lines = text.split(separator: "\n")
            #expect(lines.count == 2)
            #expect(text.hasSuffix("\n"))
            let records = try lines.map { try JSONDecoder().decode(AuditRecord.self, from: Data($0.utf8)) }
            #expect(records[0].caller == caller)
            #expect(records[0].action == "org.guidedaccess.start-session")
            #expect(records[0].result == "allowed")
            #expect(records[1].result == "RateLimited")
            #expect(records[0].time.hasPrefix("2023-11-14T22:13:20"))
            let object = try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any]
            #expect(Set(object?.keys ?? [:].keys) == ["time", "caller", "action", "target", "result"])
            #expect(permissions(of: log.path) == 0o600)
        }
    }

    @Test func neverRewritesEarlierLines() throws {
        try withTemporaryDirectory { directory in
            let log = AuditLog(directory: directory)
            let caller = AuditCaller(uid: 1, pid: 2, app: "x")
            try log.append(caller: caller, action: "a", target: "", result: .denied, now: t0)
            let first = try Data(contentsOf: URL(fileURLWithPath: log.path))
            try log.append(caller: caller, action: "b", target: "", result: .denied, now: t0)
            let both = try Data(contentsOf: URL(fileURLWithPath: log.path))
            #expect(both.prefix(first.count) == first)
        }
    }
}
