// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusTesting
import Foundation

/// One line of the table: our figure beside the reference measured in the same run.
struct Row {
    let figure: String
    let ours: String
    let reference: String
    let target: String
    /// Whether the target was met; nil for a figure printed for the record.
    let met: Bool?
}

/// `p50 / p99` of millisecond samples.
func quantiles(_ samples: [Double]) -> String {
    String(format: "%.2f / %.2f", Measuring.percentile(samples, 0.5), Measuring.percentile(samples, 0.99))
}

func printTable(_ rows: [Row]) {
    func cell(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
    let widths = (figure: 38, ours: 17, reference: 44, target: 22)
    print(cell("figure", widths.figure) + cell("ours", widths.ours) + cell("reference, same run", widths.reference)
          + cell("target", widths.target) + "result")
    for row in rows {
        let result = row.met.map { $0 ? "ok" : "MISSED" } ?? "-"
        print(cell(row.figure, widths.figure) + cell(row.ours, widths.ours) + cell(row.reference, widths.reference)
              + cell(row.target, widths.target) + result)
    }
}

/// A progress line on stderr, so the table on stdout stays clean.
func progress(_ text: String) {
    FileHandle.standardError.write(Data("… \(text)\n".utf8))
}
