// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusTesting
import Foundation

/// What every case gets: the daemon to run, how hard to push.
struct StressContext: Sendable {
    let daemon: String
    let scale: Scale
    /// Seeds the fuzzer and the kill times, and is printed: a failure replays.
    let seed: UInt64
}

/// The counts of each case: the short form runs in CI, the long one is the issue's.
struct Scale: Sendable {
    let name: String
    let fuzzCalls: Int
    /// The burst case's calls (the run: 20,000).
    let burstCalls: Int
    let kills: Int
    let vanishingClients: Int
    let hungStarts: Int
    let floodCalls: Int
    let limitApps: Int
    /// How many times the limits case changes a restriction and calls `List`
    /// (the run: 200, with 12,800 rows).
    let listRebuilds: Int
    let forgedSignals: Int

    static let short = Scale(name: "short", fuzzCalls: 5_000, burstCalls: 5_000, kills: 20, vanishingClients: 200, hungStarts: 200,
                             floodCalls: 20_000, limitApps: 5, listRebuilds: 20, forgedSignals: 200)
    static let long = Scale(name: "long", fuzzCalls: 50_000, burstCalls: 20_000, kills: 200, vanishingClients: 1_000, hungStarts: 200,
                            floodCalls: 100_000, limitApps: 50, listRebuilds: 200, forgedSignals: 2_000)
}

/// One row of the table.
struct CaseResult {
    let counts: String
    let figures: String
    let passed: Bool
    var seconds = 0.0

    init(counts: String, figures: String, passed: Bool) {
        self.counts = counts
        self.figures = figures
        self.passed = passed
    }
}

/// A progress line on stderr, so the table on stdout stays clean.
func progress(_ text: String) {
    FileHandle.standardError.write(Data("… \(text)\n".utf8))
}

/// `p50 / p99 / max` of millisecond samples.
func latencies(_ samples: [Double]) -> String {
    String(format: "p50 %.2f, p99 %.2f, max %.2f ms", Measuring.percentile(samples, 0.5),
           Measuring.percentile(samples, 0.99), samples.max() ?? .nan)
}
