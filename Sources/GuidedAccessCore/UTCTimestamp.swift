// SPDX-License-Identifier: LGPL-2.1-or-later
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// ISO 8601 times in UTC (`2026-11-24T13:04:53Z`, or `…53.123Z`) for log and
/// audit lines, from the C library's calendar: the daemon formats no other
/// dates, and `Date.ISO8601FormatStyle` would bring FoundationEssentials'
/// calendar code into every start (about 0.2 MB resident).
public enum UTCTimestamp {
    /// `date` as `YYYY-MM-DDThh:mm:ssZ`, or with milliseconds before the `Z`.
    public static func string(_ date: Date, fractionalSeconds: Bool = false) -> String {
        let since1970 = date.timeIntervalSince1970
        var seconds = time_t(since1970.rounded(.down))
        var fields = tm()
        gmtime_r(&seconds, &fields)
        var text = "\(fields.tm_year + 1900)-\(twoDigits(fields.tm_mon + 1))-\(twoDigits(fields.tm_mday))"
            + "T\(twoDigits(fields.tm_hour)):\(twoDigits(fields.tm_min)):\(twoDigits(fields.tm_sec))"
        if fractionalSeconds {
            let milliseconds = min(999, Int((since1970 - since1970.rounded(.down)) * 1000))
            text += "." + String(repeating: "0", count: milliseconds < 10 ? 2 : milliseconds < 100 ? 1 : 0) + String(milliseconds)
        }
        return text + "Z"
    }

    private static func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
