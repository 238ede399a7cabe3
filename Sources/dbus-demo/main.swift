// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import Locking

// A small object for trying the D-Bus layer with busctl. Serves
// org.example.Demo1 at /org/example/Demo on the session bus, or on the bus
// given as the first argument.

let counter = Locked<UInt32>(0)
let address: BusAddress = CommandLine.arguments.count > 1 ? .address(CommandLine.arguments[1]) : .session
let connection = try Connection(address)
let path: ObjectPath = "/org/example/Demo"
let interface: InterfaceName = "org.example.Demo1"

connection.export(path, [
    Interface(interface, [
        .property("Counter", UInt32.self, get: { counter.withLock { $0 } }, set: { _, value in counter.withLock { $0 = value } }),
        .method("Echo", in: ["value"], out: ["value"]) { (_, value: Variant) in value },
        .method("Increment", out: ["counter"]) { call -> UInt32 in
            let value = counter.withLock { $0 += 1; return $0 }
            call.connection.propertiesChanged(path, interface, ["Counter"])
            try call.connection.emit(path, interface, "Incremented", [.uint32(value)])
            return value
        },
        .signal("Incremented", [("counter", UInt32.self)]),
    ]),
])
try await connection.requestName("org.example.Demo1")
print("org.example.Demo1 is on the bus as \(connection.uniqueName); try:")
print("  busctl --user introspect org.example.Demo1 /org/example/Demo")
while true { try await Task.sleep(for: .seconds(3600)) }
