// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import GuidedAccessContract

/// The huge share of the fuzz: messages of 64 KiB to 4 MiB, seeded like the
/// rest. They reproduce issue 29's run, where such messages grew the
/// daemon's RSS 4.9× and kept it: after they have been answered, the daemon
/// must give that memory back.
///
/// Every kind stays under the bus's limits (a message the bus refuses gets
/// the fuzzer disconnected, which tests the bus, not the daemon), and what a
/// valid one may make the daemon keep is bounded: its registrations use the
/// fuzzer's 64 identifiers, so the state they leave is at most 64 titles
/// and details, whatever the run's length.
extension CallFuzzer {
    /// One call in this many is huge.
    static let hugeOneIn = 40

    /// Text lengths around the 4,000-byte limit of a title or detail, and past it.
    static let textLengths = [3_999, 4_000, 4_001, 65_536]

    /// A huge call of one of five kinds, roughly `size` bytes of body.
    mutating func hugeCall() throws -> Message {
        let size = (64 * 1024) << Int.random(in: 0...6, using: &random)
        switch Int.random(in: 0..<5, using: &random) {
        case 0: return try call("org.guidedaccess.Restrictions1", "Register", [titlesRegistration()])
        case 1: return try call("org.guidedaccess.Restrictions1", "Register", [oversizedRegistration(size)])
        case 2: return try longTextCall(size)
        case 3: return try deepVariantCall(size)
        default: return try wrongSignatureCall(size)
        }
    }

    private func call(_ interface: InterfaceName, _ member: MemberName, _ arguments: [DBusValue],
                      path: ObjectPath = .guidedAccess) throws -> Message {
        try Message.methodCall(destination: .guidedAccess, path: path, interface: interface, member: member,
                               arguments: arguments)
    }

    /// A valid `Register` of up to 64 of the fuzzer's identifiers with
    /// titles and details near the limit (about 500 KiB): what the daemon
    /// keeps of it is state, bounded by the 64 identifiers.
    private mutating func titlesRegistration() -> DBusValue {
        let count = Int.random(in: 1...64, using: &random)
        let first = Int.random(in: 0..<64, using: &random)
        let text = String(repeating: "t", count: 3_999), detail = String(repeating: "d", count: 3_999)
        return .array(element: "(sss)", (0..<count).map {
            .structure([.string("org.stress.fuzz.r\((first + $0) % 64)"), .string(text), .string(detail)])
        })
    }

    /// A `Register` of `size` bytes: more entries than a connection may
    /// hold, or texts past the limit, so the daemon refuses it whole.
    private mutating func oversizedRegistration(_ size: Int) -> DBusValue {
        let length = Self.textLengths.randomElement(using: &random)!
        let text = String(repeating: "x", count: length)
        let count = max(257, size / (2 * length + 40))
        return .array(element: "(sss)", (0..<count).map {
            .structure([.string("org.stress.huge.r\($0)"), .string(text), .string(length < 4_000 ? text : "")])
        })
    }

    /// A right signature with every string near the text limit or `size` long.
    private mutating func longTextCall(_ size: Int) throws -> Message {
        let targets = members.filter { $0.signature?.contains("s") == true }
        let target = targets.randomElement(using: &random)!
        let lengths = Self.textLengths + [size]
        var arguments = try values(for: target.signature!)
        arguments = arguments.map { stretch($0, to: lengths.randomElement(using: &random)!) }
        return try call(target.interface, target.member, arguments)
    }

    /// Strings at the top level or in a struct, `length` bytes long.
    private func stretch(_ value: DBusValue, to length: Int) -> DBusValue {
        switch value {
        case .string: .string(String(repeating: "s", count: length))
        case .structure(let fields): .structure(fields.map { stretch($0, to: length) })
        default: value
        }
    }

    /// Variants nested 16 to 26 deep around an `a{sv}` of two halves of
    /// `size`, as `Start`'s options or a property's new value: with the
    /// call's own containers, up to the 32 levels the bus lets through.
    private mutating func deepVariantCall(_ size: Int) throws -> Message {
        let half = DBusValue.variant(.string(String(repeating: "v", count: size / 2)))
        var value = DBusValue.dictionary(key: "s", value: "v", [.init(key: .string("a"), value: half),
                                                                .init(key: .string("time-limit"), value: half)])
        for _ in 0..<Int.random(in: 16...26, using: &random) { value = .variant(value) }
        if Bool.random(using: &random) {
            return try call("org.guidedaccess.GuidedAccess1", "Start",
                            [.string("/usr/bin/true"), .dictionary(key: "s", value: "v", [.init(key: .string("restrictions"), value: value)])])
        }
        return try call(.properties, "Set", [.string("org.guidedaccess.GuidedAccess1"), .string("DisabledRegions"), .variant(value)])
    }

    /// A member given `size` bytes of arguments it does not take.
    private mutating func wrongSignatureCall(_ size: Int) throws -> Message {
        let target = members.filter { $0.signature != nil }.randomElement(using: &random)!
        let argument: DBusValue = switch Int.random(in: 0..<3, using: &random) {
        case 0: .string(String(repeating: "w", count: size))
        case 1: .array(element: "s", Array(repeating: .string(String(repeating: "a", count: 60)), count: size / 64))
        default: .array(element: "(sss)", Array(repeating: .structure([.string("a"), .string("b"), .string("c")]), count: size / 16))
        }
        return try call(target.interface, target.member, [argument])
    }
}
