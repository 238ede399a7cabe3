// SPDX-License-Identifier: LGPL-2.1-or-later
import FoundationEssentials

/// Writes `state.json`. The small parts go through `JSONEncoder`; the two
/// that grow with the registry (records and states, thousands of entries)
/// are written directly, which is several times faster and matters because
/// the file is rewritten on every change. The output is the JSON that
/// `PersistentState`'s `Decodable` reads, keys sorted, records by identifier.
enum StateFileEncoding {
    static func encode(_ state: PersistentState) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var out: [UInt8] = []
        out.reserveCapacity(256 + state.restrictionRecords.count * 160)
        out += Array("{".utf8)
        if let originals = state.desktopOriginals {
            field("desktopOriginals", try encoder.encode(originals), into: &out)
        }
        if let originals = state.featureOriginals {
            field("featureOriginals", try encoder.encode(originals), into: &out)
        }
        field("featureValues", try encoder.encode(state.featureValues), into: &out)
        if let lastOptions = state.lastOptions {
            field("lastOptions", try encoder.encode(lastOptions), into: &out)
        }
        field("passcode", try encoder.encode(state.passcode), into: &out)
        key("restrictionRecords", into: &out)
        out.append(UInt8(ascii: "["))
        for (index, record) in state.restrictionRecords.sorted(by: { $0.identifier < $1.identifier }).enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += Array(#"{"app":"#.utf8)
            string(record.app, into: &out)
            out += Array(#","detail":"#.utf8)
            string(record.detail, into: &out)
            out += Array(#","identifier":"#.utf8)
            string(record.identifier, into: &out)
            out += Array(#","sequence":\#(record.sequence),"text":"#.utf8)
            string(record.text, into: &out)
            out.append(UInt8(ascii: "}"))
        }
        out += Array("],".utf8)
        key("restrictionStates", into: &out)
        out.append(UInt8(ascii: "{"))
        for (index, entry) in state.restrictionStates.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            string(entry.key, into: &out)
            out.append(UInt8(ascii: ":"))
            string(entry.value.rawValue, into: &out)
        }
        out += Array("},".utf8)
        field("session", try encoder.encode(state.session), into: &out)
        key("version", into: &out)
        out += Array("\(state.version)}\n".utf8)
        return Data(out)
    }

    private static func key(_ name: String, into out: inout [UInt8]) {
        string(name, into: &out)
        out.append(UInt8(ascii: ":"))
    }

    private static func field(_ name: String, _ json: Data, into out: inout [UInt8]) {
        key(name, into: &out)
        out += json
        out.append(UInt8(ascii: ","))
    }

    /// A JSON string: quotes, backslashes and control characters escaped, the rest as UTF-8.
    private static func string(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0..<0x20: out += Array("\\u00".utf8) + [hexDigit(byte >> 4), hexDigit(byte & 0xF)]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
