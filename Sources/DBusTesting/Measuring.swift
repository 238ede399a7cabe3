// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation

/// Figures for benchmarks: elapsed time, percentiles and a process's memory.
public enum Measuring {
    /// Milliseconds `body` took.
    public static func milliseconds(_ body: () async throws -> Void) async rethrows -> Double {
        let start = ContinuousClock.now
        try await body()
        return (ContinuousClock.now - start).milliseconds
    }

    /// The `p` quantile (0...1) of `samples`, nearest rank.
    public static func percentile(_ samples: [Double], _ p: Double) -> Double {
        guard !samples.isEmpty else { return .nan }
        let sorted = samples.sorted()
        return sorted[max(0, min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1))]
    }

    /// Jiffies of all CPUs from `/proc/stat`: (total, stolen by the hypervisor).
    public static func cpuJiffies() -> (total: Double, steal: Double) {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = stat.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return (0, 0) }
        let values = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        return (values.reduce(0, +), values.count > 7 ? values[7] : 0)
    }

    /// The share of CPU time the hypervisor took since `before` (from ``cpuJiffies()``):
    /// figures are only as steady as the share a VM gets.
    public static func stolenShare(since before: (total: Double, steal: Double)) -> Double {
        let after = cpuJiffies()
        return (after.steal - before.steal) / max(1, after.total - before.total)
    }

    /// Resident set size of `pid` in MB, or 0 when it cannot be read:
    /// `VmRSS`, or one of its parts (`RssAnon`, `RssFile`, `RssShmem`).
    public static func residentMegabytes(_ pid: pid_t, part field: String = "VmRSS") -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
              let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes / 1024
    }
}

extension Duration {
    /// The duration in milliseconds.
    public var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
