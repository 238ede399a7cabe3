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

    /// Resident set size of `pid` in MB (`VmRSS`), or 0 when it cannot be read.
    public static func residentMegabytes(_ pid: pid_t) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
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
