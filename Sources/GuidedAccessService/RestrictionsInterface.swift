import DBusKit
import GuidedAccessContract
import GuidedAccessCore

/// `org.guidedaccess.Restrictions1` and the per-restriction objects.
extension GuidedAccessService {
    var restrictionsDeclaration: Interface {
        Interface(ServiceInterface.restrictions.name, [
            .method("Register", in: ["restrictions"], out: ["objects"]) { (call, entries: [RestrictionEntry]) -> [ObjectPath] in
                try await self.register(call, entries)
            },
            .method("Unregister", in: ["identifiers"]) { (call, identifiers: [String]) in
                _ = try await self.identify(call)
                let changes = try self.model.with { try $0.unregister(owner: call.sender.rawValue, identifiers: identifiers) }
                call.afterReply { self.publish(changes) }
            },
            .method("GetState", in: ["identifier"], out: ["state"]) { (call, identifier: String) -> String in
                _ = try await self.identify(call)
                _ = try RestrictionIdentifier(identifier)
                return self.read { $0.restrictionState(of: identifier).rawValue }
            },
            .method("IsAllowed", in: ["identifier"], out: ["allowed"]) { (call, identifier: String) -> Bool in
                _ = try await self.identify(call)
                _ = try RestrictionIdentifier(identifier)
                return self.read { $0.isRestrictionAllowed(identifier) }
            },
            .method("SetState", in: ["identifier", "state"]) { (call, identifier: String, state: String) in
                try await self.authorized(call, audit: "set-restriction", target: "\(identifier)=\(state)", required: { model in
                    _ = try RestrictionIdentifier(identifier)
                    let parsed = try RestrictionState(parsing: state)
                    return [.configureRestrictions] + [model.sessionAuthority(for: .setRestriction(identifier: identifier, parsed))].compactMap { $0 }
                }, change: { model in (try model.setRestrictionState(state, for: identifier), ()) })
            },
            .method("Reset", in: ["identifiers"]) { (call, identifiers: [String]) in
                try await self.authorized(call, audit: "reset-restrictions", target: identifiers.joined(separator: ","), required: { model in
                    for identifier in identifiers { _ = try RestrictionIdentifier(identifier) }
                    let targets = identifiers.isEmpty ? model.restrictions().map(\.identifier) : identifiers
                    let loosening = targets.compactMap { model.sessionAuthority(for: .setRestriction(identifier: $0, .allow)) }
                    return [.configureRestrictions] + Array(Set(loosening)).sorted { $0.rawValue < $1.rawValue }
                }, change: { model in (try model.resetRestrictions(identifiers), ()) })
            },
            .method("List", out: ["restrictions"]) { call -> [RestrictionRow] in
                _ = try await self.identify(call)
                return self.read { $0.restrictions().map(RestrictionRow.init) }
            },
            .signal("RestrictionChanged", [("identifier", String.self), ("state", String.self)]),
        ])
    }

    private func register(_ call: MethodCall, _ entries: [RestrictionEntry]) async throws -> [ObjectPath] {
        let caller = try await identify(call)
        let declarations = entries.map { RestrictionDeclaration(identifier: $0.identifier, text: $0.text, detail: $0.detail) }
        let changes = try model.with { try $0.register(owner: caller.busName.rawValue, app: caller.app, declarations) }
        watchRegistrant(caller.busName, on: call.connection)
        call.afterReply { self.publish(changes) }
        return try entries.map { entry in
            guard let path = ObjectPath.restriction(entry.identifier) else {
                throw DomainError.failed("cannot build an object path for \(entry.identifier)")
            }
            return path
        }
    }

    /// `org.guidedaccess.Restriction1` for one identifier; each property is
    /// one lookup in the model, as whole-tree reads ask every object.
    func restrictionObjectDeclaration(_ identifier: String) -> Interface {
        Interface(ServiceInterface.restriction.name, [
            .property("Identifier", String.self, changes: .const) { identifier },
            .property("Text", String.self) { self.record(identifier, \.text, absent: "") },
            .property("DetailText", String.self) { self.record(identifier, \.detail, absent: "") },
            .property("State", String.self) { self.read { $0.restrictionState(of: identifier).rawValue } },
            .property("App", String.self) { self.record(identifier, \.app, absent: "") },
            .property("Registered", Bool.self) { self.record(identifier, \.registered, absent: false) },
        ])
    }

    private func record<T>(_ identifier: String, _ field: KeyPath<RestrictionRecord, T>, absent: T) -> T {
        read { $0.registry.records[identifier]?[keyPath: field] ?? absent }
    }
}

/// One `Register` entry: `(identifier, text, detail text)`.
struct RestrictionEntry: DBusStruct {
    let identifier: String, text: String, detail: String
    static let fieldTypes: [any DBusType.Type] = [String.self, String.self, String.self]
    init(fields: DBusStructFields) throws {
        var fields = fields
        identifier = try fields.next()
        text = try fields.next()
        detail = try fields.next()
    }
    var fields: [DBusValue] { [.string(identifier), .string(text), .string(detail)] }
}

/// One `List` row: `(identifier, text, detail, state, app, registered)`.
struct RestrictionRow: DBusStruct {
    let listing: RestrictionListing
    static let fieldTypes: [any DBusType.Type] = [String.self, String.self, String.self, String.self, String.self, Bool.self]
    init(_ listing: RestrictionListing) { self.listing = listing }
    init(fields: DBusStructFields) throws {
        throw DBusError.invalidArgs("List rows are only sent, never received")
    }
    var fields: [DBusValue] {
        [.string(listing.identifier), .string(listing.text), .string(listing.detail), .string(listing.state.rawValue),
         .string(listing.app), .bool(listing.registered)]
    }
}
