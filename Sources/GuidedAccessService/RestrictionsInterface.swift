// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import GuidedAccessContract
import GuidedAccessCore

/// `org.guidedaccess.Restrictions1` and the per-restriction objects.
extension GuidedAccessService {
    var restrictionsDeclaration: Interface {
        Interface(ServiceInterface.restrictions.name, [
            .method(Contract.Restrictions.register) { call, entries in
                try await self.register(call, entries)
            },
            .method(Contract.Restrictions.unregister) { call, identifiers in
                _ = try await self.identify(call)
                let changes = try await self.model.with { try $0.unregister(owner: call.sender.rawValue, identifiers: identifiers) }
                call.afterReply { self.publish(changes) }
            },
            // Reads that apps make often: answered on the loop thread, so
            // even a flood of them holds up other callers little. Callers of
            // another user never get here (the call policy refuses them).
            .immediateMethod(Contract.Restrictions.getState) { _, identifier in
                _ = try RestrictionIdentifier(identifier)
                return self.read { $0.restrictionState(of: identifier).rawValue }
            },
            .immediateMethod(Contract.Restrictions.isAllowed) { _, identifier in
                _ = try RestrictionIdentifier(identifier)
                return self.read { $0.isRestrictionAllowed(identifier) }
            },
            .method(Contract.Restrictions.setState) { call, identifier, state in
                try await self.authorized(call, audit: "set-restriction", target: "\(identifier)=\(state)", required: { model in
                    _ = try RestrictionIdentifier(identifier)
                    let parsed = try RestrictionState(parsing: state)
                    return [.configureRestrictions] + [model.sessionAuthority(for: .setRestriction(identifier: identifier, parsed))].compactMap { $0 }
                }, change: { model in (try model.setRestrictionState(state, for: identifier), ()) })
            },
            .method(Contract.Restrictions.reset) { call, identifiers in
                try await self.authorized(call, audit: "reset-restrictions", target: identifiers.joined(separator: ","), required: { model in
                    for identifier in identifiers { _ = try RestrictionIdentifier(identifier) }
                    let targets = identifiers.isEmpty ? model.restrictions().map(\.identifier) : identifiers
                    let loosening = targets.compactMap { model.sessionAuthority(for: .setRestriction(identifier: $0, .allow)) }
                    return [.configureRestrictions] + Array(Set(loosening)).sorted { $0.rawValue < $1.rawValue }
                }, change: { model in (try model.resetRestrictions(identifiers), ()) })
            },
            // The same for every caller: kept marshalled until the model
            // changes (12,800 rows take ~35 ms to build, a copy well under 1).
            .method(Contract.Restrictions.list, cachingReplyIn: listReply) { call in
                _ = try await self.identify(call)
                return self.read { $0.restrictions().map(RestrictionRow.init) }
            },
            .property(Contract.Restrictions.forced) { self.read { $0.managedConfig.restrictions.keys.sorted() } },
            .signal(Contract.Restrictions.restrictionChanged),
        ])
    }

    private func register(_ call: MethodCall, _ entries: [RestrictionEntry]) async throws -> [ObjectPath] {
        let caller = try await identify(call)
        let declarations = entries.map { RestrictionDeclaration(identifier: $0.identifier, text: $0.text, detail: $0.detail) }
        let changes = try await model.with { try $0.register(owner: caller.busName.rawValue, app: caller.app, declarations) }
        watchRegistrant(caller.busName, on: call.connection)
        call.afterReply { self.publish(changes) }
        return try entries.map { entry in
            guard let path = ObjectPath.restriction(entry.identifier) else {
                throw DomainError.failed("cannot build an object path for \(entry.identifier)")
            }
            return path
        }
    }

    /// `org.guidedaccess.Restriction1`, one value shared by every restriction
    /// object: each getter finds its identifier from the object's path, and
    /// each property is one lookup in the model, as whole-tree reads ask
    /// every object.
    var restrictionObjectDeclaration: Interface {
        restrictionObject.withLock { cached in
            if let cached { return cached }
            let identifier: @Sendable (ObjectPath) -> String = { ObjectPath.restrictionIdentifier(at: $0) ?? "" }
            let declaration = Interface(ServiceInterface.restriction.name, [
                .property(Contract.Restriction.identifier, at: identifier),
                .property(Contract.Restriction.text) { self.record(identifier($0), \.text, absent: "") },
                .property(Contract.Restriction.detailText) { self.record(identifier($0), \.detail, absent: "") },
                .property(Contract.Restriction.state) { path in self.read { $0.restrictionState(of: identifier(path)).rawValue } },
                .property(Contract.Restriction.app) { self.record(identifier($0), \.app, absent: "") },
                .property(Contract.Restriction.registered) { self.record(identifier($0), \.registered, absent: false) },
            ])
            cached = declaration
            return declaration
        }
    }

    private func record<T>(_ identifier: String, _ field: KeyPath<RestrictionRecord, T>, absent: T) -> T {
        read { $0.registry.records[identifier]?[keyPath: field] ?? absent }
    }
}

extension RestrictionRow {
    init(_ listing: RestrictionListing) {
        self.init(identifier: listing.identifier, text: listing.text, detail: listing.detail, state: listing.state.rawValue,
                  app: listing.app, registered: listing.registered)
    }
}
