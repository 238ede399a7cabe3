// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation
import Testing
@testable import GuidedAccessCore

@Suite("Launch budget")
struct LaunchBudgetTests {
    @Test("3 launches in any minute of a session; the fourth waits until the first is a minute old; a new session has all 3 again")
    func threeAMinute() {
        var budget = LaunchBudget()
        let t0 = Date(timeIntervalSince1970: 1_700_000_000)
        var taken: [Bool] = []
        for second in [0.0, 1, 2, 3, 59.9, 60, 60.5] { taken.append(budget.take(session: 1, now: t0.addingTimeInterval(second))) }
        #expect(taken == [true, true, true, false, false, true, false])
        let newSession = budget.take(session: 2, now: t0.addingTimeInterval(61))
        #expect(newSession)
    }
}
