// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation
import Testing
@testable import GuidedAccessCore

@Suite("UTC timestamps")
struct UTCTimestampTests {
    /// Times around the edges that trip a hand-written formatter: the epoch,
    /// a leap day, the last millisecond of a year, single-digit fields.
    static let dates = [0, 951_782_400.5, 1_700_000_000.007, 1_704_067_199.999, 1_764_000_000.09].map(Date.init(timeIntervalSince1970:))

    @Test(arguments: dates) func matchesFoundationsISO8601(date: Date) {
        #expect(UTCTimestamp.string(date) == date.formatted(.iso8601))
        #expect(UTCTimestamp.string(date, fractionalSeconds: true)
            == date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
    }
}
