// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// Peers nobody here wrote, talking to an object exported with DBusKit.
@Suite struct InteropTests {
    let target = ["org.example.Test", "/org/example/Test"]

    @Test func busctlIntrospectsGetsAndCalls() async throws {
        try await withTestBed { bed in
            let address = "--address=\(bed.bus.address)"
            let introspect = try await bed.run(["busctl", address, "introspect"] + target)
            #expect(introspect.status == 0, "\(introspect.stderr)")
            #expect(introspect.stdout.contains(".AllTypes") && introspect.stdout.contains("ybnqiuxtdsog"))
            #expect(introspect.stdout.contains(".Title") && introspect.stdout.contains("emits-change writable"))
            #expect(introspect.stdout.contains(".Version") && introspect.stdout.contains("const"))

            let get = try await bed.run(["busctl", address, "get-property"] + target + ["org.example.Test1", "Title"])
            #expect(get.stdout == "s \"initial\"\n")

            let call = try await bed.run(["busctl", address, "call"] + target + ["org.example.Test1", "Nested", "aa{sa(is)}", "1", "1", "k", "1", "5", "five"])
            #expect(call.stdout == "aa{sa(is)} 1 1 \"k\" 1 5 \"five\"\n", "\(call.stderr)")

            let set = try await bed.run(["busctl", address, "set-property"] + target + ["org.example.Test1", "Title", "s", "from busctl"])
            #expect(set.status == 0)
            #expect(bed.service.title.withLock { $0 } == "from busctl")

            let tree = try await bed.run(["busctl", address, "tree", "org.example.Test"])
            #expect(tree.stdout.contains("/org/example/Test"))
        }
    }

    @Test func gdbusCalls() async throws {
        try await withTestBed { bed in
            let result = try await bed.run(["gdbus", "call", "--address", bed.bus.address, "--dest", "org.example.Test",
                                            "--object-path", "/org/example/Test", "--method", "org.example.Test1.Echo",
                                            "<{'a': <[int32 1, 2]>}>"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "(<{'a': <[1, 2]>}>,)")
        }
    }

    @Test func dbusSendCallsAndGetsInvalidArgs() async throws {
        try await withTestBed { bed in
            let ok = try await bed.run(["dbus-send", "--bus=\(bed.bus.address)", "--print-reply", "--dest=org.example.Test",
                                        "/org/example/Test", "org.example.Test1.SetCount", "uint32:5"])
            #expect(ok.status == 0, "\(ok.stderr)")
            #expect(bed.service.count.withLock { $0 } == 5)
            let wrong = try await bed.run(["dbus-send", "--bus=\(bed.bus.address)", "--print-reply", "--dest=org.example.Test",
                                           "/org/example/Test", "org.example.Test1.SetCount", "string:five"])
            #expect(wrong.status != 0)
            #expect(wrong.stderr.contains(ErrorName.invalidArgs.rawValue))
        }
    }

    @Test func pythonDBusClientAndIntrospectionXML() async throws {
        let script = """
        import dbus, sys, xml.etree.ElementTree as ET
        bus = dbus.bus.BusConnection(sys.argv[1])
        obj = bus.get_object('org.example.Test', '/org/example/Test')
        test = dbus.Interface(obj, 'org.example.Test1')
        props = dbus.Interface(obj, 'org.freedesktop.DBus.Properties')
        assert test.Echo(dbus.Struct((dbus.Int32(3), 'x'), variant_level=1)) == (3, 'x')
        assert props.Get('org.example.Test1', 'Version') == 7
        all = props.GetAll('org.example.Test1')
        assert set(all.keys()) == {'Title', 'Count', 'Mood', 'Version'}, all
        root = ET.fromstring(obj.Introspect(dbus_interface='org.freedesktop.DBus.Introspectable'))
        iface = [i for i in root.findall('interface') if i.get('name') == 'org.example.Test1'][0]
        print(' '.join(sorted(m.get('name') for m in iface.findall('method'))))
        print(' '.join(sorted(p.get('name') + ':' + p.get('type') + ':' + p.get('access') for p in iface.findall('property'))))
        print(' '.join(i.get('name') for i in root.findall('interface')))
        try:
            test.Fail('org.example.Error.Custom', 'custom message')
        except dbus.DBusException as e:
            print(e.get_dbus_name(), e.get_dbus_message())
        """
        try await withTestBed { bed in
            let result = try await bed.run(["/usr/bin/python3", "-c", script, bed.bus.address])
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 4)
            guard lines.count == 4 else { return }
            #expect(lines[0] == "AllTypes Echo Fail Length Nested SetCount SetMood Sleep WhoAmI")
            #expect(lines[1] == "Count:u:read Mood:s:read Title:s:readwrite Version:u:read")
            #expect(lines[2].contains("org.freedesktop.DBus.Properties") && lines[2].contains("org.freedesktop.DBus.Peer"))
            #expect(lines[3] == "org.example.Error.Custom custom message")
        }
    }

    @Test func introspectionMatchesTheDeclaration() async throws {
        try await withTestBed { bed in
            let reply = try await bed.client.call(TestService.name, TestService.path, .introspectable, "Introspect")
            guard case .string(let xml)? = reply.first else { Issue.record("no XML"); return }
            let declared = declaredFragment(TestService.declaration(bed.service))
            #expect(xml.contains(declared))
            let document = try XMLDocument(xmlString: xml)
            let names = try document.nodes(forXPath: "/node/interface/@name").compactMap(\.stringValue)
            #expect(Set(names) == ["org.freedesktop.DBus.Peer", "org.freedesktop.DBus.Introspectable",
                                   "org.freedesktop.DBus.Properties", "org.example.Test1"])
        }
    }

    @Test func peerPingAndObjectManagerFromBusctl() async throws {
        try await withTestBed { bed in
            let ping = try await bed.run(["busctl", "--address=\(bed.bus.address)", "call", "org.example.Test", "/org/example/Test",
                                          "org.freedesktop.DBus.Peer", "Ping"])
            #expect(ping.status == 0)
            let managed = try await bed.run(["busctl", "--address=\(bed.bus.address)", "call", "org.example.Test", "/org/example",
                                             "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", "--json=short"])
            #expect(managed.status == 0, "\(managed.stderr)")
            #expect(managed.stdout.contains("\"/org/example/Test\"") && managed.stdout.contains("\"Title\""))
        }
    }
}

/// The `<interface>` element the declaration produces, as the object serves it.
func declaredFragment(_ interface: Interface) -> String {
    let document = interface.introspectionXML
    let start = document.range(of: "  <interface")!.lowerBound
    let end = document.range(of: "</interface>\n")!.upperBound
    return String(document[start..<end])
}
