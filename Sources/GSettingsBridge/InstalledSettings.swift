// SPDX-License-Identifier: LGPL-2.1-or-later
import CGIO

/// The installed GSettings keys the bridge uses, one `GSettings` object per
/// schema. Lives on the ``GLibThread``: create and use it only inside `perform`.
///
/// GLib aborts the process on an unknown schema or key, so every key is
/// looked up in the schema source first; one that is missing, or whose
/// type differs from what the mapping needs, is reported and left out.
final class InstalledSettings {
    private var settings: [String: UnsafeMutablePointer<GSettings>] = [:]
    private var types: [SettingKey: String] = [:]
    private var handlers: [Unmanaged<ChangeHandler>] = []
    private var missingSchemas: Set<String> = []
    /// Why keys were left out, one line per schema or key.
    private(set) var problems: [String] = []

    /// Looks up `key`; `requiredType` (a GVariant type string) is checked when given.
    /// True when the key can be used.
    func install(_ key: SettingKey, requiredType: String? = nil) -> Bool {
        if types[key] != nil { return requiredType == nil || types[key] == requiredType }
        guard let schema = lookUpSchema(key.schema) else { return false }
        defer { g_settings_schema_unref(schema) }
        guard g_settings_schema_has_key(schema, key.key) != 0 else {
            problems.append("\(key): the installed schema \(key.schema) has no key \(key.key); left to the service")
            return false
        }
        let schemaKey = g_settings_schema_get_key(schema, key.key)
        defer { g_settings_schema_key_unref(schemaKey) }
        let typeString = g_variant_type_dup_string(g_settings_schema_key_get_value_type(schemaKey))
        let type = String(cString: typeString!)
        g_free(typeString)
        if let requiredType, type != requiredType {
            problems.append("\(key) has type \(type) in the installed schema, not \(requiredType); left to the service")
            return false
        }
        if settings[key.schema] == nil { settings[key.schema] = g_settings_new(key.schema) }
        types[key] = type
        return true
    }

    /// The installed key's GVariant type string.
    func type(of key: SettingKey) -> String? { types[key] }

    /// Calls `handler(key)` on this thread whenever any installed key of
    /// `schema` changes, by anyone, in value or in writability (a dconf
    /// lock added or removed).
    func watch(schema: String, _ handler: @escaping (SettingKey) -> Void) {
        guard let object = settings[schema] else { return }
        let box = Unmanaged.passRetained(ChangeHandler(schema: schema, handler))
        handlers.append(box)
        for signal in ["changed", "writable-changed"] {
            _ = cgio_connect_key_signal(UnsafeMutableRawPointer(object), signal, { _, key, data in
                guard let key, let data else { return }
                let handler = Unmanaged<ChangeHandler>.fromOpaque(data).takeUnretainedValue()
                handler.call(SettingKey(handler.schema, String(cString: key)))
            }, box.toOpaque())
        }
    }

    /// Schemas with at least one installed key.
    var schemas: [String] { Array(settings.keys) }

    // MARK: Values

    /// The current value decoded for a feature mapping.
    func decodedValue(of key: SettingKey) -> SettingValue {
        guard let value = value(of: key) else { return .other }
        defer { g_variant_unref(value) }
        switch types[key] {
        case "b": return .bool(g_variant_get_boolean(value) != 0)
        case "d": return .double(g_variant_get_double(value))
        default: return .other
        }
    }

    /// The key's value as the store holds it now, for the bridge's cache.
    func snapshot(of key: SettingKey) -> CachedSetting {
        CachedSetting(decoded: decodedValue(of: key), userValue: userValueText(of: key), text: value(of: key).map { value in
            defer { g_variant_unref(value) }
            return text(value)
        }, writable: settings[key.schema].map { g_settings_is_writable($0, key.key) != 0 } ?? false)
    }

    /// True when the store holds `text` for `key`, or the key at its default when `text` is nil.
    func holds(_ key: SettingKey, _ text: String?) -> Bool {
        guard let text else { return userValueText(of: key) == nil }
        return hasValue(key, text)
    }

    /// The value the user set, in GVariant text form; `nil` when the key is at its default.
    func userValueText(of key: SettingKey) -> String? {
        guard let object = settings[key.schema], let value = g_settings_get_user_value(object, key.key) else { return nil }
        defer { g_variant_unref(value) }
        return text(value)
    }

    /// True when the current value equals `text` (parsed as the key's type).
    func hasValue(_ key: SettingKey, _ text: String) -> Bool {
        guard let current = value(of: key), let wanted = parse(text, as: key) else { return false }
        defer {
            g_variant_unref(current)
            g_variant_unref(wanted)
        }
        return g_variant_equal(UnsafeRawPointer(current), UnsafeRawPointer(wanted)) != 0
    }

    /// Writes `text` to `key`. Throws a message naming the reason it could not.
    func write(_ key: SettingKey, _ text: String) throws(SettingError) {
        guard let object = settings[key.schema] else { throw SettingError("\(key) is not installed") }
        guard g_settings_is_writable(object, key.key) != 0 else {
            throw SettingError("\(key) is not writable (locked with a dconf lock?)")
        }
        guard let value = parse(text, as: key) else { throw SettingError("\(text) is not a valid value for \(key)") }
        defer { g_variant_unref(value) }
        guard inRange(value, key) else {
            throw SettingError("\(text) is outside the range the schema allows for \(key)")
        }
        guard g_settings_set_value(object, key.key, value) != 0 else { throw SettingError("GSettings refused \(text) for \(key)") }
    }

    /// The strings of an `as` key, nil for another type.
    func strings(of key: SettingKey) -> [String]? {
        guard types[key] == "as", let value = value(of: key) else { return nil }
        defer { g_variant_unref(value) }
        return (0..<g_variant_n_children(value)).map { index in
            let child = g_variant_get_child_value(value, index)!
            defer { g_variant_unref(child) }
            return String(cString: g_variant_get_string(child, nil))
        }
    }

    /// Writes the strings of an `as` key, whatever they hold (no text to parse).
    func write(_ key: SettingKey, strings: [String]) throws(SettingError) {
        guard let object = settings[key.schema], types[key] == "as" else { throw SettingError("\(key) is not an installed list") }
        guard g_settings_is_writable(object, key.key) != 0 else {
            throw SettingError("\(key) is not writable (locked with a dconf lock?)")
        }
        let copies = strings.map { UnsafePointer(strdup($0)) }
        defer { copies.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
        let value = copies.withUnsafeBufferPointer { g_variant_new_strv($0.baseAddress, gssize(copies.count)) }
        guard g_settings_set_value(object, key.key, value) != 0 else { throw SettingError("GSettings refused \(strings) for \(key)") }
    }

    /// Puts `key` back to its default (removes the user's value).
    func reset(_ key: SettingKey) throws(SettingError) {
        guard let object = settings[key.schema] else { throw SettingError("\(key) is not installed") }
        guard g_settings_is_writable(object, key.key) != 0 else {
            throw SettingError("\(key) is not writable (locked with a dconf lock?)")
        }
        g_settings_reset(object, key.key)
    }

    /// Waits until every write so far has reached the backend (dconf: the
    /// writer service has it on disk).
    func sync() { g_settings_sync() }

    // MARK: Helpers

    /// Whether the installed schema allows `value` for `key`.
    private func inRange(_ value: OpaquePointer, _ key: SettingKey) -> Bool {
        guard let source = g_settings_schema_source_get_default(),
              let schema = g_settings_schema_source_lookup(source, key.schema, 1) else { return false }
        defer { g_settings_schema_unref(schema) }
        guard let schemaKey = g_settings_schema_get_key(schema, key.key) else { return false }
        defer { g_settings_schema_key_unref(schemaKey) }
        return g_settings_schema_key_range_check(schemaKey, value) != 0
    }

    private func lookUpSchema(_ id: String) -> OpaquePointer? {
        guard let source = g_settings_schema_source_get_default(),
              let schema = g_settings_schema_source_lookup(source, id, 1) else {
            if missingSchemas.insert(id).inserted {
                problems.append("schema \(id) is not installed; its features stay with the service, its restrictions are only published")
            }
            return nil
        }
        return schema
    }

    private func value(of key: SettingKey) -> OpaquePointer? {
        guard let object = settings[key.schema], types[key] != nil else { return nil }
        return g_settings_get_value(object, key.key)
    }

    /// A new (sunk) GVariant of the key's type, or nil when `text` does not parse.
    private func parse(_ text: String, as key: SettingKey) -> OpaquePointer? {
        guard let typeString = types[key] else { return nil }
        let type = g_variant_type_new(typeString)
        defer { g_variant_type_free(type) }
        guard let value = g_variant_parse(type, text, nil, nil, nil) else { return nil }
        return g_variant_ref_sink(value)
    }

    private func text(_ value: OpaquePointer) -> String {
        let printed = g_variant_print(value, 0)!
        defer { g_free(printed) }
        return String(cString: printed)
    }
}

/// A key's value as the bridge keeps it between change notifications.
struct CachedSetting: Equatable, Sendable {
    /// Decoded for a feature mapping.
    var decoded: SettingValue
    /// What the user set (text form); nil at the default.
    var userValue: String?
    /// The current value in text form, for messages.
    var text: String?
    /// False while the store refuses writes to the key (a dconf lock).
    var writable: Bool
}

/// Why a setting could not be written.
struct SettingError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

private final class ChangeHandler {
    let schema: String
    let call: (SettingKey) -> Void
    init(schema: String, _ call: @escaping (SettingKey) -> Void) {
        self.schema = schema
        self.call = call
    }
}
