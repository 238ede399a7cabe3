// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import Testing

/// Introspection names the C++ type of every argument and property Qt's
/// `qdbusxml2cpp` cannot type by itself, so Qt apps generate proxies from it.
@Suite struct QtTypeNameTests {
    static let interface = Interface("org.example.Qt1", [
        .method("Configure", in: ["app", "options"], out: ["rows", "path"]) {
            (_, _: String, _: [String: Variant]) -> ([Pair], ObjectPath) in ([], .root)
        },
        .method("Nested", in: ["value"], out: ["value"]) { (_, value: [[String: [Pair]]]) in value },
        .method("Plain", in: ["names", "bytes", "values"]) { (_, _: [String], _: [UInt8], _: [Variant]) in },
        .property("Sources", [String: String].self, get: { [:] }),
        .property("Enforcers", [String: [String]].self, changes: .const, get: { [:] }),
        .property("Counts", [Int32].self, get: { [] }),
        .property("Title", String.self, get: { "" }),
        .signal("Changed", [("what", String.self), ("totals", [UInt64].self)]),
    ])

    @Test func containersAreNamedAsQtDBusMarshalsThem() {
        #expect([String: Variant].qtTypeName == "QVariantMap")
        #expect([String: String].qtTypeName == "QMap<QString,QString>")
        #expect([String: [String]].qtTypeName == "QMap<QString,QStringList>")
        #expect([[String: [Pair]]].qtTypeName == "QList<QMap<QString,QList<Pair>>>")
        #expect([Int32].qtTypeName == "QList<int>")
        #expect([UInt8].qtTypeName == "QByteArray")
        #expect([Variant].qtTypeName == "QVariantList")
        #expect([ObjectPath].qtTypeName == "QList<QDBusObjectPath>")
        #expect([UInt32: Int64].qtTypeName == "QMap<uint,qlonglong>")
    }

    @Test func annotationsOnlyWhereQtNeedsThem() {
        let xml = Self.interface.introspectionXML
        let annotations = xml.split(separator: "\n").filter { $0.contains("org.qtproject.QtDBus.QtTypeName") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(annotations == [
            #"<annotation name="org.qtproject.QtDBus.QtTypeName.In1" value="QVariantMap"/>"#,
            #"<annotation name="org.qtproject.QtDBus.QtTypeName.Out0" value="QList&lt;Pair&gt;"/>"#,
            #"<annotation name="org.qtproject.QtDBus.QtTypeName.In0" value="QList&lt;QMap&lt;QString,QList&lt;Pair&gt;&gt;&gt;"/>"#,
            #"<annotation name="org.qtproject.QtDBus.QtTypeName.Out0" value="QList&lt;QMap&lt;QString,QList&lt;Pair&gt;&gt;&gt;"/>"#,
            #"<annotation name="org.qtproject.QtDBus.QtTypeName" value="QMap&lt;QString,QString&gt;"/>"#,
            #"<annotation name="org.qtproject.QtDBus.QtTypeName" value="QMap&lt;QString,QStringList&gt;"/>"#,
            #"<annotation name="org.qtproject.QtDBus.QtTypeName" value="QList&lt;int&gt;"/>"#,
            #"<annotation name="org.qtproject.QtDBus.QtTypeName.Out1" value="QList&lt;qulonglong&gt;"/>"#,
        ], "\(xml)")
        // Both annotations of a property whose change behaviour is not the default.
        #expect(xml.contains("""
            <property name="Enforcers" type="a{sas}" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="const"/>
              <annotation name="org.qtproject.QtDBus.QtTypeName" value="QMap&lt;QString,QStringList&gt;"/>
            </property>
        """))
    }

    @Test("qdbusxml2cpp -p accepts the XML and types each member as named",
          .enabled(if: QtTools.generator != nil, Comment(rawValue: QtTools.generatorMissing)))
    func qdbusxml2cppAcceptsIt() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("qt-type-names-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let xml = directory.appendingPathComponent("org.example.Qt1.xml")
        try Self.interface.introspectionXML.write(to: xml, atomically: true, encoding: .utf8)
        let generated = try await ProcessRunner.run(
            [try #require(QtTools.generator), "-p", directory.appendingPathComponent("proxy").path, xml.path], timeout: .seconds(30))
        #expect(generated.status == 0 && generated.stderr.isEmpty, "\(generated.stderr)")
        let header = try String(contentsOf: directory.appendingPathComponent("proxy.h"), encoding: .utf8)
        for line in [
            "QDBusPendingReply<QList<Pair> , QDBusObjectPath> Configure(const QString &app, const QVariantMap &options)",
            "QDBusPendingReply<QList<QMap<QString,QList<Pair>>> > Nested(const QList<QMap<QString,QList<Pair>>> &value)",
            "QDBusPendingReply<> Plain(const QStringList &names, const QByteArray &bytes, const QVariantList &values)",
            "Q_PROPERTY(QMap<QString,QStringList> Enforcers READ enforcers)",
            "Q_PROPERTY(QList<int> Counts READ counts)",
            "void Changed(const QString &what, const QList<qulonglong> &totals);",
        ] {
            #expect(header.contains(line), "\(line) not in\n\(header)")
        }
    }
}
